"""Large OTLP/JSON bodies parsed in a process of their own, so no thread of the sidecar holds its
interpreter lock through one long parse while the event loop (``/healthz``, ``/metrics``, every
other request) waits for it.

``json.loads`` of a 19 MB OTLP/JSON body is one C call that holds the interpreter lock for 50 to
150 ms (no thread switch interrupts it), and protobuf's JSON mapping of what it read is Python
code under the same lock. A body of at least ``decode_process_bytes``
(``--decode-process-bytes``, :class:`~gsar_otel.sidecar.intake.admission.NetworkLimits`) is
therefore read (JSON, the value cuts, the ids, the OTLP schema) by a decoding process, which
sends back the request as serialized protobuf with its values already cut to
``max_value_bytes``; the sidecar parses that back (``FromString``-style C code, a few
milliseconds) and builds its records from it in a worker thread as for any body. Smaller bodies
are read in a worker thread as before: their parse is shorter than a thread switch interval or
two. Protobuf bodies are parsed by protobuf's C code whatever their size (no JSON step).

The pool is :data:`WORKERS` process, started (``spawn``) at the first large body, never before;
bodies queue for it. Each body sent to it takes :data:`CHILD_COPIES` more times its size from
the request's byte budget (``--max-inflight-bytes``) for the copies sending it makes (the pickled
call in the sidecar, the body the process receives, the text it decodes), on top of the received
body and the decoded copy (the parsed document) the receiver charged already, and gives them
back when the answer is in; a body the budget has no room for is answered 429 as any request
over it. The process's own interpreter (about 40 MB) is outside the budgets. A body the process
cannot decode because it could not start or died is decoded in a thread, logged and counted
``gsar_sidecar_json_decode_total{gsar_sidecar_reason="process_failed"}`` (the pool is started
again for the next one); each body it decodes is counted ``process``. A body that is not an OTLP
request gets the same 400 as in a thread (the process raises the same error). ``close`` (the
receiver's close, on SIGTERM or ``Sidecar.stop``) stops the process.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from gsar_otel.runtime.pool import ProcessPool
from gsar_otel.sidecar.intake.spans import (
    Decoded,
    MalformedRequest,
    decode_read,
    read_serialized,
)
from gsar_otel.sidecar.intake.values import MAX_ITEM_BYTES, MAX_VALUE_BYTES

logger = logging.getLogger(__name__)

WORKERS: Final = 1
"""Decoding processes (bodies wait for it in turn; each one waiting is charged to the budget)."""
CHILD_COPIES: Final = 3
"""Copies of a body, besides the one the receiver charges for decoding, made while the decoding
process reads it: the pickled call the sidecar writes to the process, the body the process
receives and the text it decodes it to (the parsed document is the decoded copy; the protobuf
it sends back holds values cut to ``max_value_bytes``)."""
DECODE_COUNT: Final = "json_decode"
"""The :meth:`note` name of large OTLP/JSON bodies (reasons ``process``, ``process_failed``)."""
PROCESS = "process"
PROCESS_FAILED = "process_failed"


class JsonDecodeProcess:
    """The decoding process for large OTLP/JSON bodies (started at the first one).

    Args:
        min_bytes: bodies at least this long go to the process; 0 turns it off.
        note: where a body decoded (``process``) or not (``process_failed``) is counted.
        context: the ``multiprocessing`` start method (``spawn``: no copy of the sidecar's
            threads or memory).
    """

    def __init__(self, min_bytes: int, note: Callable[[str, str], None] | None = None,
                 context: str = "spawn") -> None:
        self.min_bytes = min_bytes
        self._note = note or (lambda name, reason: None)
        self._pool = ProcessPool(WORKERS, context)

    @property
    def started(self) -> bool:
        """Whether the process pool exists (it is made at the first large body)."""
        return self._pool.started

    def wanted(self, body: bytes, json_encoded: bool) -> bool:
        """True for a body this process should read."""
        return (json_encoded and self.min_bytes > 0 and len(body) >= self.min_bytes
                and not self._pool.closed)

    async def decode(self, body: bytes, signal: str,
                     fallback: Callable[[], Decoded]) -> Decoded:
        """The decoded spans or log records of ``body``; ``fallback()`` (in a worker thread)
        when the process cannot start or dies. Raises
        :class:`~gsar_otel.sidecar.intake.spans.MalformedRequest` as decoding in a thread
        would."""
        loop = asyncio.get_running_loop()
        try:
            data, rejected = await loop.run_in_executor(
                self._pool.executor(), read_serialized, body, signal, MAX_VALUE_BYTES)
        except MalformedRequest:
            raise  # the body itself: answered as in a thread
        except (BrokenProcessPool, OSError, RuntimeError) as error:
            logger.warning("gsar sidecar: the JSON decoding process failed (%s: %s); decoding "
                           "in a thread", type(error).__name__, error)
            self._note(DECODE_COUNT, PROCESS_FAILED)
            self._pool.restart()
            return await asyncio.to_thread(fallback)
        self._note(DECODE_COUNT, PROCESS)
        return await asyncio.to_thread(_read_back, data, rejected, signal)

    def close(self) -> None:
        """Stop the process (a body it is reading is given up); later bodies are decoded in a
        thread."""
        self._pool.close()



def _read_back(data: bytes, rejected: Mapping[str, int], signal: str) -> Decoded:
    return decode_read(data, Counter(rejected), signal, max_value_bytes=MAX_VALUE_BYTES,
                       max_item_bytes=MAX_ITEM_BYTES)
