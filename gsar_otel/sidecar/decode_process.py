"""Large OTLP/JSON bodies parsed in a child process, so the receivers' event loop never waits for
the interpreter lock behind one long ``json.loads``.

Parsing a 19 MB OTLP/JSON body holds the lock in one C call for about 50 ms (and 130 ms with the
cutting and the protobuf build around it); ``/healthz`` answers wait for that. Past
:data:`PROCESS_JSON_BYTES` the body goes to one spawned child, which parses it, cuts long values
(:func:`~gsar_otel.sidecar.otlp_wire.read_json`) and sends back the cut request as protobuf (at
most a few MB); the parent reads that with the protobuf parser and turns it into records in a
worker thread, as for any protobuf body. Smaller bodies, and every protobuf body, are decoded in a
worker thread as before. When the child dies (or cannot start) the body is decoded in a worker
thread instead, counted by the caller (``decode_process{reason="failed"}``), and the next large
body starts a new child. The child holds one body and its parse at a time (peak 81 MB for a
19 MB body, 27 MB idle).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import multiprocessing
import threading
from collections import Counter
from collections.abc import Callable

from gsar_otel.sidecar.otlp_wire import MalformedBody, read_json
from gsar_otel.sidecar.spans import (
    MAX_VALUE_BYTES,
    Decoded,
    MalformedRequest,
    decode_logs,
    decode_traces,
    records_from_request,
    request_shape,
)

PROCESS_JSON_BYTES = 4 * 1024 * 1024
"""OTLP/JSON bodies at least this large are parsed in the child process."""

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None


class DecodeProcessFailed(RuntimeError):
    """The child process parsing a body ended before answering."""


def _parse(body: bytes, signal: str, max_value_bytes: int) -> tuple[bytes, dict[str, int]]:
    """In the child: the body's request, cut, as protobuf bytes, and its rejects by reason."""
    try:
        request, rejected = read_json(body, request_shape(signal), max_value_bytes)
    except MalformedBody as error:
        raise MalformedRequest(str(error)) from None
    return request.SerializeToString(), dict(rejected)


def _executor() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return _pool


def _restart(broken: concurrent.futures.ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


@atexit.register
def shutdown() -> None:
    """Stop the child process (at exit)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


async def decode_body(body: bytes, signal: str, *, json_encoded: bool,
                      on_fallback: Callable[[], None] = lambda: None) -> Decoded:
    """Decode an export body (``signal``: ``traces`` or ``logs``) off the event loop;
    ``on_fallback`` is called when the child failed and a worker thread decoded it instead.

    Raises:
        MalformedRequest: no part of the body is a request.
    """
    if json_encoded and len(body) >= PROCESS_JSON_BYTES:
        try:
            return await _in_child(body, signal)
        except DecodeProcessFailed as failed:
            logger.warning("gsar sidecar: %s; decoding in process", failed)
            on_fallback()
    decode = decode_traces if signal == "traces" else decode_logs
    return await asyncio.to_thread(decode, body, json_encoded=json_encoded)


async def _in_child(body: bytes, signal: str) -> Decoded:
    pool = await asyncio.to_thread(_executor)
    try:  # submitting may start the child: in a worker thread, not on the loop
        future = await asyncio.to_thread(pool.submit, _parse, body, signal, MAX_VALUE_BYTES)
        raw, rejected = await asyncio.wrap_future(future)
    except concurrent.futures.process.BrokenProcessPool as error:
        _restart(pool)
        raise DecodeProcessFailed(f"the decoding process ended: {error}") from None
    return await asyncio.to_thread(records_from_request, raw, signal, Counter(rejected))
