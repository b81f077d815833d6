"""The telemetry of one evaluation: the ``gsar.evaluate`` span and its attributes and events,
live ``gsar.judge`` spans per round, and the metrics. Every step swallows its own errors."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import SpanKind, Status, StatusCode

from gsar_otel import semconv as sc
from gsar_otel.core.model import DEFAULT_UNKNOWN_WEIGHT, Claim, EvidenceType, GSARThresholds
from gsar_otel.core.protocol import judge_model, judge_name
from gsar_otel.core.result import Action, GSAREvaluation, GSARResult
from gsar_otel.core.scoring import WeightMap, claim_weight, resolve_weight_map, unverified_share
from gsar_otel.otel import provenance
from gsar_otel.otel.claim_identity import identity_attributes
from gsar_otel.otel.instruments import Telemetry, get_telemetry

logger = logging.getLogger(__name__)
P = ParamSpec("P")


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
        self.offline_judge = False
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
        self.offline_judge = getattr(judge, "deterministic", None) is True
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
        provenance.record_metrics(inst, result, base, result.judge_name or self.judge_name or "")

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
            sc.GSAR_CONCLUSION_POLICY: result.conclusion_policy,
            sc.GSAR_CONCLUSION_CAPPED: result.conclusion_capped,
            sc.GSAR_CONTRADICTION_POLICY: result.contradiction_policy,
            sc.GSAR_CONTRADICTION_CAPPED: result.contradiction_capped,
            sc.OPENINFERENCE_OUTPUT_VALUE:
                f"{result.final_decision.value} (S={result.final_score:.3f})",
        }
        for bucket, count in partition.counts().items():
            attributes[sc.CLAIM_COUNT_ATTRIBUTES[bucket]] = count
        attributes[sc.GSAR_UNVERIFIED_SHARE] = unverified_share(partition)
        attributes.update(provenance.span_attributes(result))
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
                span.add_event(sc.EVENT_CLAIM, {
                    **self._claim_attributes(claim, index=index, verdict=verdict,
                                             adjustments=adjusted),
                    **identity_attributes(claim, result.final_report, result.final_evidence)})
                index += 1

        evaluation: dict[str, Any] = {
            sc.GEN_AI_EVALUATION_NAME: sc.GEN_AI_EVALUATION_NAME_VALUE,
            sc.GEN_AI_EVALUATION_SCORE_VALUE: result.final_score,
            sc.GEN_AI_EVALUATION_SCORE_LABEL: result.final_decision.value,
        }
        if self.capture_content:
            explanation = result.final_judge_output.explanation
            if explanation:
                redacted = _redact(explanation, sc.REDACT_KIND_EXPLANATION)
                if redacted is not None:
                    evaluation[sc.GEN_AI_EVALUATION_EXPLANATION] = redacted
        else:
            # A judge's own explanation quotes the answer: without content capture, say only
            # what the numbers say.
            evaluation[sc.GEN_AI_EVALUATION_EXPLANATION] = _content_free_explanation(result)
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
        if claim.conclusion:
            attributes[sc.GSAR_CLAIM_CONCLUSION] = True
        if not claim.verifiable:
            attributes[sc.GSAR_CLAIM_VERIFIABLE] = False
        attributes.update(provenance.claim_attributes(
            claim, capture_content=self.capture_content, redact=_redact,
            offline=self.offline_judge))
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
        token, self._token = self._token, None
        _detach_and_end(self.span, token, end_time, "the evaluate span")


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
        token, self._token = self._token, None
        _detach_and_end(self.span, token, end_time, "a judge span")


def _detach_and_end(span: Any, token: Any, end_time: int | None, what: str) -> None:
    """Detach ``token`` (if any), then end ``span`` even when detaching fails."""
    try:
        if token is not None:
            otel_context.detach(token)
    except Exception:
        logger.debug("gsar telemetry: detaching the context of %s failed", what, exc_info=True)
    finally:
        try:
            span.end(end_time=end_time)
        except Exception:
            logger.debug("gsar telemetry: ending %s failed", what, exc_info=True)


def _content_free_explanation(result: GSARResult) -> str:
    counts = result.final_partition.counts()
    buckets = ", ".join(f"{count} {name}" for name, count in counts.items() if count)
    text = (f"{sum(counts.values())} claim(s)" + (f": {buckets}" if buckets else "")
            + f"; S={result.final_score:.3f} -> {result.final_decision.value}")
    if result.final_judge_output.abstained:
        text += " (judge abstained)"
    if result.judge_errors:
        text += f"; judge error: {result.judge_errors[-1]}"
    return text


def _redact(text: str, kind: str) -> str | None:
    """``text`` as it may be exported (:func:`gsar_otel.plugins.mask`): a lone surrogate would
    lose the whole span, a secret must not reach it."""
    from gsar_otel.plugins import mask

    return mask(text, kind)


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
