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
:class:`~gsar_otel.evaluator.GSAREvaluator`; to report a result computed elsewhere, use
:func:`emit_result`.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ParamSpec

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.trace import SpanKind, Status, StatusCode

from gsar_otel import semconv as sc
from gsar_otel.evaluator import Action, GSAREvaluation, GSAREvaluator, GSARResult
from gsar_otel.evidence import EvidenceSet
from gsar_otel.judges.base import judge_model, judge_name
from gsar_otel.model import DEFAULT_UNKNOWN_WEIGHT, Claim, EvidenceType, GSARThresholds
from gsar_otel.scoring import WeightMap, claim_weight, resolve_weight_map
from gsar_otel.telemetry_setup import TelemetryHandle, configure_telemetry

__all__ = [
    "EvaluationRecorder",
    "Instruments",
    "RoundRecorder",
    "Telemetry",
    "TelemetryHandle",
    "TracedEvaluator",
    "configure_telemetry",
    "emit_result",
    "get_telemetry",
    "set_providers",
    "start_evaluation",
]

logger = logging.getLogger(__name__)
P = ParamSpec("P")

_VERSION = "0.1.0"


@dataclass(frozen=True, slots=True)
class Instruments:
    """The gsar-otel metric instruments of one meter provider."""

    score: metrics.Histogram
    decisions: metrics.Counter
    claims: metrics.Counter
    judge_duration: metrics.Histogram
    degraded: metrics.Counter
    judge_errors: metrics.Counter
    background_dropped: metrics.Counter
    judge_tokens: metrics.Counter


def _create_instruments(provider: metrics.MeterProvider) -> Instruments:
    meter = provider.get_meter(sc.INSTRUMENTATION_SCOPE, _VERSION)
    return Instruments(
        score=meter.create_histogram(
            sc.METRIC_SCORE, unit=sc.UNIT_SCORE,
            description="GSAR grounding score S per evaluation.",
            explicit_bucket_boundaries_advisory=sc.SCORE_BUCKETS),
        decisions=meter.create_counter(
            sc.METRIC_DECISIONS, unit=sc.UNIT_EVALUATIONS,
            description="Evaluations by final decision."),
        claims=meter.create_counter(
            sc.METRIC_CLAIMS, unit=sc.UNIT_CLAIMS,
            description="Claims of final verdicts by verdict and evidence type."),
        judge_duration=meter.create_histogram(
            sc.METRIC_JUDGE_DURATION, unit=sc.UNIT_SECONDS,
            description="Duration of a judge round.",
            explicit_bucket_boundaries_advisory=sc.JUDGE_DURATION_BUCKETS),
        degraded=meter.create_counter(
            sc.METRIC_EVALUATIONS_DEGRADED, unit=sc.UNIT_EVALUATIONS,
            description="Evaluations that ended degraded (budget spent without a proceed)."),
        judge_errors=meter.create_counter(
            sc.METRIC_JUDGE_ERRORS, unit=sc.UNIT_ERRORS, description="Judge rounds that failed."),
        background_dropped=meter.create_counter(
            sc.METRIC_BACKGROUND_DROPPED, unit=sc.UNIT_EVALUATIONS,
            description="Background evaluations dropped because the queue was full."),
        judge_tokens=meter.create_counter(
            sc.METRIC_JUDGE_TOKENS, unit=sc.UNIT_TOKENS, description="Tokens judges used."),
    )


@dataclass(frozen=True, slots=True)
class Telemetry:
    """A tracer and the instruments to emit grounding telemetry with."""

    tracer: trace.Tracer
    instruments: Instruments


class _PerProvider:
    """Values built once per provider object (weakly keyed, so test providers can be freed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weak: MutableMapping[object, Any] = weakref.WeakKeyDictionary()
        self._strong: dict[int, tuple[object, Any]] = {}

    def get(self, provider: object, build: Any) -> Any:
        try:
            return self._weak[provider]
        except (KeyError, TypeError):
            pass
        pair = self._strong.get(id(provider))
        if pair is not None and pair[0] is provider:
            return pair[1]
        with self._lock:
            value = build(provider)
            try:
                self._weak[provider] = value
            except TypeError:
                self._strong[id(provider)] = (provider, value)
            return value


_tracers = _PerProvider()
_instruments = _PerProvider()
_override_tracer_provider: trace.TracerProvider | None = None
_override_meter_provider: metrics.MeterProvider | None = None


def set_providers(
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> None:
    """Send gsar-otel's own telemetry to these providers instead of the global ones.

    ``None`` returns that signal to the global provider. The judge's SDK spans (e.g. the
    anthropic client's) still go to the global tracer provider.
    """
    global _override_tracer_provider, _override_meter_provider
    _override_tracer_provider = tracer_provider
    _override_meter_provider = meter_provider


def get_telemetry(
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> Telemetry:
    """The tracer and instruments for the given providers, else the :func:`set_providers` ones,
    else the global ones. Instruments are created once per meter provider."""
    tp = tracer_provider or _override_tracer_provider or trace.get_tracer_provider()
    mp = meter_provider or _override_meter_provider or metrics.get_meter_provider()
    tracer = _tracers.get(tp, lambda p: p.get_tracer(sc.INSTRUMENTATION_SCOPE, _VERSION))
    return Telemetry(tracer=tracer, instruments=_instruments.get(mp, _create_instruments))


# --- the evaluation lifecycle ---------------------------------------------------------------------


def _quietly(what: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Decorator: run a telemetry step, log and swallow any Exception it raises."""

    def wrap(method: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(method)
        def run(*args: P.args, **kwargs: P.kwargs) -> None:
            try:
                method(*args, **kwargs)
            except Exception:  # telemetry never breaks the host
                logger.debug("gsar telemetry: %s failed", what, exc_info=True)

        return run

    return wrap


def _error_type(error: BaseException) -> str:
    return type(error).__qualname__


def _mark_failed(span: trace.Span, error_type: str) -> None:
    span.set_attribute(sc.ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, error_type))


def _claim_key(text: str) -> str:
    return " ".join(text.split()).casefold()


class EvaluationRecorder:
    """The telemetry of one evaluation: ``start`` → rounds → ``finish`` or ``fail`` → ``end``.

    Every method swallows its own errors; ``end`` must be called (in ``finally``).
    """

    def __init__(
        self,
        telemetry: Telemetry,
        *,
        function: str,
        mode: str,
        thresholds: GSARThresholds,
        contradiction_penalty: float,
        weight_map: WeightMap,
        default_unknown: float,
        capture_content: bool,
    ) -> None:
        self.telemetry = telemetry
        self.function = function
        self.mode = mode
        self.thresholds = thresholds
        self.contradiction_penalty = contradiction_penalty
        self.weight_map = weight_map
        self.default_unknown = default_unknown
        self.capture_content = capture_content
        self.judge_name: str | None = None
        self.span: trace.Span = trace.INVALID_SPAN
        self._token: object | None = None
        self.metric_attributes: dict[str, str] = {sc.GSAR_FUNCTION: function}

    @_quietly("starting the evaluate span")
    def start(self, context: Context | None = None, *, start_time: int | None = None) -> None:
        """Start the ``gsar.evaluate`` span as a child of ``context`` (default: the current one)
        and make it current."""
        self.span = self.telemetry.tracer.start_span(
            f"{sc.SPAN_EVALUATE} {self.function}", context=context, kind=SpanKind.INTERNAL,
            start_time=start_time,
            attributes={
                sc.OPENINFERENCE_SPAN_KIND: sc.OPENINFERENCE_SPAN_KIND_EVALUATOR,
                sc.GSAR_FUNCTION: self.function,
                sc.GSAR_MODE: self.mode,
                sc.GSAR_THRESHOLDS_PROCEED: self.thresholds.proceed,
                sc.GSAR_THRESHOLDS_REGENERATE: self.thresholds.regenerate,
                sc.GSAR_CONTRADICTION_PENALTY: self.contradiction_penalty,
            })
        self._token = otel_context.attach(trace.set_span_in_context(self.span, context))

    @_quietly("recording the judge")
    def set_judge(self, judge: object) -> None:
        """Record which judge evaluates (known once it is built)."""
        self.judge_name = judge_name(judge)
        if self.span.is_recording():
            self.span.set_attribute(sc.GSAR_JUDGE_NAME, self.judge_name)
            model = judge_model(judge)
            if model:
                self.span.set_attribute(sc.GSAR_JUDGE_MODEL, model)

    def round(self, *, iteration: int, action: Action, start_time: int | None = None
              ) -> RoundRecorder:
        """Start the ``gsar.judge`` span of one judge round (current until its ``end``)."""
        return RoundRecorder(self, iteration=iteration, action=action, start_time=start_time)

    @_quietly("recording the result")
    def finish(self, result: GSARResult) -> None:
        """Write the result: span attributes, claim events, the GenAI event and the metrics."""
        self._record_metrics(result)
        if self.span.is_recording():
            self._record_span(result)

    def _record_metrics(self, result: GSARResult) -> None:
        inst = self.telemetry.instruments
        base = self.metric_attributes
        decision = result.final_decision.value
        inst.score.record(result.final_score, base)
        inst.decisions.add(1, {**base, sc.GSAR_DECISION: decision})
        counts: dict[tuple[str, str], int] = {}
        for bucket, claims in result.final_partition.buckets():
            for claim in claims:
                kind = (claim.type.value if isinstance(claim.type, EvidenceType)
                        else sc.UNKNOWN_EVIDENCE_TYPE_VALUE)
                counts[bucket, kind] = counts.get((bucket, kind), 0) + 1
        for (verdict, kind), count in counts.items():
            inst.claims.add(count, {**base, sc.GSAR_CLAIM_VERDICT: verdict,
                                    sc.GSAR_CLAIM_EVIDENCE_TYPE: kind})
        if result.degraded:
            inst.degraded.add(1, {**base, sc.GSAR_DEGRADED_REASON: result.degraded_reason or ""})

    def _record_span(self, result: GSARResult) -> None:
        span = self.span
        partition = result.final_partition
        attributes: dict[str, Any] = {
            sc.GSAR_SCORE: result.final_score,
            sc.GSAR_DECISION: result.final_decision.value,
            sc.GSAR_DEGRADED: result.degraded,
            sc.GSAR_ROUNDS: result.rounds,
            sc.GSAR_REPLANS: result.replans_used,
            sc.GSAR_REGENERATIONS: result.regenerations_used,
            sc.GSAR_CLAIMS_TOTAL: partition.total_claims,
            sc.GSAR_JUDGE_NAME: result.judge_name or self.judge_name or "",
            sc.GSAR_EVIDENCE_COUNT: len(result.final_evidence),
            sc.GSAR_EVIDENCE_TRUNCATED: result.final_evidence.truncated,
            sc.GSAR_ADJUSTMENTS: len(result.adjustments),
            sc.GSAR_FINAL_ITERATION: result.final_iteration,
            sc.OPENINFERENCE_OUTPUT_VALUE:
                f"{result.final_decision.value} (S={result.final_score:.3f})",
        }
        for bucket, count in partition.counts().items():
            attributes[sc.CLAIM_COUNT_ATTRIBUTES[bucket]] = count
        if result.judge_model:
            attributes[sc.GSAR_JUDGE_MODEL] = result.judge_model
        if result.degraded_reason:
            attributes[sc.GSAR_DEGRADED_REASON] = result.degraded_reason
        if self.capture_content:
            text = _redact(result.final_report, sc.REDACT_KIND_SYNTHESIS)
            if text is not None:
                attributes[sc.GSAR_SYNTHESIS] = text
                attributes[sc.OPENINFERENCE_INPUT_VALUE] = text
        span.set_attributes(attributes)

        adjusted: dict[str, list[str]] = {}
        for adjustment in result.adjustments:
            kinds = adjusted.setdefault(_claim_key(adjustment.claim), [])
            if adjustment.kind not in kinds:
                kinds.append(adjustment.kind)
        index = 0
        for verdict, claims in partition.buckets():
            for claim in claims:
                span.add_event(sc.EVENT_CLAIM, self._claim_attributes(
                    claim, index=index, verdict=verdict, adjustments=adjusted))
                index += 1

        evaluation: dict[str, Any] = {
            sc.GEN_AI_EVALUATION_NAME: sc.GEN_AI_EVALUATION_NAME_VALUE,
            sc.GEN_AI_EVALUATION_SCORE_VALUE: result.final_score,
            sc.GEN_AI_EVALUATION_SCORE_LABEL: result.final_decision.value,
        }
        explanation = result.final_judge_output.explanation
        if explanation:
            redacted = _redact(explanation, sc.REDACT_KIND_EXPLANATION)
            if redacted is not None:
                evaluation[sc.GEN_AI_EVALUATION_EXPLANATION] = redacted
        span.add_event(sc.EVENT_GEN_AI_EVALUATION_RESULT, evaluation)

    def _claim_attributes(self, claim: Claim, *, index: int, verdict: str,
                          adjustments: Mapping[str, list[str]]) -> dict[str, Any]:
        kinds = adjustments.get(_claim_key(claim.text), [])
        attributes: dict[str, Any] = {
            sc.GSAR_CLAIM_INDEX: index,
            sc.GSAR_CLAIM_VERDICT: verdict,
            sc.GSAR_CLAIM_EVIDENCE_TYPE: str(getattr(claim.type, "value", claim.type)),
            sc.GSAR_CLAIM_WEIGHT: claim_weight(claim, self.weight_map, self.default_unknown),
            sc.GSAR_CLAIM_EVIDENCE_REFS: list(claim.evidence_refs),
            sc.GSAR_CLAIM_ADJUSTED: bool(kinds),
        }
        if kinds:
            attributes[sc.GSAR_CLAIM_ADJUSTMENT] = list(kinds)
        if self.capture_content:
            text = _redact(claim.text, sc.REDACT_KIND_CLAIM)
            if text is not None:
                attributes[sc.GSAR_CLAIM_TEXT] = text
        return attributes

    @_quietly("recording a failure")
    def fail(self, error: BaseException) -> None:
        """Mark the evaluation failed (status ERROR, ``error.type``); the message is not
        recorded, since it may quote the answer or the evidence."""
        if self.span.is_recording():
            _mark_failed(self.span, _error_type(error))

    def end(self, *, end_time: int | None = None) -> None:
        """Make the caller's context current again and end the span."""
        try:
            if self._token is not None:
                token, self._token = self._token, None
                otel_context.detach(token)  # type: ignore[arg-type]
        except Exception:
            logger.debug("gsar telemetry: detaching the evaluate context failed", exc_info=True)
        finally:
            try:
                self.span.end(end_time=end_time)
            except Exception:
                logger.debug("gsar telemetry: ending the evaluate span failed", exc_info=True)


class RoundRecorder:
    """The ``gsar.judge`` span of one judge round, current while the judge runs, so that the
    judge's own client spans (e.g. ``anthropic.messages.create``) nest under it."""

    def __init__(self, parent: EvaluationRecorder, *, iteration: int, action: Action,
                 start_time: int | None = None) -> None:
        self.parent = parent
        self.span: trace.Span = trace.INVALID_SPAN
        self._token: object | None = None
        try:
            attributes: dict[str, Any] = {sc.GSAR_JUDGE_ROUND: iteration,
                                          sc.GSAR_JUDGE_ACTION: action}
            if parent.judge_name:
                attributes[sc.GSAR_JUDGE_NAME] = parent.judge_name
            self.span = parent.telemetry.tracer.start_span(
                sc.SPAN_JUDGE, kind=SpanKind.INTERNAL, attributes=attributes,
                start_time=start_time)
            self._token = otel_context.attach(trace.set_span_in_context(self.span))
        except Exception:
            logger.debug("gsar telemetry: starting a judge span failed", exc_info=True)

    @_quietly("recording a judge round")
    def finish(self, evaluation: GSAREvaluation) -> None:
        """Record the round's verdict, usage, duration and failure (if the judge failed)."""
        parent = self.parent
        inst = parent.telemetry.instruments
        base = {**parent.metric_attributes, sc.GSAR_JUDGE_NAME: parent.judge_name or ""}
        error = evaluation.judge_error
        if evaluation.judge_duration_s > 0 or error:
            duration_attributes = {**base, sc.ERROR_TYPE: error} if error else base
            inst.judge_duration.record(evaluation.judge_duration_s, duration_attributes)
        if error:
            inst.judge_errors.add(1, {**base, sc.ERROR_TYPE: error})
        usage = evaluation.judge_usage
        tokens = {} if usage is None else {
            sc.TOKEN_TYPE_INPUT: usage.input_tokens,
            sc.TOKEN_TYPE_OUTPUT: usage.output_tokens,
            sc.TOKEN_TYPE_CACHE_READ: usage.cache_read_input_tokens,
            sc.TOKEN_TYPE_CACHE_CREATION: usage.cache_creation_input_tokens,
        }
        for token_type, count in tokens.items():
            if count:
                inst.judge_tokens.add(count, {**base, sc.GSAR_TOKEN_TYPE: token_type})
        span = self.span
        if not span.is_recording():
            return
        attributes: dict[str, Any] = {
            sc.GSAR_JUDGE_ABSTAINED: evaluation.judge_output.abstained,
            sc.GSAR_JUDGE_SCORE: evaluation.score,
            sc.GSAR_JUDGE_DECISION: evaluation.decision.value,
        }
        if evaluation.judge_model:
            attributes[sc.GSAR_JUDGE_MODEL] = evaluation.judge_model
        if usage is not None:
            attributes[sc.GSAR_JUDGE_USAGE_INPUT_TOKENS] = usage.input_tokens
            attributes[sc.GSAR_JUDGE_USAGE_OUTPUT_TOKENS] = usage.output_tokens
            attributes[sc.GSAR_JUDGE_USAGE_CACHE_READ_TOKENS] = usage.cache_read_input_tokens
            attributes[sc.GSAR_JUDGE_USAGE_CACHE_CREATION_TOKENS] = (
                usage.cache_creation_input_tokens)
        span.set_attributes(attributes)
        if error:
            span.set_attribute(sc.GSAR_JUDGE_ERROR_TYPE, error)
            _mark_failed(span, error)

    @_quietly("recording a judge round failure")
    def fail(self, error: BaseException) -> None:
        """Mark the round failed with ``error.type``."""
        if self.span.is_recording():
            _mark_failed(self.span, _error_type(error))

    def end(self, *, end_time: int | None = None) -> None:
        """Make the evaluate span current again and end the round's span."""
        try:
            if self._token is not None:
                token, self._token = self._token, None
                otel_context.detach(token)  # type: ignore[arg-type]
        except Exception:
            logger.debug("gsar telemetry: detaching the judge context failed", exc_info=True)
        finally:
            try:
                self.span.end(end_time=end_time)
            except Exception:
                logger.debug("gsar telemetry: ending a judge span failed", exc_info=True)


def _redact(text: str, kind: str) -> str | None:
    from gsar_otel.plugins import redact

    return redact(text, kind)


def _capture_content_default() -> bool:
    from gsar_otel.config import get_settings

    try:
        return get_settings().capture_content
    except ValueError:
        return False


def start_evaluation(
    *,
    function: str,
    mode: str = sc.MODE_INLINE,
    thresholds: GSARThresholds | None = None,
    contradiction_penalty: float = 0.5,
    weight_map: WeightMap | None = None,
    default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
    capture_content: bool | None = None,
    context: Context | None = None,
    telemetry: Telemetry | None = None,
    start_time: int | None = None,
) -> EvaluationRecorder:
    """Start recording one evaluation (its span becomes current); call ``end()`` in ``finally``."""
    recorder = EvaluationRecorder(
        telemetry or get_telemetry(), function=function, mode=mode,
        thresholds=thresholds or GSARThresholds(), contradiction_penalty=contradiction_penalty,
        weight_map=resolve_weight_map(weight_map), default_unknown=default_unknown,
        capture_content=_capture_content_default() if capture_content is None else capture_content)
    recorder.start(context, start_time=start_time)
    return recorder


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
            return await self.evaluate_recorded(recorder, report_synthesis=report_synthesis,
                                                evidence_corpus=evidence_corpus)
        except BaseException as error:
            recorder.fail(error)
            raise
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
            evaluation = await super().judge_round(synthesis, evidence, iteration=iteration,
                                                   action=action, timeout_s=timeout_s)
        except BaseException as error:
            round_.fail(error)
            raise
        else:
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
