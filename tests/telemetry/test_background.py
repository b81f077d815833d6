"""Background mode: a bounded queue, a worker of its own, drops counted, flush and exit flush."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from gsar_otel import flush, grounded, record_evidence
from gsar_otel.decorator.api import GroundedCall
from gsar_otel.otel import background
from gsar_otel.otel.background import BackgroundWorker
from tests.telemetry.helpers import ANSWER, CPU_ROW, BlockingJudge, Otel, ScriptedJudge

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_worker(monkeypatch: pytest.MonkeyPatch) -> BackgroundWorker:
    """A worker with room for 2 waiting jobs that runs 1 at a time."""
    worker = BackgroundWorker(2, concurrency=1)
    monkeypatch.setattr(background, "_worker", worker)
    return worker


def test_the_call_returns_before_the_background_judge_finishes(otel: Otel) -> None:
    judge = BlockingJudge()

    @grounded(judge=judge, mode="background")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return ANSWER

    assert agent() == ANSWER
    assert judge.started.wait(5.0)
    assert otel.evaluate_spans() == []
    judge.release.set()
    assert flush(5.0) is True
    assert len(otel.evaluate_spans()) == 1


def test_flush_gives_up_after_its_time_limit_and_says_so(otel: Otel) -> None:
    judge = BlockingJudge()

    @grounded(judge=judge, mode="background")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return ANSWER

    agent()
    started = time.monotonic()
    assert flush(0.2) is False
    assert time.monotonic() - started < 2.0
    judge.release.set()
    assert flush(5.0) is True


def test_a_full_queue_drops_the_evaluation_and_counts_it(
        otel: Otel, small_worker: BackgroundWorker) -> None:
    judge = BlockingJudge()

    @grounded(judge=judge, mode="background", name="busy_agent")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return ANSWER

    results = [agent() for _ in range(30)]
    assert results == [ANSWER] * 30
    judge.release.set()
    assert flush(5.0) is True
    evaluated = len(otel.evaluate_spans())
    [(key, point)] = otel.points("gsar.background.dropped").items()
    assert key == frozenset({("gsar.function", "busy_agent"), ("gsar.drop.reason", "queue_full")})
    assert otel.metrics()["gsar.background.dropped"].unit == "{evaluation}"
    # one running and two waiting (the bound is exact): at most 3 get through
    assert evaluated + point.value == 30
    assert 1 <= evaluated <= 3


def test_extractors_run_on_the_worker_not_on_the_callers_thread(otel: Otel) -> None:
    threads: list[str] = []

    def evidence(call: GroundedCall) -> list[str]:
        threads.append(threading.current_thread().name)
        return [CPU_ROW]

    @grounded(judge=ScriptedJudge(), mode="background", evidence=evidence)
    def agent() -> str:
        return ANSWER

    agent()
    assert flush(5.0)
    assert threads == ["gsar-background-loop"]


def test_calls_from_many_threads_and_a_running_loop_are_all_judged(otel: Otel) -> None:
    judge = ScriptedJudge()

    @grounded(judge=judge, mode="background")
    def sync_agent(n: int) -> str:
        record_evidence(f"row {n}")
        return f"Answer {n}."

    @grounded(judge=judge, mode="background")
    async def async_agent(n: int) -> str:
        record_evidence(f"row {n}")
        return f"Answer {n}."

    threads = [threading.Thread(target=sync_agent, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    async def main() -> None:
        await asyncio.gather(*(async_agent(n) for n in range(10, 20)))

    asyncio.run(main())
    assert flush(5.0)
    seen = {synthesis: [i.content for i in evidence] for synthesis, evidence in judge.seen}
    assert seen == {f"Answer {n}.": [f"row {n}"] for n in range(20)}


def test_queued_evaluations_are_flushed_at_interpreter_exit(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
        from opentelemetry.sdk.trace.export import SpanExportResult
        from gsar_otel import grounded, record_evidence
        from gsar_otel.otel import instruments as telemetry
        from tests.telemetry.helpers import ScriptedJudge

        class Printer(SpanExporter):
            def export(self, spans):
                for span in spans:
                    print("exported", span.name, flush=True)
                return SpanExportResult.SUCCESS

        class SlowJudge(ScriptedJudge):
            async def judge_verdict(self, **kwargs):
                await asyncio.sleep(0.3)
                return await super().judge_verdict(**kwargs)

        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(Printer()))
        telemetry.set_providers(tracer_provider=provider)

        @grounded(judge=SlowJudge(), mode="background", name="late")
        def agent():
            record_evidence("host=db-prod-1 cpu_pct=97.2")
            return "The answer."

        agent()
        print("returned", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["returned", "exported gsar.judge",
                                        "exported gsar.evaluate late"]
