"""The naming rules mirrored in ``queries.py`` agree with the real Prometheus exporter, and the
``configure_telemetry(prometheus_port=...)`` endpoint serves what the dashboards query."""

from __future__ import annotations

import urllib.request
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from gsar_otel import semconv
from gsar_otel.otel.instruments import get_telemetry
from gsar_otel.otel.setup import configure_telemetry
from gsar_otel.sidecar.output.stats import SidecarStats
from tests.dashboards.queries import (
    allowed_prometheus_labels,
    prometheus_label,
    prometheus_series_names,
    semconv_attribute_names,
)
from tests.dashboards.telemetry_names import (
    emitted_series_names,
    every_instrument,
    exercise,
    instrument_kinds,
)

EVERY_LABEL = {attribute: "x" for attribute in semconv_attribute_names()}


def _samples(exposition: str) -> list[tuple[str, dict[str, str], float]]:
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
    ]


@pytest.fixture
def exporter() -> Iterator[tuple[MeterProvider, CollectorRegistry]]:
    registry = CollectorRegistry()
    provider = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    try:
        yield provider, registry
    finally:
        provider.shutdown()


def test_every_instrument_becomes_the_series_the_dashboards_query(
    exporter: tuple[MeterProvider, CollectorRegistry],
) -> None:
    provider, registry = exporter
    for instrument in every_instrument(provider):
        exercise(instrument, 0.7, EVERY_LABEL)

    samples = _samples(generate_latest(registry).decode())
    names = {name for name, _, _ in samples} - {"target_info"}
    assert names == emitted_series_names()
    labels = set().union(*(set(labels) for name, labels, _ in samples if name != "target_info"))
    assert labels <= allowed_prometheus_labels()
    assert {prometheus_label(a) for a in semconv_attribute_names()} <= labels


@pytest.mark.parametrize(
    ("unit", "kind"),
    [("1", "histogram"), ("s", "histogram"), ("ms", "histogram"), ("By", "counter"),
     ("{token}", "counter"), ("%", "counter"), ("", "counter"), ("{evaluation}", "counter"),
     ("{run}", "gauge"), ("s", "gauge")],
)
def test_mirrored_unit_rules_match_the_exporter(
    exporter: tuple[MeterProvider, CollectorRegistry], unit: str, kind: str
) -> None:
    provider, registry = exporter
    meter = provider.get_meter("unit-check")
    name = "gsar.unit.check"
    if kind == "histogram":
        meter.create_histogram(name, unit=unit).record(1.0)
    elif kind == "gauge":
        meter.create_up_down_counter(name, unit=unit).add(1)
    else:
        meter.create_counter(name, unit=unit).add(1)
    real = {n for n, _, _ in _samples(generate_latest(registry).decode())} - {"target_info"}
    assert real == prometheus_series_names(name, unit, kind)


def test_the_score_histogram_keeps_its_name_without_a_unit_suffix() -> None:
    kind, unit = instrument_kinds()[semconv.METRIC_SCORE]
    assert (kind, unit) == ("histogram", "1")
    assert prometheus_series_names(semconv.METRIC_SCORE, unit, kind) == {
        "gsar_score_bucket", "gsar_score_sum", "gsar_score_count"}


def test_configured_endpoint_serves_each_series_once_even_after_a_flush() -> None:
    handle = configure_telemetry(set_global=False, console=False, otlp=False, prometheus_port=0)
    try:
        assert handle.prometheus_port
        decisions = get_telemetry(meter_provider=handle.meter_provider).instruments.decisions
        attributes = {semconv.GSAR_FUNCTION: "answer", semconv.GSAR_DECISION: "proceed"}
        decisions.add(1, attributes)
        assert handle.force_flush()
        decisions.add(1, attributes)
        url = f"http://127.0.0.1:{handle.prometheus_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            exposition = response.read().decode()
    finally:
        handle.shutdown()
    samples = [(n, tuple(sorted(labels.items()))) for n, labels, _ in _samples(exposition)]
    repeated = [s for s, count in Counter(samples).items() if count > 1]
    assert repeated == [], "a flush made the scrape repeat series"
    values = [v for n, labels, v in _samples(exposition) if n == "gsar_decisions_total"]
    assert values == [2.0]


def test_the_sidecar_metrics_page_serves_what_the_exporter_serves_for_the_same_counts(
    exporter: tuple[MeterProvider, CollectorRegistry],
) -> None:
    provider, registry = exporter
    stats = SidecarStats(provider)
    stats.spans("accepted", 5)
    stats.spans("late", 2)
    stats.run("judged", "complete")
    stats.run("judged", 'odd "reason"\n')
    stats.run("dropped", "evicted")
    stats.queue(3)
    stats.queue(-1)
    for lag in (0.0, 0.004, 0.05, 0.7, 12.0, 400.0):
        stats.lag(lag)
    scope_labels = {"otel_scope_name", "otel_scope_version", "otel_scope_schema_url"}

    def comparable(text: str) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
        return {(name, tuple(sorted((k, v) for k, v in labels.items() if k not in scope_labels)),
                 value) for name, labels, value in _samples(text) if name != "target_info"}

    ours = comparable(stats.prometheus_text())
    assert ours == comparable(generate_latest(registry).decode())
    assert {name for name, _, _ in ours} == emitted_series_names() & {n for n, _, _ in ours}
    assert {name for name, _, _ in ours} >= {"gsar_sidecar_spans_total",
                                            "gsar_sidecar_runs_total", "gsar_sidecar_queue_depth",
                                            "gsar_sidecar_lag_seconds_bucket"}


@settings(max_examples=40, deadline=None)
@given(reasons=st.lists(st.text(min_size=1, max_size=12), max_size=6),
       lags=st.lists(st.floats(0, 1e4, allow_nan=False), max_size=12),
       depth=st.integers(0, 50))
def test_any_sidecar_counts_read_the_same_from_its_page_and_from_the_exporter(
    reasons: list[str], lags: list[float], depth: int,
) -> None:
    registry = CollectorRegistry()
    provider = MeterProvider(metric_readers=[PrometheusMetricReader(registry=registry)])
    try:
        stats = SidecarStats(provider)
        for n, reason in enumerate(reasons):
            stats.spans(reason, n + 1)
            stats.run(("judged", "skipped", "dropped", "failed")[n % 4], reason)
        for lag in lags:
            stats.lag(lag)
        stats.queue(depth)
        scope = {"otel_scope_name", "otel_scope_version", "otel_scope_schema_url"}

        def comparable(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
            return {(name, tuple(sorted((k, v) for k, v in labels.items() if k not in scope))):
                    value for name, labels, value in _samples(text) if name != "target_info"}

        ours, theirs = comparable(stats.prometheus_text()), comparable(
            generate_latest(registry).decode())
    finally:
        provider.shutdown()
    # The page always has the lag histogram; the exporter only once a lag was recorded.
    extra = {key: value for key, value in ours.items() if key not in theirs}
    assert all(name.startswith("gsar_sidecar_lag_seconds") and value == 0
               for (name, _), value in extra.items()), extra
    assert bool(extra) == (not lags)
    assert theirs.keys() <= ours.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, rel=1e-9, abs=1e-9), key
