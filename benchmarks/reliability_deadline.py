"""Fault table for deadlines: does ``deadline_s`` bound judging, and does judging leave an async
host's event loop running?

Rows (each run once; the heavy input takes StagedJudge several seconds on a 2-CPU machine):

- ``on-loop judge``: StagedJudge's ``async judge`` awaited directly on the loop (what the
  evaluator did before judging moved to the worker pool): time, and the longest stall a ticker
  task (10 ms period) saw;
- ``evaluator deadline_s=1``: ``GSAREvaluator(StagedJudge(), deadline_s=1).evaluate`` on the
  same input, with the same ticker: time, decision, degraded reason, longest stall;
- ``@grounded deadline_s=1`` (sync caller) and ``@grounded`` default deadline on a small input;
- ``429 retry-after: 3600``: AnthropicJudge (``deadline_s=2``, SDK ``max_retries=2``) against a
  local fake Messages API that answers 429 with ``retry-after: 3600``;
- the worker pool's counters at the end (submitted, refused, abandoned).

Abandoned work keeps running on the pool after its caller got the abstain; each row waits for
the pool to drain before the next one, so rows do not slow each other. Run::

    python benchmarks/reliability_deadline.py            # table
    python benchmarks/reliability_deadline.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import machine  # noqa: E402

from gsar_otel.runtime.pool import pool_stats  # noqa: E402
from gsar_otel.core.evaluator import GSAREvaluator  # noqa: E402
from gsar_otel.core.evidence import EvidenceSet  # noqa: E402
from gsar_otel.core.result import GSARResult  # noqa: E402
from gsar_otel.judges.staged.judge import StagedJudge  # noqa: E402


def heavy_input() -> tuple[str, list[str]]:
    """A 100,000-character answer of 2,500 numeric sentences against 2,000 metric rows (the most
    items an EvidenceSet keeps)."""
    answer = " ".join(f"Host web-{i} CPU reached {i % 100}.{i % 7}% at 14:{i % 60:02d} UTC."
                      for i in range(2500))[:100_000]
    rows = [f"[tool=query_metrics row={i}] host=web-{i} cpu_pct={(i * 13) % 100}.{i % 9} "
            f"p99_ms={i * 3} at=14:{i % 60:02d}:01" for i in range(2000)]
    return answer, rows


async def with_ticker(work: Callable[[], Awaitable[Any]]) -> tuple[Any, float, float]:
    """Run ``work`` beside a 10 ms ticker: (its value, seconds taken, longest tick gap)."""
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    try:
        value = await work()
    finally:
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.02)  # the ticker's first turn after a frozen loop shows the stall
        task.cancel()
    return value, elapsed, max(gaps, default=0.0)


def drain_pool(limit_s: float = 120.0) -> float:
    """Wait until abandoned work has finished; return how long that took."""
    started = time.perf_counter()
    while pool_stats().pending and time.perf_counter() - started < limit_s:
        time.sleep(0.05)
    return time.perf_counter() - started


def describe(result: GSARResult) -> str:
    reason = f", degraded: {result.degraded_reason}" if result.degraded else ""
    errors = f", judge error: {','.join(result.judge_errors)}" if result.judge_errors else ""
    return f"{result.final_decision.value}{reason}{errors}"


def row(case: str, elapsed: float, outcome: str, stall: float | None = None,
        drained: float | None = None) -> dict[str, Any]:
    return {"case": case, "seconds": round(elapsed, 3), "outcome": outcome,
            "max_loop_stall_s": None if stall is None else round(stall, 3),
            "abandoned_work_finished_after_s": None if drained is None else round(drained, 2)}


def run_rows() -> list[dict[str, Any]]:
    answer, rows = heavy_input()
    evidence = EvidenceSet.coerce(rows)
    judge = StagedJudge()
    results: list[dict[str, Any]] = []
    label = f"{len(answer):,}-char answer, {len(rows)} rows"

    output, elapsed, stall = asyncio.run(with_ticker(
        lambda: judge.judge(synthesis=answer, evidence=evidence)))
    results.append(row(f"on-loop judge (before), {label}", elapsed,
                       f"{output.to_partition().total_claims} claims judged", stall))

    evaluator = GSAREvaluator(judge, deadline_s=1)
    result, elapsed, stall = asyncio.run(with_ticker(
        lambda: evaluator.evaluate(report_synthesis=answer, evidence_corpus=evidence)))
    results.append(row(f"evaluator deadline_s=1 (async), {label}", elapsed, describe(result),
                       stall, drain_pool()))

    from gsar_otel.decorator import grounded

    @grounded(judge=judge, deadline_s=1, evidence=lambda call: rows)
    def agent() -> str:
        return answer

    started = time.perf_counter()
    returned = agent()
    elapsed = time.perf_counter() - started
    results.append(row(f"@grounded deadline_s=1 (sync), {label}", elapsed,
                       "answer returned unchanged" if returned is answer else "CHANGED",
                       None, drain_pool()))

    @grounded(judge=judge, on_low="raise", deadline_s=1, evidence=lambda call: rows)
    def gate() -> str:
        return answer

    from gsar_otel.decorator import GroundingError

    started = time.perf_counter()
    try:
        gate()
        outcome = "answer let through"
    except GroundingError as error:
        outcome = f"GroundingError ({','.join(error.result.judge_errors)})"
    results.append(row(f"@grounded(on_low='raise') deadline_s=1, {label}",
                       time.perf_counter() - started, outcome, None, drain_pool()))

    results.append(retry_after_row())
    return results


def retry_after_row() -> dict[str, Any]:
    import anthropic

    from gsar_otel.judges.anthropic.judge import AnthropicJudge
    from tests.support.fake_anthropic import FakeMessagesServer, ScriptedResponse, error_response

    body = error_response(429, retry_after_ms=None).body
    with FakeMessagesServer() as server:
        for _ in range(3):
            server.enqueue(ScriptedResponse(status=429, body=body,
                                            headers={"retry-after": "3600"}))
        client = anthropic.AsyncAnthropic(api_key="sk-ant-bench-not-a-key",
                                          base_url=server.base_url, max_retries=2)
        judge = AnthropicJudge(client=client, deadline_s=2)
        started = time.perf_counter()
        verdict = asyncio.run(judge.judge_verdict(synthesis="CPU was 97%.",
                                                  evidence=EvidenceSet.coerce(["cpu 97"])))
        elapsed = time.perf_counter() - started
        requests = len(server.message_requests)
    return row("AnthropicJudge deadline_s=2, 429 with retry-after: 3600", elapsed,
               f"abstain ({verdict.error_type}) after {requests} request(s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = run_rows()
    stats = pool_stats()
    report = {"machine": machine(), "rows": rows,
              "pool": {"submitted": stats.submitted, "refused": stats.refused,
                       "abandoned": stats.abandoned, "pending": stats.pending}}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'case':<72} {'s':>7}  {'stall s':>7}  {'drain s':>7}  outcome")
    for entry in rows:
        stall = entry["max_loop_stall_s"]
        drained = entry["abandoned_work_finished_after_s"]
        print(f"{entry['case']:<72} {entry['seconds']:>7.2f}  "
              f"{'-' if stall is None else f'{stall:.3f}':>7}  "
              f"{'-' if drained is None else f'{drained:.1f}':>7}  {entry['outcome']}")
    print(f"pool: {report['pool']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
