"""The Prometheus series gsar-otel's instruments become, derived from the instruments themselves.

The metric names come from ``gsar_otel.semconv`` (``METRIC_*``), the kind and unit of each from
the real instruments ``gsar_otel.otel.instruments`` and ``gsar_otel.sidecar.output.stats``
create (read back through an in-memory reader), and the Prometheus names from the exporter's
rules (``queries.prometheus_series_names``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from opentelemetry.metrics import MeterProvider as MeterProviderAPI
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import Histogram, InMemoryMetricReader, Sum

from gsar_otel import semconv
from gsar_otel.otel.instruments import get_telemetry
from gsar_otel.sidecar.output.stats import sidecar_instruments
from tests.dashboards.queries import prometheus_series_names, semconv_metric_names


def every_instrument(provider: MeterProviderAPI) -> Iterator[Any]:
    """Every instrument gsar-otel creates, on ``provider``: the evaluation's and the sidecar's."""
    for group in (get_telemetry(meter_provider=provider).instruments,
                  sidecar_instruments(provider)):
        for name in group.__dataclass_fields__:
            yield getattr(group, name)


def exercise(instrument: Any, value: float, attributes: dict[str, str] | None = None) -> None:
    """Record one value on any kind of instrument."""
    if hasattr(instrument, "record"):
        instrument.record(value, attributes)
    else:
        instrument.add(1, attributes)


@functools.cache
def instrument_kinds() -> dict[str, tuple[str, str]]:
    """``{otel metric name: (kind, unit)}`` for every instrument gsar-otel creates.

    Each instrument records one value on a private provider, so the SDK reports its real name,
    unit and aggregation.
    """
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    try:
        for instrument in every_instrument(provider):
            exercise(instrument, 0.5)
        data = reader.get_metrics_data()
    finally:
        provider.shutdown()
    kinds: dict[str, tuple[str, str]] = {}
    assert data is not None
    for resource_metrics in data.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                if isinstance(metric.data, Histogram):
                    kind = "histogram"
                elif isinstance(metric.data, Sum) and metric.data.is_monotonic:
                    kind = "counter"
                elif isinstance(metric.data, Sum):
                    kind = "gauge"  # an up-down counter: Prometheus stores a gauge
                else:
                    raise AssertionError(f"{metric.name}: unexpected data {type(metric.data)}")
                kinds[metric.name] = (kind, metric.unit or "")
    return kinds


def emitted_series_names(*, only: str | None = None) -> frozenset[str]:
    """Every Prometheus series name of every ``METRIC_*`` (or only of the metric ``only``)."""
    kinds = instrument_kinds()
    names: set[str] = set()
    for metric in semconv_metric_names().values():
        if only is not None and metric != only:
            continue
        kind, unit = kinds[metric]
        names |= prometheus_series_names(metric, unit, kind)
    return frozenset(names)


def series_name_of(metric: str) -> str:
    """The series a dashboard charts for ``metric``: ``..._bucket`` of a histogram, ``..._total``
    of a counter, the family itself of a gauge."""
    kind, unit = instrument_kinds()[metric]
    names = prometheus_series_names(metric, unit, kind)
    if kind == "gauge":
        (name,) = names
        return name
    suffix = "_bucket" if kind == "histogram" else "_total"
    (name,) = (n for n in names if n.endswith(suffix))
    return name


__all__ = ["emitted_series_names", "every_instrument", "exercise", "instrument_kinds", "semconv",
           "series_name_of"]
