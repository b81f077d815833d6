"""Bad input gives a clear error or a recorded safe default, never a crash or a silent change."""

from __future__ import annotations

import asyncio
import math

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import DEFAULT_MAX_ITEM_CHARS, EvidenceSet
from gsar_otel.core.integrity import (
    MISSING_EVIDENCE_REF,
    SYNTHESIS_TRUNCATED,
    UNKNOWN_EVIDENCE_TYPE,
)
from gsar_otel.core.model import Claim, Decision, GSARThresholds, JudgeOutput, Partition
from gsar_otel.core.result import DEFAULT_MAX_SYNTHESIS_CHARS, GSARResult
from gsar_otel.core.scoring import decide, gsar_score
from tests.core.scripted import PROCEED, Recorder, ScriptedJudge

ANSWER = "Disk usage is high on the web tier."
EVIDENCE = "[tool=df] disk usage high on web tier"


def evaluate(evaluator: GSAREvaluator, answer: object = ANSWER,
             evidence: object = EVIDENCE) -> GSARResult:
    return asyncio.run(evaluator.evaluate(report_synthesis=answer,  # type: ignore[arg-type]
                                          evidence_corpus=evidence))


@pytest.mark.parametrize("empty", ["", "   ", "\n\t \n"])
def test_an_empty_answer_abstains_with_a_clear_reason_without_calling_the_judge(empty):
    judge = ScriptedJudge(PROCEED)
    result = evaluate(GSAREvaluator(judge), answer=empty)
    assert judge.calls == []
    assert result.final_decision is Decision.ABSTAIN
    assert result.final_judge_output.abstain_reason == "synthesis is empty: nothing to judge"
    assert result.final_score == 0.5


def test_an_empty_answer_can_still_be_replanned_into_a_real_one():
    calls = Recorder(replan_returns=[(ANSWER, EVIDENCE)])
    judge = ScriptedJudge(PROCEED)
    result = evaluate(GSAREvaluator(judge, None, calls.replan), answer="")
    assert [e.decision for e in result.trajectory] == [Decision.ABSTAIN, Decision.PROCEED]
    assert len(judge.calls) == 1


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["a list"], {"text": "dict"}])
def test_a_non_string_answer_is_rejected_naming_report_synthesis(bad):
    with pytest.raises(ValueError, match=r"report_synthesis must be a str, got "):
        evaluate(GSAREvaluator(ScriptedJudge(PROCEED)), answer=bad)


@pytest.mark.parametrize("empty", [None, "", [], "\n\n"])
def test_empty_evidence_is_not_judged_but_abstains_no_evidence(empty):
    judge = ScriptedJudge(lambda s, e: JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim(ANSWER.rstrip("."), "tool_match", ["E1"])]))
    result = evaluate(GSAREvaluator(judge), evidence=empty)
    assert judge.calls == []
    assert result.final_partition.is_empty
    assert result.final_score == 0.0
    assert result.final_decision is Decision.ABSTAIN
    assert result.degraded_reason == "no_evidence"


def test_unbacked_grounded_claims_against_empty_evidence_are_demoted_by_the_guard():
    # A replan_fn lets the loop judge an empty set (the replan may gather evidence).
    judge = ScriptedJudge(lambda s, e: JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim(ANSWER.rstrip("."), "tool_match", ["E1"])]))
    result = evaluate(GSAREvaluator(judge, replan_fn=lambda s, e, o: (s, e)), evidence=None)
    assert len(judge.calls) == 1
    assert len(judge.calls[0][1]) == 0
    assert result.trajectory[0].judge_output.grounded_claims == ()
    assert result.final_score == 0.0
    assert [a.kind for a in result.adjustments] == ["unknown_evidence_ref"]


def test_a_grounded_claim_without_refs_against_empty_evidence_is_recorded_as_missing_ref():
    judge = ScriptedJudge(lambda s, e: JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim(ANSWER.rstrip("."), "tool_match")]))
    result = evaluate(GSAREvaluator(judge, replan_fn=lambda s, e, o: (s, e)), evidence=None)
    assert [a.kind for a in result.adjustments] == [MISSING_EVIDENCE_REF]


@pytest.mark.parametrize("bad", [42, 3.14, object()])
def test_evidence_of_an_unsupported_type_is_rejected(bad):
    with pytest.raises(ValueError, match="evidence must be a string"):
        evaluate(GSAREvaluator(ScriptedJudge(PROCEED)), evidence=bad)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinite_numbers_are_rejected_everywhere_they_can_enter(bad):
    with pytest.raises(ValueError, match="score"):
        decide(bad)
    with pytest.raises(ValueError, match="contradiction_penalty"):
        gsar_score(Partition(), contradiction_penalty=bad)
    with pytest.raises(ValueError, match="weight_map"):
        gsar_score(Partition(), weight_map={"inference": bad})
    with pytest.raises(ValueError, match=r"thresholds\.proceed"):
        GSARThresholds(proceed=bad)
    with pytest.raises(ValueError, match="grounding_score"):
        JudgeOutput(grounding_score=bad, is_grounded=True)
    with pytest.raises(ValueError, match="contradiction_penalty"):
        GSAREvaluator(ScriptedJudge(PROCEED), contradiction_penalty=bad)


def test_a_judge_payload_with_a_nan_score_becomes_a_recorded_abstain():
    def nan_payload(synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return JudgeOutput.model_validate_json(
            '{"grounding_score": NaN, "is_grounded": true}')

    result = evaluate(GSAREvaluator(ScriptedJudge(nan_payload)))
    assert result.final_decision is Decision.ABSTAIN
    assert result.judge_errors == ("ValidationError",)


def test_unknown_claim_types_are_kept_scored_and_recorded():
    judge = ScriptedJudge(lambda s, e: JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim(ANSWER.rstrip("."), "disk_reading", ["E1"])],
        ungrounded_claims=[Claim("Growth will continue", "forecast")]))
    result = evaluate(GSAREvaluator(judge), answer=ANSWER + " Growth will continue.")
    assert [c.type for c in result.final_partition.all_claims()] == ["disk_reading", "forecast"]
    assert [a.kind for a in result.adjustments] == [UNKNOWN_EVIDENCE_TYPE] * 2
    assert result.final_score == 0.5  # both weigh default_unknown 0.60


def test_ten_megabytes_of_evidence_are_cut_and_the_cut_is_recorded():
    huge = "[tool=df] disk usage high on web tier " + "x" * 10_000_000
    judge = ScriptedJudge(PROCEED)
    result = evaluate(GSAREvaluator(judge), evidence=huge)
    judged = judge.calls[0][1]
    assert len(judged.items[0].content) == DEFAULT_MAX_ITEM_CHARS
    assert result.final_evidence.truncated
    (cut,) = result.final_evidence.truncations
    assert cut.original_chars == len(huge)
    assert result.final_decision is Decision.PROCEED


def test_ten_megabytes_of_evidence_lines_are_bounded_and_recorded():
    lines = "\n".join(f"[tool=df] node-{i} disk usage high on web tier" for i in range(250_000))
    assert len(lines) > 10_000_000
    result = evaluate(GSAREvaluator(ScriptedJudge(PROCEED)), evidence=lines)
    assert result.final_evidence.truncated
    assert result.final_evidence.total_chars <= 400_000


def test_a_one_megabyte_answer_is_cut_for_the_judge_and_the_cut_is_recorded():
    sentence = "Disk usage is high on the web tier. "
    huge = sentence * (1_000_000 // len(sentence) + 1)
    judge = ScriptedJudge(PROCEED)
    result = evaluate(GSAREvaluator(judge), answer=huge)
    judged_text = judge.calls[0][0]
    assert len(judged_text) == DEFAULT_MAX_SYNTHESIS_CHARS
    (note,) = [a for a in result.adjustments if a.kind == SYNTHESIS_TRUNCATED]
    assert f"{len(huge)} characters cut to {DEFAULT_MAX_SYNTHESIS_CHARS}" in note.reason
    assert result.final_report == huge  # the caller's answer itself is never altered
    assert result.final_decision is Decision.PROCEED


def test_the_synthesis_limit_is_a_setting():
    judge = ScriptedJudge(PROCEED)
    evaluate(GSAREvaluator(judge, max_synthesis_chars=20), answer=ANSWER)
    assert judge.calls[0][0] == ANSWER[:20]
