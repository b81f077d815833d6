"""A place a claim names with an ordinal ("the third attempt", "the 2nd build") is the value of
the field numbering that sequence (``run_attempt``, ``build_number``): another place is
contradicted; a count (``attempts``, ``retry_count``) and a zero-based place (a partition) are
no such field."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
         "tenth")
PLACES = {"run_attempt": "attempt", "attempt": "attempt", "run_number": "run",
          "revision": "revision", "retry": "retry", "build_number": "build",
          "iteration": "iteration", "round": "round"}
"""A field numbering a one-based sequence, and the noun a claim gives it."""
UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02",
             "host=db-1 cpu_pct=12.5 conn_count=40"]


def _ordinal(place: int, digits: bool) -> str:
    if not digits:
        return WORDS[place - 1]
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place % 10 if place % 100 not in (11, 12, 13)
                                             else 0, "th")
    return f"{place}{suffix}"


def _record(key: str, value: int, shape: str) -> str:
    if shape == "json":
        return json.dumps({"id": 8812, "name": "deploy-prod", key: value, "status": "completed"})
    return f"pipeline=deploy-prod {key}={value} status=success duration_s=184"


def _bucket(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=80, deadline=None)
@given(key=st.sampled_from(sorted(PLACES)), place=st.integers(1, 10), other=st.integers(1, 10),
       digits=st.booleans(), shape=st.sampled_from(["json", "row"]),
       unrelated=st.permutations(UNRELATED), where=st.integers(0, 3))
@example(key="run_attempt", place=2, other=3, digits=False, shape="json", unrelated=UNRELATED,
         where=0)
def test_an_ordinal_place_is_the_field_numbering_it(key: str, place: int, other: int,
                                                    digits: bool, shape: str,
                                                    unrelated: list[str], where: int) -> None:
    record = _record(key, place, shape)
    items = [*unrelated[:where], record, *unrelated[where:]]
    noun = PLACES[key]
    said = f"deploy-prod was on its {_ordinal(place, digits)} {noun}."
    assert _bucket(said, [record]) == "grounded", (said, record)
    assert _bucket(said, items) == "grounded", (said, items)
    if other != place:
        wrong = f"deploy-prod was on its {_ordinal(other, digits)} {noun}."
        assert _bucket(wrong, [record]) == "contradicted", (wrong, record)
        assert _bucket(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 9), place=st.integers(1, 10),
       key=st.sampled_from(["attempts", "retries", "retry_count", "builds"]))
def test_a_count_is_no_place(count: int, place: int, key: str) -> None:
    # "the third retry" beside ``retries: 5``: the count holds that place, or says nothing of it
    noun = {"attempts": "attempt", "retries": "retry", "retry_count": "retry",
            "builds": "build"}[key]
    record = json.dumps({"id": 8812, "name": "deploy-prod", key: count, "status": "completed"})
    said = f"deploy-prod was on its {WORDS[place - 1]} {noun}."
    assert _bucket(said, [record]) != "contradicted", (said, record)


def test_the_first_partition_is_partition_zero() -> None:
    record = "topic=orders partition=0 leader=2 isr=2,3 lag=0"
    assert _bucket("The first partition of orders has a lag of 0.", [record]) != "contradicted"
