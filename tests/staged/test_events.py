"""A time belongs to its own event, and a state now is the record's latest event: the start
given the stop's time, or a ticket "still open" after its ``closed_at``, is never grounded, in
every line shape and phrasing; the true times and states are."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
EVENTS = [("started", "stopped"), ("began", "ended"), ("opened", "closed"),
          ("started", "completed"), ("failed", "recovered")]
LINES = {
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
@given(pair=st.sampled_from(EVENTS), line=st.sampled_from(sorted(LINES)), span=times,
       phrase=st.sampled_from(PHRASES), second=st.booleans(), swapped=st.booleans(),
       service=st.sampled_from(["checkout-api", "payments-api", "db-1"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=3))
@example(pair=EVENTS[0], line="plain", span=("10:02", "10:15"), phrase=PHRASES[0], second=False,
         swapped=True, service="checkout-api", others=[])
def test_a_time_is_its_own_events(pair: tuple[str, str], line: str, span: tuple[str, str],
                                  phrase: str, second: bool, swapped: bool, service: str,
                                  others: list[str]) -> None:
    items = [LINES[line].format(t=t, level=level, s=service, e=e)
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
    items = [LINES["plain"].format(t=span[0], level="WARN", s="checkout-api", e=pair[0]),
             LINES["plain"].format(t=span[1], level="INFO", s="checkout-api", e=pair[1])]
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
