"""Counts of a class of records ("three 5xx responses", "two 404s", "4 failed jobs") checked
against how many records are in it, and comparisons between two sides a claim names ("Blue is
the slower one", "more open bugs than iOS") against the values the claim binds to each side or
the rows each side's word is on; the extreme of a table's rows ("`mq-03` uses the least"); an
access log line is read field by field. Each class a table row, with the row that must not pass
beside the row that must."""

from __future__ import annotations

import json

import pytest

from gsar_otel.judges.records.text_reader import read_text
from tests.records.support import outcomes

ACCESS = "\n".join(
    f'10.0.0.{n} - - [07/Dec/2024:14:2{n}:03 +0000] "GET /api/{path} HTTP/1.1" {status} 512 '
    f'"-" "curl/8.5.0"' for n, (path, status) in enumerate([
        ("cart", 200), ("cart", 500), ("orders", 499), ("orders", 404), ("cart", 500),
        ("orders", 404), ("healthz", 200)]))
JOBS = ("NAME            STATUS     COMPLETIONS\n"
        "etl-nightly     Failed     0/1\n"
        "etl-hourly      Complete   1/1\n"
        "report-weekly   Failed     0/1\n"
        "cleanup         Complete   1/1")
POOLS = "pool   requests  avg_rt\nblue   18220     0.143\ngreen  17904     0.391"
NODES = "\n".join(json.dumps({"name": f"rabbit@mq-0{n}", "mem_used": used}) for n, used in
                  [(1, 1932735283), (2, 3221225472), (3, 4724464025)])
TOP = ("NAME           CPU(cores)   MEMORY(bytes)\n"
       "clickhouse-0   812m         6144Mi\n"
       "kafka-0        301m         3301Mi\n"
       "kafka-1        298m         3412Mi\n"
       "kafka-2        305m         3340Mi")
ISSUES = ("ID    TITLE                     LABELS\n"
          "#941  Crash opening camera      bug, android, p1\n"
          "#938  Push delayed              bug, ios\n"
          "#930  Login loops               bug, ios, p1\n"
          "#922  Dark mode contrast        bug, android")


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a count of a class of records: HTTP status classes and codes, in digits or words
    ("There were two 5xx responses and two 404s.", [ACCESS], ["verified"]),
    ("There were three 5xx responses and two 404s.", [ACCESS], ["absent"]),
    ("There were 2 server errors.", [ACCESS], ["verified"]),
    ("There were 3 server errors.", [ACCESS], ["absent"]),
    ("Three 4xx responses were logged.", [ACCESS], ["verified"]),
    # and states of rows
    ("Two failed jobs need a rerun.", [JOBS], ["verified"]),
    ("Three failed jobs need a rerun.", [JOBS], ["absent"]),
    # a comparison by the values the claim binds to each side
    ("Green is the slower one: green averages 391 ms, against 143 ms for blue.", [POOLS],
     ["verified"]),
    ("Blue is the slower one: green averages 391 ms, against 143 ms for blue.", [POOLS],
     ["contradicted"]),
    # a comparison by the rows each side's word is on
    ("Android has as many open bugs as iOS.", [ISSUES], ["unverified"]),
    ("Android has more open bugs than iOS.", [ISSUES], ["contradicted"]),
    # the extreme of a table's rows, under the key holding the claim's value (of the rows the
    # claim names by a common leading part when it does)
    ("`mq-01` uses the least, about 1.8 GiB.", [NODES], ["verified"]),
    ("`mq-03` uses the least, about 4.4 GiB.", [NODES], ["contradicted"]),
    ("`mq-03` uses the most memory, 4724464025 bytes.", [NODES], ["verified"]),
    ("The Kafka brokers use about 3.3 GiB each, with `kafka-1` the highest at 3412Mi.", [TOP],
     ["verified"]),
    ("The pods use about 3.3 GiB each, with `kafka-1` the highest at 3412Mi.", [TOP],
     ["contradicted"]),
    # a rank or a phrase is no extreme
    ("`mq-02` is the second largest at 3.0 GiB.", [NODES], ["verified"]),
    ("`mq-03` restarted most recently, using at least 4.4 GiB.", [NODES], ["verified"]),
])
def test_counts_and_comparisons(answer, items, expected):
    assert outcomes(answer, items) == expected


def test_an_access_log_line_is_read_field_by_field():
    record = read_text("E1", ACCESS)[1]
    fields = {value.key: value.raw for value in record.values}
    assert fields["status"] == "500"
    assert fields["request"] == "GET /api/cart HTTP/1.1"
    assert fields["remote_addr"] == "10.0.0.1"
    assert "/api/cart" in record.names
