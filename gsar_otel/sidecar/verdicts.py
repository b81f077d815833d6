"""Grounding spans to the ``--forward`` endpoint, never lost uncounted: an export that fails puts
its spans in a bounded buffer, retried with exponential backoff from a thread of its own.

Counted on the sidecar's stats (``/healthz`` and ``/metrics``): ``verdicts_undelivered`` (spans
whose first export failed, reason ``export_failed``), ``verdicts_retried`` (of those, delivered
later), ``verdicts_dropped`` (lost for good: ``buffer_full`` when the buffer overflows, oldest
first; ``shutdown`` for what is still held when the sidecar stops and a last try fails).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from gsar_otel.sidecar.stats import SidecarStats

logger = logging.getLogger(__name__)

UNDELIVERED = "verdicts_undelivered"
RETRIED = "verdicts_retried"
DROPPED = "verdicts_dropped"
RETRY_BATCH = 512
"""Spans sent per retry."""


class VerdictExporter(SpanExporter):
    """Wraps ``inner`` (an OTLP span exporter); holds up to ``buffer`` spans for a retry.

    Args:
        inner: the exporter that delivers.
        buffer: spans held at most while ``inner`` fails.
        first_delay_s / max_delay_s: the backoff between retries (doubling).
    """

    def __init__(self, inner: SpanExporter, *, buffer: int = 2_048, first_delay_s: float = 1.0,
                 max_delay_s: float = 30.0) -> None:
        self.inner, self.capacity = inner, buffer
        self.first_delay_s, self.max_delay_s = first_delay_s, max_delay_s
        self.stats: SidecarStats | None = None
        self._pending_counts: list[tuple[str, str, int]] = []
        self._held: deque[ReadableSpan] = deque()
        self._failing = False
        """The last attempt failed (shutdown then does not wait for one more)."""
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._retry, name="gsar-sidecar-verdict-retry",
                                        daemon=True)
        self._thread.start()

    def attach(self, stats: SidecarStats) -> None:
        """Count on ``stats`` from now on (and what was counted before)."""
        with self._lock:
            self.stats, pending = stats, self._pending_counts
            self._pending_counts = []
        for name, reason, n in pending:
            stats.note(name, reason, n)

    def _count(self, name: str, reason: str, n: int) -> None:
        if not n:
            return
        with self._lock:
            stats = self.stats
            if stats is None:
                self._pending_counts.append((name, reason, n))
                return
        stats.note(name, reason, n)

    @property
    def held(self) -> int:
        """Spans waiting for a retry."""
        with self._lock:
            return len(self._held)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            behind = bool(self._held)
        # while earlier spans wait, new ones queue behind them (in order, no blocked attempt)
        if not behind and self._send(list(spans)):
            return SpanExportResult.SUCCESS
        self._count(UNDELIVERED, "export_failed", len(spans))
        self._hold(spans)
        return SpanExportResult.FAILURE

    def _send(self, spans: list[ReadableSpan]) -> bool:
        try:
            delivered = self.inner.export(spans) is SpanExportResult.SUCCESS
        except Exception as error:  # an exporter that raises is a failed delivery
            logger.warning("gsar sidecar: exporting grounding spans failed: %s: %s",
                           type(error).__name__, error)
            delivered = False
        self._failing = not delivered
        return delivered

    def _hold(self, spans: Sequence[ReadableSpan]) -> None:
        with self._lock:
            self._held.extend(spans)
            over = max(0, len(self._held) - self.capacity)
            for _ in range(over):
                self._held.popleft()
        self._count(DROPPED, "buffer_full", over)
        self._wake.set()

    def _retry(self) -> None:
        delay = self.first_delay_s
        while not self._stopping.is_set():
            if not self.held:
                self._wake.wait()
                self._wake.clear()
                delay = self.first_delay_s
                continue
            if self._stopping.wait(delay):
                return
            delivered = self._flush_once()
            delay = self.first_delay_s if delivered else min(delay * 2, self.max_delay_s)

    def _flush_once(self) -> bool:
        """Send the oldest held spans once; True when delivered (or nothing was held)."""
        with self._lock:
            batch = [self._held[i] for i in range(min(RETRY_BATCH, len(self._held)))]
        if not batch:
            return True
        if not self._send(batch):
            return False
        with self._lock:
            sent = 0
            while sent < len(batch) and self._held and self._held[0] is batch[sent]:
                self._held.popleft()
                sent += 1
        self._count(RETRIED, "delivered", sent)
        return True

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Try the held spans once more; True when none is left."""
        while self.held and self._flush_once():
            pass
        return not self.held and self.inner.force_flush(timeout_millis)

    def shutdown(self) -> None:
        """Stop retrying, try the held spans once more (unless the last attempt failed, so a
        down endpoint does not hold the exit), count what is still held."""
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=5)
        if not self._failing:
            self.force_flush()
        with self._lock:
            left = len(self._held)
            self._held.clear()
        self._count(DROPPED, "shutdown", left)
        self.inner.shutdown()
