"""The span contract: names, attributes, events, parenting, for sync, async and background calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from gsar_otel import flush, grounded, record_evidence
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage
from tests.telemetry.helpers import (
    ANSWER,
    CPU_ROW,
    WRONG_FACT_ANSWER,
    FailingJudge,
    Otel,
    ScriptedJudge,
    wrong_fact_output,
)

EXPECTED_EVALUATE_ATTRIBUTES: dict[str, Any] = {
    "openinference.span.kind": "EVALUATOR",
    "gsar.function": "incident_answer",
    "gsar.thresholds.proceed": 0.8,
    "gsar.thresholds.regenerate": 0.65,
    "gsar.contradiction_penalty": 0.5,
    "gsar.judge.name": "scripted",
    "gsar.judge.model": "scripted-model-1",
    "gsar.score": 0.625,
    "gsar.decision": "replan",
    "gsar.degraded": False,
    "gsar.rounds": 1,
    "gsar.replans": 0,
    "gsar.regenerations": 0,
    "gsar.claims.total": 2,
    "gsar.claims.grounded": 1,
    "gsar.claims.ungrounded": 1,
    "gsar.claims.contradicted": 0,
    "gsar.claims.complementary": 0,
    "gsar.unverified_share": 0.0,
    "gsar.evidence.count": 1,
    "gsar.evidence.truncated": False,
    "gsar.adjustments": 0,
    "gsar.final_iteration": 0,
    "gsar.conclusion.policy": "cap",
    "gsar.conclusion.capped": False,
    "gsar.contradiction.policy": "cap",
    "gsar.contradiction.capped": False,
    "gsar.claims.disputed": 0,
    "gsar.dispute.policy": "flag",
    "gsar.dispute.capped": False,
    "output.value": "replan (S=0.625)",
}

EXPECTED_CLAIM_EVENTS = [
    {"gsar.claim.index": 0, "gsar.claim.verdict": "grounded",
     "gsar.claim.evidence_type": "tool_match", "gsar.claim.weight": 1.0,
     "gsar.claim.evidence_refs": ("E1",), "gsar.claim.adjusted": False,
     "gsar.claim.judged_by": "model",
     # What identifies the claim without its text: offsets in ANSWER, hash, evidence sources.
     "gsar.claim.start": 0, "gsar.claim.end": 37, "gsar.claim.hash": "83d6e3701a3ceda8",
     "gsar.claim.evidence_sources": ("unknown@E1",)},
    {"gsar.claim.index": 1, "gsar.claim.verdict": "ungrounded",
     "gsar.claim.evidence_type": "inference", "gsar.claim.weight": 0.6,
     "gsar.claim.evidence_refs": (), "gsar.claim.adjusted": False,
     "gsar.claim.judged_by": "model",
     "gsar.claim.start": 39, "gsar.claim.end": 78, "gsar.claim.hash": "63a971cb758462b7",
     "gsar.claim.evidence_sources": ()},
]

EXPECTED_EVALUATION_EVENT = {
    "gen_ai.evaluation.name": "gsar",
    "gen_ai.evaluation.score.value": 0.625,
    "gen_ai.evaluation.score.label": "replan",
    # Content capture is off by default: the judge's own words (which may quote the answer)
    # are replaced by a summary of the numbers.
    "gen_ai.evaluation.explanation": "2 claim(s): 1 grounded, 1 ungrounded; S=0.625 -> replan",
}


def assert_contract(otel: Otel, mode: str) -> None:
    span = otel.one_evaluate_span()
    assert span.name == "gsar.evaluate incident_answer"
    assert span.kind is SpanKind.INTERNAL
    assert dict(span.attributes or {}) == {**EXPECTED_EVALUATE_ATTRIBUTES, "gsar.mode": mode}
    assert span.status.status_code is StatusCode.UNSET
    claims = [dict(e.attributes or {}) for e in span.events if e.name == "gsar.claim"]
    assert claims == EXPECTED_CLAIM_EVENTS
    evaluations = [dict(e.attributes or {}) for e in span.events
                   if e.name == "gen_ai.evaluation.result"]
    assert evaluations == [EXPECTED_EVALUATION_EVENT]
    [judge_span] = otel.spans("gsar.judge")
    assert judge_span.kind is SpanKind.INTERNAL
    assert judge_span.parent is not None
    assert judge_span.parent.span_id == span.context.span_id
    assert dict(judge_span.attributes or {}) == {
        "gsar.judge.round": 0,
        "gsar.judge.action": "initial",
        "gsar.judge.name": "scripted",
        "gsar.judge.model": "scripted-model-1",
        "gsar.judge.abstained": False,
        "gsar.judge.score": 0.625,
        "gsar.judge.decision": "replan",
    }


def test_a_sync_call_writes_the_evaluate_span_claim_events_and_evaluation_event(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    answer()
    assert_contract(otel, "inline")


def test_an_async_call_writes_the_same_telemetry(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), name="incident_answer")
    async def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    asyncio.run(answer())
    assert_contract(otel, "inline")


def test_a_background_call_writes_the_same_telemetry_after_flush(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), name="incident_answer", mode="background")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    answer()
    assert flush(5.0) is True
    assert_contract(otel, "background")


def test_an_async_background_call_writes_the_same_telemetry(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), name="incident_answer", mode="background")
    async def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    asyncio.run(answer())
    assert flush(5.0) is True
    assert_contract(otel, "background")


@pytest.mark.parametrize("mode", ["inline", "background"])
def test_the_evaluate_span_is_a_child_of_the_callers_span(otel: Otel, mode: str) -> None:
    @grounded(judge=ScriptedJudge(), mode=mode)  # type: ignore[arg-type]
    def answer() -> str:
        return ANSWER

    with otel.tracer.start_as_current_span("handle request") as request:
        answer()
    flush(5.0)
    span = otel.one_evaluate_span()
    assert span.parent is not None
    assert span.parent.span_id == request.get_span_context().span_id
    assert span.context.trace_id == request.get_span_context().trace_id


def test_an_async_background_evaluation_is_parented_to_the_span_current_at_call_time(
        otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), mode="background")
    async def answer() -> str:
        return ANSWER

    async def main() -> int:
        with otel.tracer.start_as_current_span("agent turn") as turn:
            await answer()
        return turn.get_span_context().span_id

    turn_id = asyncio.run(main())
    flush(5.0)
    parent = otel.one_evaluate_span().parent
    assert parent is not None and parent.span_id == turn_id


def test_the_judges_own_client_span_nests_under_the_judge_span(otel: Otel) -> None:
    judge = ScriptedJudge(tracer_provider=otel.tracer_provider)

    @grounded(judge=judge)
    async def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    asyncio.run(answer())
    [client] = otel.spans("anthropic.messages.create")
    [judge_span] = otel.spans("gsar.judge")
    assert client.parent is not None and client.parent.span_id == judge_span.context.span_id


def test_a_sync_call_made_inside_a_running_event_loop_keeps_the_parent(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge())
    def answer() -> str:
        return ANSWER

    async def main() -> tuple[str, int]:
        with otel.tracer.start_as_current_span("async host") as host:
            return answer(), host.get_span_context().span_id

    result, host_id = asyncio.run(main())
    assert result == ANSWER
    parent = otel.one_evaluate_span().parent
    assert parent is not None and parent.span_id == host_id


def test_usage_tokens_are_recorded_on_the_judge_span(otel: Otel) -> None:
    usage = JudgeUsage(input_tokens=1200, output_tokens=340, cache_read_input_tokens=1000,
                       cache_creation_input_tokens=5)

    @grounded(judge=ScriptedJudge(usage=usage))
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    answer()
    [span] = otel.spans("gsar.judge")
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.usage.input_tokens"] == 1200
    assert attributes["gen_ai.usage.output_tokens"] == 340
    assert attributes["gsar.judge.usage.cache_read_input_tokens"] == 1000
    assert attributes["gsar.judge.usage.cache_creation_input_tokens"] == 5


def test_a_failing_judge_round_is_an_error_span_with_its_error_type(otel: Otel) -> None:
    @grounded(judge=FailingJudge())
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert answer() == ANSWER
    [span] = otel.spans("gsar.judge")
    assert span.status.status_code is StatusCode.ERROR
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == "ConnectionError"
    assert attributes["gsar.judge.error_type"] == "ConnectionError"
    assert attributes["gsar.judge.abstained"] is True
    evaluate = otel.one_evaluate_span()
    assert dict(evaluate.attributes or {})["gsar.decision"] == "abstain"
    assert dict(evaluate.attributes or {})["gsar.judge.name"] == "failing"


def test_integrity_adjustments_are_visible_on_the_claim_they_changed(otel: Otel) -> None:
    output = JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim("CPU on db-prod-1 reached 97% at 14:02", "tool_match", ["E7"])],
        explanation="cites a row that does not exist")

    @grounded(judge=ScriptedJudge(outputs=[output]))
    def answer() -> str:
        record_evidence(CPU_ROW)
        return "CPU on db-prod-1 reached 97% at 14:02."

    answer()
    span = otel.one_evaluate_span()
    [claim] = [dict(e.attributes or {}) for e in span.events if e.name == "gsar.claim"]
    assert claim["gsar.claim.verdict"] == "ungrounded"
    assert claim["gsar.claim.adjusted"] is True
    assert claim["gsar.claim.adjustment"] == ("unknown_evidence_ref",)
    assert claim["gsar.claim.evidence_refs"] == ("E7",)
    assert dict(span.attributes or {})["gsar.adjustments"] == 1


def test_claim_and_answer_text_stay_off_spans_by_default(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge())
    def answer() -> str:
        return ANSWER

    answer()
    span = otel.one_evaluate_span()
    assert "gsar.synthesis" not in (span.attributes or {})
    assert "input.value" not in (span.attributes or {})
    for event in span.events:
        assert "gsar.claim.text" not in (event.attributes or {})
    [evaluation] = [dict(e.attributes or {}) for e in span.events
                    if e.name == "gen_ai.evaluation.result"]
    assert "The cause is not in the evidence." not in str(evaluation)


@pytest.mark.parametrize("variable", ["GSAR_CAPTURE_CONTENT",
                                      "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"])
def test_content_capture_puts_claim_and_answer_text_on_spans(
        otel: Otel, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, "true")

    @grounded(judge=ScriptedJudge())
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    answer()
    span = otel.one_evaluate_span()
    assert dict(span.attributes or {})["gsar.synthesis"] == ANSWER
    assert dict(span.attributes or {})["input.value"] == ANSWER
    texts = [dict(e.attributes or {})["gsar.claim.text"] for e in span.events
             if e.name == "gsar.claim"]
    assert texts == ["CPU on db-prod-1 reached 97% at 14:02",
                     "The spike was caused by a runaway query"]
    [evaluation] = [dict(e.attributes or {}) for e in span.events
                    if e.name == "gen_ai.evaluation.result"]
    assert evaluation["gen_ai.evaluation.explanation"] == "The cause is not in the evidence."


def test_gsar_capture_content_false_wins_over_the_otel_variable(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", "false")

    @grounded(judge=ScriptedJudge())
    def answer() -> str:
        return ANSWER

    answer()
    assert "gsar.synthesis" not in (otel.one_evaluate_span().attributes or {})


def test_a_capped_conclusion_is_visible_on_the_span_and_its_claim_event(otel: Otel) -> None:
    from gsar_otel.core.model import Claim, JudgeOutput

    cause = Claim("The spike was caused by a deploy", "inference", conclusion=True)
    facts = [Claim(text, "tool_match", ["E1"]) for text in (
        "CPU on db-prod-1 hit 97%", "db-prod-1 ran at 97% CPU", "The CPU of db-prod-1 was 97%")]
    verdict = JudgeOutput(grounding_score=0.8, is_grounded=True, grounded_claims=facts,
                          ungrounded_claims=[cause])

    @grounded(judge=ScriptedJudge([verdict]), name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ". ".join(claim.text for claim in [*facts, cause]) + "."

    answer()
    span = otel.one_evaluate_span()
    attributes = dict(span.attributes or {})
    assert attributes["gsar.decision"] == "regenerate"
    assert attributes["gsar.conclusion.capped"] is True
    assert attributes["gsar.conclusion.policy"] == "cap"
    flagged = [dict(e.attributes or {}) for e in span.events if e.name == "gsar.claim"
               and (e.attributes or {}).get("gsar.claim.conclusion")]
    assert [f["gsar.claim.verdict"] for f in flagged] == ["ungrounded"]


def test_a_capped_contradiction_is_visible_on_the_span(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge([wrong_fact_output()]), name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    answer()
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert attributes["gsar.score"] == pytest.approx(4 / 4.5)
    assert attributes["gsar.decision"] == "regenerate"
    assert attributes["gsar.contradiction.capped"] is True
    assert attributes["gsar.contradiction.policy"] == "cap"
    assert attributes["gsar.conclusion.capped"] is False


def test_the_score_contradiction_policy_is_on_the_span_and_lets_s_decide(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CONTRADICTION_POLICY", "score")
    @grounded(judge=ScriptedJudge([wrong_fact_output()]), name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    answer()
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert attributes["gsar.decision"] == "proceed"
    assert attributes["gsar.contradiction.capped"] is False
    assert attributes["gsar.contradiction.policy"] == "score"
