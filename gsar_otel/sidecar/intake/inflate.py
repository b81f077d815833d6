"""Gzip request bodies inflated in steps: at most ``STEP`` bytes of output at a time
(``zlib.decompressobj`` with ``max_length``), each step's bytes taken from the request's byte
budget before it is kept, stopping at the decompressed-size cap. The receiver runs it in a worker
thread, so a large body never holds the event loop, and a gzip bomb costs at most the cap."""

from __future__ import annotations

import zlib

from gsar_otel.errors import GSARError
from gsar_otel.sidecar.intake.admission import Reservation
from gsar_otel.sidecar.intake.spans import MalformedRequest

STEP = 256 * 1024
"""Bytes inflated per step."""


class BodyTooLarge(ValueError, GSARError):
    """The (decompressed) body passed its limit."""


class OverBudget(RuntimeError, GSARError):
    """The byte budget for requests in flight cannot hold the inflated body now."""


def inflate(body: bytes, limit: int, reservation: Reservation | None = None) -> bytearray:
    """Gunzip ``body``, stopping as soon as the output would pass ``limit`` bytes; each step's
    output is taken from ``reservation`` first. The output is returned as it was built (not
    copied), so the reservation is what it holds.

    Raises:
        BodyTooLarge: the decompressed body is over ``limit``.
        OverBudget: ``reservation`` could not take a step's bytes.
        MalformedRequest: not gzip data, or truncated.
    """
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    pending = body
    try:
        while not inflater.eof:
            step = inflater.decompress(pending, min(STEP, limit + 1 - len(out)))
            pending = inflater.unconsumed_tail
            if reservation is not None and not reservation.take(len(step)):
                raise OverBudget("too many request bytes in flight; retry later")
            out += step
            if len(out) > limit:
                raise BodyTooLarge(f"decompressed body over {limit} bytes")
            if not step and not pending:
                break
    except zlib.error as error:
        raise MalformedRequest(f"not gzip data: {error}") from None
    if not inflater.eof:
        raise MalformedRequest("truncated gzip data")
    return out
