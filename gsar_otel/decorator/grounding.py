"""The core behind ``@grounded``: sampling, evidence capture, judging inline or in the
background, ``on_low``, and never breaking the host. The decorator's sync and async shells in
:mod:`gsar_otel.decorator.api` only call into :class:`GroundedFunction`.

Importing this module and decorating a function stay cheap: pydantic, asyncio, the settings, the
models and the evaluator load on the first call (:meth:`GroundedFunction._resolve`) or the first
judging, not when the host imports its own decorated functions."""

from __future__ import annotations

import contextvars
import logging
import os
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from gsar_otel import semconv as sc
from gsar_otel.decorator.failing import (
    NO_EVIDENCE_REASON,
    call_extractor,
    count_skipped,
    failure_kind,
    failure_result,
    reported,
)
from gsar_otel.decorator.options import (
    GroundedCall,
    GroundedOptions,
    GroundingError,
    UnavailableJudge,
    set_last_result,
)
from gsar_otel.decorator.running import _watch, merge_evidence
from gsar_otel.otel.background import get_worker
from gsar_otel.runtime.guards import absorb, on_failure
from gsar_otel.runtime.loop import run_on_thread_loop

if TYPE_CHECKING:
    from gsar_otel.config import GSARSettings
    from gsar_otel.core.evidence import Evidence, EvidenceSet
    from gsar_otel.core.model import GSARThresholds
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult

__all__ = ["GroundedFunction"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Seeded from the OS once per process (and again in a forked child): sampling stays random
# across workers of a pre-fork server.
_rng = random.Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_rng.seed)


@dataclass(frozen=True, slots=True)
class _Plan:
    """Options merged with the settings, resolved on the first call."""

    skip: bool
    rate: float
    settings: GSARSettings | None
    error: Exception | None = None
    """Why grounding could not be set up: raised by a gate, counted in observe mode."""


class GroundedFunction:
    """The one core behind the sync and async shells of a decorated function."""

    _collector: contextvars.ContextVar[list[Evidence] | None]
    """The evidence collector of :mod:`gsar_otel.core.evidence`, bound by :meth:`_resolve` (so that
    importing this module does not import pydantic)."""

    def __init__(self, fn: Callable[..., Any], options: GroundedOptions, function: str) -> None:
        self.fn = fn
        self.options = options
        self.function = function
        self.background = options.mode == "background"
        self.plan: _Plan | None = None
        self._lock = threading.Lock()
        self._thresholds: GSARThresholds | None = None
        self._judge: Judge | None = None
        self._warned = False
        self._runner = self._run_background

    # -- the hot path -----------------------------------------------------------------------

    def start(self) -> tuple[list[Evidence], contextvars.Token[Any], list[Evidence] | None] | None:
        """Begin collecting evidence for one call, or None when this call is not judged."""
        plan = self.plan or self._resolve()
        if plan.skip:
            if plan.error is not None:
                self._unjudgeable(plan.error)
            return None
        if plan.rate < 1.0 and _rng.random() >= plan.rate:
            return None
        collector = self._collector
        parent = collector.get()
        collected: list[Evidence] = []
        return collected, collector.set(collected), parent

    @staticmethod
    def stop(capture: tuple[list[Evidence], contextvars.Token[Any], list[Evidence] | None]
             ) -> None:
        """Stop collecting; evidence also counts for an enclosing ``@grounded`` call."""
        collected, token, parent = capture
        try:
            token.var.reset(token)
            if parent is not None and collected:
                parent.extend(collected)
        except Exception:
            logger.debug("gsar: resetting the evidence collector failed", exc_info=True)

    def submit(self, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               collected: list[Evidence]) -> None:
        """Hand the call to the background worker (never raises)."""
        try:
            plan = self.plan
            size = plan.settings.background_queue_size if plan and plan.settings else 1000
            worker = get_worker(size)
            # A refused job is counted by the worker (gsar.background.dropped, with a reason).
            worker.submit(self._runner, (result, args, kwargs, collected),
                          contextvars.copy_context(), self.function)
        except Exception:
            logger.debug("gsar: queueing a background evaluation failed", exc_info=True)

    # -- resolution -------------------------------------------------------------------------

    def _resolve(self) -> _Plan:
        with self._lock:
            if self.plan is not None:
                return self.plan
            from gsar_otel.config import SettingsError, get_settings
            from gsar_otel.core.capture import _COLLECTOR

            # Bound before the plan is published: start() reads it once the plan is set.
            self._collector = _COLLECTOR
            try:
                settings = get_settings()
            except Exception as error:
                # A gate fails closed (start() raises on every call); observe mode turns
                # grounding off and counts each call it leaves unjudged.
                detail = error if isinstance(error, SettingsError) else repr(error)
                if self.options.on_low == "observe":
                    logger.warning("gsar: grounding is off for %s: %s", self.function, detail)
                self.plan = _Plan(skip=True, rate=0.0, settings=None, error=error)
                return self.plan
            rate = self.options.sample_rate * settings.sample_rate
            if self.options.on_low != "observe" and rate < 1.0:
                # A gate that samples would let unsampled answers through unjudged.
                logger.warning("gsar: %s=%s ignored for %s: on_low=%r judges every call",
                               sc.ENV_SAMPLE_RATE, settings.sample_rate, self.function,
                               self.options.on_low)
                rate = 1.0
            self.plan = _Plan(skip=settings.disabled or rate <= 0.0, rate=rate, settings=settings)
            return self.plan

    def _get_judge(self, settings: GSARSettings) -> Judge:
        if self._judge is not None:
            return self._judge
        with self._lock:
            if self._judge is None:
                option = self.options.judge
                if option is not None and not isinstance(option, str):
                    self._judge = option
                else:
                    from gsar_otel.judges.factory import make_judge

                    requested = option or settings.judge or "default"
                    try:
                        self._judge = make_judge(option or settings.judge,
                                                 model=settings.judge_model)
                    except Exception as error:
                        # Every call then abstains with JudgeUnavailableError: counted in
                        # gsar.judge.errors, and a raise-mode gate stays closed.
                        logger.warning("gsar: no judge for %s: %s", self.function, error)
                        self._judge = UnavailableJudge(requested, f"{type(error).__name__}: "
                                                                  f"{error}")
            return self._judge

    # -- evaluation (shared by inline and background) ----------------------------------------

    async def _evaluate(self, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                        collected: list[Evidence],
                        callbacks: tuple[Callable[..., Any] | None, Callable[..., Any] | None],
                        ) -> GSARResult | None:
        """Judge one call. Returns None when gsar-otel itself failed (already recorded).

        Only BaseExceptions (cancellation) and the user's callback errors propagate; the
        latter are recognised by identity and re-raised unchanged by the caller of this method.
        """
        from gsar_otel.config import get_settings
        from gsar_otel.otel.recording import start_evaluation
        from gsar_otel.otel.traced import TracedEvaluator

        plan = self.plan
        settings = plan.settings if plan and plan.settings else get_settings()
        options = self.options
        thresholds = self._thresholds or self._build_thresholds() or settings.thresholds_model()
        penalty = (settings.contradiction_penalty if options.contradiction_penalty is None
                   else options.contradiction_penalty)
        recorder = start_evaluation(
            function=self.function, mode=options.mode, thresholds=thresholds,
            contradiction_penalty=penalty, weight_map=settings.weight_map_model(),
            capture_content=settings.capture_content)
        # The span names what the extractor raised, not our wrapper of it.
        try:
            with on_failure(lambda error: recorder.fail(reported(error))):
                judge = self._get_judge(settings)
                recorder.set_judge(judge)
                synthesis = self._synthesis(result)
                evidence = self._evidence(result, args, kwargs, collected)
                regenerate_fn, replan_fn = callbacks
                configured = {**settings.evaluator_options(), "thresholds": thresholds,
                              "contradiction_penalty": penalty}
                if options.k_max is not None:
                    configured["k_max"] = options.k_max
                if options.contradiction_policy is not None:
                    configured["contradiction_policy"] = options.contradiction_policy
                if options.dispute_policy is not None:
                    configured["dispute_policy"] = options.dispute_policy
                evaluator = TracedEvaluator(
                    judge, regenerate_fn, replan_fn, function=self.function, mode=options.mode,
                    capture_content=settings.capture_content, deadline_s=options.deadline_s,
                    settings=settings, **configured)
                # No evidence: the evaluator abstains (no_evidence) naming the decorator's wirings.
                evaluator.no_evidence_hint = NO_EVIDENCE_REASON
                outcome: GSARResult = await evaluator.evaluate_recorded(
                    recorder, report_synthesis=synthesis, evidence_corpus=evidence)
                capture = options.capture or settings.capture_dir
                if capture:
                    from gsar_otel.decorator.capturing import capture_call

                    capture_call(capture, outcome, recorder.span, self.function)
                return outcome
        finally:
            recorder.end()

    def _build_thresholds(self) -> GSARThresholds | None:
        """The ``thresholds=`` option as a GSARThresholds (None when not given), built once."""
        self._thresholds = self.options.thresholds_model()
        return self._thresholds

    def _synthesis(self, result: Any) -> str:
        extractor = self.options.synthesis
        if extractor is None:
            if isinstance(result, str):
                return result
            if not self._warned:
                self._warned = True
                logger.warning("gsar: %s returned %s, not a str; pass synthesis= to @grounded "
                               "to say which text to judge", self.function, type(result).__name__)
            raise TypeError(f"{self.function} returned {type(result).__name__}; pass synthesis=")
        text = call_extractor("synthesis", extractor, result)
        if not isinstance(text, str):
            raise TypeError(f"synthesis extractor returned {type(text).__name__}, not a str")
        return text

    def _evidence(self, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                  collected: list[Evidence]) -> EvidenceSet:
        from gsar_otel.core.evidence import coerce_evidence

        extra: EvidenceSet | None = None
        if self.options.evidence is not None:
            call = GroundedCall(args=args, kwargs=kwargs, result=result,
                                collected=tuple(collected))
            extra = coerce_evidence(call_extractor("evidence", self.options.evidence, call))
        return merge_evidence(collected, extra)

    async def _run_background(self, payload: tuple[Any, tuple[Any, ...], dict[str, Any],
                                                   list[Evidence]]) -> None:
        # A failure goes to the worker's loop, never to the host: the worker logs it and counts
        # it in gsar.background.dropped (gsar.drop.reason=error).
        await self._evaluate(*payload, callbacks=(None, None))

    async def judge_inline(self, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                           collected: list[Evidence],
                           user_errors: list[BaseException] | None = None,
                           holder: list[GSARResult | None] | None = None) -> Any:
        """Judge before returning and apply ``on_low``; returns what the call should return.

        Raises:
            GroundingError: ``on_low="raise"`` and the answer does not proceed.
            Exception: an error of ``regenerate_fn`` / ``replan_fn``, unchanged.
        """
        errors: list[BaseException] = [] if user_errors is None else user_errors
        callbacks = (_watch(self.options.regenerate_fn, errors),
                     _watch(self.options.replan_fn, errors))
        # The user's callback errors and the caller's own (a real cancellation of its task, an
        # exit) propagate; anything else is a call that could not be judged.
        with absorb(keep=lambda error: any(error is e for e in errors)) as caught:
            outcome = await self._evaluate(result, args, kwargs, collected, callbacks)
            set_last_result(outcome)
            if holder is not None:
                holder.append(outcome)
        if caught.error is not None:
            return self._failed(result, caught.error)
        return self._apply_on_low(result, outcome)

    def judge_inline_sync(self, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                          collected: list[Evidence]) -> Any:
        """:meth:`judge_inline` for sync functions (on this thread's own event loop)."""
        user_errors: list[BaseException] = []
        holder: list[GSARResult | None] = []  # the loop's task has a context of its own
        try:
            # A sync caller has no task to cancel: everything but an exit, a GroundingError and
            # the user's callback errors is ours.
            with absorb(cancellation=False, keep=lambda error: isinstance(
                    error, GroundingError) or any(error is e for e in user_errors)) as caught:
                return run_on_thread_loop(
                    self.judge_inline(result, args, kwargs, collected, user_errors, holder))
            assert caught.error is not None
            return self._failed(result, caught.error)
        finally:
            set_last_result(holder[0] if holder else None)

    def _failed(self, result: Any, error: BaseException) -> Any:
        """The call could not be judged: observe returns ``result``; a gate fails closed."""
        logger.debug("gsar: evaluating %s failed", self.function, exc_info=error)
        if self.options.on_low == "observe":
            return result
        judge = getattr(self._judge, "name", "") if self._judge is not None else ""
        failed = failure_result(result, f"{self.function} could not be judged: {error}",
                                failure_kind(error), judge if isinstance(judge, str) else "")
        raise GroundingError(failed, self.function) from error

    def _unjudgeable(self, error: Exception) -> None:
        """Grounding could not be set up: a gate raises, observe counts the unjudged call."""
        if self.options.on_low != "observe":
            from gsar_otel.config import SettingsError

            raise SettingsError(f"gsar: {self.function} cannot be judged (on_low="
                                f"{self.options.on_low!r} never returns an unchecked answer): "
                                f"{error}") from error
        count_skipped(self.function, sc.DEGRADED_REASON_INVALID_SETTINGS)

    def _apply_on_low(self, result: Any, outcome: GSARResult | None) -> Any:
        on_low = self.options.on_low
        if on_low == "observe":
            return result
        if outcome is None or not outcome.trajectory:
            return self._failed(result, RuntimeError("the evaluation produced no result"))
        if on_low == "raise":
            from gsar_otel.core.model import Decision

            # Fail closed: a judge that could not judge has not shown the answer is grounded.
            if outcome.final_decision is not Decision.PROCEED:
                raise GroundingError(outcome, self.function)
            return result
        # recover: the original object unless the loop settled on a different text
        if outcome.final_report == outcome.trajectory[0].report_synthesis:
            return result
        return outcome.final_report
