"""The noun for the kind of record a claim speaks of ("the INFO line", "the ERROR entry", "that
row") is no word the record must hold: a log line is a line whether or not it says so.

The record's own value is grounded by it; another record's value is not; and the noun counts
as a content word where the claim's support is prose ("a row boat" must be stated)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


@settings(max_examples=40, deadline=None)
@given(seconds=st.lists(st.integers(0, 59), min_size=2, max_size=2, unique=True),
       noun=st.sampled_from(["line", "entry", "message", "log line", "record"]),
       levels=st.sampled_from([("ERROR", "INFO"), ("WARN", "INFO"), ("INFO", "ERROR")]))
def test_a_log_line_is_a_line_whether_or_not_it_says_so(seconds: list[int], noun: str,
                                                        levels: tuple[str, str]) -> None:
    lines = [f"2024-06-10T14:02:{seconds[0]:02d}Z {levels[0]} api-1: upstream timeout",
             f"2024-06-10T14:02:{seconds[1]:02d}Z {levels[1]} api-1: retry succeeded"]
    own, other = (f"14:02:{s:02d}" for s in seconds)
    assert bucket(f"The {levels[1]} {noun} was at {other}.", lines) == "grounded", lines
    assert bucket(f"The {levels[1]} {noun} was at {own}.", lines) != "grounded", lines


def test_the_noun_is_a_word_of_prose() -> None:
    story = ["The boat was built in Leeds in 1990 by two brothers."]
    verdicts = judge.explain(synthesis="The row boat was built in Leeds in 1990.",
                             evidence=EvidenceSet.coerce(story))
    assert [v.missing for v in verdicts] == [("row",)]


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(100, 99999), min_size=2, max_size=2, unique=True),
       ids=st.lists(st.integers(1, 9999), min_size=2, max_size=2, unique=True))
@example(sizes=[100, 200], ids=[1, 2])  # the other line's size is this line's status: 200
def test_an_access_log_line_is_a_request_and_its_response(sizes: list[int],
                                                         ids: list[int]) -> None:
    """"GET /api/v1/orders/8812 returned a 1432-byte response": the line is the request and
    its response; another request's size is not its own, even when it is this line's status
    (a size is read against the ``bytes`` its unit names)."""
    lines = [f'10.0.4.{17 + at} - - [10/Jun/2024:14:02:1{at} +0000] "GET /api/v1/orders/'
             f'{ids[at]} HTTP/1.1" 200 {sizes[at]} "-" "okhttp/4.12.0"' for at in range(2)]
    said = "response"
    assert bucket(f"GET /api/v1/orders/{ids[0]} returned a {sizes[0]}-byte {said}.", lines) \
        == "grounded", lines
    assert bucket(f"GET /api/v1/orders/{ids[0]} returned a {sizes[1]}-byte {said}.", lines) \
        != "grounded", lines
