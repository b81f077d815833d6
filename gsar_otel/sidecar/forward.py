"""In-line placement: pass every received export request on, unchanged, to an OTLP/HTTP endpoint.

Requests queue (bounded in number and in bytes) and are sent by one task over HTTP in a worker
thread, so a slow or down endpoint never blocks the receiver; a full queue or a failed send is
counted, not hidden: per span (``forward_queue_full``, ``forward_queue_bytes``,
``forward_failed``) and per request dropped (``forward_dropped`` by reason: ``queue_full``,
``queue_bytes``, ``send_failed``, ``shutdown``).
"""

from __future__ import annotations

import asyncio
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass

from gsar_otel.sidecar.stats import SidecarStats

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
            except Exception as error:
                logger.warning("gsar sidecar: forwarding to %s failed: %s", item.url, error)
                self._drop(item, FORWARD_FAILED, "send_failed")
            else:
                self.stats.spans(FORWARD_SENT, item.count)
            finally:
                self.queued_bytes -= len(item.body)

    def _send(self, item: _Item) -> None:
        request = urllib.request.Request(item.url, data=item.body, method="POST",
                                         headers={"Content-Type": item.content_type})
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            response.read()

    async def close(self, timeout_s: float = 5.0) -> None:
        """Send what is queued (within ``timeout_s``), then stop; the rest is counted failed."""
        if self._task is None:
            return
        try:
            self._queue.put_nowait(None)
            await asyncio.wait_for(asyncio.shield(self._task), timeout_s)
        except (asyncio.QueueFull, TimeoutError):
            self._task.cancel()
            while not self._queue.empty():
                item = self._queue.get_nowait()
                if item is not None:
                    self.queued_bytes -= len(item.body)
                    self._drop(item, FORWARD_FAILED, "shutdown")
