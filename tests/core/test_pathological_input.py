"""Hostile text ends in a result or a recorded safe default, never an exception, a hang or a
silent loss: NUL bytes, lone surrogates, RTL and zero-width marks, huge digit runs, a
50,000-word sentence, 10 MB of evidence and 5,000 items, judged by ``GSAREvaluator`` with the
``LexicalJudge`` (the bounds are the "Limits" section of docs/scoring.md)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gsar_otel import GSAREvaluator, LexicalJudge
from gsar_otel.core.evidence import DEFAULT_MAX_ITEMS, DEFAULT_MAX_TOTAL_CHARS
from gsar_otel.core.model import Decision
from gsar_otel.core.result import DEFAULT_MAX_SYNTHESIS_CHARS, GSARResult

pytestmark = pytest.mark.cost

HOSTILE = ("\x00", "\ud800", "\udfff", "\u202e", "\u200f", "\u200b", "\u200d", "\ufeff", "\u00ad",
           "\u0301", "\n", "\t", ".", "-", "=", "%", ":", "1", "9", "a", "Z", " ", "\"", "'")
"""Characters an attacker or a broken tool puts in text, beside the ones the rules look at."""

pieces = st.lists(st.one_of(st.sampled_from(HOSTILE),
                            st.sampled_from(["cpu_pct=97.2", "CPU hit 97%", "db-prod-1", "14:02",
                                             " and ", ". ", "caused by", "no errors"])),
                  max_size=40).map("".join)


def _check(result: GSARResult) -> None:
    assert 0.0 <= result.final_score <= 1.0
    assert isinstance(result.final_decision, Decision)
    assert result.final_judge_output.abstain_reason is None or (
        "raised" not in result.final_judge_output.abstain_reason), result.final_judge_output


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=pieces, evidence=st.lists(pieces, max_size=5))
def test_hostile_characters_end_in_a_result(answer: str, evidence: list[str]) -> None:
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis=answer or "x", evidence_corpus=[e for e in evidence if e.strip()])
    _check(result)


@pytest.mark.parametrize("digits", [40, 5_000])
def test_a_number_longer_than_decimal_precision_is_compared_not_raised(digits: int) -> None:
    written = "1" * digits
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis=f"CPU was {written}.", evidence_corpus=[f"cpu={'1' * (digits - 1)}2"])
    _check(result)
    assert not result.final_judge_output.abstained
    assert result.final_partition.contradicted


def test_a_50000_word_sentence_is_judged() -> None:
    answer = "CPU on db-prod-1 rose " + " ".join(f"w{i % 977}" for i in range(50_000)) + "."
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis=answer, evidence_corpus=["host=db-prod-1 cpu_pct=97.2"])
    _check(result)
    assert any(a.kind == "synthesis_truncated" for a in result.adjustments)


def test_ten_megabytes_of_evidence_are_cut_to_the_limit_and_the_cut_recorded() -> None:
    row = "host=db-prod-1 cpu_pct=97.2 p99_ms=850 ts=2024-05-01T14:02:01Z "
    evidence = [row * (10_000_000 // len(row))]
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis="CPU on db-prod-1 reached 97%.", evidence_corpus=evidence)
    _check(result)
    assert result.final_evidence.truncated
    assert result.final_evidence.total_chars <= DEFAULT_MAX_TOTAL_CHARS
    assert result.final_decision is Decision.PROCEED


def test_five_thousand_items_are_cut_to_the_limit_and_the_cut_recorded() -> None:
    rows = [f"host=db-{i} cpu_pct={i % 100}.5" for i in range(5_000)]
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis="CPU on db-7 was 7.5%.", evidence_corpus=rows)
    _check(result)
    assert len(result.final_evidence) == DEFAULT_MAX_ITEMS
    assert any("dropped" in t.reason for t in result.final_evidence.truncations)
    assert result.final_decision is Decision.PROCEED


@pytest.mark.parametrize("unit", ["A. ", "1.", "a.", "a-", "cpu rose and ", "a1-b_2.", " "])
def test_an_answer_at_the_size_limit_of_a_redos_shape_is_judged(unit: str) -> None:
    answer = unit * (DEFAULT_MAX_SYNTHESIS_CHARS // len(unit) + 1)
    result = GSAREvaluator(LexicalJudge()).evaluate_sync(
        report_synthesis="CPU hit 97%. " + answer, evidence_corpus=["a-" * 10_000, unit * 5_000])
    _check(result)
