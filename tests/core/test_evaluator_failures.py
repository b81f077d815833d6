"""What the loop does when the judge fails, a callback fails, or time runs out."""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage, JudgeVerdict
from gsar_otel.core.result import DEADLINE_EXCEEDED, GSARResult
from tests.core.scripted import PROCEED, REGENERATE, REPLAN, Recorder, ScriptedJudge

ANSWER = "Disk usage is high on the web tier."
REWRITE = "Disk usage is high on the web tier, per the df output."
EVIDENCE = "[tool=df] disk usage high on web tier"
NEW_EVIDENCE = "[tool=df] disk usage high on web tier\n[tool=du] logs fill the disk"


class RateLimited(Exception):
    """Stands in for a provider error a judge might raise."""


def evaluate(evaluator: GSAREvaluator, answer: str = ANSWER) -> GSARResult:
    return asyncio.run(evaluator.evaluate(report_synthesis=answer, evidence_corpus=EVIDENCE))


# --- the judge fails -----------------------------------------------------------------------------


def test_a_judge_that_raises_becomes_an_abstain_naming_the_error_type():
    result = evaluate(GSAREvaluator(ScriptedJudge(RateLimited("429 from provider"))))
    (entry,) = result.trajectory
    assert entry.decision is Decision.ABSTAIN
    assert entry.judge_error == "RateLimited"
    assert "RateLimited" in (entry.judge_output.abstain_reason or "")
    assert result.judge_errors == ("RateLimited",)
    assert result.final_decision is Decision.ABSTAIN
    assert result.final_score == 0.5


def test_after_a_judge_error_the_loop_replans_and_can_recover():
    calls = Recorder(replan_returns=[(ANSWER, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(RateLimited("429"), PROCEED), None,
                                    calls.replan))
    assert [e.decision for e in result.trajectory] == [Decision.ABSTAIN, Decision.PROCEED]
    assert [e.judge_error for e in result.trajectory] == ["RateLimited", None]
    assert result.final_decision is Decision.PROCEED


@pytest.mark.parametrize("garbage", [None, {"grounding_score": 1.0}, "proceed", 0.9])
def test_a_judge_that_returns_something_else_than_a_judge_output_becomes_an_abstain(garbage):
    result = evaluate(GSAREvaluator(ScriptedJudge(garbage)))
    (entry,) = result.trajectory
    assert entry.decision is Decision.ABSTAIN
    assert entry.judge_error == "InvalidJudgeOutput"
    assert type(garbage).__name__ in (entry.judge_output.abstain_reason or "")


def test_a_judge_output_that_skipped_validation_is_caught_before_scoring():
    unchecked = JudgeOutput.model_construct(grounding_score=math.nan, is_grounded=True)
    result = evaluate(GSAREvaluator(ScriptedJudge(unchecked)))
    (entry,) = result.trajectory
    assert entry.decision is Decision.ABSTAIN
    assert entry.judge_error == "InvalidJudgeOutput"
    assert "grounding_score" in (entry.judge_output.abstain_reason or "")


def test_a_judge_that_reports_a_verdict_passes_its_usage_and_model_through():
    class MeteredJudge:
        model = "judge-model-1"

        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            raise AssertionError("judge_verdict is preferred")

        async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
            return JudgeVerdict(output=PROCEED(synthesis, evidence), model="judge-model-1@v2",
                                usage=JudgeUsage(input_tokens=100, output_tokens=20))

    result = evaluate(GSAREvaluator(MeteredJudge()))
    (entry,) = result.trajectory
    assert entry.judge_model == "judge-model-1@v2"
    assert entry.judge_usage == JudgeUsage(input_tokens=100, output_tokens=20)
    assert result.judge_usage is not None
    assert result.judge_usage.total_tokens == 120
    assert result.final_decision is Decision.PROCEED


def test_a_judge_raising_cancelled_error_by_itself_is_an_abstain():
    # Nobody cancelled the caller: the judge's own CancelledError must not reach it
    # (a real cancellation still propagates: tests/core/test_base_exceptions.py).
    class CancelledJudge:
        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            raise asyncio.CancelledError

    result = evaluate(GSAREvaluator(CancelledJudge()))
    assert result.final_decision is Decision.ABSTAIN
    assert result.judge_errors == ("CancelledError",)


# --- the caller's callbacks fail -----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_exception_from_regenerate_fn_propagates_as_the_same_object(mode):
    error = RuntimeError("generator is down")

    def regenerate(synthesis: str, judge_output: JudgeOutput) -> str:
        raise error

    async def regenerate_async(synthesis: str, judge_output: JudgeOutput) -> str:
        raise error

    fn = regenerate if mode == "sync" else regenerate_async
    with pytest.raises(RuntimeError) as raised:
        evaluate(GSAREvaluator(ScriptedJudge(REGENERATE), fn))
    assert raised.value is error


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_exception_from_replan_fn_propagates_as_the_same_object(mode):
    class PlannerError(Exception):
        pass

    error = PlannerError("no tools left")

    def replan(synthesis: str, evidence: EvidenceSet, judge_output: JudgeOutput) -> tuple:
        raise error

    async def replan_async(synthesis: str, evidence: EvidenceSet,
                           judge_output: JudgeOutput) -> tuple:
        raise error

    fn = replan if mode == "sync" else replan_async
    with pytest.raises(PlannerError) as raised:
        evaluate(GSAREvaluator(ScriptedJudge(REPLAN), None, fn))
    assert raised.value is error


def test_a_timeout_error_raised_by_a_callback_itself_is_not_mistaken_for_the_deadline():
    error = TimeoutError("upstream timed out")

    async def regenerate(synthesis: str, judge_output: JudgeOutput) -> str:
        raise error

    with pytest.raises(TimeoutError) as raised:
        evaluate(GSAREvaluator(ScriptedJudge(REGENERATE), regenerate, deadline_s=30))
    assert raised.value is error


@pytest.mark.parametrize("bad", [None, 42, ["a list"], b"bytes"])
def test_regenerate_fn_returning_a_non_string_is_a_clear_error(bad):
    with pytest.raises(TypeError, match="regenerate_fn must return a str"):
        evaluate(GSAREvaluator(ScriptedJudge(REGENERATE), lambda s, j: bad))


@pytest.mark.parametrize("bad", [None, "just text", ("only one",), (42, "evidence")])
def test_replan_fn_returning_something_else_than_a_pair_is_a_clear_error(bad):
    with pytest.raises(TypeError, match=r"replan_fn must return a \(synthesis: str, evidence\)"):
        evaluate(GSAREvaluator(ScriptedJudge(REPLAN), None, lambda s, e, j: bad))


def test_replan_fn_returning_evidence_that_cannot_be_coerced_is_a_clear_error():
    with pytest.raises(ValueError, match="evidence must be a string"):
        evaluate(GSAREvaluator(ScriptedJudge(REPLAN), None, lambda s, e, j: (REWRITE, 42)))


# --- deadlines -----------------------------------------------------------------------------------


def test_a_slow_judge_is_cut_off_at_the_deadline_as_an_abstain():
    calls = Recorder(replan_returns=[(REWRITE, NEW_EVIDENCE)])
    judge = ScriptedJudge(PROCEED, delay_s=10)
    started = time.monotonic()
    result = evaluate(GSAREvaluator(judge, None, calls.replan, deadline_s=0.2))
    assert time.monotonic() - started < 5
    (entry,) = result.trajectory
    assert entry.decision is Decision.ABSTAIN
    assert entry.judge_error == DEADLINE_EXCEEDED == "DeadlineExceeded"
    assert "deadline" in (entry.judge_output.abstain_reason or "")
    assert calls.replan_calls == []
    assert result.degraded
    assert result.degraded_reason == "deadline"


def test_a_one_shot_evaluation_cut_off_by_the_deadline_is_degraded():
    result = evaluate(GSAREvaluator(ScriptedJudge(PROCEED, delay_s=10), deadline_s=0.1))
    assert result.rounds == 1
    assert result.final_decision is Decision.ABSTAIN
    assert result.degraded
    assert result.degraded_reason == "deadline"


def test_a_slow_async_callback_is_cut_off_at_the_deadline():
    async def slow_replan(synthesis: str, evidence: EvidenceSet,
                          judge_output: JudgeOutput) -> tuple[str, str]:
        await asyncio.sleep(10)
        return REWRITE, NEW_EVIDENCE

    started = time.monotonic()
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, PROCEED), None, slow_replan,
                                    deadline_s=0.3))
    assert time.monotonic() - started < 5
    assert result.rounds == 1
    assert result.degraded
    assert result.degraded_reason == "deadline"
    assert result.final_report == ANSWER


def test_a_sync_callback_that_overruns_the_deadline_ends_the_loop_before_another_judge_call():
    def slow_regenerate(synthesis: str, judge_output: JudgeOutput) -> str:
        time.sleep(0.3)
        return REWRITE

    judge = ScriptedJudge(REGENERATE, PROCEED)
    result = evaluate(GSAREvaluator(judge, slow_regenerate, deadline_s=0.2))
    assert len(judge.calls) == 1
    assert result.degraded
    assert result.degraded_reason == "deadline"
    assert result.final_report == ANSWER


def test_a_deadline_that_is_not_reached_changes_nothing():
    calls = Recorder(regenerate_returns=[REWRITE])
    result = evaluate(GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate,
                                    deadline_s=30))
    assert result.final_decision is Decision.PROCEED
    assert not result.degraded
