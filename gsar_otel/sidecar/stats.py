"""The sidecar's own counts: every span, log record and run lands in a bucket with a reason.

Kept in process (served as Prometheus text on ``/metrics`` and as JSON on ``/healthz``) and
mirrored to OpenTelemetry instruments (``gsar.sidecar.*``) on the configured meter provider.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from opentelemetry import metrics

from gsar_otel import semconv as sc
from gsar_otel._version import __version__

OUTCOME_JUDGED = "judged"
OUTCOME_SKIPPED = "skipped"
OUTCOME_DROPPED = "dropped"
OUTCOME_FAILED = "failed"


@dataclass(slots=True)
class SidecarStats:
    """Counters by (name, reason); thread-safe (the judge thread and the loop both count)."""

    meter_provider: metrics.MeterProvider | None = None
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _lags: list[float] = field(default_factory=list)
    queue_depth: int = 0
    _instruments: tuple[metrics.Counter, metrics.Counter, metrics.Histogram,
                        metrics.UpDownCounter] | None = None

    def __post_init__(self) -> None:
        provider = self.meter_provider or metrics.get_meter_provider()
        meter = provider.get_meter(sc.INSTRUMENTATION_SCOPE, __version__)
        self._instruments = (
            meter.create_counter(sc.METRIC_SIDECAR_SPANS, unit=sc.UNIT_SPANS,
                                 description="Spans and log records received, by reason."),
            meter.create_counter(sc.METRIC_SIDECAR_RUNS, unit=sc.UNIT_RUNS,
                                 description="Runs by outcome (judged, skipped, dropped, "
                                             "failed) and reason."),
            meter.create_histogram(sc.METRIC_SIDECAR_LAG, unit=sc.UNIT_SECONDS,
                                   description="From a run span's end to its grounding.",
                                   explicit_bucket_boundaries_advisory=sc.JUDGE_DURATION_BUCKETS),
            meter.create_up_down_counter(sc.METRIC_SIDECAR_QUEUE_DEPTH, unit=sc.UNIT_RUNS,
                                         description="Runs waiting to be judged."),
        )

    def _add(self, name: str, reason: str, n: int) -> None:
        with self._lock:
            self._counts[name, reason] = self._counts.get((name, reason), 0) + n

    def spans(self, reason: str, n: int = 1) -> None:
        """Count ``n`` spans or log records under ``reason``. A request refused whole
        (``rejected_*``: bad body, content type, size, busy, connections) counts once, since
        its spans were never read."""
        if n:
            self._add("spans", reason, n)
            if self._instruments:
                self._instruments[0].add(n, {sc.GSAR_SIDECAR_REASON: reason})

    def run(self, outcome: str, reason: str) -> None:
        """Count one run by outcome and reason."""
        self._add(f"runs_{outcome}", reason, 1)
        if self._instruments:
            self._instruments[1].add(1, {sc.GSAR_SIDECAR_OUTCOME: outcome,
                                         sc.GSAR_SIDECAR_REASON: reason})

    def lag(self, seconds: float) -> None:
        """Record one run's lag (kept: the last 10,000, for /healthz quantiles)."""
        with self._lock:
            self._lags.append(seconds)
            del self._lags[:-10_000]
        if self._instruments:
            self._instruments[2].record(max(0.0, seconds))

    def queue(self, delta: int) -> None:
        """Move the queue depth by ``delta``."""
        with self._lock:
            self.queue_depth += delta
        if self._instruments:
            self._instruments[3].add(delta)

    def get(self, name: str, reason: str | None = None) -> int:
        """A count, or the sum over reasons when ``reason`` is None."""
        with self._lock:
            if reason is not None:
                return self._counts.get((name, reason), 0)
            return sum(v for (n, _), v in self._counts.items() if n == name)

    def snapshot(self) -> dict[str, dict[str, int]]:
        """Every count as ``{name: {reason: n}}``."""
        with self._lock:
            out: dict[str, dict[str, int]] = {}
            for (name, reason), value in sorted(self._counts.items()):
                out.setdefault(name, {})[reason] = value
            return out

    def lag_quantiles(self) -> dict[str, float]:
        with self._lock:
            lags = sorted(self._lags)
        if not lags:
            return {}
        return {q: lags[min(len(lags) - 1, int(p * len(lags)))]
                for q, p in (("p50", 0.5), ("p99", 0.99))}

    def prometheus_text(self) -> str:
        """The counts in the Prometheus text exposition format."""
        lines: list[str] = []
        snapshot = self.snapshot()
        for name, reasons in snapshot.items():
            metric = f"gsar_sidecar_{name}_total"
            lines.append(f"# TYPE {metric} counter")
            for reason, value in reasons.items():
                lines.append(f'{metric}{{reason="{_escape(reason)}"}} {value}')
        lines.append("# TYPE gsar_sidecar_queue_depth gauge")
        lines.append(f"gsar_sidecar_queue_depth {self.queue_depth}")
        return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
