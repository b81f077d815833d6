"""What a clause, a pronoun and a key's unit say: a fact stated before a recommendation is
checked as any fact; an opening "It" stands for what the claim before named first; a value
followed by "for X" is X's; a gerund's phrase that a modal governs is a supposition; a duration
under a key naming no unit may be in s, ms or ns; "1.5 CPUs" is cores; a table row's time is
that row's; an Erlang node is named by its host; "is what made" states a cause, in the words a
tool writes it in; a total of the parts a claim gives; CSV under a header of names; a value
glossed with the record's. Each class a table row, with the row that must not pass beside the
row that must."""

from __future__ import annotations

import json

import pytest

from tests.records.support import outcomes

REPL = ("slave0:ip=10.20.1.14,port=6379,state=online,offset=88412,lag=0\n"
        "slave1:ip=10.20.1.15,port=6379,state=wait_bgsave,offset=0,lag=0")
TABLES = ("relname         n_live_tup  n_dead_tup  dead_pct\n"
          "sessions        4120331     2877410     41.1\n"
          "login_attempts  90110233    2012004     2.2")
INDEXES = ("indexrelname               idx_scan\n"
           "events_tenant_created_idx  12044810\n"
           "events_tenant_id_idx       412003")
AGENTS = json.dumps({"computer": [{"displayName": "mac-mini-01", "offline": True},
                                  {"displayName": "linux-04", "offline": False}]})
BUILDS = json.dumps({"builds": [{"number": 405, "result": "SUCCESS", "duration": 1890412},
                                {"number": 403, "result": "SUCCESS", "duration": 1404187}]})
INSPECT = json.dumps([{"Name": "/orders-api", "HostConfig": {
    "Memory": 2147483648, "NanoCpus": 1500000000}, "Config": {"Healthcheck": {
        "Interval": 30000000000, "Timeout": 5000000000}}}])


HISTORY = ("REVISION\tUPDATED                 \tSTATUS    \tCHART\n"
           "29      \tThu Nov  5 14:31:07 2026\tsuperseded\tingress-nginx-4.11.3\n"
           "31      \tWed Dec  2 19:48:11 2026\tdeployed  \tingress-nginx-4.11.4")
CLUSTER_NODES = ("Disk Nodes\n\nrabbit@mq-01\nrabbit@mq-02\n\nRunning Nodes\n\n"
                 "rabbit@mq-01\n")
CHECKPOINT = ("02:14:02 ERROR:  deadlock detected\n"
              "02:14:05 LOG:  checkpoint complete: wrote 1203 buffers; sync=0.412 s")


STATS = ("NAME                    CPU %     MEM USAGE / LIMIT\n"
         "analytics-clickhouse-1  182.40%   11.21GiB / 16GiB\n"
         "analytics-kafka-1       37.15%    3.904GiB / 6GiB\n"
         "analytics-ingest-1      70.45%    1.118GiB / 2GiB")
TESTS = json.dumps({"passCount": 412, "skipCount": 11, "failCount": 3})
BACKUP = ("2026-12-06T02:00:03Z starting pg_dump of orders@pg-orders-r1.internal\n"
          '2026-12-06T02:00:33Z pg_dump: error: connection to server at "pg-orders-r1.internal" '
          "(10.20.4.11), port 5432 failed: timeout expired\n"
          "2026-12-06T02:00:33Z backup FAILED")
SYNC = ("Name:               argocd/search-prod\n"
        "Sync Status:        OutOfSync from main (71d0c3e)\n"
        "Operation:          Sync\n"
        "Phase:              Failed\n"
        'Message:            admission webhook "validate.kyverno.svc-fail" denied the request\n'
        "\nresource StatefulSet/search/opensearch was blocked due to the following policies\n"
        "\nrequire-resource-limits:\n"
        "  check-limits: 'validation error: CPU and memory limits are required.'")


STAT = ("# pxname,svname,scur,status,lastchg,check_status\n"
        "be_api,api-03,98,UP,1051602,L7OK\n"
        "be_api,api-04,0,DOWN,1260,L4TOUT\n"
        "be_api,BACKEND,295,UP,1051602,")


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a fact stated before a recommendation is checked; the recommendation is not
    ("`10.20.1.15` is in `wait_bgsave` state, so I'd check the master's BGSAVE.", [REPL],
     ["advice"]),
    ("`10.20.1.15` is in `online` state, so I'd check the master's BGSAVE.", [REPL],
     ["contradicted"]),
    # an opening "It" stands for what the claim before named first, in its own clause
    ("Most tables are fine except `sessions`. It has 41.1% dead tuples.", [TABLES],
     ["unverified", "verified"]),
    ("Most tables are fine except `sessions`. It has about 2.88M dead tuples (2.2% dead).",
     [TABLES], ["unverified", "contradicted"]),
    # a value followed by "for X" is X's, not the name's before it
    ("`events_tenant_created_idx` has 12.0M scans versus 412K for the old "
     "`events_tenant_id_idx`.", [INDEXES], ["verified"]),
    ("`events_tenant_created_idx` has 12.0M scans versus 412K for the old "
     "`events_tenant_created_idx`.", [INDEXES], ["contradicted"]),
    # a gerund's phrase that a modal governs states nothing of its record
    ("Bringing `mac-mini-01` back online would unblock the release jobs.", [AGENTS],
     ["unverified"]),
    ("`mac-mini-01` is back online.", [AGENTS], ["contradicted"]),
    # a duration under a key naming no unit: seconds, milliseconds or nanoseconds
    ("Build #405 took about 31.5 minutes.", [BUILDS], ["verified"]),
    ("Build #405 took about 41.5 minutes.", [BUILDS], ["absent"]),
    ("The healthcheck runs every 30 s with a 5 s timeout.", [INSPECT], ["verified"]),
    ("The healthcheck runs every 20 s with a 5 s timeout.", [INSPECT], ["absent"]),
    # Docker's NanoCpus, and a number of CPUs written bare
    ("`orders-api` is capped at 2 GiB of memory and 1.5 CPUs.", [INSPECT], ["verified"]),
    ("`orders-api` is capped at 2 GiB of memory and 2.5 CPUs.", [INSPECT], ["absent"]),
    # a row's time in a table is that row's: another row's is contradicted outside the clause
    ("It is on revision 31, deployed on Wed 2 Dec at 19:48 UTC.", [HISTORY], ["verified"]),
    ("It is on revision 31, deployed on Wed 2 Dec at 14:31 UTC.", [HISTORY], ["contradicted"]),
    # an Erlang node is named by its host too
    ("`mq-02` is a disk node.", [CLUSTER_NODES], ["verified"]),
    ("`mq-05` is a disk node.", [CLUSTER_NODES], ["absent"]),
    # "is what made" states a cause, which must be stated by a record
    ("A checkpoint ran at 02:14:05.", [CHECKPOINT], ["verified"]),
    ("A checkpoint ran at 02:14:05 and its stall is what made the deadlock happen.",
     [CHECKPOINT], ["absent"]),
    # a total of the parts the claim gives (three or more), each part checked on its own
    ("3 of 426 tests failed (412 passed, 11 skipped).", [TESTS], ["verified"]),
    ("3 of 436 tests failed (412 passed, 11 skipped).", [TESTS], ["absent"]),
    # a header with "%" and "/" words; a sum over its rows restated in cores after a dash
    ("The `analytics` containers add up to about 290% CPU — roughly 2.9 cores.", [STATS],
     ["verified"]),
    ("The `analytics` containers add up to about 290% CPU — roughly 3.4 cores.", [STATS],
     ["absent"]),
    # a cause in the words a tool writes it in ("timed out": "timeout"), on one line or
    # over the lines of the output that records the effect
    ("The backup failed because it timed out connecting to `pg-orders-r1.internal`.",
     [BACKUP], ["verified"]),
    ("The backup failed because the disk on `pg-orders-r1.internal` was full.", [BACKUP],
     ["absent"]),
    ("The sync of `search-prod` failed because Kyverno's admission webhook rejected the "
     "`opensearch` "
     "StatefulSet: the `require-resource-limits` policy requires CPU and memory limits.",
     [SYNC], ["verified"]),
    ("The sync of `search-prod` failed because Kyverno's admission webhook timed out on the "
     "`opensearch` "
     "StatefulSet: the `require-resource-limits` policy requires CPU and memory limits.",
     [SYNC], ["absent"]),
    # comma-separated values under a header of names are a table (HAProxy's show stat)
    ("`api-04` is DOWN with `L4TOUT`.", [STAT], ["verified"]),
    ("`api-03` is DOWN.", [STAT], ["contradicted"]),
    # a value the claim glosses with the record's own ("31 minutes (`lastchg` 1260 s)"): the two
    # must agree
    ("`api-04` has been down for about 21 minutes (`lastchg` 1260 s).", [STAT], ["verified"]),
    ("`api-04` has been down for about 31 minutes (`lastchg` 1260 s).", [STAT],
     ["contradicted"]),
])
def test_clauses_and_pronouns(answer, items, expected):
    assert outcomes(answer, items) == expected
