"""Logs, levels and events: a log line's level, time and fields are values of that line.

Its sections cover the level a line was logged at (a warning is no error), a time that belongs
to its own event and a state now that is the latest event's, and log lines of well-known
formats (access logs, SQL statements, tag strings) read into their fields.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.log_fields import access_fields, statement_fields

# ================================================================================================
# The level a claim says a line was logged at is a value of the line: a warning reported as an
# error, or an error as a warning, is contradicted, in every line shape and phrasing.
# ================================================================================================

judge = StagedJudge()
LINES = {
    "plain": "2024-05-01T10:02:11Z {L} {s} slow query took 2300ms",
    "bracket": "[2024-05-01 10:02:11] [{L}] {s}: slow query took 2300ms",
    "logfmt": 'ts=2024-05-01T10:02:11Z level={l} service={s} msg="slow query took 2300ms"',
    "json": '{{"ts": "2024-05-01T10:02:11Z", "level": "{l}", "service": "{s}", '
            '"msg": "slow query took 2300ms"}}',
}
LEVELS = {"ERROR": "error", "WARN": "warning", "INFO": "info", "DEBUG": "debug"}
SAID = ("{s} logged a slow query at {L} level.", "{s} logged a slow query as {L}.")
LEADS = {"error": "an error", "warning": "a warning"}


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(line=st.sampled_from(sorted(LINES)), held=st.sampled_from(sorted(LEVELS)),
       said=st.sampled_from(sorted(LEVELS)), form=st.sampled_from(SAID),
       service=st.sampled_from(["checkout-api", "auth-service", "db-prod-2"]))
def test_a_level_is_the_lines_own(line: str, held: str, said: str, form: str,
                                  service: str) -> None:
    item = LINES[line].format(L=held, l=held.lower(), s=service)
    claim = form.format(L=said, s=service)
    expected = "grounded" if LEVELS[said] == LEVELS[held] else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@settings(max_examples=40)
@given(line=st.sampled_from(["plain", "bracket", "json"]), held=st.sampled_from(sorted(LEVELS)),
       said=st.sampled_from(sorted(LEADS)))
def test_a_level_in_the_claims_lead_is_read_too(line: str, held: str, said: str) -> None:
    # "logged an error: <message>": the level stands in the lead the claim is split from
    item = LINES[line].format(L=held, l=held.lower(), s="checkout-api")
    claim = f"checkout-api logged {LEADS[said]}: slow query took 2300ms."
    expected = "grounded" if said == LEVELS[held] else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@settings(max_examples=40)
@given(kind=st.sampled_from(["Normal", "Warning"]), said=st.sampled_from(sorted(LEADS)),
       form=st.sampled_from(["checkout-api logged a slow query {w}.",
                             "checkout-api logged {a} about a slow query."]))
def test_a_kubernetes_event_type_is_its_level(kind: str, said: str, form: str) -> None:
    item = f"3m  {kind}  SlowQuery  pod/checkout-api  slow query took 2300ms"
    claim = form.format(w=said, a=LEADS[said])
    # Normal is informational: neither an error nor a warning
    expected = "grounded" if kind == "Warning" and said == "warning" else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


# ================================================================================================
# A time belongs to its own event, and a state now is the record's latest event: the start
# given the stop's time, or a ticket "still open" after its ``closed_at``, is never grounded, in
# every line shape and phrasing; the true times and states are.
# ================================================================================================

EVENTS = [("started", "stopped"), ("began", "ended"), ("opened", "closed"),
          ("started", "completed"), ("failed", "recovered")]
EVENT_LINES = {
    "plain": "2024-05-01T{t}:00Z {level} {s} errors {e}",
    "bracket": "[2024-05-01 {t}:00] [{level}] {s}: errors {e}",
    "logfmt": 'ts=2024-05-01T{t}:00Z level={level} service={s} msg="errors {e}"',
}
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys",
         "2024-05-01T11:30:00Z WARN search-api errors started"]
PHRASES = ("Errors on {s} {e} at {t} UTC.", "Errors on {s} {e} around {t} UTC.",
           "The errors on {s} {e} at {t} UTC.")


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


def _span(start: tuple[int, int, int]) -> tuple[str, str]:
    """Two clock times of one day, the second ``gap`` minutes after the first."""
    hour, minute, gap = start
    later = minute + gap
    return f"{hour:02d}:{minute:02d}", f"{hour + later // 60:02d}:{later % 60:02d}"


times = st.tuples(st.integers(0, 22), st.integers(0, 59), st.integers(1, 59)).map(_span)


@settings(max_examples=120)
@given(pair=st.sampled_from(EVENTS), line=st.sampled_from(sorted(EVENT_LINES)), span=times,
       phrase=st.sampled_from(PHRASES), second=st.booleans(), swapped=st.booleans(),
       service=st.sampled_from(["checkout-api", "payments-api", "db-1"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=3))
@example(pair=EVENTS[0], line="plain", span=("10:02", "10:15"), phrase=PHRASES[0], second=False,
         swapped=True, service="checkout-api", others=[])
def test_a_time_is_its_own_events(pair: tuple[str, str], line: str, span: tuple[str, str],
                                  phrase: str, second: bool, swapped: bool, service: str,
                                  others: list[str]) -> None:
    items = [EVENT_LINES[line].format(t=t, level=level, s=service, e=e)
             for t, level, e in ((span[0], "WARN", pair[0]), (span[1], "INFO", pair[1]))]
    event = pair[1] if second else pair[0]
    time = span[0 if second == swapped else 1]  # the other event's time when swapped
    claim = phrase.format(s=service, e=event, t=time)
    expected = ["contradicted"] if swapped else ["grounded"]
    assert buckets(claim, [*items, *others]) == expected, (claim, items)
    assert buckets(claim, [*others, *reversed(items)]) == expected, (claim, items)


@settings(max_examples=40)
@given(pair=st.sampled_from(EVENTS[:2]), span=times)
def test_a_claim_split_off_its_subject_keeps_its_events_times(pair: tuple[str, str],
                                                             span: tuple[str, str]) -> None:
    items = [EVENT_LINES["plain"].format(t=span[0], level="WARN", s="checkout-api", e=pair[0]),
             EVENT_LINES["plain"].format(t=span[1], level="INFO", s="checkout-api", e=pair[1])]
    right = f"Errors on checkout-api {pair[0]} at {span[0]} UTC and {pair[1]} at {span[1]} UTC."
    wrong = f"Errors on checkout-api {pair[0]} at {span[1]} UTC and {pair[1]} at {span[0]} UTC."
    assert buckets(right, items) == ["grounded", "grounded"]
    assert buckets(wrong, items) == ["contradicted", "contradicted"]


RECORDS = {
    "json": '{{"ticket": "TCK-{n}", "team": "team-5", "{k1}": "2024-05-01T{t1}:00Z", '
            '"{k2}": "2024-05-01T{t2}:00Z"}}',
    "logfmt": "ticket=TCK-{n} team=team-5 {k1}=2024-05-01T{t1}:00Z {k2}=2024-05-01T{t2}:00Z",
}
STATES = {"open": ("is still open", "remains open", "is open"),
          "closed": ("is closed", "is still closed", "remains closed")}


@settings(max_examples=80)
@given(shape=st.sampled_from(sorted(RECORDS)), reopened=st.booleans(), span=times,
       said=st.sampled_from(sorted(STATES)), form=st.integers(0, 2), n=st.integers(1, 99),
       written=st.booleans())
@example(shape="json", reopened=False, span=("10:02", "10:15"), said="open", form=0, n=12,
         written=True)
def test_a_state_now_is_the_latest_events(shape: str, reopened: bool, span: tuple[str, str],
                                          said: str, form: int, n: int, written: bool) -> None:
    keys = ("closed_at", "reopened_at") if reopened else ("opened_at", "closed_at")
    t1, t2 = span
    # the fields in either order: the latest is read off the times, not off their places
    k1, k2, t1, t2 = (*keys, t1, t2) if written else (keys[1], keys[0], t2, t1)
    record = RECORDS[shape].format(n=n, k1=k1, k2=k2, t1=t1, t2=t2)
    now = "open" if reopened else "closed"
    claim = f"Ticket TCK-{n} {STATES[said][form]}."
    expected = ["grounded"] if said == now else ["contradicted"]
    assert buckets(claim, [record]) == expected, (claim, record)
    # each event, stated in the past at its time, is the record's
    first, last = ("closed", "reopened") if reopened else ("opened", "closed")
    assert buckets(f"Ticket TCK-{n} was {first} at {span[0]} UTC.", [record]) == ["grounded"]
    assert buckets(f"Ticket TCK-{n} was {last} at {span[1]} UTC.", [record]) == ["grounded"]


DURATIONS = [(45, "45 seconds"), (120, "2 minutes"), (900, "15 minutes"), (5400, "1.5 hours"),
             (10800, "3 hours")]
ENDS = ("resolved", "recovered", "ended")


@settings(max_examples=80)
@given(span=st.sampled_from(DURATIONS), said=st.sampled_from(DURATIONS),
       end=st.sampled_from(ENDS), line=st.sampled_from(["plain", "logfmt"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=3))
@example(span=DURATIONS[2], said=DURATIONS[2], end="resolved", line="plain", others=[])
def test_a_duration_is_the_span_of_its_events(span: tuple[int, str], said: tuple[int, str],
                                              end: str, line: str, others: list[str]) -> None:
    seconds = span[0]
    later = f"{10 + seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    shapes = {"plain": "2024-05-01T{t}Z {level} {s} outage {e}",
              "logfmt": 'ts=2024-05-01T{t}Z level={level} service={s} msg="outage {e}"'}
    items = [shapes[line].format(t="10:00:00", level="WARN", s="checkout-api", e="started"),
             shapes[line].format(t=later, level="INFO", s="checkout-api", e=end)]
    claim = f"The checkout-api outage lasted {said[1]}."
    expected = ["grounded"] if said == span else ["contradicted"]
    assert buckets(claim, [*others, *items]) == expected, (claim, items)
    assert buckets(claim, [*reversed(items), *others]) == expected, (claim, items)


# ================================================================================================
# A log line of a well-known format is read into its fields. An access log line is one
# request: its path names what it is about, its method, status and client are its values. A
# logged SQL statement is a command on a table, run by a user on a database. A claim about a path
# or a table is read against its own line, never a value on another line.
# ================================================================================================

PATHS = ["/api/orders", "/login", "/api/cart/items", "/healthz", "/v2/payments/refund"]
METHODS = ["GET", "POST", "PUT", "DELETE"]
STATUSES = [200, 201, 301, 404, 499, 500, 502, 504]
LINE = ('{ip} - - [10/Jun/2024:14:{m:02d}:{s:02d} +0000] "{method} {path} HTTP/1.1" {status} '
        '{size} "-" "okhttp/4.9.3" rt={rt}')
UNRELATED = ["2024-06-10T14:00:00Z INFO cache-1 flushed 42 keys",
             "host=db-9 cpu_pct=12.5 status=ok"]


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
