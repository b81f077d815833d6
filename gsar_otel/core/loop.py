"""One evaluation's run of the outer loop (Algorithm 1): judge, decide, call the caller's
recovery callbacks, and stop at a budget or the deadline. :class:`GSAREvaluator` holds the
settings; a :class:`Run` holds the state of one evaluation, so evaluations can run concurrently."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.core.protocol import judge_name
from gsar_otel.core.result import (
    DEADLINE_EXCEEDED,
    NO_EVIDENCE,
    UNVERIFIED,
    Action,
    DegradedReason,
    GSAREvaluation,
    GSARResult,
    no_evidence_round,
)
from gsar_otel.runtime.deadline import DeadlineReached, within

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator


class Run:
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
        :class:`~gsar_otel.runtime.deadline.DeadlineReached`.
        """
        value = fn(*args)
        if not inspect.isawaitable(value):
            return value
        return await within(value, self.remaining())

    async def run(self, synthesis: str, evidence: EvidenceSet) -> GSARResult:
        ev = self.ev
        if not evidence and ev.replan_fn is None:
            # The one no-evidence rule of every entry point: nothing to judge against, so the
            # judge is not called (a replan_fn may still gather evidence: then the loop runs).
            self.trajectory.append(no_evidence_round(synthesis, ev.no_evidence_hint))
            return self.result(NO_EVIDENCE)
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
            except DeadlineReached:
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
        if reason is None and last.decision is Decision.ABSTAIN and (
                last.judge_output.abstain_reason or "").startswith(UNVERIFIED):
            reason = "unverified"  # seen as a degraded evaluation, with why
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
            contradiction_capped=chosen.contradiction_capped,
            contradiction_policy=self.ev.contradiction_policy,
            dispute_capped=chosen.dispute_capped, dispute_policy=self.ev.dispute_policy,
            tiers=chosen.tiers,
        )


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())
