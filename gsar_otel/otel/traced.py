"""OpenTelemetry for grounding: one ``gsar.evaluate`` span per evaluation, live ``gsar.judge``
spans per judge round, a ``gsar.claim`` event per claim, the GenAI ``gen_ai.evaluation.result``
event, and the ``gsar.*`` metrics. Names are in :mod:`gsar_otel.semconv`.

Only the OpenTelemetry API is used: the global tracer and meter providers, or the ones given to
:func:`set_providers` (tests, or apps that keep gsar-otel's telemetry apart). Setting up SDK
providers with exporters is :func:`configure_telemetry`'s job.

Telemetry never breaks the host: every failure inside this module is logged at debug level and
swallowed, and spans always end (in ``finally``).

Metrics and their attributes (all low-cardinality; ``gsar.function`` is the decorated function's
name, or ``name=``):

=============================  ===========  =================================================
``gsar.score``                 histogram 1  gsar.function
``gsar.decisions``             counter      gsar.function, gsar.decision
``gsar.claims``                counter      gsar.function, gsar.claim.verdict,
                                            gsar.claim.evidence_type (``unknown`` for a type
                                            outside EvidenceType)
``gsar.judge.duration``        histogram s  gsar.function, gsar.judge.name (+ error.type)
``gsar.judge.errors``          counter      gsar.function, gsar.judge.name, error.type
``gsar.judge.tokens``          counter      gsar.function, gsar.judge.name, gsar.token.type
``gsar.evaluations.degraded``  counter      gsar.function, gsar.degraded.reason
``gsar.background.dropped``    counter      gsar.function
=============================  ===========  =================================================

To trace an evaluation you run yourself, use :class:`TracedEvaluator` in place of
:class:`~gsar_otel.core.evaluator.GSAREvaluator`; to report a result computed elsewhere, use
:func:`emit_result`.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.context import Context

from gsar_otel import semconv as sc
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import DEFAULT_UNKNOWN_WEIGHT, GSARThresholds
from gsar_otel.core.result import Action, GSAREvaluation, GSARResult
from gsar_otel.core.scoring import WeightMap
from gsar_otel.otel.instruments import (
    Telemetry,
    get_telemetry,
)
from gsar_otel.otel.recording import (
    EvaluationRecorder,
    start_evaluation,
)
from gsar_otel.runtime.guards import on_failure

__all__ = ["TracedEvaluator", "emit_result"]

logger = logging.getLogger(__name__)


# --- a traced evaluator ---------------------------------------------------------------------------

_RECORDER: ContextVar[EvaluationRecorder | None] = ContextVar("gsar_recorder", default=None)


class TracedEvaluator(GSAREvaluator):
    """A :class:`GSAREvaluator` that reports each evaluation as telemetry.

    Args:
        function: the name evaluations are reported under (``gsar.function``).
        mode: reported as ``gsar.mode``.
        capture_content: put claim and answer text on spans (default: the settings).
        telemetry: the tracer and instruments to use (default: :func:`get_telemetry`).
        *args, **kwargs: as for :class:`GSAREvaluator`.
    """

    def __init__(self, *args: Any, function: str, mode: str = sc.MODE_INLINE,
                 capture_content: bool | None = None, telemetry: Telemetry | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.function = function
        self.mode = mode
        self.capture_content = capture_content
        self.telemetry = telemetry

    def start_recording(self, context: Context | None = None) -> EvaluationRecorder:
        """Start the evaluate span for one evaluation with this evaluator's settings."""
        recorder = start_evaluation(
            function=self.function, mode=self.mode, thresholds=self.thresholds,
            contradiction_penalty=self.contradiction_penalty, weight_map=self.weight_map,
            default_unknown=self.default_unknown, capture_content=self.capture_content,
            context=context, telemetry=self.telemetry)
        recorder.set_judge(self.judge)
        return recorder

    async def evaluate(self, *, report_synthesis: str, evidence_corpus: Any = None) -> GSARResult:
        """As :meth:`GSAREvaluator.evaluate`, inside a ``gsar.evaluate`` span."""
        recorder = self.start_recording()
        try:
            with on_failure(recorder.fail):
                return await self.evaluate_recorded(recorder, report_synthesis=report_synthesis,
                                                    evidence_corpus=evidence_corpus)
        finally:
            recorder.end()

    async def evaluate_recorded(self, recorder: EvaluationRecorder, *, report_synthesis: str,
                                evidence_corpus: Any = None) -> GSARResult:
        """Evaluate with ``recorder`` already started; record the result and tell the plugins.

        The caller ends the recorder (and marks it failed if this raises).
        """
        token = _RECORDER.set(recorder)
        try:
            result = await GSAREvaluator.evaluate(self, report_synthesis=report_synthesis,
                                                  evidence_corpus=evidence_corpus)
        finally:
            _RECORDER.reset(token)
        recorder.finish(result)
        _notify_plugins(result, recorder.function)
        return result

    async def judge_round(self, synthesis: str, evidence: EvidenceSet, *, iteration: int,
                          action: Action, timeout_s: float | None = None) -> GSAREvaluation:
        """One judge round inside its own ``gsar.judge`` span."""
        recorder = _RECORDER.get()
        if recorder is None:
            return await super().judge_round(synthesis, evidence, iteration=iteration,
                                             action=action, timeout_s=timeout_s)
        round_ = recorder.round(iteration=iteration, action=action)
        try:
            with on_failure(round_.fail):
                evaluation = await super().judge_round(synthesis, evidence, iteration=iteration,
                                                       action=action, timeout_s=timeout_s)
            round_.finish(evaluation)
        finally:
            round_.end()
        return evaluation


def _notify_plugins(result: GSARResult, function: str) -> None:
    try:
        from gsar_otel.plugins import notify_result

        notify_result(result, function)
    except Exception:  # plugins never break the host
        logger.debug("gsar: result plugins failed", exc_info=True)


def emit_result(
    result: GSARResult,
    *,
    function: str,
    mode: str = sc.MODE_INLINE,
    thresholds: GSARThresholds | None = None,
    contradiction_penalty: float = 0.5,
    weight_map: WeightMap | None = None,
    default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
    capture_content: bool | None = None,
    context: Context | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> None:
    """Report a result computed elsewhere (e.g. by a plain GSAREvaluator) after the fact.

    The ``gsar.judge`` spans are rebuilt from the trajectory, laid end to end with the judge
    durations it recorded, ending now. Never raises.
    """
    try:
        telemetry = get_telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        now = time.time_ns()
        durations = [int(e.judge_duration_s * 1e9) for e in result.trajectory]
        cursor = now - sum(durations)
        recorder = start_evaluation(
            function=function, mode=mode, thresholds=thresholds,
            contradiction_penalty=contradiction_penalty, weight_map=weight_map,
            default_unknown=default_unknown, capture_content=capture_content, context=context,
            telemetry=telemetry, start_time=cursor)
    except Exception:
        logger.debug("gsar telemetry: emit_result failed", exc_info=True)
        return
    try:
        recorder.judge_name = result.judge_name or None
        for entry, duration in zip(result.trajectory, durations, strict=True):
            round_ = recorder.round(iteration=entry.iteration, action=entry.action,
                                    start_time=cursor)
            cursor += duration
            round_.finish(entry)
            round_.end(end_time=cursor)
        recorder.finish(result)
    finally:
        recorder.end(end_time=now)
