"""A large OTLP/JSON body is parsed in a child process: the records, the cut of long values and
the per-span rejects are the same as decoding it in the sidecar's own process."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel.sidecar import decode_process
from gsar_otel.sidecar.decode_process import PROCESS_JSON_BYTES, decode_body
from gsar_otel.sidecar.spans import MAX_VALUE_BYTES, MalformedRequest, decode_traces
from tests.sidecar.test_receiver_http import kv, otlp_json, span


def big_body() -> bytes:
    """Two spans, one with a value longer than the cut, one with a non-hex trace id."""
    huge = [kv("payload", "u" * PROCESS_JSON_BYTES)]
    body = otlp_json(span("00000000000000a1", "", "huge", huge),
                     span("00000000000000a2", "", "bad", [], trace_id="zz" * 16))
    assert len(body) >= PROCESS_JSON_BYTES
    return body


def test_a_large_json_body_decodes_in_the_child_as_it_does_in_process() -> None:
    body = big_body()
    decode_process.shutdown()
    child = asyncio.run(decode_body(body, "traces", json_encoded=True))
    assert decode_process._pool is not None  # the child process was used
    here = decode_traces(body, json_encoded=True)
    assert child.spans == here.spans
    assert (child.rejected, dict(child.reasons), child.truncated) == (
        here.rejected, dict(here.reasons), here.truncated)
    assert len(child.spans[0].attributes["payload"]) == MAX_VALUE_BYTES
    decode_process.shutdown()


def test_a_large_body_that_is_not_json_is_malformed() -> None:
    body = b"[" * PROCESS_JSON_BYTES
    with pytest.raises(MalformedRequest):
        asyncio.run(decode_body(body, "traces", json_encoded=True))
    decode_process.shutdown()


def test_a_small_body_stays_in_process() -> None:
    decode_process.shutdown()
    decoded = asyncio.run(decode_body(otlp_json(span("00000000000000a1", "", "x", [])),
                                      "traces", json_encoded=True))
    assert len(decoded.spans) == 1 and decode_process._pool is None


def test_a_child_that_died_is_counted_and_the_body_decoded_in_process() -> None:
    import os
    import signal

    body = big_body()
    decode_process.shutdown()
    asyncio.run(decode_body(body, "traces", json_encoded=True))  # the child is up
    assert decode_process._pool is not None
    for pid in list(decode_process._pool._processes):
        os.kill(pid, signal.SIGKILL)
    fallbacks: list[int] = []
    decoded = asyncio.run(decode_body(body, "traces", json_encoded=True,
                                      on_fallback=lambda: fallbacks.append(1)))
    assert fallbacks == [1]
    assert decoded.spans == decode_traces(body, json_encoded=True).spans
    assert decode_process._pool is None  # started again for the next large body
    again = asyncio.run(decode_body(body, "traces", json_encoded=True,
                                    on_fallback=lambda: fallbacks.append(1)))
    assert fallbacks == [1] and again.spans == decoded.spans
    decode_process.shutdown()
