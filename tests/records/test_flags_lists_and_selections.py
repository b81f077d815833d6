"""Flags and empty sections (something said to be there where the record holds nothing), a
state said of each name of a list, release and sync states, selections ("the last two
successful runs"), numbers that are part of a name, what a claim after a parenthesised aside
inherits, another row's measure outside its clause, headers one space parts (``df``), the
units a tool writes its columns in (``ps``'s RSS in KiB), row labels a header leaves unnamed
(``free``), sizes in GB of a tool's GiB, and the key a claim writes as code beside a value.
Each class a table row, with the row that must not pass beside the row that must."""

from __future__ import annotations

import json

import pytest

from gsar_otel.judges.records.text_reader import read_text
from tests.records.support import outcomes

INSPECT = json.dumps([{"Name": "/payments-svc", "State": {
    "Status": "restarting", "Running": True, "OOMKilled": False, "ExitCode": 1},
    "Config": {"Image": "payments-svc:2.14.1"}}])
PS = ("NAMES          IMAGE                 STATUS\n"
      "payments-svc   payments-svc:2.14.1   Restarting (1) 2 seconds ago")
CLUSTER = ("Cluster status of node rabbit@mq-01 ...\n\nRunning Nodes\n\nrabbit@mq-01\n"
           "rabbit@mq-03\n\nAlarms\n\nMemory alarm on node rabbit@mq-03\n\n"
           "Network Partitions\n\n(none)\n\nListeners\n\nNode: rabbit@mq-01, port: 5672")
HELM = ("NAME         NAMESPACE   REVISION  STATUS           CHART\n"
        "loki         monitoring  17        failed           loki-6.18.0\n"
        "promtail     monitoring  9         deployed         promtail-6.16.6\n"
        "tempo        monitoring  5         pending-upgrade  tempo-1.10.3\n"
        "grafana      monitoring  23        deployed         grafana-8.5.2")
ARGO = ("NAME        SYNC STATUS  HEALTH STATUS\n"
        "kyverno     OutOfSync    Healthy\n"
        "velero      Synced       Healthy")
BUILDS = json.dumps({"builds": [
    {"number": 405, "result": "SUCCESS"}, {"number": 404, "result": "FAILURE"},
    {"number": 403, "result": "SUCCESS"}],
    "lastBuild": {"number": 405}, "lastFailedBuild": {"number": 404}})
NODES = json.dumps([{"name": "rabbit@mq-01", "mem_alarm": False, "mem_used": 2411204608},
                    {"name": "rabbit@mq-03", "mem_alarm": True, "mem_used": 6812004352}])


DF = ("Filesystem                  Size  Used Avail Use% Mounted on\n"
      "/dev/mapper/vg0-log          20G   18G  2.1G  89% /var/log\n"
      "/dev/mapper/vg1-pgdata      1.8T  1.6T  147G  92% /var/lib/postgresql\n"
      "/dev/mapper/vg1-pgwal       197G  118G   70G  63% /var/lib/postgresql/16/main/pg_wal")
PS_RSS = {"source": "ps -eo pid,user,rss,comm --sort=-rss | head -n 3",
          "content": "    PID USER       RSS COMMAND\n  21877 elastic  41203512 java\n"
                     "   3120 root     6102448 dockerd"}


FREE = {"source": "free -b",
        "content": "               total        used        free      shared  buff/cache   "
                   "available\n"
                   "Mem:     33566244864  9123418112  1043206144   211238912 23399620608 "
                   "23845560320\n"
                   "Swap:     4294963200           0  4294963200"}
IOSTAT = {"source": "iostat -x 5 2 | tail -n 4",
          "content": "Device            r/s     rkB/s   %rrqm r_await     w/s     wkB/s  %util\n"
                     "nvme0n1         12.40    198.40    0.00    0.21   41.20    880.00   1.88\n"
                     "sdb            188.00  24064.00    2.08   18.44  612.40  78380.80  99.60"}
LSBLK = ("NAME        SIZE ROTA TYPE MOUNTPOINT\n"
         "sda       447.1G    0 disk \n"
         "└─sda1    447.1G    0 part /\n"
         "nvme0n1     3.5T    0 disk \n"
         "nvme1n1     3.5T    0 disk ")
MEMINFO = "Dirty:             48120 kB\nWriteback:             0 kB"


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a flag the record holds false, or a section reading "(none)": said to be there,
    # contradicted; said not to be, verified; a claim writing the value itself says it
    ("It is being OOM-killed: `OOMKilled` is set.", [INSPECT], ["contradicted"]),
    ("It is not being OOM-killed: `OOMKilled` is not set.", [INSPECT], ["verified"]),
    ("`payments-svc` has `OOMKilled` false.", [INSPECT], ["verified"]),
    ("There is a network partition.", [CLUSTER], ["contradicted"]),
    ("There is no network partition.", [CLUSTER], ["verified"]),
    ("`rabbit@mq-01` has a memory alarm.", [NODES], ["contradicted"]),
    ("`rabbit@mq-03` has a memory alarm.", [NODES], ["unverified"]),
    # what follows a parenthesised aside is said of the name before it: "It" is the container
    ("`payments-svc` (image `payments-svc:2.14.1`) restarts. It is being OOM-killed: "
     "`OOMKilled` is set.", [PS, INSPECT], ["verified", "contradicted"]),
    # release and sync states; the whole word decides before its head ("pending-upgrade" is
    # no "pending"); a state is no name of the row holding it
    ("`promtail` is stuck in `pending-upgrade`.", [HELM], ["contradicted"]),
    ("`tempo` is stuck in `pending-upgrade`.", [HELM], ["verified"]),
    ("`kyverno` is OutOfSync.", [ARGO], ["verified"]),
    ("`velero` is OutOfSync.", [ARGO], ["contradicted"]),
    # a state said after a list of names is said of each of them
    ("`promtail`, `tempo` and `grafana` are `deployed`.", [HELM], ["contradicted"]),
    ("`promtail` and `grafana` are `deployed`.", [HELM], ["verified"]),
    # a selection: the number is how many are picked, the state picks them out
    ("The last two successful runs are #405 and #403.", [BUILDS], ["verified"]),
    ("The last successful run was #405.", [BUILDS], ["verified"]),
    ("Run #404 was successful.", [BUILDS], ["contradicted"]),
    # a flag written with its value says whether it is set
    ("`payments-svc` has `OOMKilled` false.", [INSPECT], ["verified"]),
    # a header one space parts is read word by word ("Mounted on" one name); a measure of
    # another row is contradicted outside its clause too when the claim speaks of one row
    ("`/var/lib/postgresql` is the fullest at 92% — 1.6T used with about 147G left.", [DF],
     ["verified"]),
    ("`/var/lib/postgresql` is the fullest at 92% — 1.6T used with about 70G left.", [DF],
     ["contradicted"]),
    # ... but not where the claim speaks of several ("either", "respectively") or picks one
    # out ("the fullest")
    ("Neither is full: 89% and 63%.", [DF], ["verified"]),
    ("They are at 89% and 63% respectively.", [DF], ["verified"]),
    # a tool's column in the unit the tool writes it in: ps's RSS in KiB
    ("`java` (PID 21877) uses about 39.3 GiB RSS.", [PS_RSS], ["verified"]),
    ("`java` (PID 21877) uses about 5.8 GiB RSS.", [PS_RSS], ["contradicted"]),
    # a label the header leaves unnamed names its row (free's "Mem:", "Swap:" with fewer values)
    ("Only about 0.97 GiB of memory is free. Swap is 4294963200 bytes, 0 used.", [FREE],
     ["verified", "verified"]),
    ("Only about 0.97 GiB of memory is free. Swap is 4294963200 bytes, 9123418112 used.",
     [FREE], ["verified", "contradicted"]),
    ("Only about 1.97 GiB of memory is free.", [FREE], ["absent"]),
    # a size in GB holds where the tool keeps it in GiB; the whole after "of" is no value of
    # the part's attribute
    ("Swap is 0 GB of 4 GB used.", [FREE], ["verified"]),
    ("Swap is 0 GB of 6 GB used.", [FREE], ["absent"]),
    # iostat's columns, "r/s" and "r_await" names of their own, kB/s in KiB
    ("`sdb` is at 99.6% utilisation, writing about 76.5 MB/s.", [IOSTAT], ["verified"]),
    ("`sdb` is at 99.6% utilisation, writing about 96.5 MB/s.", [IOSTAT], ["absent"]),
    # a last column left empty; a count before a value speaks of other rows than the one named
    ("It has a 447G boot disk (`sda`) and two 3.5T NVMe drives.", [LSBLK], ["unverified"]),
    ("`sda` is the boot disk — 3.5T.", [LSBLK], ["contradicted"]),
    # the key written as code beside a value decides, whatever else holds the value
    ("Dirty pages are negligible (~47 MiB in `Dirty`).", [MEMINFO], ["verified"]),
    ("Dirty pages are negligible (~47 MiB in `Writeback`).", [MEMINFO], ["contradicted"]),
    # a number joined to letters is part of a name, not a value
    ("`rabbit@mq-03` uses 6.34 GiB.", [NODES], ["verified"]),
    ("`rabbit@mq-03` uses 6812004352 bytes.", [NODES], ["verified"]),
])
def test_flags_lists_and_selections(answer, items, expected):
    assert outcomes(answer, items) == expected


def test_an_empty_section_is_read_under_its_title():
    records = read_text("E1", CLUSTER)
    held = {(value.key, value.raw) for record in records for value in record.values}
    assert ("network partitions", "(none)") in held
    assert ("", "Memory alarm on node rabbit@mq-03") in held


def test_a_header_one_space_parts_is_read_word_by_word():
    rows = read_text("E1", DF)
    fields = {value.key: value.raw for value in rows[2].values}
    assert fields == {"filesystem": "/dev/mapper/vg1-pgwal", "size": "197G", "used": "118G",
                      "avail": "70G", "use%": "63%",
                      "mounted on": "/var/lib/postgresql/16/main/pg_wal"}


TPSTATS = ("Pool Name                                     Active Pending Completed Blocked "
           "All time blocked\n"
           "ReadStage                                          2       0 184022913       0  "
           "              0\n"
           "Native-Transport-Requests                        128     902  88120431      34  "
           "          48211")
COMPACTIONS = ("id                                   compaction type keyspace table  completed\n"
               "8e1f42a0-08a1-11ef-9b1c-4d5e6f708192 Compaction      shop     orders 21474836480\n"
               "9a0b1c2d-08a1-11ef-9b1c-4d5e6f708192 Compaction      shop     events 5368709120")


@pytest.mark.parametrize(("text", "row", "expected"), [
    # a name of two words, numbers right-aligned under "All time blocked"
    (TPSTATS, 1, {"pool name": "Native-Transport-Requests", "active": "128", "pending": "902",
                  "completed": "88120431", "blocked": "34", "all time blocked": "48211"}),
    # a name's last word with no values of its own ("compaction type")
    (COMPACTIONS, 0, {"id": "8e1f42a0-08a1-11ef-9b1c-4d5e6f708192",
                      "compaction type": "Compaction", "keyspace": "shop", "table": "orders",
                      "completed": "21474836480"}),
    # a value right-aligned across its header's start (ps's RSS)
    (PS_RSS["content"], 0, {"pid": "21877", "user": "elastic", "rss": "41203512",
                            "command": "java"}),
    # a label the header leaves unnamed, a row with fewer values
    (FREE["content"], 1, {"name": "Swap", "total": "4294963200", "used": "0",
                          "free": "4294963200"}),
])
def test_a_fixed_width_table_is_read_by_its_columns(text, row, expected):
    assert {v.key: v.raw for v in read_text("E1", text)[row].values} == expected
