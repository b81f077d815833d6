"""One judge round within its deadline, off the caller's event loop, and without letting a
judge's BaseException reach the host: the judge, then the integrity guard on its verdict.

A judge that does its work synchronously (it has ``judge_now(*, synthesis, evidence) ->
JudgeOutput`` and no ``judge_verdict``, as LexicalJudge and StagedJudge) and the integrity guard
run on the bounded worker pool (:mod:`gsar_otel.runtime.pool`), so the round can stop waiting for
them at the deadline (:func:`gsar_otel.runtime.deadline.within`) and the host's event loop keeps
running meanwhile. Work abandoned at its deadline finishes in the pool and its result is dropped;
past the pool's bound new work is refused and the round abstains with
``judge_error="JudgePoolBusy"``.

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
out of :func:`judge_verdict` (:func:`gsar_otel.runtime.guards.caller_owns`); a judge that raises
``CancelledError`` by itself, ``GeneratorExit`` or another BaseException becomes an abstain
naming the exception type.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import Any, Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.guard_memo import make_memo, reuse_memo
from gsar_otel.core.integrity import IntegrityReport, check_judge_output
from gsar_otel.core.model import JudgeOutput, safe_default_judge_output
from gsar_otel.core.protocol import Judge, JudgeVerdict, judge_model, judge_name, run_judge
from gsar_otel.core.result import DEADLINE_EXCEEDED
from gsar_otel.core.scoring import WeightMap
from gsar_otel.runtime.deadline import DeadlineReached, within
from gsar_otel.runtime.guards import absorb, is_base_only, outcome_of
from gsar_otel.runtime.pool import PoolBusyError, get_pool

INLINE_GUARD_MAX_CHARS: Final = 2_000
"""Largest answer plus evidence (in characters) whose integrity guard runs on the calling thread
when no deadline applies: about 1 ms of guard work at most (0.3 ms for a 300-character
judgement), against 0.1 to 1 ms for the two thread switches of a pool job on a busy machine."""

POOL_BUSY: Final = "JudgePoolBusy"
"""``judge_error`` of a round refused because the worker pool is full."""


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


async def judge_verdict(judge: Judge, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
    """One judge round: a synchronous judge on the worker pool, an async one on this loop.

    Never raises but a real cancellation of the caller, ``KeyboardInterrupt`` and ``SystemExit``.
    """
    started = time.perf_counter()
    sync_judge = getattr(judge, "judge_now", None)
    with absorb() as caught:  # CancelledError not ours, GeneratorExit...: an abstain
        if callable(sync_judge) and not callable(getattr(judge, "judge_verdict", None)):
            try:
                # Every exception the judge raises comes back as the outcome (a BaseException
                # from a worker is the judge's, never the caller's).
                outcome = await get_pool().run(outcome_of, sync_judge, synthesis=synthesis,
                                               evidence=evidence)
            except PoolBusyError as error:
                return failed_verdict(judge, POOL_BUSY, started, f"not judged: {error}")
            if is_base_only(outcome):
                return failed_verdict(judge, type(outcome).__name__, started)
            verdict = await run_judge(_Finished(judge, outcome),
                                      synthesis=synthesis, evidence=evidence)
            return verdict.model_copy(update={"duration_s": time.perf_counter() - started})
        return await run_judge(judge, synthesis=synthesis, evidence=evidence)
    return failed_verdict(judge, caught.name, started)


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

    try:
        return await within(both(), timeout_s)
    except DeadlineReached:
        pass
    reason = (f"the {stage[0]} did not finish before the deadline "
              f"({max(timeout_s or 0.0, 0.0):.3g} s left for this round)")
    missed = failed_verdict(judge, DEADLINE_EXCEEDED, started, reason)
    return missed, IntegrityReport(missed.output, ())
