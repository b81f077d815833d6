"""In-line placement: pass every received export request on, unchanged, to an OTLP/HTTP endpoint.

Requests queue (bounded in number and in bytes) and are sent by one task over HTTP in a worker
thread, so a slow or down endpoint never blocks the receiver; a full queue or a failed send is
counted, not hidden: per span (``forward_queue_full``, ``forward_queue_bytes``,
``forward_failed``) and per request dropped (``forward_dropped`` by reason: ``queue_full``,
``queue_bytes``, ``send_failed``, ``redirect`` (a 3xx answer: not followed, its ``Location``
logged once), ``deadline`` (no answer within ``timeout_s``, however the endpoint trickles it),
``shutdown`` (queued or in flight when the grace ran out)). Each send is one POST of
:mod:`gsar_otel.sidecar.output.http_send`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from gsar_otel.sidecar.output.http_send import REDIRECT, SHUTDOWN, Cutoff, SendFailed, post
from gsar_otel.sidecar.output.stats import SidecarStats

logger = logging.getLogger(__name__)

TRACES_PATH = "/v1/traces"
LOGS_PATH = "/v1/logs"
FORWARD_SENT = "forward_sent"
FORWARD_FAILED = "forward_failed"
FORWARD_QUEUE_FULL = "forward_queue_full"
FORWARD_QUEUE_BYTES = "forward_queue_bytes"
FORWARD_DROPPED = "forward_dropped"
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def endpoints(url: str) -> tuple[str, str]:
    """The traces and logs URLs for ``--forward``: a ``.../v1/traces`` URL as given (logs beside
    it), or a base URL with the standard paths appended."""
    url = url.rstrip("/")
    if url.endswith(TRACES_PATH):
        return url, url[: -len(TRACES_PATH)] + LOGS_PATH
    return url + TRACES_PATH, url + LOGS_PATH


@dataclass(frozen=True, slots=True)
class _Item:
    url: str
    body: bytes
    content_type: str
    count: int


class Forwarder:
    """Sends received requests to ``url``; counts go to ``stats`` under ``forward_*``. At most
    ``queue_size`` requests and ``max_bytes`` of bodies wait at once."""

    def __init__(self, url: str, stats: SidecarStats, *, queue_size: int = 1000,
                 timeout_s: float = 10.0, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.traces_url, self.logs_url = endpoints(url)
        self.stats = stats
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.queued_bytes = 0
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue(maxsize=queue_size)
        self._task: asyncio.Task[None] | None = None
        self.cutoff = Cutoff()
        """Ends every send at the sidecar's stop deadline."""
        self._redirect_logged = False
        self._closing = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def _drop(self, item: _Item, span_reason: str, reason: str) -> None:
        self.stats.spans(span_reason, item.count)
        self.stats.note(FORWARD_DROPPED, reason)

    def submit(self, signal: str, body: bytes, content_type: str, count: int) -> None:
        """Queue one request body (``signal`` is ``traces`` or ``logs``)."""
        url = self.traces_url if signal == "traces" else self.logs_url
        item = _Item(url, body, content_type, count)
        if self.queued_bytes + len(body) > self.max_bytes:
            self._drop(item, FORWARD_QUEUE_BYTES, "queue_bytes")
            return
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            self._drop(item, FORWARD_QUEUE_FULL, "queue_full")
            return
        self.queued_bytes += len(body)

    async def _run(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            try:
                await asyncio.to_thread(self._send, item)
            except SendFailed as failure:
                self._failed(item, failure)
            except Exception as error:
                logger.warning("gsar sidecar: forwarding to %s failed: %s", item.url, error)
                self._drop(item, FORWARD_FAILED, "send_failed")
            except asyncio.CancelledError:  # cut off in flight: counted, never lost silently
                self._drop(item, FORWARD_FAILED, SHUTDOWN)
                raise
            else:
                self.stats.spans(FORWARD_SENT, item.count)
            finally:
                self.queued_bytes -= len(item.body)
            if self._closing and self._queue.empty():
                return

    def _failed(self, item: _Item, failure: SendFailed) -> None:
        self._drop(item, FORWARD_FAILED, failure.reason)
        if failure.reason == REDIRECT:
            if not self._redirect_logged:
                self._redirect_logged = True
                logger.warning("gsar sidecar: forwarding to %s: answered %d with Location %r; "
                               "redirects are not followed (counted forward_dropped{redirect}; "
                               "logged once): point --forward at the final URL", item.url,
                               failure.status, failure.location)
        elif failure.reason != SHUTDOWN:
            logger.warning("gsar sidecar: forwarding to %s failed: %s", item.url, failure)

    def _send(self, item: _Item) -> None:
        post(item.url, item.body, item.content_type, timeout_s=self.timeout_s,
             cutoff=self.cutoff)

    async def close(self, deadline: float | None = None) -> None:
        """Send what is queued until ``deadline`` (``time.monotonic()``; default 5 s from now),
        then stop: a send in flight then is cut off, and it and the rest are counted dropped
        (``shutdown``)."""
        if self._task is None:
            return
        deadline = time.monotonic() + 5.0 if deadline is None else deadline
        self.cutoff.cut_at(deadline)
        self._closing = True
        with contextlib.suppress(asyncio.QueueFull):  # a full queue ends on `_closing`
            self._queue.put_nowait(None)
        # Past the cut-off every send fails at once; the margin is for the thread to notice.
        margin = max(0.0, deadline - time.monotonic()) + 2.0
        try:
            await asyncio.wait_for(asyncio.shield(self._task), margin)
        except TimeoutError:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None:
                self.queued_bytes -= len(item.body)
                self._drop(item, FORWARD_FAILED, SHUTDOWN)
