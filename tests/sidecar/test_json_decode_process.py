"""A large OTLP/JSON body is parsed in a process of its own, never by one long ``json.loads``
holding the receiving process's interpreter lock (the event loop waited behind it): it is
counted ``json_decode{process}``, and what comes back is exactly what the thread would have
decoded (the same spans, values cut and counted alike, the same rejections). A process that
fails falls back to the thread, counted."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from gsar_otel.sidecar.intake.decode_process import (
    DECODE_COUNT,
    PROCESS_MIN_BYTES,
    JsonDecodeProcess,
)
from gsar_otel.sidecar.intake.spans import (
    MalformedRequest,
    decode_logs,
    decode_read,
    decode_traces,
    read_serialized,
)
from tests.sidecar.support import start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, kv, otlp_json, post, span

BIG = "x" * (3 * 1024 * 1024)


def big_body() -> bytes:
    """A complete run and, in another trace, one span holding a 3 MiB value (cut to 1 MiB)."""
    junk = span("f" * 16, "", "load", [kv("blob", BIG), kv("n", "1")], "e" * 32)
    return otlp_json(*agent_spans(), junk)


def test_a_large_json_body_is_parsed_in_the_decoding_process_and_judged_alike() -> None:
    body = big_body()
    assert len(body) >= PROCESS_MIN_BYTES
    running = start_sidecar(max_body_bytes=8 * 1024 * 1024,
                            max_decompressed_bytes=8 * 1024 * 1024)
    try:
        assert post(running, body)[0] == 200
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 1, "the run judged", 60)
        assert stats.get(DECODE_COUNT, "process") == 1
        assert stats.get(DECODE_COUNT, "process_failed") == 0
        assert stats.get("values", "truncated") == 1  # cut and counted as in a thread
        [evaluation] = running.evaluations()
        assert evaluation.attributes is not None
        assert evaluation.attributes["gsar.decision"] == "proceed"
        small = otlp_json(*agent_spans("1" * 32))  # a small body: read in a thread
        assert post(running, small)[0] == 200
        running.wait_for(lambda: stats.get("runs_judged") == 2, "the second run")
        assert stats.get(DECODE_COUNT, "process") == 1
    finally:
        running.stop()


def _same(body: bytes, signal: str = "traces") -> None:
    decode = decode_traces if signal == "traces" else decode_logs
    try:
        direct = decode(body, json_encoded=True)
    except MalformedRequest as error:
        with pytest.raises(MalformedRequest) as again:
            read_serialized(body, signal)
        assert str(again.value) == str(error)
        return
    data, rejected = read_serialized(body, signal)
    again = decode_read(data, Counter(rejected), signal)
    assert again.spans == direct.spans and again.logs == direct.logs
    assert again.reasons == direct.reasons and again.truncated == direct.truncated
    assert (again.rejected, again.error) == (direct.rejected, direct.error)


@pytest.mark.parametrize("body", [
    big_body(),
    otlp_json(*agent_spans()),
    otlp_json(*agent_spans(), span("zz", "", "bad id", [], "e" * 32)),
    json.dumps({"resourceSpans": [{"resource": {"attributes": [kv("service.name", "s")]},
                                   "scopeSpans": [{"scope": {"name": "x"}, "spans": [
                                       {"traceId": "a" * 32, "spanId": "b" * 16,
                                        "name": "n", "attributes": [
                                            {"key": "k", "value": {"arrayValue": {"values": [
                                                {"intValue": "3"}, {"doubleValue": 1.5},
                                                {"kvlistValue": {"values": [
                                                    kv("in", "ner")]}}]}}}]}]}]}]}).encode(),
    b"not json",
    b"[1, 2]",
    json.dumps({"resourceSpans": "no"}).encode(),
])
def test_the_process_reads_a_body_exactly_as_the_thread_does(body: bytes) -> None:
    _same(body)


def test_log_bodies_too() -> None:
    body = json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"traceId": "a" * 32, "spanId": "b" * 16, "body": {"stringValue": BIG},
         "attributes": [kv("event.name", "gen_ai.choice")]}]}]}]}).encode()
    _same(body, "logs")


class _Broken:
    def submit(self, *args: Any, **kwargs: Any) -> Any:
        raise BrokenProcessPool("the decoding process died")

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        pass


def test_a_failed_process_falls_back_to_the_thread_and_is_counted() -> None:
    notes: list[tuple[str, str]] = []
    process = JsonDecodeProcess(lambda name, reason: notes.append((name, reason)))
    process._pool = _Broken()  # type: ignore[assignment]
    body = big_body()
    assert process.wanted(body, True) and not process.wanted(body, False)
    decoded = asyncio.run(process.decode(
        body, "traces", lambda: decode_traces(body, json_encoded=True)))
    assert len(decoded.spans) == 3 and decoded.truncated == 1
    assert notes == [(DECODE_COUNT, "process_failed")]
    process.close()
    assert not process.wanted(body, True)
