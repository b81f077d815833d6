"""The sidecar's own counts: every span, log record and run lands in a bucket with a reason.

Kept in process (served on ``/metrics`` under the very series names the OpenTelemetry
Prometheus exporter gives the ``gsar.sidecar.*`` instruments, so one dashboard reads either, and
as JSON on ``/healthz``) and mirrored to those instruments on the configured meter provider.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field

from opentelemetry import metrics

from gsar_otel import semconv as sc
from gsar_otel._version import __version__

OUTCOME_JUDGED = "judged"
OUTCOME_SKIPPED = "skipped"
OUTCOME_DROPPED = "dropped"
OUTCOME_FAILED = "failed"

LAG_BUCKETS = sc.JUDGE_DURATION_BUCKETS
"""Histogram bounds of ``gsar.sidecar.lag`` (seconds)."""

_RUNS_PREFIX = "runs_"
_SPANS_SERIES = "gsar_sidecar_spans_total"
_RUNS_SERIES = "gsar_sidecar_runs_total"
_QUEUE_SERIES = "gsar_sidecar_queue_depth"
_HELD_SERIES = "gsar_sidecar_held_bytes"
_LAG_FAMILY = "gsar_sidecar_lag_seconds"
_REASON = sc.GSAR_SIDECAR_REASON.replace(".", "_")
_OUTCOME = sc.GSAR_SIDECAR_OUTCOME.replace(".", "_")


@dataclass(frozen=True, slots=True)
class SidecarInstruments:
    """The ``gsar.sidecar.*`` instruments on one meter provider."""

    spans: metrics.Counter
    runs: metrics.Counter
    lag: metrics.Histogram
    queue_depth: metrics.UpDownCounter
    held: metrics.UpDownCounter


def sidecar_instruments(meter_provider: metrics.MeterProvider | None = None,
                        ) -> SidecarInstruments:
    """Create the sidecar's instruments (the global provider when none is given)."""
    provider = meter_provider or metrics.get_meter_provider()
    meter = provider.get_meter(sc.INSTRUMENTATION_SCOPE, __version__)
    return SidecarInstruments(
        spans=meter.create_counter(sc.METRIC_SIDECAR_SPANS, unit=sc.UNIT_SPANS,
                                   description="Spans and log records received, by reason."),
        runs=meter.create_counter(sc.METRIC_SIDECAR_RUNS, unit=sc.UNIT_RUNS,
                                  description="Runs by outcome (judged, skipped, dropped, "
                                              "failed) and reason."),
        lag=meter.create_histogram(sc.METRIC_SIDECAR_LAG, unit=sc.UNIT_SECONDS,
                                   description="From a run span's end to its grounding.",
                                   explicit_bucket_boundaries_advisory=LAG_BUCKETS),
        queue_depth=meter.create_up_down_counter(sc.METRIC_SIDECAR_QUEUE_DEPTH,
                                                 unit=sc.UNIT_RUNS,
                                                 description="Runs waiting to be judged."),
        held=meter.create_up_down_counter(sc.METRIC_SIDECAR_HELD, unit=sc.UNIT_BYTES,
                                          description="Bytes held: buffered spans and runs "
                                                      "queued for judging."),
    )


@dataclass(slots=True)
class SidecarStats:
    """Counters by (name, reason); thread-safe (the judge thread and the loop both count)."""

    meter_provider: metrics.MeterProvider | None = None
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _lags: list[float] = field(default_factory=list)
    _lag_buckets: list[int] = field(default_factory=lambda: [0] * (len(LAG_BUCKETS) + 1))
    _lag_sum: float = 0.0
    queue_depth: int = 0
    held_bytes: int = 0
    _instruments: SidecarInstruments | None = None

    def __post_init__(self) -> None:
        self._instruments = sidecar_instruments(self.meter_provider)
        # The page always serves the held-bytes gauge, so the exporter gets its point at once.
        self._instruments.held.add(0)

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
                self._instruments.spans.add(n, {sc.GSAR_SIDECAR_REASON: reason})

    def run(self, outcome: str, reason: str) -> None:
        """Count one run by outcome and reason."""
        self._add(f"{_RUNS_PREFIX}{outcome}", reason, 1)
        if self._instruments:
            self._instruments.runs.add(1, {sc.GSAR_SIDECAR_OUTCOME: outcome,
                                           sc.GSAR_SIDECAR_REASON: reason})

    def note(self, name: str, reason: str, n: int = 1) -> None:
        """Count something that is neither a received item nor a run (``late_flags``: flagged
        or failed; ``values``: truncated at intake; ``traces_evicted``: run or fragment;
        ``extraction``: capped; ``tool_results``: echo, control, retry, unverified), kept for
        ``/healthz`` and served on ``/metrics`` as
        ``gsar_sidecar_{name}_total{gsar_sidecar_reason=...}``."""
        if n:
            self._add(name, reason, n)

    def held(self, held_bytes: int) -> None:
        """The bytes the assembler holds now (``gsar_sidecar_held_bytes``)."""
        with self._lock:
            delta, self.held_bytes = held_bytes - self.held_bytes, held_bytes
        if delta and self._instruments:
            self._instruments.held.add(delta)

    def lag(self, seconds: float) -> None:
        """Record one run's lag (the last 10,000 kept for /healthz quantiles; every one in the
        cumulative histogram of /metrics)."""
        seconds = max(0.0, seconds)
        with self._lock:
            self._lags.append(seconds)
            del self._lags[:-10_000]
            self._lag_buckets[bisect.bisect_left(LAG_BUCKETS, seconds)] += 1
            self._lag_sum += seconds
        if self._instruments:
            self._instruments.lag.record(seconds)

    def queue(self, delta: int) -> None:
        """Move the queue depth by ``delta``."""
        with self._lock:
            self.queue_depth += delta
        if self._instruments:
            self._instruments.queue_depth.add(delta)

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
        """The counts in the Prometheus text exposition format, under the series names and
        labels the OpenTelemetry Prometheus exporter gives the ``gsar.sidecar.*`` instruments
        (``gsar_sidecar_spans_total{gsar_sidecar_reason=...}``, ``gsar_sidecar_runs_total``
        by outcome and reason, ``gsar_sidecar_queue_depth``, ``gsar_sidecar_lag_seconds``),
        and each :meth:`note` count as ``gsar_sidecar_<name>_total`` by reason
        (``forward_dropped``, ``verdicts_undelivered``, ``late_flags``, ...)."""
        snapshot = self.snapshot()
        with self._lock:
            buckets, lag_sum, depth = list(self._lag_buckets), self._lag_sum, self.queue_depth
        lines = [f"# TYPE {_SPANS_SERIES.removesuffix('_total')} counter"]
        for reason, value in snapshot.get("spans", {}).items():
            lines.append(f'{_SPANS_SERIES}{{{_REASON}="{_escape(reason)}"}} {value}')
        lines.append(f"# TYPE {_RUNS_SERIES.removesuffix('_total')} counter")
        for name, reasons in snapshot.items():
            if name.startswith(_RUNS_PREFIX):
                outcome = _escape(name.removeprefix(_RUNS_PREFIX))
                for reason, value in reasons.items():
                    lines.append(f'{_RUNS_SERIES}{{{_OUTCOME}="{outcome}",'
                                 f'{_REASON}="{_escape(reason)}"}} {value}')
        for name, reasons in snapshot.items():
            if name in ("spans",) or name.startswith(_RUNS_PREFIX):
                continue
            series = f"gsar_sidecar_{_metric_name(name)}_total"
            lines.append(f"# TYPE {series.removesuffix('_total')} counter")
            for reason, value in reasons.items():
                lines.append(f'{series}{{{_REASON}="{_escape(reason)}"}} {value}')
        lines.append(f"# TYPE {_QUEUE_SERIES} gauge")
        lines.append(f"{_QUEUE_SERIES} {depth}")
        lines.append(f"# TYPE {_HELD_SERIES} gauge")
        lines.append(f"{_HELD_SERIES} {self.held_bytes}")
        lines.append(f"# TYPE {_LAG_FAMILY} histogram")
        running = 0
        for bound, count in zip((*map(str, LAG_BUCKETS), "+Inf"), buckets, strict=True):
            running += count
            lines.append(f'{_LAG_FAMILY}_bucket{{le="{bound}"}} {running}')
        lines.append(f"{_LAG_FAMILY}_sum {lag_sum}")
        lines.append(f"{_LAG_FAMILY}_count {running}")
        return "\n".join(lines) + "\n"


def _metric_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).lower()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
