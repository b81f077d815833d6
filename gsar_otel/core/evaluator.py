"""GSAR's outer loop (Algorithm 1): judge, score, decide, recover, within a bounded budget.

Fixes over the reference loop: the round cap is a setting (``max_rounds``), regeneration has
its own budget after which a further regenerate escalates to replan, a regenerate that returns
the same text escalates at once, a replan that changes nothing ends the loop instead of
re-judging, ``degraded`` is never set together with a final proceed, a degraded result keeps the
best-scoring iteration, a deadline bounds the whole loop, and a judge that raises becomes an
abstain that names the error type. Exceptions from the caller's own callbacks propagate unchanged.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import SYNTHESIS_TRUNCATED, Adjustment, check_judge_output
from gsar_otel.core.model import (
    DEFAULT_UNKNOWN_WEIGHT,
    Decision,
    GSARThresholds,
    check_unit_interval,
    safe_default_judge_output,
)
from gsar_otel.core.protocol import (
    Judge,
    JudgeVerdict,
    judge_model,
    judge_name,
    run_judge,
)
from gsar_otel.core.result import (
    DEADLINE_EXCEEDED,
    DEFAULT_MAX_SYNTHESIS_CHARS,
    Action,
    DegradedReason,
    GSAREvaluation,
    GSARResult,
    RegenerateFn,
    ReplanFn,
)
from gsar_otel.core.scoring import (
    ConclusionPolicy,
    WeightMapInput,
    apply_conclusion_policy,
    check_conclusion_policy,
    decide,
    gsar_score,
    resolve_weight_map,
)

T = TypeVar("T")


class GSAREvaluator:
    """Runs Algorithm 1: judge an answer, and regenerate or replan until it proceeds or the
    budget ends.

    Args:
        judge: any Judge.
        regenerate_fn: ``(synthesis, judge_output) -> new synthesis``, sync or async.
        replan_fn: ``(synthesis, evidence, judge_output) -> (synthesis, evidence)``, sync or async.
        thresholds: decision thresholds (default 0.80 / 0.65).
        contradiction_penalty: rho in [0, 1].
        weight_map: weights for some evidence types, merged over the defaults.
        k_max: replan budget (>= 0).
        max_rounds: most judge rounds in all (>= 1); default ``1 + k_max + max_regenerations``.
        max_regenerations: regenerate budget (>= 0); past it a regenerate escalates to replan.
        deadline_s: wall-clock budget for the whole evaluation, in seconds. A judge round or an
            async callback still running at the deadline is cancelled (a judge round becomes an
            abstain with ``judge_error="DeadlineExceeded"``); a sync callback cannot be
            interrupted, so the loop stops after it returns. Either way the result is degraded
            with ``degraded_reason="deadline"``.
        default_unknown: weight of an evidence type the map does not know.
        max_synthesis_chars: longest answer judged; longer ones are cut (recorded).
        conclusion_policy: ``"cap"`` (default): an ungrounded or contradicted claim that states
            a cause or a conclusion caps the decision at regenerate, however high S is;
            ``"score"``: the decision follows S alone (the paper's behaviour).
        penalty_weight_map: weights of ungrounded and contradicted claims, merged over
            ``weight_map``; by default penalties weigh what support weighs (GSAR-SPEC §11.7).

    With neither callback the evaluator judges once and reports the decision. With one, a
    decision for the missing tier escalates to the other where it can, else ends degraded.

    Raises:
        ValueError: any setting out of range, naming the setting and the allowed values.
    """

    def __init__(
        self,
        judge: Judge,
        regenerate_fn: RegenerateFn | None = None,
        replan_fn: ReplanFn | None = None,
        *,
        thresholds: GSARThresholds | None = None,
        contradiction_penalty: float = 0.5,
        weight_map: WeightMapInput | None = None,
        k_max: int = 2,
        max_rounds: int | None = None,
        max_regenerations: int = 2,
        deadline_s: float | None = None,
        default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
        max_synthesis_chars: int = DEFAULT_MAX_SYNTHESIS_CHARS,
        conclusion_policy: ConclusionPolicy = "cap",
        penalty_weight_map: WeightMapInput | None = None,
    ) -> None:
        if not callable(getattr(judge, "judge", None)):
            raise ValueError(f"judge must have an async judge(*, synthesis, evidence) method, "
                             f"got {type(judge).__name__}")
        for name, fn in (("regenerate_fn", regenerate_fn), ("replan_fn", replan_fn)):
            if fn is not None and not callable(fn):
                raise ValueError(f"{name} must be callable or None, got {type(fn).__name__}")
        if thresholds is not None and not isinstance(thresholds, GSARThresholds):
            raise ValueError(
                f"thresholds must be a GSARThresholds, got {type(thresholds).__name__}")
        self.judge = judge
        self.regenerate_fn = regenerate_fn
        self.replan_fn = replan_fn
        self.thresholds = thresholds or GSARThresholds()
        self.contradiction_penalty = check_unit_interval("contradiction_penalty",
                                                         contradiction_penalty)
        self.weight_map = resolve_weight_map(weight_map)
        self.penalty_weight_map = resolve_weight_map(penalty_weight_map, base=self.weight_map,
                                                     name="penalty_weight_map")
        self.conclusion_policy = check_conclusion_policy(conclusion_policy)
        self.default_unknown = check_unit_interval("default_unknown", default_unknown)
        self.k_max = _non_negative_int("k_max", k_max)
        self.max_regenerations = _non_negative_int("max_regenerations", max_regenerations)
        default_rounds = 1 + self.k_max + self.max_regenerations
        self.max_rounds = default_rounds if max_rounds is None else _non_negative_int(
            "max_rounds", max_rounds)
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {max_rounds!r}")
        if deadline_s is not None and (isinstance(deadline_s, bool)
                                       or not isinstance(deadline_s, int | float)
                                       or not math.isfinite(deadline_s) or deadline_s <= 0):
            raise ValueError(f"deadline_s must be a positive number of seconds, got {deadline_s!r}")
        self.deadline_s = deadline_s
        self.max_synthesis_chars = _non_negative_int("max_synthesis_chars", max_synthesis_chars)

    # -- public entry points --------------------------------------------------------------------

    async def evaluate(self, *, report_synthesis: str, evidence_corpus: Any = None) -> GSARResult:
        """Judge ``report_synthesis`` against ``evidence_corpus`` and recover while budget lasts.

        Raises:
            ValueError: the synthesis is not a string or the evidence cannot be coerced.
            Exception: whatever ``regenerate_fn`` or ``replan_fn`` raise, unchanged.
        """
        if not isinstance(report_synthesis, str):
            raise ValueError(f"report_synthesis must be a str, got "
                             f"{type(report_synthesis).__name__}")
        evidence = EvidenceSet.coerce(evidence_corpus)
        return await _Run(self).run(report_synthesis, evidence)

    def evaluate_sync(self, *, report_synthesis: str, evidence_corpus: Any = None) -> GSARResult:
        """:meth:`evaluate` for synchronous callers (runs its own event loop, or a worker thread
        when called from inside a running loop)."""
        return run_sync(self.evaluate(report_synthesis=report_synthesis,
                                      evidence_corpus=evidence_corpus))

    # -- one round ------------------------------------------------------------------------------

    async def judge_round(
        self, synthesis: str, evidence: EvidenceSet, *, iteration: int, action: Action,
        timeout_s: float | None = None,
    ) -> GSAREvaluation:
        """Judge once, run the integrity guard, score and decide."""
        notes: list[Adjustment] = []
        judged = synthesis
        if len(judged) > self.max_synthesis_chars:
            notes.append(Adjustment(
                kind=SYNTHESIS_TRUNCATED, claim=judged[:80], from_bucket=None, to_bucket=None,
                reason=f"answer of {len(judged)} characters cut to {self.max_synthesis_chars}"))
            judged = judged[: self.max_synthesis_chars]
        if not judged.strip():
            verdict = JudgeVerdict(output=safe_default_judge_output("synthesis is empty: nothing "
                                                                    "to judge"))
        elif timeout_s is not None:
            try:
                verdict = await asyncio.wait_for(
                    run_judge(self.judge, synthesis=judged, evidence=evidence), timeout_s)
            except TimeoutError:
                verdict = JudgeVerdict(
                    output=safe_default_judge_output("judge did not answer before the deadline"),
                    error_type=DEADLINE_EXCEEDED, duration_s=max(timeout_s, 0.0))
        else:
            verdict = await run_judge(self.judge, synthesis=judged, evidence=evidence)
        report = check_judge_output(
            verdict.output, synthesis=judged, evidence=evidence, weight_map=self.weight_map,
            contradiction_penalty=self.contradiction_penalty, default_unknown=self.default_unknown)
        output = report.output
        partition = output.to_partition()
        score = gsar_score(partition, weight_map=self.weight_map,
                           contradiction_penalty=self.contradiction_penalty,
                           default_unknown=self.default_unknown,
                           penalty_weight_map=self.penalty_weight_map)
        capped = False
        if output.abstained:
            decision = Decision.ABSTAIN
        else:
            decision, capped = apply_conclusion_policy(
                decide(score, thresholds=self.thresholds), partition, self.conclusion_policy)
        return GSAREvaluation(
            iteration=iteration, score=score, decision=decision, judge_output=output,
            report_synthesis=synthesis, evidence_corpus=evidence, action=action,
            adjustments=(*notes, *report.adjustments), judge_error=verdict.error_type,
            judge_duration_s=verdict.duration_s, judge_usage=verdict.usage,
            judge_model=verdict.model or judge_model(self.judge), conclusion_capped=capped,
        )


class _DeadlineReached(Exception):
    """The evaluation's deadline cut off a recovery callback."""


class _Run:
    """The state of one evaluation (kept off the evaluator so evaluations can run concurrently)."""

    def __init__(self, evaluator: GSAREvaluator) -> None:
        self.ev = evaluator
        self.trajectory: list[GSAREvaluation] = []
        self.replans = 0
        self.regenerations = 0
        self.started = time.monotonic()

    def remaining(self) -> float | None:
        if self.ev.deadline_s is None:
            return None
        return self.ev.deadline_s - (time.monotonic() - self.started)

    async def judge(self, synthesis: str, evidence: EvidenceSet, action: Action) -> GSAREvaluation:
        entry = await self.ev.judge_round(synthesis, evidence, iteration=len(self.trajectory),
                                          action=action, timeout_s=self.remaining())
        self.trajectory.append(entry)
        return entry

    def out_of_time(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a user callback, sync or async; an async one is cut off at the deadline.

        The callback's own exceptions propagate unchanged; only our deadline becomes
        ``_DeadlineReached``.
        """
        value = fn(*args)
        if not inspect.isawaitable(value):
            return value
        left = self.remaining()
        if left is None:
            return await value
        scope = asyncio.timeout(left)
        try:
            async with scope:
                return await value
        except TimeoutError:
            if scope.expired():
                raise _DeadlineReached from None
            raise

    async def run(self, synthesis: str, evidence: EvidenceSet) -> GSARResult:
        ev = self.ev
        current = await self.judge(synthesis, evidence, "initial")
        one_shot = ev.regenerate_fn is None and ev.replan_fn is None
        reason: DegradedReason | None = None
        if one_shot and current.judge_error == DEADLINE_EXCEEDED:
            reason = "deadline"
        while current.decision is not Decision.PROCEED and not one_shot:
            if self.out_of_time():
                reason = "deadline"
                break
            if len(self.trajectory) >= ev.max_rounds:
                reason = "max_rounds"
                break
            try:
                step = await self.recover(current)
            except _DeadlineReached:
                reason = "deadline"
                break
            if isinstance(step, str):
                reason = step
                break
            if self.out_of_time():
                # A (sync) callback ran past the deadline: report what was judged, judge no more.
                reason = "deadline"
                break
            new_synthesis, new_evidence, action = step
            current = await self.judge(new_synthesis, new_evidence, action)
        return self.result(reason)

    async def recover(
        self, current: GSAREvaluation
    ) -> tuple[str, EvidenceSet, Action] | DegradedReason:
        """Run one recovery callback; return the new (synthesis, evidence, action) or why not."""
        ev = self.ev
        wants_regenerate = current.decision is Decision.REGENERATE
        can_regenerate = ev.regenerate_fn is not None and self.regenerations < ev.max_regenerations
        if wants_regenerate and can_regenerate:
            new_text = await self.regenerate(current)
            if _same_text(new_text, current.report_synthesis):
                return await self.replan(current, fallback="stalled")
            return new_text, current.evidence_corpus, "regenerate"
        if wants_regenerate and ev.replan_fn is None:
            return "regenerate_budget" if ev.regenerate_fn is not None else "no_recovery"
        # replan, abstain, or a regenerate escalated past its budget
        if ev.replan_fn is None:
            if can_regenerate:
                new_text = await self.regenerate(current)
                if _same_text(new_text, current.report_synthesis):
                    return "stalled"
                return new_text, current.evidence_corpus, "regenerate"
            return "regenerate_budget" if ev.regenerate_fn is not None else "no_recovery"
        return await self.replan(current, fallback="replan_budget")

    async def regenerate(self, current: GSAREvaluation) -> str:
        assert self.ev.regenerate_fn is not None
        new_text = await self.call(self.ev.regenerate_fn, current.report_synthesis,
                                   current.judge_output)
        self.regenerations += 1
        if not isinstance(new_text, str):
            raise TypeError(f"regenerate_fn must return a str, got {type(new_text).__name__}")
        return new_text

    async def replan(
        self, current: GSAREvaluation, *, fallback: DegradedReason
    ) -> tuple[str, EvidenceSet, Action] | DegradedReason:
        ev = self.ev
        if ev.replan_fn is None:
            return fallback
        if self.replans >= ev.k_max:
            return "replan_budget"
        returned = await self.call(ev.replan_fn, current.report_synthesis,
                                   current.evidence_corpus, current.judge_output)
        self.replans += 1
        if not (isinstance(returned, tuple) and len(returned) == 2
                and isinstance(returned[0], str)):
            raise TypeError("replan_fn must return a (synthesis: str, evidence) tuple, got "
                            f"{type(returned).__name__}")
        new_evidence = EvidenceSet.coerce(returned[1])
        if _same_text(returned[0], current.report_synthesis) and (
                new_evidence.items == current.evidence_corpus.items):
            return "stalled"
        return returned[0], new_evidence, "replan"

    def result(self, reason: DegradedReason | None) -> GSARResult:
        last = self.trajectory[-1]
        degraded = reason is not None and last.decision is not Decision.PROCEED
        chosen = last
        if degraded:
            # Best score wins; among equals, the later (more recovered) round.
            chosen = max(self.trajectory, key=lambda e: (e.decision is not Decision.ABSTAIN,
                                                         e.score, e.iteration))
        return GSARResult(
            final_report=chosen.report_synthesis, final_score=chosen.score,
            final_decision=chosen.decision, final_partition=chosen.judge_output.to_partition(),
            final_judge_output=chosen.judge_output, replans_used=self.replans,
            regenerations_used=self.regenerations, degraded=degraded,
            degraded_reason=reason if degraded else None, final_iteration=chosen.iteration,
            final_evidence=chosen.evidence_corpus, trajectory=tuple(self.trajectory),
            adjustments=chosen.adjustments, judge_name=judge_name(self.ev.judge),
            judge_model=chosen.judge_model, conclusion_capped=chosen.conclusion_capped,
            conclusion_policy=self.ev.conclusion_policy,
        )


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _non_negative_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, inside a running loop or not."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import concurrent.futures
    import contextvars

    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coro).result()
