"""Tracers and metric instruments: from the global providers, or from providers given to
:func:`set_providers`. Instruments are created once per meter provider, with units and explicit
bucket boundaries (``semconv.SCORE_BUCKETS``, ``semconv.JUDGE_DURATION_BUCKETS``)."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from opentelemetry import metrics, trace

from gsar_otel import semconv as sc
from gsar_otel._version import __version__

logger = logging.getLogger(__name__)

_VERSION = __version__


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
    judge_claims: metrics.Counter
    disputed: metrics.Counter


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
            description="Background evaluations not judged, by gsar.drop.reason (queue_full, "
                        "exit_timeout, stopped, error)."),
        judge_tokens=meter.create_counter(
            sc.METRIC_JUDGE_TOKENS, unit=sc.UNIT_TOKENS, description="Tokens judges used."),
        judge_claims=meter.create_counter(
            sc.METRIC_JUDGE_CLAIMS, unit=sc.UNIT_CLAIMS,
            description="A tiered judge's claims by gsar.claim.judged_by (offline, model) and "
                        "gsar.claim.escalation (settled, escalated, over_cap, no_model)."),
        disputed=meter.create_counter(
            sc.METRIC_CLAIMS_DISPUTED, unit=sc.UNIT_CLAIMS,
            description="Model-grounded claims the offline engine contradicts, by judge and "
                        "gsar.dispute.policy."),
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


def current_providers() -> tuple[trace.TracerProvider, metrics.MeterProvider]:
    """The tracer and meter providers gsar-otel's own telemetry goes to right now."""
    return (_override_tracer_provider or trace.get_tracer_provider(),
            _override_meter_provider or metrics.get_meter_provider())
