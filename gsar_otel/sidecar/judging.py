"""Judging one released run: extraction off the judging loop within the run's deadline, then the
judge, on an event loop of its own in a second thread.

Extraction reads at most ``max_extract_bytes`` of the run (:mod:`gsar_otel.sidecar.run_budget`)
and runs on a small thread pool of its own, so a large run never blocks the judging loop (other
runs go on being judged meanwhile); it must end within ``deadline_s``, and the judge gets what
is left of it. What judging a run would cost (claims times evidence rows) is measured there too,
so a run over ``--max-judge-pairs`` is skipped before any judge starts
(:mod:`gsar_otel.sidecar.run_budget`). A run past the deadline in extraction is counted (``failed``,
``extraction_deadline``); its thread runs on to its end (a thread cannot be killed), at most one
per pool thread. A ``SystemExit`` or ``KeyboardInterrupt`` raised by an extractor or a judge
becomes an ordinary failure of that run (counted under its name), never the end of the loop
(:class:`gsar_otel.runtime.guards.contain_exits`; the judge loop is a
:class:`gsar_otel.runtime.loop.LoopThread`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from gsar_otel.core.protocol import Judge
from gsar_otel.core.result import GSARResult
from gsar_otel.errors import EscapedBaseException as EscapedBaseException
from gsar_otel.errors import GSARError
from gsar_otel.otel.instruments import Telemetry
from gsar_otel.runtime.guards import contain_exits
from gsar_otel.runtime.loop import LoopThread
from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.assembly.late import LateBatch
from gsar_otel.sidecar.conventions.extract import ExtractedRun, extract_run
from gsar_otel.sidecar.model_budget import BUDGET_EXHAUSTED, ModelTokenBudget
from gsar_otel.sidecar.output.stats import SidecarStats
from gsar_otel.sidecar.output.verdict_spans import (
    SKIPPED_JUDGING_BUDGET,
    SKIPPED_NO_ANSWER,
    flag_skipped,
    judge_and_emit,
)
from gsar_otel.sidecar.run_budget import (
    NOTE_EXTRACTION_CAPPED,
    JudgingCost,
    cap_run,
    judging_cost,
)

logger = logging.getLogger("gsar_otel.sidecar.server")
T = TypeVar("T")

DEFAULT_RUN_DEADLINE_S = 120.0
"""Extraction and judging of one run together (as ``@grounded``'s default deadline)."""


class ExtractionDeadline(GSARError):
    """Extraction did not end within the run's deadline."""


class JudgeThread(LoopThread):
    """An event loop in a thread of its own, for judging (:class:`LoopThread`)."""

    def __init__(self, name: str = "gsar-sidecar-judge") -> None:
        super().__init__(name)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel what is still judging (each evaluation ends its span as failed), then stop."""
        if not self.cancel_all(timeout_s):  # a judge stuck in blocking code: stop the loop anyway
            logger.warning("gsar sidecar: a judge did not stop in %.0f s", timeout_s)
        self.halt(join_s=10)


def _extract(run: ReadyRun, max_bytes: int, include_unverified: bool
             ) -> tuple[ExtractedRun, JudgingCost]:
    """Cap, extract and cost (on a pool thread); a ``SystemExit`` or ``KeyboardInterrupt``
    comes back as an exception (:class:`~gsar_otel.runtime.guards.contain_exits`)."""
    with contain_exits():
        capped, cut = cap_run(run, max_bytes)
        extracted = extract_run(capped, include_unverified=include_unverified)
        if cut:
            extracted = dataclasses.replace(extracted,
                                            notes=(*extracted.notes, NOTE_EXTRACTION_CAPPED))
        return extracted, judging_cost(extracted.answer,
                                       (item.content for item in extracted.evidence))


INLINE_EXTRACT_MAX_BYTES = 64 * 1024
"""A run holding at most this many bytes of values is extracted on the judging loop itself when
no extractor plugin is installed: reading it takes well under a millisecond, less than the two
thread switches a pool job costs (a plugin may block, so with one every run goes to the pool)."""


def _plugin_extractors() -> bool:
    from gsar_otel.plugins import plugin_manager

    hook = getattr(plugin_manager().hook, "gsar_sidecar_extract", None)
    return hook is not None and bool(hook.get_hookimpls())


class Extractor:
    """Extraction on a thread pool of its own, bounded in bytes read and in time (a small run
    on the judging loop: :data:`INLINE_EXTRACT_MAX_BYTES`)."""

    def __init__(self, workers: int, max_bytes: int, *, include_unverified: bool = False) -> None:
        self.max_bytes, self.include_unverified = max_bytes, include_unverified
        self.inline = 0
        """Runs extracted on the judging loop (small, no plugin)."""
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="gsar-sidecar-extract")

    async def extract(self, run: ReadyRun, timeout_s: float
                      ) -> tuple[ExtractedRun, JudgingCost]:
        """The run's answer and evidence, and what judging them would cost; raises
        :class:`ExtractionDeadline` past ``timeout_s``."""
        if 0 < run.size <= INLINE_EXTRACT_MAX_BYTES and not _plugin_extractors():
            self.inline += 1
            return _extract(run, self.max_bytes, self.include_unverified)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, _extract, run, self.max_bytes,
                                      self.include_unverified)
        try:
            return await asyncio.wait_for(future, max(0.001, timeout_s))
        except TimeoutError:
            raise ExtractionDeadline(f"extraction took longer than {timeout_s:.1f} s") from None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What became of one extracted run: judged (``skipped`` empty) or skipped and why, judged
    offline because the model-token budget was spent, and the model tokens it used."""

    skipped: str = ""
    offline: bool = False
    tokens: int = 0
    result: GSARResult | None = None


async def judge_within_budgets(run: ReadyRun, extracted: ExtractedRun, cost: JudgingCost, *,
                               judge: Judge, budget: ModelTokenBudget, max_pairs: int,
                               telemetry: Telemetry, options: Mapping[str, Any],
                               capture_content: bool | None) -> RunOutcome:
    """Judge one extracted run within both budgets: a run over ``max_pairs`` (claims times
    evidence rows) is skipped before any judge starts, with a ``gsar.sidecar.skipped`` span
    saying so; past the model-token budget the run is judged by ``judge``'s offline form, its
    span marked ``gsar.judge.budget_exhausted``. A run with no answer is skipped
    (``no_answer``)."""
    if extracted.answer is not None and cost.over(max_pairs):
        flag_skipped(run, extracted, telemetry, SKIPPED_JUDGING_BUDGET, cost.hint(max_pairs))
        return RunOutcome(skipped=SKIPPED_JUDGING_BUDGET)
    chosen, attributes = budget.choose(judge)
    result = await judge_and_emit(run, extracted, judge=chosen, telemetry=telemetry,
                                  options=options, capture_content=capture_content,
                                  attributes=attributes)
    if result is None:
        return RunOutcome(skipped=SKIPPED_NO_ANSWER)
    return RunOutcome(offline=bool(attributes), tokens=budget.spend(result.judge_usage),
                      result=result)


def count_outcome(stats: SidecarStats, outcome: RunOutcome) -> None:
    """Count what the budgets did to one run: ``model_budget{budget_exhausted}`` for a run
    judged offline past the model-token budget, ``model_tokens{spent}`` for its tokens."""
    if outcome.offline:
        stats.note("model_budget", BUDGET_EXHAUSTED)
    stats.note("model_tokens", "spent", outcome.tokens)


def judge_options(options: Mapping[str, Any], started: float, deadline_s: float
                  ) -> dict[str, Any]:
    """The evaluator's options with what is left of the run's deadline (an explicit smaller
    ``deadline_s`` in ``options`` wins)."""
    left = max(0.001, deadline_s - (time.monotonic() - started))
    given = options.get("deadline_s")
    return {**options, "deadline_s": min(given, left) if given else left}


async def judge_in_order(queue: asyncio.Queue[ReadyRun], backlog: deque[ReadyRun],
                         grace_s: float, queued: Callable[[ReadyRun], None],
                         unqueued: Callable[..., None]) -> int:
    """At shutdown: feed ``backlog`` into ``queue`` in order as room frees, and wait for the
    queue to empty, for at most ``grace_s``. Returns the runs left unjudged (taken out of the
    queue with ``unqueued(run, dropped=True)``, and the backlog's rest), for the caller to
    count; runs being judged at the end are cancelled by the caller (and counted there)."""

    async def feed() -> None:
        while backlog:
            await queue.put(backlog[0])
            queued(backlog.popleft())
        await queue.join()

    try:
        await asyncio.wait_for(feed(), max(0.0, grace_s))
    except TimeoutError:
        left = len(backlog)
        backlog.clear()
        while not queue.empty():
            unqueued(queue.get_nowait(), dropped=True)
            queue.task_done()
            left += 1
        return left
    return 0


def flag_late_batches(batches: Iterable[LateBatch], telemetry: Telemetry,
                      stats: SidecarStats) -> None:
    """Flag each trace's late items in the trace (``gsar.sidecar.late_spans``), counting each
    flag written or failed (``late_flags``); one trace's failure never stops the others."""
    from gsar_otel.sidecar.output.verdict_spans import flag_late

    for batch in batches:
        try:
            flag_late(batch, telemetry)
        except Exception as error:
            logger.warning("gsar sidecar: flagging late spans of %s failed: %s: %s",
                           batch.trace_id, type(error).__name__, error)
            stats.note("late_flags", f"failed_{type(error).__name__}")
        else:
            stats.note("late_flags", "flagged")


TOOL_RESULTS = "tool_results"
"""The :meth:`SidecarStats.note` name of tool results extraction left out or marked
(``gsar_sidecar_tool_results_total`` on ``/metrics``, under ``counts`` on ``/healthz``)."""


def count_results(stats: SidecarStats, extracted: ExtractedRun, *,
                  include_unverified: bool) -> None:
    """Count one run's tool results that are not plain evidence, by reason: ``echo`` (the run's
    own answer text, left out), ``control`` (a control tool of the framework, left out),
    ``retry`` (a later result for an answered call id, kept and
    marked), ``unverified_left_out`` / ``unverified_kept`` (history-only results, by
    ``include_unverified``); the same figures the verdict span carries."""
    stats.note(TOOL_RESULTS, "echo", extracted.echoes)
    stats.note(TOOL_RESULTS, "control", len(extracted.controls))
    stats.note(TOOL_RESULTS, "retry", extracted.retries)
    stats.note(TOOL_RESULTS, "unverified_kept" if include_unverified else "unverified_left_out",
               extracted.unverified)
