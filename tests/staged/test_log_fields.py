"""A log line of a well-known format is read into its fields. An access log line is one
request: its path names what it is about, its method, status and client are its values. A
logged SQL statement is a command on a table, run by a user on a database. A claim about a path
or a table is read against its own line, never a value on another line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.log_fields import access_fields, statement_fields

judge = StagedJudge()
PATHS = ["/api/orders", "/login", "/api/cart/items", "/healthz", "/v2/payments/refund"]
METHODS = ["GET", "POST", "PUT", "DELETE"]
STATUSES = [200, 201, 301, 404, 499, 500, 502, 504]
LINE = ('{ip} - - [10/Jun/2024:14:{m:02d}:{s:02d} +0000] "{method} {path} HTTP/1.1" {status} '
        '{size} "-" "okhttp/4.9.3" rt={rt}')
UNRELATED = ["2024-06-10T14:00:00Z INFO cache-1 flushed 42 keys",
             "host=db-9 cpu_pct=12.5 status=ok"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


requests = st.lists(st.tuples(st.sampled_from(METHODS), st.sampled_from(STATUSES),
                              st.integers(2, 250)), min_size=2, max_size=len(PATHS))


def lines_of(drawn: list[tuple[str, int, int]]) -> list[str]:
    return [LINE.format(ip=f"10.0.{i}.{host}", m=i, s=host % 60, method=method,
                        path=PATHS[i], status=status, size=1000 + host, rt=f"{host / 100:.3f}")
            for i, (method, status, host) in enumerate(drawn)]


@settings(max_examples=60)
@given(drawn=requests, pick=st.integers(0, 4), one_item=st.booleans(),
       others=st.lists(st.sampled_from(UNRELATED), unique=True, max_size=2))
def test_a_request_is_read_against_its_own_line(drawn: list[tuple[str, int, int]], pick: int,
                                                one_item: bool, others: list[str]) -> None:
    lines = lines_of(drawn)
    items = ["\n".join(lines)] if one_item else lines
    chosen = pick % len(drawn)
    method, status, host = drawn[chosen]
    path = PATHS[chosen]
    for claim in (f"{method} {path} returned {status}.",
                  f"The {path} request came from 10.0.{chosen}.{host}."):
        assert buckets(claim, [*items, *others]) == ["grounded"], (claim, lines)
        assert buckets(claim, [*others, *reversed(items)]) == ["grounded"], (claim, lines)
    for other, (_, other_status, other_host) in enumerate(drawn):
        if other_status != status:
            claim = f"{method} {path} returned {other_status}."
            assert buckets(claim, [*items, *others]) != ["grounded"], (claim, lines)
        if other != chosen:
            claim = f"The {path} request came from 10.0.{other}.{other_host}."
            assert buckets(claim, [*items, *others]) != ["grounded"], (claim, lines)
    for wrong in METHODS:
        if wrong != method:
            claim = f"{wrong} {path} returned {status}."
            assert buckets(claim, items) == ["contradicted"], (claim, lines)


@settings(max_examples=40)
@given(drawn=requests)
def test_an_access_line_holds_its_request_fields(drawn: list[tuple[str, int, int]]) -> None:
    for line, (method, status, host) in zip(lines_of(drawn), drawn, strict=False):
        fields = dict(access_fields(line))
        assert fields["method"] == method and fields["status"] == str(status)
        assert fields["bytes"] == str(1000 + host) and fields["path"] in PATHS
        assert fields["client"].startswith("10.0.")
    assert access_fields("GET /login returned 200 at 10:02") == []


TABLES = ["payments", "users", "orders", "audit_events", "sessions"]
COMMANDS = {"SELECT": "SELECT * FROM {t} WHERE id = $1", "UPDATE": "UPDATE {t} SET a = 1",
            "DELETE": "DELETE FROM {t} WHERE id = $1", "INSERT": "INSERT INTO {t} VALUES (1)"}
SLOW = ("2024-06-10 14:{m:02d}:47.159 UTC [{pid}] {user}@{db} LOG:  duration: {ms} ms  "
        "statement: {sql}")
statements = st.lists(st.tuples(st.sampled_from(sorted(COMMANDS)), st.integers(1000, 20000)),
                      min_size=2, max_size=len(TABLES), unique_by=lambda t: t[1] // 500)


@settings(max_examples=60)
@given(drawn=statements, pick=st.integers(0, 4), user=st.sampled_from(["etl", "app_rw"]),
       db=st.sampled_from(["shop", "billing", "ledger"]), one_item=st.booleans())
def test_a_statement_is_read_against_its_own_line(drawn: list[tuple[str, int]], pick: int,
                                                  user: str, db: str, one_item: bool) -> None:
    lines = [SLOW.format(m=i, pid=4000 + i, user=user, db=db, ms=f"{ms}.5",
                         sql=COMMANDS[command].format(t=TABLES[i]))
             for i, (command, ms) in enumerate(drawn)]
    items = ["\n".join(lines)] if one_item else lines
    chosen = pick % len(drawn)
    command, ms = drawn[chosen]
    table = TABLES[chosen]
    assert dict(statement_fields(lines[chosen])) == {
        "command": command, "table": table, "user": user, "database": db}
    assert buckets(f"A {command} on {table} took {ms}.5 ms.", items) == ["grounded"], lines
    assert buckets(f"A {command} on the {table} table took {ms}.5 ms in the {db} database.",
                   items) == ["grounded"], lines
    other_db = "warehouse" if db != "warehouse" else "archive"
    claim = f"A {command} on the {table} table took {ms}.5 ms in the {other_db} database."
    assert buckets(claim, items) == ["ungrounded"], (claim, lines)
    for other, (_, other_ms) in enumerate(drawn):
        if other != chosen:
            claim = f"A {command} on {table} took {other_ms}.5 ms."
            assert buckets(claim, items) != ["grounded"], (claim, lines)
    for wrong in COMMANDS:
        if wrong != command:
            claim = f"A {wrong} on {table} took {ms}.5 ms."
            assert buckets(claim, items) == ["contradicted"], (claim, lines)


SERIES = ('{{"metric": "trace.http.request.duration.99p", "scope": "service:{svc},env:prod", '
          '"pointlist": [[1718028000000, {v}]]}}')


@settings(max_examples=60)
@given(values=st.lists(st.integers(100, 999), min_size=2, max_size=4, unique=True),
       pick=st.integers(0, 3), reverse=st.booleans())
def test_a_tag_string_is_a_field_per_tag(values: list[int], pick: int, reverse: bool) -> None:
    services = ["shipping", "cart", "orders", "search"]
    series = [SERIES.format(svc=services[i], v=v) for i, v in enumerate(values)]
    if reverse:
        series.reverse()
    item = '{"status": "ok", "series": [' + ", ".join(series) + "]}"
    chosen = pick % len(values)
    assert buckets(f"The {services[chosen]} p99 latency reached {values[chosen]} ms.",
                   [item]) == ["grounded"], item
    for other, value in enumerate(values):
        if other != chosen:
            claim = f"The {services[chosen]} p99 latency reached {value} ms."
            assert buckets(claim, [item]) != ["grounded"], (claim, item)
    from gsar_otel.judges.staged.log_fields import tag_pairs
    assert tag_pairs("service:shipping,env:prod") == [("service", "shipping"), ("env", "prod")]
    assert tag_pairs("upstream connect error: reset") == []
