"""Judging within a deadline, off the caller's event loop, and without letting a judge's
BaseException reach the host.

A judge that does its work synchronously (it has ``judge_now(*, synthesis, evidence) ->
JudgeOutput`` and no ``judge_verdict``, as LexicalJudge and StagedJudge) and the integrity guard
run on a bounded pool of worker threads,
so ``asyncio.wait_for`` can stop waiting for them at the deadline and the host's event loop keeps
running meanwhile. A thread cannot be killed: work abandoned at its deadline finishes in the pool
and its result is dropped. The pool has :data:`DEFAULT_WORKERS` threads, so at most that many
abandoned rounds run at once; work still queued when its caller gives up is cancelled before it
starts, and past :data:`DEFAULT_MAX_PENDING` queued or running jobs new work is refused (the
round abstains with ``judge_error="JudgePoolBusy"``). :func:`pool_stats` counts all of it.
A caller with work of its own to keep apart (the sidecar's ``/v1/judge``) runs it on a pool of
its own with :func:`pool_in_use`: every job started in that context goes there instead.

Without a deadline, the guard checks a small judgement (answer and evidence together at most
:data:`INLINE_GUARD_MAX_CHARS` characters) on the calling thread: its cost grows linearly with
the text and stays around a millisecond there, no more than the two thread switches a pool job
takes (``pool_stats().inline`` counts these). A deadline, or a bigger judgement, always uses the
pool, so the wait still ends on time and the host's loop is never held for long.

A verdict replayed with the guard's recorded report (:class:`~gsar_otel.core.protocol.GuardMemo`)
is not checked again when the report's digest matches this round's code and inputs
(:mod:`gsar_otel.core.guard_memo`); after a guard run, a judge with ``remember_guard_memo`` (the
recording judge) is handed the report to keep beside the verdict.

Only a real cancellation of the caller's task, ``KeyboardInterrupt`` and ``SystemExit`` propagate
out of :func:`judge_verdict`; a judge that raises ``CancelledError`` by itself, ``GeneratorExit``
or another BaseException becomes an abstain naming the exception type.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeVar

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.guard_memo import make_memo, reuse_memo
from gsar_otel.core.integrity import IntegrityReport, check_judge_output
from gsar_otel.core.model import JudgeOutput, safe_default_judge_output
from gsar_otel.core.protocol import Judge, JudgeVerdict, judge_model, judge_name, run_judge
from gsar_otel.core.result import DEADLINE_EXCEEDED
from gsar_otel.core.scoring import WeightMap
from gsar_otel.errors import GSARError

T = TypeVar("T")

DEFAULT_WORKERS: Final = max(2, min(8, os.cpu_count() or 2))
"""Threads that run synchronous judges and the integrity guard."""
DEFAULT_MAX_PENDING: Final = 1024
"""Jobs queued or running on the pool at once; past it new work is refused."""
INLINE_GUARD_MAX_CHARS: Final = 2_000
"""Largest answer plus evidence (in characters) whose integrity guard runs on the calling thread
when no deadline applies: about 1 ms of guard work at most (0.3 ms for a 300-character
judgement), against 0.1 to 1 ms for the two thread switches of a pool job on a busy machine."""

POOL_BUSY: Final = "JudgePoolBusy"
"""``judge_error`` of a round refused because the worker pool is full."""

_PROPAGATE: Final = (KeyboardInterrupt, SystemExit)


class PoolBusyError(RuntimeError, GSARError):
    """The worker pool holds :data:`DEFAULT_MAX_PENDING` jobs already; this one was refused."""


@dataclass(frozen=True, slots=True)
class PoolStats:
    """What the worker pool has done since the process (or fork) started."""

    submitted: int
    refused: int
    abandoned: int
    """Jobs whose caller stopped waiting (deadline or cancellation) while they ran."""
    pending: int
    """Jobs queued or running now."""
    inline: int = 0
    """Small jobs run on the calling thread instead (see :data:`INLINE_GUARD_MAX_CHARS`)."""


class WorkerPool:
    """A bounded thread pool that asyncio callers can stop waiting for."""

    def __init__(self, max_workers: int = DEFAULT_WORKERS,
                 max_pending: int = DEFAULT_MAX_PENDING) -> None:
        self.max_workers = max_workers
        self.max_pending = max_pending
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="gsar-judge")
        self._lock = threading.Lock()
        self._pending = 0
        self._submitted = 0
        self._refused = 0
        self._abandoned = 0
        self._inline = 0

    def stats(self) -> PoolStats:
        """The counters so far."""
        with self._lock:
            return PoolStats(self._submitted, self._refused, self._abandoned, self._pending,
                             self._inline)

    def _admit(self) -> None:
        with self._lock:
            if self._pending >= self.max_pending:
                self._refused += 1
                raise PoolBusyError(f"the judging pool holds {self._pending} jobs already")
            self._pending += 1
            self._submitted += 1

    def _done(self, _: object) -> None:
        with self._lock:
            self._pending -= 1

    def run_here(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the calling thread, counted in ``inline``: for work too
        small to be worth a thread switch.

        Raises:
            BaseException: whatever ``fn`` raises.
        """
        with self._lock:
            self._inline += 1
        return fn(*args, **kwargs)

    def close(self) -> None:
        """Stop taking work; jobs not started are cancelled, running ones finish."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on a worker thread, in a copy of the caller's context.

        Raises:
            PoolBusyError: the pool is full.
            BaseException: whatever ``fn`` raises.
        """
        self._admit()
        context = contextvars.copy_context()
        try:
            future = self._executor.submit(context.run, fn, *args, **kwargs)
        except BaseException:
            self._done(None)
            raise
        # Runs when the job ends, or when it is cancelled before it started.
        future.add_done_callback(self._done)
        waiting = asyncio.wrap_future(future)
        try:
            return await waiting
        except asyncio.CancelledError:
            # Cancelling `waiting` cancels a job that has not started; a running one finishes.
            if not future.cancel() and not future.done():
                with self._lock:
                    self._abandoned += 1
            raise


_pool_lock = threading.Lock()
_pool: WorkerPool | None = None
_pool_here: contextvars.ContextVar[WorkerPool | None] = contextvars.ContextVar(
    "gsar_worker_pool", default=None)


@contextlib.contextmanager
def pool_in_use(pool: WorkerPool) -> Iterator[WorkerPool]:
    """Within this block (and the tasks and threads started from it, which copy the context),
    :func:`get_pool` is ``pool``: judging started here cannot take the process pool's threads,
    nor wait behind its jobs."""
    token = _pool_here.set(pool)
    try:
        yield pool
    finally:
        _pool_here.reset(token)


def get_pool() -> WorkerPool:
    """The pool of :func:`pool_in_use` in this context, else the process's worker pool (a new
    one in a forked child: threads do not survive a fork)."""
    global _pool
    chosen = _pool_here.get()
    if chosen is not None:
        return chosen
    pool = _pool
    if pool is not None:
        return pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerPool()
        return _pool


def pool_stats() -> PoolStats:
    """Jobs submitted, refused, abandoned and pending on the worker pool."""
    return get_pool().stats()


def _forget_pool() -> None:
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


# --- one judge round -------------------------------------------------------------------------


def really_cancelled() -> bool:
    """True when the running task has a pending cancellation request (a real cancellation, not
    a ``CancelledError`` some code raised by itself)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    return task is not None and task.cancelling() > 0


def is_real_cancellation(error: BaseException) -> bool:
    """True for a ``CancelledError`` that is a real cancellation of the running task."""
    return isinstance(error, asyncio.CancelledError) and really_cancelled()


def failed_verdict(judge: object, kind: str, started: float, reason: str | None = None
                   ) -> JudgeVerdict:
    """The abstain verdict of a round that ended in ``kind`` (an exception type name)."""
    return JudgeVerdict(output=safe_default_judge_output(reason or f"judge raised {kind}"),
                        model=judge_model(judge), error_type=kind,
                        duration_s=time.perf_counter() - started)


class _Finished:
    """Hands an output (or an Exception) computed on a worker to :func:`run_judge`, so a
    synchronous judge gets the same checks as an async one."""

    def __init__(self, judge: object, outcome: object) -> None:
        self.name = judge_name(judge)
        self.model = judge_model(judge)
        self.outcome = outcome

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome  # type: ignore[return-value]  # run_judge checks the type


def _call_sync(fn: Callable[..., object], synthesis: str, evidence: EvidenceSet) -> object:
    """Run a synchronous judge on a worker; every exception it raises is returned, not raised
    (a BaseException from a worker is the judge's, never the caller's)."""
    try:
        return fn(synthesis=synthesis, evidence=evidence)
    except BaseException as error:  # the judge's own: turned into an abstain
        return error


async def judge_verdict(judge: Judge, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
    """One judge round: a synchronous judge on the worker pool, an async one on this loop.

    Never raises but a real cancellation of the caller, ``KeyboardInterrupt`` and ``SystemExit``.
    """
    started = time.perf_counter()
    sync_judge = getattr(judge, "judge_now", None)
    try:
        if callable(sync_judge) and not callable(getattr(judge, "judge_verdict", None)):
            try:
                outcome = await get_pool().run(_call_sync, sync_judge, synthesis, evidence)
            except PoolBusyError as error:
                return failed_verdict(judge, POOL_BUSY, started, f"not judged: {error}")
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                return failed_verdict(judge, type(outcome).__name__, started)
            verdict = await run_judge(_Finished(judge, outcome),
                                      synthesis=synthesis, evidence=evidence)
            return verdict.model_copy(update={"duration_s": time.perf_counter() - started})
        return await run_judge(judge, synthesis=synthesis, evidence=evidence)
    except _PROPAGATE:
        raise
    except BaseException as error:  # CancelledError not ours, GeneratorExit...: an abstain
        if is_real_cancellation(error):
            raise
        return failed_verdict(judge, type(error).__name__, started)


def remember_guard(judge: object, verdict: JudgeVerdict, report: IntegrityReport,
                   guard_options: dict[str, Any]) -> None:
    """Hand the guard's report to a judge that records it beside the verdict (its
    ``remember_guard_memo(*, synthesis, evidence, memo)``). A failure there costs only the memo:
    it is logged at debug level and the round goes on."""
    remember = getattr(judge, "remember_guard_memo", None)
    if not callable(remember):
        return
    try:
        memo = make_memo(report, verdict.output, **guard_options)
        if memo is not None:
            remember(synthesis=guard_options["synthesis"], evidence=guard_options["evidence"],
                     memo=memo)
    except Exception:
        logging.getLogger(__name__).debug("gsar: could not record the guard's report",
                                          exc_info=True)


def small_judgement(synthesis: str, evidence: EvidenceSet,
                    limit: int = INLINE_GUARD_MAX_CHARS) -> bool:
    """True when the answer and the evidence hold at most ``limit`` characters in all."""
    size = len(synthesis)
    for item in evidence.items:
        size += len(item.content)
        if size > limit:
            return False
    return size <= limit


async def judge_and_check(
    judge: Judge, synthesis: str, evidence: EvidenceSet, *, timeout_s: float | None,
    weight_map: WeightMap, contradiction_penalty: float, default_unknown: float,
) -> tuple[JudgeVerdict, IntegrityReport]:
    """Judge ``synthesis`` and run the integrity guard on the verdict, both within ``timeout_s``.

    A round the deadline cuts off (in the judge or in the guard) is an abstain with
    ``error_type="DeadlineExceeded"`` and a reason naming the stage; an unchecked verdict is
    never used.
    """
    started = time.perf_counter()
    stage = ["judge"]

    async def both() -> tuple[JudgeVerdict, IntegrityReport]:
        if not synthesis.strip():
            empty = safe_default_judge_output("synthesis is empty: nothing to judge")
            return JudgeVerdict(output=empty), IntegrityReport(empty, ())
        verdict = await judge_verdict(judge, synthesis=synthesis, evidence=evidence)
        if verdict.output.abstained:  # the guard has nothing to check
            return verdict, IntegrityReport(verdict.output, ())
        stage[0] = "integrity guard"
        guard_options: dict[str, Any] = {
            "synthesis": synthesis, "evidence": evidence, "weight_map": weight_map,
            "contradiction_penalty": contradiction_penalty, "default_unknown": default_unknown}
        if verdict.guard_memo is not None:
            recorded = reuse_memo(verdict.guard_memo, verdict.output, **guard_options)
            if recorded is not None:  # the guard's own report on exactly these inputs
                return verdict, recorded
        pool = get_pool()
        # A judge that checks every typed value against the records itself (and derives some)
        # is not second-guessed by the guard's plainer number check.
        guard = (partial(check_judge_output, check_values=False)
                 if getattr(judge, "checks_values", False) else check_judge_output)
        if timeout_s is None and small_judgement(synthesis, evidence):
            report = pool.run_here(guard, verdict.output, **guard_options)
        else:
            try:
                report = await pool.run(guard, verdict.output, **guard_options)
            except PoolBusyError as error:
                failed = failed_verdict(judge, POOL_BUSY, started, f"not checked: {error}")
                return failed, IntegrityReport(failed.output, ())
        remember_guard(judge, verdict, report, guard_options)
        return verdict, report

    if timeout_s is None:
        return await both()
    scope = asyncio.timeout(max(timeout_s, 0.0))
    try:
        async with scope:
            return await both()
    except TimeoutError:
        if not scope.expired():
            raise
    reason = (f"the {stage[0]} did not finish before the deadline "
              f"({max(timeout_s, 0.0):.3g} s left for this round)")
    missed = failed_verdict(judge, DEADLINE_EXCEEDED, started, reason)
    return missed, IntegrityReport(missed.output, ())
