"""Grounding spans to the ``--forward`` endpoint, never lost uncounted: an export that fails puts
its spans in a bounded buffer, retried with exponential backoff from a thread of its own.

Counted on the sidecar's stats (``/healthz`` and ``/metrics``): ``verdicts_undelivered`` (spans
whose first export failed, by reason: ``redirect`` for a 3xx answer, which is not followed;
``deadline`` when no answer came within the export's deadline, however the endpoint trickled
it; ``shutdown`` when the stop deadline cut it off; ``export_failed`` for anything else),
``verdicts_retried`` (of those, delivered later), ``verdicts_dropped`` (lost for good:
``buffer_full`` when the buffer overflows, oldest first; ``shutdown`` for what is still held
when the sidecar stops and a last try fails or the stop deadline has passed).

:class:`ForwardSpanExporter` is the inner exporter ``gsar sidecar --forward`` uses: OTLP/HTTP
protobuf by one POST of :mod:`gsar_otel.sidecar.output.http_send` per export (no redirect
followed, an overall deadline, cut off at the sidecar's stop deadline by
:meth:`VerdictExporter.stop_by`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from gsar_otel import environment
from gsar_otel import semconv as sc
from gsar_otel.sidecar.output.http_send import (
    DEADLINE,
    FAILED,
    REDIRECT,
    SHUTDOWN,
    Cutoff,
    SendFailed,
    post,
)
from gsar_otel.sidecar.output.stats import SidecarStats

logger = logging.getLogger(__name__)

UNDELIVERED = "verdicts_undelivered"
RETRIED = "verdicts_retried"
DROPPED = "verdicts_dropped"
RETRY_BATCH = 512
"""Spans sent per retry."""
EXPORT_FAILED = "export_failed"
_UNDELIVERED_REASONS = {REDIRECT: REDIRECT, DEADLINE: DEADLINE, SHUTDOWN: SHUTDOWN,
                        FAILED: EXPORT_FAILED}
HEADERS_VARIABLES = (sc.ENV_OTLP_TRACES_HEADERS, sc.ENV_OTLP_HEADERS)


def env_headers(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """The OTLP trace export headers of the environment, as the SDK's exporter reads them."""
    from opentelemetry.util.re import parse_env_headers

    for variable in HEADERS_VARIABLES:
        headers = environment.read(variable, environ)
        if headers:
            return tuple(parse_env_headers(headers, liberal=True).items())
    return ()


class ForwardSpanExporter(SpanExporter):
    """OTLP/HTTP protobuf span export to ``url`` within ``timeout_s`` per export; a redirect is
    a failed export (its ``Location`` logged once). Headers: ``headers``, else
    ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` / ``OTEL_EXPORTER_OTLP_HEADERS``."""

    def __init__(self, url: str, *, timeout_s: float = 10.0,
                 headers: Sequence[tuple[str, str]] | None = None) -> None:
        self.url, self.timeout_s = url, timeout_s
        self.headers = tuple(headers) if headers is not None else env_headers()
        self.cutoff = Cutoff()
        self._redirect_logged = False

    def deliver(self, spans: Sequence[ReadableSpan]) -> str:
        """Export ``spans``; '' when delivered, else why not (a :mod:`http_send` reason)."""
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        body = encode_spans(spans).SerializeToString()
        try:
            post(self.url, body, "application/x-protobuf", timeout_s=self.timeout_s,
                 cutoff=self.cutoff, headers=self.headers)
        except SendFailed as failure:
            if failure.reason == REDIRECT:
                if not self._redirect_logged:
                    self._redirect_logged = True
                    logger.warning("gsar sidecar: exporting grounding spans to %s: answered %d "
                                   "with Location %r; redirects are not followed (counted "
                                   "verdicts_undelivered{redirect}; logged once)", self.url,
                                   failure.status, failure.location)
            elif failure.reason != SHUTDOWN:
                logger.warning("gsar sidecar: exporting grounding spans to %s failed: %s",
                               self.url, failure)
            return failure.reason
        return ""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.FAILURE if self.deliver(spans) else SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True

    def shutdown(self) -> None:
        self.cutoff.cut_at(time.monotonic())


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
        self._last_reason = EXPORT_FAILED
        """Why the last failed attempt failed (spans held behind it are counted under it)."""
        self._deadline: float | None = None
        """Past this (``time.monotonic()``) nothing is sent (:meth:`stop_by`)."""
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

    def stop_by(self, deadline: float) -> None:
        """Deliver nothing past ``deadline`` (``time.monotonic()``): an export in progress then
        is cut off (when the inner exporter has a :class:`Cutoff`), later ones fail at once and
        what is held is counted at shutdown."""
        self._deadline = deadline
        cutoff = getattr(self.inner, "cutoff", None)
        if isinstance(cutoff, Cutoff):
            cutoff.cut_at(deadline)

    def _past_deadline(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            behind = bool(self._held)
        # while earlier spans wait, new ones queue behind them (in order, no blocked attempt)
        # spans queued behind held ones are undelivered for the reason the last attempt failed
        reason = SHUTDOWN if behind and self._past_deadline() else self._last_reason
        if not behind:
            reason = self._send(list(spans))
            if not reason:
                return SpanExportResult.SUCCESS
        self._count(UNDELIVERED, _UNDELIVERED_REASONS.get(reason, EXPORT_FAILED), len(spans))
        self._hold(spans)
        return SpanExportResult.FAILURE

    def _send(self, spans: list[ReadableSpan]) -> str:
        """Export ``spans`` once; '' when delivered, else why not."""
        if self._past_deadline():
            reason = SHUTDOWN
        else:
            try:
                deliver = getattr(self.inner, "deliver", None)
                if callable(deliver):
                    reason = str(deliver(spans))
                else:
                    delivered = self.inner.export(spans) is SpanExportResult.SUCCESS
                    reason = "" if delivered else EXPORT_FAILED
            except Exception as error:  # an exporter that raises is a failed delivery
                logger.warning("gsar sidecar: exporting grounding spans failed: %s: %s",
                               type(error).__name__, error)
                reason = EXPORT_FAILED
        self._failing = bool(reason)
        if reason:
            self._last_reason = reason
        return reason

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
        if self._send(batch):
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
        """Stop retrying, try the held spans once more (unless the last attempt failed or the
        stop deadline has passed, so a down endpoint does not hold the exit), count what is
        still held."""
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=5)
        if not self._failing and not self._past_deadline():
            self.force_flush()
        with self._lock:
            left = len(self._held)
            self._held.clear()
        self._count(DROPPED, "shutdown", left)
        self.inner.shutdown()
