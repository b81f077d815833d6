"""Tables drawn in box characters, values written as a part of a whole (``26 GiB/30 GiB``),
units on a line under a header, lines indented under a title, epoch times under an event's
participle, a version written ``v7``, numbers written with their scale in words, a name or a
date a command line writes, a state word ending a line, access decisions and read-only stores
as states, a Java service's heap options, aggregates in the claim's unit, instructions, plural
names of rows, a log's "brokers: 3", and the claim's own share of two values it states. Each
class a table row, with the row that must not pass beside the row that must."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.judges.records.text_reader import read_text
from tests.records.support import outcomes

BOXED = ("┌─user─────┬─query_duration_ms─┬──read_rows─┬─read───────┐\n"
         "│ grafana  │             48211 │ 8123341120 │ 212.34 GiB │\n"
         "│ metabase │             31877 │ 5402119331 │ 140.02 GiB │\n"
         "└──────────┴───────────────────┴────────────┴────────────┘")
HISTOGRAMS = {"source": "nodetool -h 10.0.1.13 proxyhistograms",
              "content": "proxy histograms\n"
                         "Percentile       Read Latency      Write Latency\n"
                         "                     (micros)           (micros)\n"
                         "50%                  943.13             152.32\n"
                         "99%                20924.30             654.95\n"}
CONFIG = ("frontend fe_https\n"
          "    bind :443 ssl crt /etc/haproxy/certs/\n"
          "    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 200 }\n"
          "\n"
          "backend be_api\n"
          "    timeout server 30s\n")
TASKS = json.dumps({"3a9d": {"name": "tasks.sync_inventory", "state": "FAILURE",
                             "received": 1720406700.118, "failed": 1720406705.502}})
ALLOCATIONS = ("ID        Task Group  Version  Desired  Status\n"
               "c7d8e9f0  api         8        run      running\n"
               "a1b2c3d4  api         7        stop     complete\n")
COLUMNS = json.dumps({"column": "payload", "compressed": "352.18 GiB",
                      "table_compressed": "612.40 GiB"})
STATS = json.dumps({"name": "checkout-api-1", "mem_usage": "1.41 GiB", "mem_limit": "2 GiB"})
ALLOCATED = ("CPU              Memory          Disk\n"
             "10400/15600 MHz  26 GiB/30 GiB   62 GiB/190 GiB")
DOCKER_STATS = ("NAME                MEM USAGE / LIMIT     MEM %\n"
                "checkout-api-1      1.412GiB / 2GiB       70.60%\n"
                "checkout-worker-1   734.2MiB / 1GiB       71.70%")
INTENTIONS = ("ID  Source          Action  Destination  Precedence\n"
              "    web             allow   payments     9\n"
              "    reporting       deny    *            6")
REPLICAS = json.dumps([{"host": "ch-02", "is_readonly": 0}, {"host": "ch-03", "is_readonly": 1}])
JVM = "-XX:+UseG1GC\n-Xms16G\n-Xmx16G"
REFUNDS = {"source": "psql -c \"SELECT reason, sum(amount_cents) AS total_cents FROM refunds "
                     "WHERE created_at >= '2024-04-01' GROUP BY reason\"",
           "content": "   reason   | total_cents\n------------+-------------\n"
                      " wrong_size |      702830\n damaged    |      318450\n(2 rows)"}
SOURCES = (" signup_source | count\n---------------+-------\n organic       |  9120\n"
           " referral      |  2874\n partner       |  1437\n(3 rows)")
SNAPSHOT = json.dumps({"kv_size": "31.2 MB", "snapshot_size": "46 MB"})
CONTROLLER = ("[2024-12-07 03:41:55,118] INFO [Controller id=2] Newly added brokers: , deleted "
              "brokers: 3, all live brokers: 1,2\n"
              "[2024-12-07 04:09:12,771] INFO [Controller id=2] Newly added brokers: 3, deleted "
              "brokers: , all live brokers: 1,2,3\n"
              "[2024-12-07 04:11:40,002] INFO [Controller id=2] Newly added brokers: 4, deleted "
              "brokers: , all live brokers: 1,2,3,4")
LINT = ("Checking /etc/prometheus/rules/node.rules.yml\n  SUCCESS: 14 rules found\n\n"
        "Checking /etc/prometheus/rules/kafka.rules.yml\n  FAILED:\n")


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a table drawn in box characters is read as a table: its header in the top border
    ("The `grafana` query took about 48 s and read 212.34 GiB.", [BOXED], ["verified"]),
    ("The `grafana` query took about 32 s and read 212.34 GiB.", [BOXED], ["contradicted"]),
    # a number's scale in words: "8.12 billion" is 8,120,000,000 to the hundredth of a billion
    ("The `grafana` query scanned 8.12 billion rows.", [BOXED], ["verified"]),
    ("The `grafana` query scanned 8.21 billion rows.", [BOXED], ["contradicted"]),
    # units on the line under a header are the columns' units; the address the command line
    # names is the output's subject
    ("Read p99 on 10.0.1.13 is ~20.9 ms.", [HISTOGRAMS], ["verified"]),
    ("Read p99 on 10.0.1.13 is ~29.9 ms.", [HISTOGRAMS], ["absent"]),
    ("Reads on 10.0.1.14 are slow.", [HISTOGRAMS], ["absent"]),
    # a line indented under a title is of what the title names
    ("`fe_https` denies with a 429 above 200 requests.", [CONFIG], ["verified"]),
    ("`fe_https` denies with a 503 above 200 requests.", [CONFIG], ["absent"]),
    ("`be_api` denies with a 429 above 200 requests.", [CONFIG], ["unverified"]),
    # an epoch time under an event's participle ("failed") is a time
    ("The run received at 02:45:00 UTC failed at 02:45:05.", [TASKS], ["verified"]),
    ("The run received at 02:45:00 UTC failed at 02:47:05.", [TASKS], ["absent"]),
    # "v7" is the number a record keeps under a version key
    ("The two v7 allocations were stopped.", [ALLOCATIONS], ["verified"]),
    ("The two v9 allocations were stopped.", [ALLOCATIONS], ["absent"]),
    # a state word ending a line ("FAILED:") is the state of what the line is indented under
    ("The lint fails on kafka.rules.yml.", [LINT], ["verified"]),
    ("The lint fails on node.rules.yml.", [LINT], ["unverified"]),
    # a value written as a part of a whole in a unit: the part and the whole, each a value
    ("26 of 30 GiB of memory are allocated, leaving 4 GiB.", [ALLOCATED], ["verified"]),
    ("26 of 30 GiB of memory are allocated, leaving 6 GiB.", [ALLOCATED], ["absent"]),
    # the greatest of a column is the greatest in its measure's unit, whatever unit each cell
    ("`checkout-api-1` uses the most memory, 1.412 GiB.", [DOCKER_STATS], ["verified"]),
    ("`checkout-worker-1` uses the most memory, 734.2 MiB.", [DOCKER_STATS],
     ["contradicted"]),
    # access decisions and whether a store takes writes are states (`states.toml`); a rule's
    # action is its decision; a column a header names and every row leaves empty is read
    ("`web` is allowed to reach payments.", [INTENTIONS], ["verified"]),
    ("`web` is not allowed to reach payments.", [INTENTIONS], ["contradicted"]),
    ("`reporting` is allowed to reach payments.", [INTENTIONS], ["contradicted"]),
    ("`ch-03` has gone read-only.", [REPLICAS], ["verified"]),
    ("`ch-03` hasn't gone read-only.", [REPLICAS], ["contradicted"]),
    # a line format as a row: a Java service's heap options
    ("The JVM runs with a 16 GiB heap.", [JVM], ["verified"]),
    ("The JVM runs with an 8 GiB heap.", [JVM], ["absent"]),
    # an aggregate in the claim's unit (a sum of cents as an amount); a date the command line
    # writes (a query's filter) is the item's
    ("Since April 1 refunds total $10,212.80.", [REFUNDS], ["verified"]),
    ("Since April 1 refunds total $10,312.80.", [REFUNDS], ["absent"]),
    ("Since April 3 refunds total $10,212.80.", [REFUNDS], ["absent"]),
    # a claim opening with an imperative is an instruction: complementary, whatever it names;
    # a number opening a claim ("Run #405 ...") is no instruction
    ("Add `resources.limits` to the container and let auto-sync retry.", [ALLOCATIONS],
     ["advice"]),
    ("So restart `c7d8e9f0` once the limit is raised.", [ALLOCATIONS], ["advice"]),
    ("Run #405 failed.", [json.dumps({"builds": [{"number": 405, "result": "SUCCESS"}]})],
     ["contradicted"]),
    # a plural names the row its singular names ("referrals": ``referral``)
    ("Organic brought 9,120, referrals 2,874 and partners 1,437.", [SOURCES], ["verified"]),
    ("Organic brought 9,120, referrals 1,437 and partners 2,874.", [SOURCES],
     ["contradicted"]),
    # a thing a log line writes by its kind and number ("brokers: 3") is named by them
    ("Broker 3 re-registered at 04:09:12.", [CONTROLLER], ["verified"]),
    ("Broker 3 re-registered at 04:11:40.", [CONTROLLER], ["contradicted"]),
    # the claim's own share of two values it states
    ("`payload` holds 352.18 GiB, about 57.5% of the table's 612.40 GiB.", [COLUMNS],
     ["verified"]),
    ("`payload` holds 352.18 GiB, about 75% of the table's 612.40 GiB.", [COLUMNS],
     ["contradicted"]),
    ("`checkout-api-1` uses about 1.41 GiB (70.6% of its 2 GiB limit).", [STATS],
     ["verified"]),
    # ... or the part of the whole first, then the share after a hedge or a parenthesis
    ("KV takes 31.2 MB of the 46 MB snapshot, about 68%.", [SNAPSHOT], ["verified"]),
    ("KV takes 31.2 MB of the 46 MB snapshot, about 78%.", [SNAPSHOT], ["contradicted"]),
    ("3 of 5 pods, 90% CPU.", ["pods: 5, ready: 3, cpu: 90%"], ["verified"]),
    ("`checkout-api-1` uses about 1.41 GiB (80.6% of its 2 GiB limit).", [STATS],
     ["contradicted"]),
])
def test_formats_and_own_arithmetic(answer, items, expected):
    assert outcomes(answer, items) == expected


def test_units_under_a_header_join_the_column_names():
    records = read_text("E1", HISTOGRAMS["content"])
    keys = {value.key for record in records for value in record.values}
    assert {"read latency (micros)", "write latency (micros)"} <= keys


@given(part=st.integers(1, 9_000), whole=st.integers(1, 9_000), off=st.integers(-30, 30))
def test_a_share_of_two_stated_values_holds_only_where_it_is_their_share(part, whole, off):
    share = round(100 * part / whole, 1) + off
    for answer in (f"The cache holds {part} MiB, {share:.1f}% of its {whole} MiB.",
                   f"The cache holds {part} MiB of its {whole} MiB ({share:.1f}%)."):
        found = outcomes(answer, ["cache: 1 MiB"])
        assert ("contradicted" in found) == (abs(off) >= 1), answer
