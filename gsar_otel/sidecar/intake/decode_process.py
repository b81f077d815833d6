"""Large OTLP/JSON bodies are read in a process of their own, so the receiving process's
interpreter lock is never held by one long parse.

``json.loads`` of a 19 MB OTLP/JSON body is one C call that holds the interpreter lock for 50 to
150 ms: no thread switch interrupts it, and the event loop (``/healthz``, ``/metrics``, every
other request) waits behind it. A body of at least :data:`PROCESS_MIN_BYTES` is therefore parsed
(JSON, the value cuts, the ids, the OTLP schema) by one decoding process, which sends back the
request as protobuf; the receiving process only reads that protobuf, whose values are already
cut to ``max_value_bytes`` (a few milliseconds for 19 MB). Smaller bodies are read in a thread as
before: their parse is shorter than a thread switch interval or two.

One process decodes one body at a time (bodies queue for it). Each body sent to it is charged
to ``--max-inflight-bytes`` for the copies the process makes (:data:`CHILD_COPIES` times its
size: the body it receives and the parsed document) on top of what the receiver charged already,
so the byte budget bounds it; a body for which the budget has no room for that is decoded in a
thread as before. Its interpreter (about 40 MB) is the one constant. It is started at the first
large body. A body the process cannot decode (it died, or could not be started) is decoded in a
thread as before and counted
(``gsar_sidecar_json_decode_total{gsar_sidecar_reason="process_failed"}``); each body it decodes
is counted ``process``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from gsar_otel.sidecar.intake.spans import Decoded, decode_read, read_serialized
from gsar_otel.sidecar.intake.values import MAX_ITEM_BYTES, MAX_VALUE_BYTES

logger = logging.getLogger(__name__)

PROCESS_MIN_BYTES: Final = 1024 * 1024
"""OTLP/JSON bodies at least this long are parsed in the decoding process (a smaller body's
``json.loads`` takes a few milliseconds)."""
CHILD_COPIES: Final = 2
"""Copies of a body the decoding process holds while it reads it (the body it received and
the parsed document; the protobuf it sends back holds values cut to 1 MiB)."""
DECODE_COUNT: Final = "json_decode"
"""The :meth:`note` name of large OTLP/JSON bodies (reasons ``process``, ``process_failed``)."""


class JsonDecodeProcess:
    """One process that reads large OTLP/JSON bodies (started at the first one)."""

    def __init__(self, note: Callable[[str, str], None] | None = None,
                 min_bytes: int = PROCESS_MIN_BYTES) -> None:
        self.min_bytes = min_bytes
        self._note = note or (lambda name, reason: None)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False

    def wanted(self, body: bytes, json_encoded: bool) -> bool:
        """True for a body this process should read."""
        return json_encoded and len(body) >= self.min_bytes and not self._closed

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def decode(self, body: bytes, signal: str,
                     fallback: Callable[[], Decoded]) -> Decoded:
        """The decoded spans or log records of ``body``; ``fallback`` (in a thread) when the
        process fails. Raises :class:`~gsar_otel.sidecar.intake.spans.MalformedRequest` as the
        thread's decoding would."""
        loop = asyncio.get_running_loop()
        try:
            data, rejected = await loop.run_in_executor(
                self._executor(), read_serialized, body, signal, MAX_VALUE_BYTES)
        except (BrokenProcessPool, OSError, RuntimeError) as error:
            logger.warning("gsar sidecar: the JSON decoding process failed (%s: %s); decoding "
                           "in a thread", type(error).__name__, error)
            self._note(DECODE_COUNT, "process_failed")
            self._restart()
            return await asyncio.to_thread(fallback)
        self._note(DECODE_COUNT, "process")
        return await asyncio.to_thread(_read_back, data, rejected, signal)

    def _restart(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the process (a body it is reading is given up)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:  # do not wait for a parse at shutdown
            if process.is_alive():
                process.terminate()


def _read_back(data: bytes, rejected: Mapping[str, int], signal: str) -> Decoded:
    return decode_read(data, Counter(rejected), signal, max_value_bytes=MAX_VALUE_BYTES,
                       max_item_bytes=MAX_ITEM_BYTES)
