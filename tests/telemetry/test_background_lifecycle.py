"""The background worker's lifecycle: an exact queue bound under many threads, every job judged or
counted as dropped with a reason, a bounded and configurable exit flush, and the SDK clients of
its event loop closed when it stops."""

from __future__ import annotations

import asyncio
import contextvars
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gsar_otel import flush, grounded, record_evidence
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from gsar_otel.otel import background
from gsar_otel.otel.background import BackgroundWorker
from tests.support.fake_anthropic import FakeMessagesServer, fake_anthropic
from tests.telemetry.helpers import ANSWER, Otel, ScriptedJudge

__all__ = ["fake_anthropic"]

ROOT = Path(__file__).resolve().parents[2]
DROPPED = "gsar.background.dropped"


def dropped_by_reason(otel: Otel) -> dict[str, int]:
    return {dict(key).get("gsar.drop.reason", "<none>"): int(point.value)
            for key, point in otel.points(DROPPED).items()}


class Gate:
    """A runner that holds every job until released, counting starts and ends."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self.ended = 0
        self._lock = threading.Lock()

    async def __call__(self, payload: object) -> None:
        with self._lock:
            self.started += 1
        while not self.release.is_set():
            await asyncio.sleep(0.002)
        with self._lock:
            self.ended += 1


def wait_for_starts(gate: Gate, count: int) -> None:
    """Wait (at most 10 s, so a broken worker fails instead of hanging) for ``count`` starts."""
    for _ in range(10_000):
        if gate.started >= count:
            return
        threading.Event().wait(0.001)
    raise AssertionError(f"{gate.started} of {count} jobs started")


def hammer(worker: BackgroundWorker, runner: Gate, threads: int, calls: int) -> int:
    """Submit ``threads x calls`` jobs from ``threads`` threads at once; the number accepted."""
    accepted: list[int] = []
    start = threading.Barrier(threads)

    def submit_many() -> None:
        start.wait()
        ok = sum(worker.submit(runner, None, contextvars.copy_context(), "hammer")
                 for _ in range(calls))
        accepted.append(ok)

    pool = [threading.Thread(target=submit_many) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return sum(accepted)


def test_the_queue_bound_is_exact_under_64_threads(otel: Otel, racy: None) -> None:
    worker = BackgroundWorker(8, concurrency=2)
    gate = Gate()
    first = hammer(worker, gate, threads=2, calls=1)
    wait_for_starts(gate, 2)  # both running: only the queue bound decides from here on
    accepted = hammer(worker, gate, threads=64, calls=50)
    assert (first, accepted, worker.pending) == (2, 8, 8)
    gate.release.set()
    assert worker.wait_idle(10.0)
    assert gate.ended == 10
    assert dropped_by_reason(otel) == {"queue_full": 64 * 50 - 8}
    worker.stop(1.0)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(maxsize=st.integers(1, 6), concurrency=st.integers(1, 3), threads=st.integers(1, 24),
       calls=st.integers(1, 12))
def test_every_call_is_judged_or_counted_as_dropped(
        otel: Otel, maxsize: int, concurrency: int, threads: int, calls: int) -> None:
    before = sum(dropped_by_reason(otel).values())
    worker = BackgroundWorker(maxsize, concurrency=concurrency)
    judge = ScriptedJudge()
    previous, background._worker = background._worker, worker
    try:
        @grounded(judge=judge, mode="background", name="many")
        def agent() -> str:
            record_evidence("host=db-prod-1 cpu_pct=97.2")
            return ANSWER

        def work() -> None:
            for _ in range(calls):
                agent()

        pool = [threading.Thread(target=work) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        assert flush(10.0)
    finally:
        background._worker = previous
        worker.stop(1.0)
    dropped = sum(dropped_by_reason(otel).values()) - before
    assert len(judge.seen) + dropped == threads * calls
    assert worker.unfinished == 0


def test_a_job_submitted_after_the_worker_stopped_is_counted(otel: Otel) -> None:
    worker = BackgroundWorker(4)
    gate = Gate()
    gate.release.set()
    assert worker.submit(gate, None, contextvars.copy_context(), "late")
    assert worker.wait_idle(5.0)
    assert worker.stop(1.0) == 0
    assert not worker.submit(gate, None, contextvars.copy_context(), "late")
    assert dropped_by_reason(otel) == {"stopped": 1}


def test_stopping_drops_and_counts_what_is_still_waiting_or_running(otel: Otel) -> None:
    worker = BackgroundWorker(10, concurrency=2)
    gate = Gate()
    assert hammer(worker, gate, threads=1, calls=7) == 7
    wait_for_starts(gate, 2)
    assert worker.stop(0.1) == 7
    assert dropped_by_reason(otel) == {"exit_timeout": 7}
    assert worker.unfinished == 0
    assert gate.ended == 0


def test_the_exit_budget_comes_from_the_argument_then_the_environment(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    assert background.exit_flush_timeout() == 5.0
    monkeypatch.setenv("GSAR_EXIT_FLUSH_S", "0.25")
    assert background.exit_flush_timeout() == 0.25
    background.set_exit_flush_timeout(1.5)
    try:
        assert background.exit_flush_timeout() == 1.5
    finally:
        background.set_exit_flush_timeout(None)
    for bad in ("abc", "-1", "nan", "inf"):
        monkeypatch.setenv("GSAR_EXIT_FLUSH_S", bad)
        caplog.clear()
        assert background.exit_flush_timeout() == 5.0
        assert f"GSAR_EXIT_FLUSH_S must be a number of seconds >= 0, got {bad!r}; waiting " \
            "the default 5.0 s at exit" in caplog.text
    for bad_argument in (-1, float("nan"), "3", True):
        with pytest.raises(ValueError, match="exit_flush_s must be a number of seconds >= 0"):
            background.set_exit_flush_timeout(bad_argument)  # type: ignore[arg-type]


EXIT_SCRIPT = textwrap.dedent("""
    import asyncio, atexit, json, logging, sys
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult
    from gsar_otel import grounded, record_evidence
    from gsar_otel.otel import instruments as telemetry
    from tests.telemetry.helpers import ScriptedJudge

    judged = []

    class Decisions(SpanExporter):
        def export(self, spans):
            judged.extend(s for s in spans if s.attributes.get("gsar.decision"))
            return SpanExportResult.SUCCESS

    class SlowJudge(ScriptedJudge):
        async def judge_verdict(self, **kwargs):
            await asyncio.sleep(0.2)
            return await super().judge_verdict(**kwargs)

    reader = InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Decisions()))
    telemetry.set_providers(tracer_provider=provider,
                            meter_provider=MeterProvider(metric_readers=[reader]))

    def report():  # registered first, so it runs after gsar-otel's exit flush
        dropped = {}
        for rm in reader.get_metrics_data().resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == "gsar.background.dropped":
                        for p in m.data.data_points:
                            dropped[p.attributes["gsar.drop.reason"]] = p.value
        print(json.dumps({"judged": len(judged), "dropped": dropped}), flush=True)

    atexit.register(report)

    @grounded(judge=SlowJudge(), mode="background", name="late")
    def agent():
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "The answer."

    SETUP
    for _ in range(CALLS):
        agent()
""")


def run_exit_script(calls: int, setup: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    import os

    environ = {k: v for k, v in os.environ.items() if not k.startswith("GSAR_")}
    script = EXIT_SCRIPT.replace("CALLS", str(calls)).replace("SETUP", setup)
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False, env={**environ, **env})


@pytest.mark.parametrize(("setup", "env"), [
    ("", {"GSAR_EXIT_FLUSH_S": "0.5"}),
    ("from gsar_otel.otel.background import set_exit_flush_timeout; "
     "set_exit_flush_timeout(0.5)", {"GSAR_EXIT_FLUSH_S": "60"}),
], ids=["environment", "argument"])
def test_at_exit_what_the_budget_cannot_judge_is_counted_and_reported(
        setup: str, env: dict[str, str]) -> None:
    done = run_exit_script(300, setup, **env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    dropped = report["dropped"].get("exit_timeout", 0)
    # 8 at a time for 0.2 s each: about 16 judged within 0.5 s; every other one counted
    assert report["judged"] + dropped == 300
    assert 0 < report["judged"] < 100
    assert report["dropped"] == {"exit_timeout": dropped}
    warning = [line for line in done.stderr.splitlines() if "not judged within" in line]
    assert warning == [f"gsar: {dropped} background evaluation(s) not judged within the exit "
                       "budget of 0.5 s (GSAR_EXIT_FLUSH_S); counted in gsar.background.dropped "
                       "(gsar.drop.reason=exit_timeout)"]


def test_within_the_budget_every_pending_evaluation_is_judged_at_exit() -> None:
    done = run_exit_script(40, GSAR_EXIT_FLUSH_S="30")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"judged": 40, "dropped": {}}
    assert "not judged" not in done.stderr


def test_the_sdk_clients_of_the_workers_loop_are_closed_when_it_stops(
        otel: Otel, fake_anthropic: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000000000")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    judge = AnthropicJudge(max_retries=0)
    worker = BackgroundWorker(10)
    monkeypatch.setattr(background, "_worker", worker)

    @grounded(judge=judge, mode="background", name="remote")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return ANSWER

    for _ in range(3):
        agent()
    assert flush(10.0)
    assert len(fake_anthropic.message_requests) == 3
    clients = list(judge._loops._own_clients.values())
    assert len(clients) == 1 and not clients[0].is_closed()
    assert worker.stop(5.0) == 0
    assert clients[0].is_closed()
    assert list(judge._loops._own_clients.values()) == []
