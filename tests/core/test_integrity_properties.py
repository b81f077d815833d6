"""The guard's key property: a judge that silently drops a contradicted claim never raises S.

Synthetic answers have one claim per sentence, each sentence with its own vocabulary, so "the
claim for that sentence" is well defined and the guard's coverage check must find the omission.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import UNCOVERED_SENTENCE, check_judge_output
from gsar_otel.core.model import BUCKETS, Claim, JudgeOutput
from gsar_otel.core.scoring import gsar_score
from tests.core.strategies import (
    PROPERTY_SETTINGS,
    evidence_types,
    rhos,
    unit_floats,
    unknown_types,
    weight_maps,
)

EVIDENCE = EvidenceSet.coerce([
    "host=db-prod-1 cpu_pct=97.2 rps=12.4",
    "[signal] alert_id=A-9912 fired_at=14:02:00",
])
REFS = [(), ("E1",), ("E2",), ("E1", "E2"), ("E7",)]
NUMBERS = ["", " at 97%", " near 12 rps", " of 4500 units"]


def word(sentence: int, position: int) -> str:
    """A made-up word no other sentence uses and the stemmer leaves alone."""
    n = sentence * 3 + position
    letters = ""
    while True:
        letters += "bcdfghjklm"[n % 10]
        n //= 10
        if n == 0:
            break
    return f"zq{letters}vx"


def sentence_text(index: int, number: str) -> str:
    text = " ".join(word(index, p) for p in range(3)) + number
    return text[0].upper() + text[1:]


@dataclass(frozen=True)
class JudgedAnswer:
    synthesis: str
    buckets: dict[str, list[Claim]]
    dropped_index: int  # index into buckets["contradicted"]


@st.composite
def judged_answers(draw: st.DrawFn) -> JudgedAnswer:
    n = draw(st.integers(min_value=1, max_value=6))
    placement = draw(st.lists(st.sampled_from(BUCKETS), min_size=n, max_size=n))
    contradicted_at = draw(st.integers(min_value=0, max_value=n - 1))
    placement[contradicted_at] = "contradicted"
    buckets: dict[str, list[Claim]] = {name: [] for name in BUCKETS}
    sentences = []
    dropped_index = 0
    for i, bucket in enumerate(placement):
        text = sentence_text(i, draw(st.sampled_from(NUMBERS)))
        sentences.append(text + ".")
        kind = draw(st.one_of(evidence_types, unknown_types))
        if i == contradicted_at:
            dropped_index = len(buckets["contradicted"])
        buckets[bucket].append(Claim(text, kind, draw(st.sampled_from(REFS))))
    return JudgedAnswer(" ".join(sentences), buckets, dropped_index)


def guarded_score(answer: JudgedAnswer, buckets: dict[str, list[Claim]], wm, rho, du) -> float:
    output = JudgeOutput(grounding_score=1.0, is_grounded=True,
                         **{f"{name}_claims": claims for name, claims in buckets.items()})
    report = check_judge_output(output, synthesis=answer.synthesis, evidence=EVIDENCE,
                                weight_map=wm, contradiction_penalty=rho, default_unknown=du)
    return gsar_score(report.output.to_partition(), weight_map=wm, contradiction_penalty=rho,
                      default_unknown=du)


def without_dropped(answer: JudgedAnswer) -> dict[str, list[Claim]]:
    buckets = {name: list(claims) for name, claims in answer.buckets.items()}
    del buckets["contradicted"][answer.dropped_index]
    return buckets


@PROPERTY_SETTINGS
@given(judged_answers(), weight_maps(), rhos, unit_floats)
def test_dropping_a_contradicted_claim_never_raises_the_score(answer, wm, rho, du):
    honest = guarded_score(answer, answer.buckets, wm, rho, du)
    silent = guarded_score(answer, without_dropped(answer), wm, rho, du)
    assert silent <= honest


@PROPERTY_SETTINGS
@given(judged_answers(), weight_maps(), rhos, unit_floats)
def test_the_guard_puts_the_dropped_sentence_back_and_only_that_one(answer, wm, rho, du):
    output = JudgeOutput(grounding_score=1.0, is_grounded=True,
                         **{f"{n}_claims": c for n, c in without_dropped(answer).items()})
    report = check_judge_output(output, synthesis=answer.synthesis, evidence=EVIDENCE,
                                weight_map=wm, contradiction_penalty=rho, default_unknown=du)
    added = [a for a in report.adjustments if a.kind == UNCOVERED_SENTENCE]
    dropped = answer.buckets["contradicted"][answer.dropped_index]
    assert [a.claim for a in added] == [dropped.text + "."]
    assert added[0].to_bucket == "ungrounded"


@PROPERTY_SETTINGS
@given(judged_answers(), weight_maps(), rhos, unit_floats)
def test_the_guard_adds_nothing_when_every_sentence_has_its_claim(answer, wm, rho, du):
    output = JudgeOutput(grounding_score=1.0, is_grounded=True,
                         **{f"{n}_claims": c for n, c in answer.buckets.items()})
    report = check_judge_output(output, synthesis=answer.synthesis, evidence=EVIDENCE,
                                weight_map=wm, contradiction_penalty=rho, default_unknown=du)
    assert not [a for a in report.adjustments if a.kind == UNCOVERED_SENTENCE]


@PROPERTY_SETTINGS
@given(judged_answers(), rhos)
def test_an_abstained_verdict_is_never_adjusted(answer, rho):
    output = JudgeOutput(grounding_score=0.5, is_grounded=False, decision_status="abstain",
                         abstain_reason="cannot read the evidence",
                         **{f"{n}_claims": c for n, c in without_dropped(answer).items()})
    report = check_judge_output(output, synthesis=answer.synthesis, evidence=EVIDENCE,
                                contradiction_penalty=rho)
    assert report.output is output
    assert report.adjustments == ()
