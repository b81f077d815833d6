"""Issue 24 C17: at shutdown the sidecar judges the buffered runs in arrival order for as long as
the grace period lasts, and counts the rest (``shutdown_timeout``); a queue smaller than the
backlog no longer drops runs at once."""

from __future__ import annotations

import asyncio
from typing import Any

from gsar_otel.judges.lexical.judge import LexicalJudge
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from tests.sidecar.support import start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

RUNS = 120


class SlowJudge:
    """The offline judge, ``delay_s`` slower per call."""

    name = "slow"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.inner = LexicalJudge()

    async def judge(self, *, synthesis: str, evidence: Any) -> Any:
        await asyncio.sleep(self.delay_s)
        return await self.inner.judge(synthesis=synthesis, evidence=evidence)


def trace(n: int) -> str:
    return f"{n + 1:032x}"


def send_runs(running: Any) -> None:
    for n in range(RUNS):  # one request each, so each trace arrives after the one before
        assert post(running, otlp_json(*agent_spans(trace(n))))[0] == 200
    running.wait_for(lambda: running.call(lambda: running.sidecar.assembler.pending) == RUNS,
                     "every run buffered")


def test_every_buffered_run_is_judged_when_the_grace_allows_though_the_queue_is_small() -> None:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=600, max_age_s=600),
                            queue_size=8, shutdown_grace_s=60)
    send_runs(running)
    running.stop()
    stats = running.sidecar.stats
    assert len(running.evaluations()) == RUNS
    assert stats.get("runs_judged") == RUNS
    assert stats.get("runs_dropped") == 0


def test_past_the_grace_the_earliest_runs_were_judged_and_the_rest_counted() -> None:
    running = start_sidecar(judge=SlowJudge(0.05),  # type: ignore[arg-type]
                            limits=AssemblyLimits(decision_wait_s=600, max_age_s=600),
                            queue_size=8, concurrency=1, shutdown_grace_s=1.5)
    send_runs(running)
    running.stop()
    stats = running.sidecar.stats
    judged = {f"{s.context.trace_id:032x}" for s in running.evaluations()
              if s.attributes is not None and "gsar.decision" in s.attributes}
    assert 0 < len(judged) < RUNS
    assert judged == {trace(n) for n in range(len(judged))}  # a prefix: arrival order
    assert stats.get("runs_judged") + stats.get("runs_dropped", "shutdown_timeout") == RUNS
