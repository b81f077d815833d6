"""No judge's BaseException reaches the caller as anything but an abstain naming it; only a real
cancellation of the caller's task and KeyboardInterrupt / SystemExit from the caller propagate."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, JudgeOutput
from gsar_otel.core.result import GSARResult

ANSWER = "Disk usage is high on the web tier."
EVIDENCE = "[tool=df] disk usage high on web tier"


class Custom(BaseException):
    """A BaseException subclass some library might raise."""


RAISED_BY_THE_JUDGE = [asyncio.CancelledError, GeneratorExit, Custom]


class RaisingJudge:
    def __init__(self, error: type[BaseException]) -> None:
        self.error = error

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        raise self.error()


class RaisingSyncJudge:
    """A synchronous judge (run on the worker pool) that raises."""

    def __init__(self, error: type[BaseException]) -> None:
        self.error = error

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        raise self.error()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.judge_now(synthesis=synthesis, evidence=evidence)


def assert_abstain_naming(result: GSARResult, error: type[BaseException]) -> None:
    assert result.final_decision is Decision.ABSTAIN
    assert result.judge_errors == (error.__name__,)
    assert error.__name__ in (result.final_judge_output.abstain_reason or "")


@pytest.mark.parametrize("error", RAISED_BY_THE_JUDGE, ids=lambda e: e.__name__)
@pytest.mark.parametrize("caller", ["sync", "async"])
def test_an_async_judges_base_exception_is_an_abstain(error: type[BaseException], caller: str
                                                      ) -> None:
    evaluator = GSAREvaluator(RaisingJudge(error))
    if caller == "sync":
        result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    else:
        result = asyncio.run(evaluator.evaluate(report_synthesis=ANSWER,
                                                evidence_corpus=EVIDENCE))
    assert_abstain_naming(result, error)


@pytest.mark.parametrize("error", [*RAISED_BY_THE_JUDGE, SystemExit, KeyboardInterrupt],
                         ids=lambda e: e.__name__)
def test_a_sync_judges_base_exception_on_a_worker_is_an_abstain(error: type[BaseException]
                                                                ) -> None:
    # On a worker thread even SystemExit / KeyboardInterrupt are the judge's, not the caller's.
    result = GSAREvaluator(RaisingSyncJudge(error)).evaluate_sync(report_synthesis=ANSWER,
                                                                  evidence_corpus=EVIDENCE)
    assert_abstain_naming(result, error)


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit], ids=lambda e: e.__name__)
def test_keyboard_interrupt_and_system_exit_on_the_callers_thread_propagate(
        error: type[BaseException]) -> None:
    with pytest.raises(error):
        GSAREvaluator(RaisingJudge(error)).evaluate_sync(report_synthesis=ANSWER,
                                                         evidence_corpus=EVIDENCE)


def test_a_real_cancellation_of_the_caller_propagates() -> None:
    started = asyncio.Event()

    class SlowJudge:
        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            started.set()
            await asyncio.sleep(3600)
            raise AssertionError("not reached")

    async def main() -> None:
        task = asyncio.create_task(GSAREvaluator(SlowJudge()).evaluate(
            report_synthesis=ANSWER, evidence_corpus=EVIDENCE))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    asyncio.run(main())
