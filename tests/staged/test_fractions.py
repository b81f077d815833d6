"""A share written in words is a value: "more than half" against 40% is contradicted, as "more
than 50%" is; "less than half" is grounded. Periods ("the second half", "the first quarter of
2024", "a quarter of an hour") are no shares."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import AnchorKind, extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
SHARES = {"half": 50.0, "a third": 100 / 3, "two thirds": 200 / 3, "a quarter": 25.0,
          "three quarters": 75.0, "a fifth": 20.0}
ABOVE = ("more than", "over", "at least")
BELOW = ("less than", "under", "at most")
RECORDS = (
    ("title: Crystal Head Vodka\nType: Vodka\nAlcohol by volume: {v}%\nProof (US): 80",
     "Crystal Head Vodka is {q} {s} alcohol by volume."),
    ("host=db-prod-1 cpu_pct={v} mem_pct=12.0", "CPU on db-prod-1 was {q} {s}."),
    ("host=api-prod-3 error_pct={v} p99_latency_ms=880",
     "The error rate on api-prod-3 was {q} {s}."),
)


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


@settings(max_examples=80)
@given(value=st.integers(1, 99), share=st.sampled_from(sorted(SHARES)),
       qualifier=st.sampled_from(ABOVE + BELOW), record=st.sampled_from(range(len(RECORDS))))
@example(value=40, share="half", qualifier="more than", record=0)
@example(value=40, share="half", qualifier="less than", record=0)
@example(value=72, share="half", qualifier="under", record=1)
def test_a_share_in_words_is_grounded_exactly_when_the_value_is_on_its_side(
        value: int, share: str, qualifier: str, record: int) -> None:
    bound = SHARES[share]
    assume(abs(value - bound) >= 2)  # within the whole-percent rounding of the bound: either way
    evidence, answer = RECORDS[record]
    claim = answer.format(q=qualifier, s=share)
    holds = value > bound if qualifier in ABOVE else value < bound
    got = buckets(claim, [evidence.format(v=value)])
    assert got == (["grounded"] if holds else ["contradicted"]), (claim, value, got)


@pytest.mark.parametrize("text", [
    "the second half of the game", "in the first quarter of 2024", "a quarter of an hour",
    "half an hour later", "half of 2023", "the other half of the team", "for a third time",
    "at half-time", "the last quarter", "on its third of five attempts",
    "the quarter of the year"])
def test_a_period_or_an_ordinal_is_no_share(text: str) -> None:
    assert not [a for a in extract_anchors(text) if a.kind is AnchorKind.PERCENT], text


@pytest.mark.parametrize(("text", "value", "qualifier"), [
    ("more than half of the pods", 50.0, "over"), ("nearly two thirds of requests", 66.7,
                                                     "nearly"),
    ("about a quarter of the nodes", 25.0, "about"), ("three quarters of users", 75.0, None),
    ("at most a fifth of the disks", 20.0, "at_most")])
def test_a_share_is_read_with_its_qualifier(text: str, value: float,
                                            qualifier: str | None) -> None:
    shares = [a for a in extract_anchors(text) if a.kind is AnchorKind.PERCENT]
    assert [(a.value, a.qualifier) for a in shares] == [(value, qualifier)], text
