"""deadline_s bounds judging: a synchronous (CPU-bound) judge runs off the event loop on a bounded
pool, the integrity guard counts inside the deadline, and a missed deadline is a degraded
abstain with its reason. No timing is asserted: a judge blocks until the test releases it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from gsar_otel.core import judge_round
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, JudgeOutput
from gsar_otel.core.result import DEADLINE_EXCEEDED, GSARResult
from gsar_otel.runtime import pool as pool_module
from gsar_otel.runtime.pool import PoolBusyError, PoolStats, WorkerPool
from tests.core.scripted import PROCEED

ANSWER = "Disk usage is high on the web tier."
EVIDENCE = "[tool=df] disk usage high on web tier"
SAFETY_S = 30.0
"""A blocked judge gives up after this long, so a regression fails instead of hanging."""


class BlockedSyncJudge:
    """Does its work synchronously (``judge_now``, like LexicalJudge) and blocks until released."""

    name = "blocked-sync"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.started.set()
        self.release.wait(SAFETY_S)
        return PROCEED(synthesis, evidence)

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.judge_now(synthesis=synthesis, evidence=evidence)


@pytest.fixture
def judge() -> Iterator[BlockedSyncJudge]:
    blocked = BlockedSyncJudge()
    yield blocked
    blocked.release.set()  # let the abandoned work finish in the pool


def assert_missed_deadline(result: GSARResult, stage: str) -> None:
    assert result.final_decision is Decision.ABSTAIN
    assert result.degraded and result.degraded_reason == "deadline"
    assert result.judge_errors == (DEADLINE_EXCEEDED,)
    assert f"the {stage} did not finish before the deadline" in (
        result.final_judge_output.abstain_reason or "")


def test_a_blocking_sync_judge_is_cut_off_at_the_deadline_and_the_loop_keeps_running(
        judge: BlockedSyncJudge) -> None:
    ticks_while_blocked = 0

    async def main() -> GSARResult:
        nonlocal ticks_while_blocked

        async def ticker() -> None:
            nonlocal ticks_while_blocked
            while True:
                await asyncio.sleep(0.005)
                if judge.started.is_set() and not judge.release.is_set():
                    ticks_while_blocked += 1

        task = asyncio.create_task(ticker())
        try:
            return await GSAREvaluator(judge, deadline_s=0.3).evaluate(
                report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
        finally:
            task.cancel()

    result = asyncio.run(main())

    assert not judge.release.is_set()  # the judge was still blocked when the result came
    assert_missed_deadline(result, "judge")
    assert ticks_while_blocked > 0  # the host's event loop was never frozen


def test_a_sync_caller_gets_the_deadline_too(judge: BlockedSyncJudge) -> None:
    result = GSAREvaluator(judge, deadline_s=0.2).evaluate_sync(report_synthesis=ANSWER,
                                                                evidence_corpus=EVIDENCE)
    assert not judge.release.is_set()
    assert_missed_deadline(result, "judge")


def test_the_integrity_guard_counts_inside_the_deadline(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    release = threading.Event()
    real_guard = judge_round.check_judge_output

    def slow_guard(*args: Any, **kwargs: Any) -> Any:
        release.wait(SAFETY_S)  # stands for a guard stuck on a pathological answer
        return real_guard(*args, **kwargs)

    monkeypatch.setattr(judge_round, "check_judge_output", slow_guard)

    class QuickJudge:
        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            return PROCEED(synthesis, evidence)

    try:
        result = GSAREvaluator(QuickJudge(), deadline_s=0.2).evaluate_sync(
            report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    finally:
        release.set()
    assert_missed_deadline(result, "integrity guard")


def test_a_round_within_the_deadline_is_judged_as_before() -> None:
    judge = BlockedSyncJudge()
    judge.release.set()
    result = GSAREvaluator(judge, deadline_s=30).evaluate_sync(report_synthesis=ANSWER,
                                                               evidence_corpus=EVIDENCE)
    assert result.final_decision is Decision.PROCEED and not result.degraded


# --- the pool is bounded ------------------------------------------------------------------------


def drained(pool: WorkerPool) -> PoolStats:
    """The pool's counters once its (released) work has ended; the count drops on the worker
    thread just after the job returns."""
    for _ in range(int(SAFETY_S / 0.01)):
        if not pool.stats().pending:
            break
        time.sleep(0.01)
    return pool.stats()



def test_a_full_pool_refuses_work_and_counts_it_and_abandoned_work() -> None:
    pool = WorkerPool(max_workers=1, max_pending=1)
    release = threading.Event()

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(pool.run(release.wait, SAFETY_S), 0.05)
        with pytest.raises(PoolBusyError):
            await pool.run(lambda: None)

    asyncio.run(main())
    stats = pool.stats()
    assert (stats.submitted, stats.refused, stats.abandoned, stats.pending) == (1, 1, 1, 1)
    release.set()
    drained(pool)
    assert asyncio.run(pool.run(lambda: 42)) == 42
    assert drained(pool).submitted == 2


def test_queued_work_whose_caller_gave_up_never_runs() -> None:
    pool = WorkerPool(max_workers=1, max_pending=4)
    release = threading.Event()
    ran: list[str] = []

    async def main() -> None:
        blocker = asyncio.ensure_future(pool.run(release.wait, SAFETY_S))
        await asyncio.sleep(0)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(pool.run(ran.append, "queued"), 0.05)
        release.set()
        await blocker

    asyncio.run(main())
    assert ran == []
    assert drained(pool).pending == 0


def test_a_round_refused_by_a_full_pool_is_an_abstain_naming_it(
        monkeypatch: pytest.MonkeyPatch, judge: BlockedSyncJudge) -> None:
    monkeypatch.setattr(pool_module, "_pool", WorkerPool(max_workers=1, max_pending=1))
    first = GSAREvaluator(judge, deadline_s=0.1).evaluate_sync(report_synthesis=ANSWER,
                                                               evidence_corpus=EVIDENCE)
    assert first.judge_errors == (DEADLINE_EXCEEDED,)
    second = GSAREvaluator(judge, deadline_s=5).evaluate_sync(report_synthesis=ANSWER,
                                                              evidence_corpus=EVIDENCE)
    assert second.final_decision is Decision.ABSTAIN
    assert second.judge_errors == ("JudgePoolBusy",)
    assert pool_module.pool_stats().refused == 1
