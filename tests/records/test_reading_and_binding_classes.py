"""Classes of the records judge, each a table row of one mechanism: tool formats read as
records (``identifier:value`` lines, named pair lines, lines of ``Key: value`` cells), the
subject a command line names, numbers that name rows ("partition 1", ``#1468``), a value bound
to the record named in its own clause (another row's value is contradicted; a value bound only
loosely is not), relations between a claim's own values, counts of what did not happen, states
of one family, and sizes written with a bare ``G``. The other-row invariant is also a property
over any row of a ``Key: value`` cell table."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.text import split_sentences
from gsar_otel.judges.records.judge import RecordsJudge
from gsar_otel.judges.records.reading import source_names
from gsar_otel.judges.records.text_reader import read_text
from tests.records.support import outcomes

judge = RecordsJudge()

INFO = ("# Memory\nused_memory:3447188224\nused_memory_human:3.21G\nmaxmemory_human:4.00G\n"
        "mem_fragmentation_ratio:1.10\n# Stats\nevicted_keys:0\nrejected_connections:3411\n"
        "# Keyspace\ndb0:keys=4120933,expires=3871002\ndb1:keys=812044,expires=12003")
TOPIC = ("Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\n"
         "\tTopic: orders\tPartition: 0\tLeader: 101\tReplicas: 101,102,103\tIsr: 101,102,103\n"
         "\tTopic: orders\tPartition: 1\tLeader: 102\tReplicas: 102,103,101\tIsr: 102,103,101\n"
         "\tTopic: orders\tPartition: 2\tLeader: 103\tReplicas: 103,101,102\tIsr: 103,101,102")
GROUP = ("GROUP    TOPIC    PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG\n"
         "billing  invoices  0          1844021         1851230         7209\n"
         "billing  invoices  1          1790443         1790512         69\n"
         "billing  invoices  2          1822904         1838810         15906")
INVOICE = ('{"id": "in_1", "number": "NWL-0042", "amount_due": 184950, "currency": "usd", '
           '"next_payment_attempt": 1733745600, "lines": {"data": ['
           '{"amount": 145000, "currency": "usd", "quantity": 50}, '
           '{"amount": 39950, "currency": "usd", "description": "Priority support"}]}}')
ACCESS = ('10.0.0.1 - - [07/Dec/2024:14:20:03 +0000] "GET /healthz HTTP/1.1" 200 2\n'
          '10.0.0.2 - - [07/Dec/2024:14:26:41 +0000] "GET /api HTTP/1.1" 500 17')
TIMED = ('10.0.0.1 - - [07/Dec/2024:11:05:10 +0000] "GET /a HTTP/1.1" 200 9 rt=0.200\n'
         '10.0.0.2 - - [07/Dec/2024:11:05:13 +0000] "GET /b HTTP/1.1" 200 9 rt=0.300\n'
         '10.0.0.3 - - [07/Dec/2024:11:05:16 +0000] "GET /c HTTP/1.1" 200 9 rt=0.400')
LOG_FORMAT = "log_format timed '$remote_addr [$time_local] \"$request\" rt=$request_time';"
ERRORS = ('2024/12/07 09:12:44 [error] 2211#2211: *88 upstream timed out (110: Connection timed '
          'out), client: 198.51.100.23, server: api.example.com, request: "GET /v1/reports/monthly '
          'HTTP/1.1", upstream: "http://10.0.4.21:8080/v1/reports/monthly"\n'
          '2024/12/07 09:13:02 [warn] 2211#2211: *89 an upstream response is buffered, client: '
          '198.51.100.40, server: api.example.com, request: "GET /v1/exports/2024-11.csv '
          'HTTP/1.1", upstream: "http://10.0.4.22:8080/v1/exports/2024-11.csv"')
UNIT = ("\u25cf postgresql@15-main.service - PostgreSQL Cluster 15-main\n"
        "     Loaded: loaded (/lib/systemd/system/postgresql@.service; enabled)\n"
        "     Active: active (running) since Tue 2024-11-19 08:01:33 UTC; 2 weeks 4 days ago\n"
        "   Main PID: 1022 (postgres)")
CHECKS = ("Some checks were not successful\n\n"
          "   NAME                 DESCRIPTION   ELAPSED  URL\n"
          "X  CI / test (20.x)                   4m31s    https://ci.example/1\n"
          "*  CI / test (22.x)                            https://ci.example/2\n"
          "\u2713  CI / lint                          48s      https://ci.example/3")
UNIQ = "  18422 185.220.101.47\n   2211 66.249.66.12\n   1903 40.77.167.3"
TOP = ("NAME                       CPU(cores)   MEMORY(bytes)\n"
       "frontend-84c9d6b7f-5gq2n   88m          164Mi\n"
       "frontend-84c9d6b7f-h7vxc   102m         171Mi\n"
       "frontend-84c9d6b7f-rz4mk   91m          158Mi")
HPA = "Name:              frontend\nMin replicas:      3\nMax replicas:      20"
RETENTION = "retention.ms=259200000 log.retention.hours=168 partitions=12\nPartition: 4"
PRS = '[{"number": 1482, "reviews": 3}, {"number": 1479, "reviews": 5}]'
CGTOP = ("Control Group                         Tasks   %CPU   Memory\n"
         "system.slice/logstash.service            61   38.9     2.4G\n"
         "system.slice/kibana.service              12    6.1   702.4M")
UPSTREAMS = (
    '2024/12/07 16:40:02 [error] 911#911: *4410 connect() failed (111: Connection refused) while '
    'connecting to upstream, client: 10.0.9.8, server: grafana.internal, request: "GET /api/health '
    'HTTP/1.1", upstream: "http://127.0.0.1:3000/api/health", host: "grafana.internal"\n'
    '2024/12/07 16:40:02 [error] 911#911: *4412 no live upstreams while connecting to upstream, '
    'client: 10.0.9.14, server: kibana.internal, request: "GET /app/home HTTP/1.1", upstream: '
    '"http://kibana/app/home", host: "kibana.internal"')
STATE = ("GROUP          COORDINATOR (ID)   ASSIGNMENT-STRATEGY  STATE               #MEMBERS\n"
         "fraud-scoring  kafka-2:9092 (2)   range                PreparingRebalance  4")


@pytest.mark.parametrize(("text", "key", "value"), [
    ("used_memory_human:3.21G\nmaxmemory:4294967296", "used_memory_human", "3.21G"),
    ("redis_version:7.2.4\nuptime_in_days:14", "uptime_in_days", "14"),
    ("Topic: a\tPartition: 4\tLeader: 5", "leader", "5"),
    ("db1:keys=812044,expires=12003", "expires", "12003"),
])
def test_tool_formats_are_read_as_keyed_values(text, key, value):
    values = {(v.key, v.raw) for r in read_text("E1", text) for v in r.values}
    assert (key, value) in values


def test_a_messages_key_number_fields_are_read_as_keyed_values():
    line = ("[Sat Dec  7 02:11:40 2024] Out of memory: Killed process 8831 (nginx) "
            "total-vm:1893220kB, anon-rss:1622104kB, file-rss:0kB, UID:33")
    fields = {v.key: v.raw for v in read_text("E1", line)[0].values}
    assert fields["anon-rss"] == "1622104kB"
    assert fields["total-vm"] == "1893220kB"


def test_a_message_stating_numbers_in_sentences_is_read_field_by_field():
    line = ("2026-12-07 04:12:31.002334+00:00 [warning] <0.412.0> Free disk space is "
            "insufficient. Free bytes: 48211204. Limit: 50000000")
    fields = {v.key: v.raw for r in read_text("E1", line) for v in r.values if v.key}
    assert fields["free bytes"] == "48211204"
    assert fields["limit"] == "50000000"


@pytest.mark.parametrize(("line", "keys"), [
    ("http://example.org/x", set()),           # a URL is no key and value
    ("ERROR:root:boom", set()),                # a level is no key
])
def test_lines_that_are_no_keyed_values(line, keys):
    assert {v.key for r in read_text("E1", line) for v in r.values if v.key} == keys


@pytest.mark.parametrize(("source", "names"), [
    ("redis-cli -h sessions-redis-01 INFO memory", {"sessions-redis-01"}),
    ("kubectl logs fraud-scoring-7c9f-2 --tail=5", {"fraud-scoring-7c9f-2"}),
    ("journalctl -u payments-worker -n 10", {"payments-worker"}),
    ("gh pr view 318 -R acme/billing --json reviewDecision", {"318", "acme/billing"}),
    ("kafka-configs --entity-type brokers --entity-name 103 --describe", {"103"}),
    ("systemctl status nginx", {"nginx"}),
    ("ssh edge-lb-02 'sudo tail -n 30 /var/log/nginx/access.log'", {"edge-lb-02"}),
    ("kubectl top pods -n search", set()),
    # a log file's name (a node's by its host too), a URL's named and numbered segments
    ("sudo tail -n 14 /var/log/rabbitmq/rabbit@mq-02.log", {"rabbit@mq-02", "mq-02"}),
    ("sudo tail -n 14 /var/log/nginx/error.log", set()),
    ("curl -s https://jenkins.internal/job/infra-terraform/77/consoleText | head -n 6",
     {"infra-terraform", "77"}),
    ("curl -s https://api.example.com/v1/status", set()),
    ("grep 'unterminated", set()),
    (None, set()),
])
def test_a_command_line_names_its_subject(source, names):
    assert source_names(source) == names


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a command line's subject is the subject of every record it printed
    ("sessions-redis-01 is using 3.21G of its 4.00G maxmemory.",
     [{"content": INFO, "source": "redis-cli -h sessions-redis-01 INFO"}], ["verified"]),
    # numbers that name rows, alone and in lists
    ("Partition 1 lags by 69 messages.", [GROUP], ["verified"]),
    ("Partition 1 lags by 7,209 messages.", [GROUP], ["contradicted"]),
    ("The lag is on partitions 2 (15,906) and 0 (7,209).", [GROUP], ["verified"]),
    ("The lag is on partitions 2 (7,209) and 0 (15,906).", [GROUP], ["contradicted"]),
    ("PR #1479 has 5 reviews.", [PRS], ["verified"]),
    ("PR #1479 has 3 reviews.", [PRS], ["contradicted"]),
    # a value bound to the record named in its clause
    ("Broker 102 leads partition 1.", [TOPIC], ["verified"]),
    ("Broker 103 leads partition 1.", [TOPIC], ["contradicted"]),
    ("Logstash uses 38.9% CPU and 2.4G, versus 702.4M for Kibana.", [CGTOP], ["verified"]),
    ("Logstash uses 38.9% CPU, versus 2.4G for Kibana.", [CGTOP], ["contradicted"]),
    # a name bound to the name named last before it: another row's is contradicted, of
    # whatever kind the row's own is; two names of one attribute are peers in a list
    ("grafana.internal gets Connection refused from 127.0.0.1:3000.", [UPSTREAMS], ["verified"]),
    ("kibana.internal gets Connection refused from 127.0.0.1:3000.", [UPSTREAMS],
     ["contradicted"]),
    ("The top two addresses are 66.249.66.12 and 40.77.167.3.", [UNIQ], ["verified"]),
    # a value restated in another unit after a word of its unit
    ("Logstash is at 38.9% CPU (about 0.39 of a core).", [CGTOP], ["verified"]),
    ("Logstash is at 38.9% CPU (about 0.49 of a core).", [CGTOP], ["absent"]),
    # a count the claim says is none
    ("No keys have been evicted.", [INFO], ["verified"]),
    ("Redis hasn't rejected any connections.", [INFO], ["contradicted"]),
    # states of one family, said of the one record holding that family
    ("Its state is PreparingRebalance.", [STATE], ["verified"]),
    ("Its state is CompletingRebalance.", [STATE], ["contradicted"]),
    # a size written with a bare G is GiB on both sides
    ("Memory use is 3.21G.", [INFO], ["verified"]),
    ("Memory use is 3.12G.", [INFO], ["absent"]),
    # amounts of a record that names a two-decimal currency are cents, its line items too
    ("Invoice NWL-0042 is open for $1,849.50.", [INVOICE], ["verified"]),
    ("Invoice NWL-0042 is open for $1,894.50.", [INVOICE], ["absent"]),
    ("Invoice NWL-0042 has Priority support at $399.50.", [INVOICE], ["verified"]),
    ("The next retry of invoice NWL-0042 is on Dec 9.", [INVOICE], ["verified"]),
    # the common log format's time
    ("The requests ran from 14:20 to 14:26 UTC.", [ACCESS], ["verified"]),
    ("The requests ran from 14:20 to 14:29 UTC.", [ACCESS], ["absent"]),
    # a derivation over the rows holding the key a claim writes as code, though the claim
    # names another record (the log format's $request_time)
    ("Average `rt` ($request_time) of those 3 requests: about 300 ms.", [TIMED, LOG_FORMAT],
     ["verified"]),
    ("Average `rt` ($request_time) of those 3 requests: about 350 ms.", [TIMED, LOG_FORMAT],
     ["absent"]),
    # a log message's ", key: value" fields, and another line's value of one of them
    ("The monthly report request `/v1/reports/monthly` went to upstream 10.0.4.21.", [ERRORS],
     ["verified"]),
    ("The monthly report request `/v1/reports/monthly` went to upstream 10.0.4.22.", [ERRORS],
     ["contradicted"]),
    ("The upstream timeout was logged at 09:12:44 by the ERROR line.", [ERRORS], ["verified"]),
    # a number inside a message is no value of the claim's attribute: 30 is found nowhere
    # (absent), not contradicted by the 1.1 of a request's "HTTP/1.1"
    ("There were 30 requests on edge-lb-02 with one error.",
     [{"content": ERRORS, "source": "ssh edge-lb-02 'tail /var/log/nginx/error.log'"}],
     ["absent"]),
    # a value found on another record than the one named, under the attribute the claim names
    ("With `worker_connections` at 4096, there are 2,291 active connections.",
     ["worker_connections 4096;", "Active connections: 2291\nReading: 0 Writing: 192"],
     ["verified"]),
    ("With `worker_connections` at 4096, there are 2,291 idle connections.",
     ["worker_connections 4096;", "Active connections: 2291\nReading: 0 Writing: 192"],
     ["unverified"]),
    # a unit's sub-state is a process state, never a run's outcome
    ("postgresql@15-main is active (running) with main PID 1022.", [UNIT], ["verified"]),
    ("postgresql@15-main is active (exited) with main PID 1022.", [UNIT], ["contradicted"]),
    ("`postgresql@15-main -t` fails on line 3.", [UNIT], ["absent"]),
    # a leading column of status symbols the header leaves unnamed
    ("`CI / test (20.x)` failed after 4m31s.", [CHECKS], ["verified"]),
    ("`CI / test (22.x)` was cancelled.", [CHECKS], ["contradicted"]),
    ("`CI / lint` passed in 48s.", [CHECKS], ["verified"]),
    # an acronym is no proper name, a line's own key no record's name
    ("CPU was 97.2% on web-4 at 14:02.",
     ["cpu_pct=97.2 on host web-3 at 14:02", "cpu_pct=41.0 on host web-4 at 14:02"],
     ["contradicted"]),
    ("CPU was 41% on web-4 at 14:02.",
     ["cpu_pct=97.2 on host web-3 at 14:02", "cpu_pct=41.0 on host web-4 at 14:02"],
     ["verified"]),
    # an operation opening the sentence asks for it of every value in it
    ("Averaging `rt` ($request_time) over the three requests we looked at gives about 300 ms.",
     [TIMED, LOG_FORMAT], ["verified"]),
    ("Averaging `rt` ($request_time) over the three requests we looked at gives about 350 ms.",
     [TIMED, LOG_FORMAT], ["absent"]),
    # an epoch under a time key of text output is a moment too
    ("The last save was at 00:00:00 UTC on Dec 7.",
     ["# Persistence\nrdb_last_save_time:1733529600\nrdb_changes_since_last_save:2804411"],
     ["verified"]),
    ("The last save was at 00:00:00 UTC on Dec 8.",
     ["# Persistence\nrdb_last_save_time:1733529600\nrdb_changes_since_last_save:2804411"],
     ["absent"]),
    # uniq -c: a row per line, named by what it counts; a tool's whole output of one number
    ("66.249.66.12 made about 2.2k requests.", [UNIQ], ["verified"]),
    ("66.249.66.12 made about 1.9k requests.", [UNIQ], ["contradicted"]),
    ("185.220.101.47 made 18,422 of today's 25,107 requests.", [UNIQ, "25107"], ["verified"]),
    # a derivation over the rows a name of the claim begins, though a record has that name
    ("The 3 frontend pods use 281m CPU in total.", [HPA, TOP], ["verified"]),
    ("The 3 frontend pods use 291m CPU in total.", [HPA, TOP], ["absent"]),
    # a measure is never a count: "4 days" is no Partition: 4, nor a ratio of two numbers
    ("The orders topic keeps data for 4 days.", [TOPIC], ["absent"]),
    ("Retention is retention.ms=259200000, which is 3 days, against a default of 168 hours.",
     [RETENTION], ["verified"]),
    ("Retention is retention.ms=259200000, which is 4 days, against a default of 168 hours.",
     [RETENTION], ["absent"]),
])
def test_binding_classes(answer, items, expected):
    assert outcomes(answer, items) == expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("The journal uses 3.8G, just over its SystemMaxUse=4G cap.", "contradicted"),
    ("The journal uses 4.2G, just over its SystemMaxUse=4G cap.", "verified"),
    ("Only 2.3G is free, barely above the SystemKeepFree=2G floor.", "verified"),
    ("It took 1.3 s, well under the 1.2 s budget.", "contradicted"),
    ("p99 is 120 ms, well under 1.2 s.", "verified"),
    ("It has 14 restarts over 3 days.", "absent"),    # different measures: no relation
])
def test_a_claims_own_values_must_stand_as_its_words_say(answer, expected):
    evidence = ["SystemMaxUse=4G SystemKeepFree=2G journal=3.8G journal2=4.2G free=2.3G "
                "took=1.3s p99=120ms restarts=14 days=3"]
    found = [c for o in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(evidence))
             for c in o.checks if c.rule == "relation"]
    assert (found[0].outcome if found else "absent") == expected


@pytest.mark.parametrize(("text", "sentences"), [
    ("Only one is behind. `10.20.1.15` is in wait_bgsave.",
     ["Only one is behind.", "`10.20.1.15` is in wait_bgsave."]),
    ("It averages 686 ms. That is skewed.", ["It averages 686 ms.", "That is skewed."]),
    ("Ms. Smith agreed. No. 5 held.", ["Ms. Smith agreed.", "No. 5 held."]),
    ("Nothing listens on the port. redis-exporter is still up.",
     ["Nothing listens on the port.", "redis-exporter is still up."]),
    ("See e.g. the logs. it is fine.", ["See e.g. the logs. it is fine."]),
    ("It returned after 1.87 s. Nearly all of it was the query.",
     ["It returned after 1.87 s.", "Nearly all of it was the query."]),
    ("Written by L. M. Rendall in 1990.", ["Written by L. M. Rendall in 1990."]),
])
def test_where_a_sentence_ends(text, sentences):
    assert split_sentences(text) == sentences


@settings(max_examples=40, deadline=None)
@given(lags=st.lists(st.integers(100, 99_999), min_size=2, max_size=6, unique=True),
       data=st.data())
def test_another_rows_value_in_a_cell_table_is_never_grounded(lags, data):
    """Any row of a ``Key: value`` cell table: its own lag verified, another row's
    contradicted."""
    table = "\n".join(f"Topic: t\tPartition: {i}\tLag: {lag}" for i, lag in enumerate(lags))
    row = data.draw(st.integers(0, len(lags) - 1))
    other = data.draw(st.sampled_from([i for i in range(len(lags)) if i != row]))
    assert outcomes(f"Partition {row} lags by {lags[row]:,}.", [table]) == ["verified"]
    assert outcomes(f"Partition {row} lags by {lags[other]:,}.", [table]) != ["verified"]


@pytest.mark.parametrize(("token", "name"), [
    ("e.g", False), ("i.e", False), ("a.m", False),
    ("k8s.io", True), ("ci-runner", True), ("checkout-api", True), ("pg-main-5", True),
])
def test_an_abbreviation_is_no_name(token, name):
    from gsar_otel.judges.records.rules import _name_like
    assert _name_like(token, token) is name


QUIET = "2019-01-01T00:00:00Z INFO nightly-archive-zz9 finished quietly"
"""An item unrelated to every answer here: a log line at INFO."""


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a claim naming nothing is never said of an unrelated line's level (severity family)
    ("The alert is critical.", ['{"monitor": {"id": 4412, "priority": "P2"}}'], ["unverified"]),
    # a level word selects the lines at that level; it is no subject of its own state
    ("There is also an info note about the `metrics` port on `legacy-worker`.",
     ["Warning [IST0108] (Pod legacy-worker) Unknown annotation: sidecar.istio.io/proxyCPUlimit"],
     ["unverified"]),
    # a consumer group's state: the one record holding that family
    ("Its state is CompletingRebalance.", [STATE], ["contradicted"]),
    # the claim's own numbers always enter a derivation, whatever else the items hold
    ("The hit rate is about 90.4%: 48,213,377 hits against 5,120,988 misses.",
     ["# Stats\n" + "\n".join(f"counter_{i}:{i}" for i in range(60))
      + "\nkeyspace_hits:48213377\nkeyspace_misses:5120988"], ["verified"]),
    # a negated state against the claim's records, whichever order they come in
    ("On db-7 writes are not being rejected yet.",
     ["db-7 journal: write rejected by fork", "host: db-7\nstatus: rejected"],
     ["contradicted"]),
])
def test_an_unrelated_or_reordered_item_changes_no_outcome(answer, items, expected):
    assert outcomes(answer, items) == expected
    assert outcomes(answer, [*items, QUIET]) == expected
    assert outcomes(answer, [QUIET, *items]) == expected
    assert outcomes(answer, items[::-1]) == expected
