"""on_low="raise" and on_low="recover", and validation of every option at decoration time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gsar_otel import GroundingError, GSARResult, grounded, record_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import GSARThresholds, JudgeOutput
from tests.telemetry.helpers import (
    ANSWER,
    CPU_ROW,
    FailingJudge,
    Otel,
    ScriptedJudge,
    grounded_output,
    mixed_output,
)

FIXED = "CPU on db-prod-1 reached 97% at 14:02."


class CallbackFailure(Exception):
    pass


def test_raise_mode_raises_grounding_error_with_the_result(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), on_low="raise")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        agent()
    assert isinstance(raised.value.result, GSARResult)
    assert raised.value.result.final_decision == "replan"
    assert raised.value.result.final_score == 0.625
    assert raised.value.function.endswith("agent")
    assert "grounding decision 'replan' (score 0.62) is not 'proceed'" in str(raised.value)
    assert dict(otel.one_evaluate_span().attributes or {})["gsar.decision"] == "replan"


def test_raise_mode_in_an_async_function_raises_too(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), on_low="raise")
    async def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(GroundingError):
        asyncio.run(agent())


def test_raise_mode_returns_the_same_object_when_the_answer_proceeds(otel: Otel) -> None:
    answer = "".join(["CPU on db-prod-1 ", "reached 97% at 14:02."])

    @grounded(judge=ScriptedJudge(outputs=[grounded_output()]), on_low="raise")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return answer

    assert agent() is answer


def test_raise_mode_fails_closed_when_the_judge_itself_fails(otel: Otel) -> None:
    @grounded(judge=FailingJudge(), on_low="raise")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        agent()
    assert raised.value.result.final_decision == "abstain"
    assert raised.value.result.judge_errors
    assert dict(otel.one_evaluate_span().attributes or {})["gsar.decision"] == "abstain"


def test_recover_mode_returns_the_regenerated_answer_and_traces_each_round(otel: Otel) -> None:
    calls: list[tuple[str, JudgeOutput]] = []

    def regenerate(synthesis: str, output: JudgeOutput) -> str:
        calls.append((synthesis, output))
        return FIXED

    judge = ScriptedJudge(outputs=[mixed_output(), grounded_output()])

    @grounded(judge=judge, on_low="recover", regenerate_fn=regenerate,
              thresholds={"proceed": 0.8, "regenerate": 0.6})
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == FIXED
    assert [c[0] for c in calls] == [ANSWER]
    span = otel.one_evaluate_span()
    attributes = dict(span.attributes or {})
    assert (attributes["gsar.decision"], attributes["gsar.rounds"],
            attributes["gsar.regenerations"], attributes["gsar.replans"]) == ("proceed", 2, 1, 0)
    rounds = sorted(otel.spans("gsar.judge"), key=lambda s: s.start_time or 0)
    assert [(dict(s.attributes or {})["gsar.judge.round"],
             dict(s.attributes or {})["gsar.judge.action"],
             dict(s.attributes or {})["gsar.judge.decision"]) for s in rounds] == [
        (0, "initial", "regenerate"), (1, "regenerate", "proceed")]
    assert all(s.parent is not None and s.parent.span_id == span.context.span_id for s in rounds)


def test_recover_mode_runs_async_replan_callbacks_with_new_evidence(otel: Otel) -> None:
    async def replan(synthesis: str, evidence: EvidenceSet, output: JudgeOutput
                     ) -> tuple[str, list[str]]:
        await asyncio.sleep(0)
        return FIXED, [CPU_ROW]

    judge = ScriptedJudge(outputs=[mixed_output(), grounded_output()])

    @grounded(judge=judge, on_low="recover", replan_fn=replan)
    async def agent() -> str:
        return ANSWER

    assert asyncio.run(agent()) == FIXED
    assert [len(evidence) for _, evidence in judge.seen] == [0, 1]
    actions = sorted((dict(s.attributes or {})["gsar.judge.round"],
                      dict(s.attributes or {})["gsar.judge.action"])
                     for s in otel.spans("gsar.judge"))
    assert actions == [(0, "initial"), (1, "replan")]
    assert dict(otel.one_evaluate_span().attributes or {})["gsar.replans"] == 1


def test_recover_mode_returns_the_original_object_when_it_proceeds_at_once(otel: Otel) -> None:
    class Report:
        text = FIXED

    report = Report()

    @grounded(judge=ScriptedJudge(outputs=[grounded_output()]), on_low="recover",
              regenerate_fn=lambda s, o: "never used", synthesis=lambda r: r.text)
    def agent() -> Report:
        record_evidence(CPU_ROW)
        return report

    assert agent() is report


def test_recover_mode_returns_the_new_text_for_a_non_str_result_it_rewrote(otel: Otel) -> None:
    class Report:
        text = ANSWER

    judge = ScriptedJudge(outputs=[mixed_output(), grounded_output()])

    @grounded(judge=judge, on_low="recover", regenerate_fn=lambda s, o: FIXED,
              synthesis=lambda r: r.text, thresholds=GSARThresholds(regenerate=0.6))
    def agent() -> Report:
        record_evidence(CPU_ROW)
        return Report()

    assert agent() == FIXED


@pytest.mark.parametrize("is_async", [False, True])
def test_a_callbacks_own_exception_propagates_unchanged(otel: Otel, is_async: bool) -> None:
    error = CallbackFailure("regeneration service down")

    def regenerate(synthesis: str, output: JudgeOutput) -> str:
        raise error

    @grounded(judge=ScriptedJudge(), on_low="recover", regenerate_fn=regenerate,
              thresholds={"proceed": 0.8, "regenerate": 0.6})
    def sync_agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=ScriptedJudge(), on_low="recover", regenerate_fn=regenerate,
              thresholds={"proceed": 0.8, "regenerate": 0.6})
    async def async_agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(CallbackFailure) as raised:
        asyncio.run(async_agent()) if is_async else sync_agent()
    assert raised.value is error
    span = otel.one_evaluate_span()
    assert dict(span.attributes or {})["error.type"] == "CallbackFailure"


BAD_OPTIONS: list[tuple[dict[str, Any], str]] = [
    ({"mode": "later"}, "mode must be one of 'inline', 'background', got 'later'"),
    ({"on_low": "panic"}, "on_low must be one of 'observe', 'raise', 'recover', got 'panic'"),
    ({"mode": "background", "on_low": "raise"}, "on_low='raise' needs mode='inline'"),
    ({"mode": "background", "on_low": "recover", "regenerate_fn": str},
     "on_low='recover' needs mode='inline'"),
    ({"on_low": "recover"}, "on_low='recover' needs regenerate_fn and/or replan_fn"),
    ({"regenerate_fn": str}, "regenerate_fn and replan_fn are only used with on_low='recover'"),
    ({"on_low": "recover", "replan_fn": 3}, "replan_fn must be callable or None, got int"),
    ({"evidence": "rows"}, "evidence must be callable or None, got str"),
    ({"synthesis": 1}, "synthesis must be callable or None, got int"),
    ({"thresholds": (0.8, 0.6)}, "thresholds must be a GSARThresholds or a mapping"),
    ({"thresholds": {"proceed": 0.5, "regenerate": 0.7}},
     "thresholds.regenerate (0.7) must be <= thresholds.proceed (0.5)"),
    ({"contradiction_penalty": 1.5}, "contradiction_penalty must be a finite number in [0, 1]"),
    ({"k_max": -1}, "k_max must be an integer >= 0, got -1"),
    ({"k_max": True}, "k_max must be an integer >= 0, got True"),
    ({"contradiction_policy": "strict"},
     "contradiction_policy must be one of 'cap', 'score', got 'strict'"),
    ({"sample_rate": 2}, "sample_rate must be a finite number in [0, 1], got 2"),
    ({"name": "  "}, "name must be a non-empty string"),
    ({"judge": 42}, "judge must be None, a judge name, or an object with an async judge"),
    ({"judge": "oracle"},
     "judge 'oracle' is unknown; available: staged, anthropic, records, tiered, lexical"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS,
                         ids=[m.split(" ")[0] + "-" + str(i) for i, (_, m) in
                              enumerate(BAD_OPTIONS)])
def test_invalid_options_fail_at_decoration_time_naming_the_option(
        options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        grounded(**options)
    assert message in str(raised.value)


def test_generator_functions_are_refused_at_decoration_time() -> None:
    def stream() -> Any:
        yield "partial"

    with pytest.raises(TypeError, match="cannot judge the generator function"):
        grounded(stream)


def test_a_judge_that_cannot_be_built_keeps_a_raise_mode_gate_closed(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)

    @grounded(judge="anthropic", on_low="raise")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    for _ in range(3):  # the same failure each call, not a growing chain of tracebacks
        with pytest.raises(GroundingError) as raised:
            agent()
        assert raised.value.result.judge_errors == ("JudgeUnavailableError",)
    counted = otel.points("gsar.judge.errors")
    assert {dict(key)["error.type"]: point.value for key, point in counted.items()} == {
        "JudgeUnavailableError": 3}


def test_a_sampled_gate_is_refused_at_decoration_time() -> None:
    with pytest.raises(ValueError, match=r"sample_rate=0\.5 cannot go with on_low='raise'"):
        grounded(on_low="raise", sample_rate=0.5)
