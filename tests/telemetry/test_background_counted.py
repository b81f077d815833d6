"""Issue 24 D19-D21: nothing the background worker takes on ends uncounted: drops made while
another thread still imports the telemetry module, a judge's ``SystemExit`` or
``KeyboardInterrupt``, and a job's task cancelled by something other than ``stop()``."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
from collections.abc import Iterator

import pytest

from gsar_otel import flush, grounded, record_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.otel import background, jobs
from gsar_otel.otel.background import BackgroundWorker
from gsar_otel.runtime.worker import Job
from tests.telemetry.helpers import ANSWER, Otel, mixed_output
from tests.telemetry.test_background_lifecycle import dropped_by_reason


@pytest.fixture
def own_worker() -> Iterator[BackgroundWorker]:
    """A fresh process worker for the test, stopped afterwards."""
    worker = BackgroundWorker(64, concurrency=2)
    previous, background._worker = background._worker, worker
    try:
        yield worker
    finally:
        background._worker = previous
        worker.stop(1.0)


def test_drops_made_while_the_instruments_are_being_imported_are_counted_later(
        otel: Otel, caplog: pytest.LogCaptureFixture) -> None:
    spec = sys.modules["gsar_otel.otel.instruments"].__spec__
    assert spec is not None
    job = Job(runner=lambda _: asyncio.sleep(0), payload=None,
              context=contextvars.copy_context(), name="early")
    spec._initializing = True  # what another thread's import in progress looks like
    try:
        with caplog.at_level(logging.WARNING, logger="gsar_otel.otel.background"):
            assert jobs.count_dropped([job] * 3, "queue_full") == 3
            assert jobs.count_dropped([job] * 2, "stopped") == 2
        assert jobs.held_drops() == 5
        assert dropped_by_reason(otel) == {}
        assert not caplog.records  # held, not a failure
    finally:
        spec._initializing = False
    assert flush(2.0)
    assert jobs.held_drops() == 0
    assert dropped_by_reason(otel) == {"queue_full": 3, "stopped": 2}


def test_the_next_count_adds_what_was_held(otel: Otel) -> None:
    spec = sys.modules["gsar_otel.otel.instruments"].__spec__
    assert spec is not None
    job = Job(runner=lambda _: asyncio.sleep(0), payload=None,
              context=contextvars.copy_context(), name="early")
    spec._initializing = True
    try:
        jobs.count_dropped([job] * 4, "queue_full")
    finally:
        spec._initializing = False
    jobs.count_dropped([job], "queue_full")
    assert dropped_by_reason(otel) == {"queue_full": 5}


class ExitingJudge:
    """Raises ``error`` on its first round, then answers like ScriptedJudge."""

    name = "exiting"

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return mixed_output()


@pytest.mark.parametrize("error", [SystemExit(3), KeyboardInterrupt()])
def test_a_judges_system_exit_does_not_stop_the_worker(
        otel: Otel, own_worker: BackgroundWorker, error: BaseException) -> None:
    judge = ExitingJudge(error)

    @grounded(judge=judge, mode="background", name="exits")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return ANSWER

    agent()
    assert flush(10.0)
    for _ in range(21):
        agent()
    assert flush(10.0)
    assert judge.calls == 22
    assert own_worker.unfinished == 0
    assert len(otel.evaluate_spans()) == 22  # the first one ends as failed, naming it
    assert dropped_by_reason(otel) == {"error": 1}


def test_a_runner_that_raises_system_exit_is_counted_as_an_error(
        otel: Otel, caplog: pytest.LogCaptureFixture) -> None:
    worker = BackgroundWorker(8, concurrency=1)
    ran: list[int] = []

    async def exits(payload: int) -> None:
        if payload == 0:
            raise SystemExit(2)
        ran.append(payload)

    try:
        with caplog.at_level(logging.WARNING, logger="gsar_otel.otel.background"):
            for n in range(4):
                assert worker.submit(exits, n, contextvars.copy_context(), "exits")
            assert worker.wait_idle(5.0)
    finally:
        worker.stop(1.0)
    assert ran == [1, 2, 3]
    assert dropped_by_reason(otel) == {"error": 1}
    assert "SystemExit" in caplog.text


def test_a_task_cancelled_by_something_else_is_counted_and_logged(
        otel: Otel, caplog: pytest.LogCaptureFixture) -> None:
    worker = BackgroundWorker(8, concurrency=2)

    async def cancels_itself(payload: int) -> None:
        if payload == 0:
            task = asyncio.current_task()
            assert task is not None
            task.cancel()
        await asyncio.sleep(0)

    try:
        with caplog.at_level(logging.WARNING, logger="gsar_otel.otel.background"):
            for n in range(3):
                assert worker.submit(cancels_itself, n, contextvars.copy_context(), "cancel")
            assert worker.wait_idle(5.0)
        assert worker.unfinished == 0
    finally:
        worker.stop(1.0)
    assert dropped_by_reason(otel) == {"cancelled": 1}
    assert "was cancelled" in caplog.text
