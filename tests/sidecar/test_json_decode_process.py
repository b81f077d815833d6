"""A large OTLP/JSON body is parsed in a decoding process (``--decode-process-bytes``), never by
one long ``json.loads`` holding the sidecar's interpreter lock while the event loop waits: it is
counted ``json_decode{process}``, what comes back is exactly what a thread would have decoded
(the same spans, values cut and counted alike, the same rejections, the same 400 for a body that
is not a request), the process's copies are charged to ``--max-inflight-bytes`` while it reads
the body, the process starts at the first large body and stops with the sidecar, and a process
that cannot start or dies falls back to a thread, logged and counted."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from gsar_otel.sidecar.intake import otlp_wire
from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.intake.decode_process import (
    CHILD_COPIES,
    DECODE_COUNT,
    JsonDecodeProcess,
)
from gsar_otel.sidecar.intake.spans import (
    MalformedRequest,
    decode_logs,
    decode_read,
    decode_traces,
    read_serialized,
)
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, kv, otlp_json, post, span

MiB = 1024 * 1024
BIG = "x" * (3 * MiB)


def big_body() -> bytes:
    """A complete run and, in another trace, one span holding a 3 MiB value (cut to 1 MiB)."""
    junk = span("f" * 16, "", "load", [kv("blob", BIG), kv("n", "1")], "e" * 32)
    return otlp_json(*agent_spans(), junk)


def _sidecar(**network: Any) -> RunningSidecar:
    return start_sidecar(max_body_bytes=8 * MiB, max_decompressed_bytes=8 * MiB,
                         network=NetworkLimits(**network))


def _receiver(running: RunningSidecar) -> Any:
    return running.sidecar._receivers[0]


def test_a_large_json_body_is_parsed_in_the_decoding_process_never_in_the_sidecar(
        monkeypatch: pytest.MonkeyPatch) -> None:
    body = big_body()
    in_this_process: list[int] = []
    read_json = otlp_wire.read_json

    def spy(data: bytes, *args: Any, **kwargs: Any) -> Any:
        in_this_process.append(len(data))
        return read_json(data, *args, **kwargs)

    monkeypatch.setattr(otlp_wire, "read_json", spy)  # the spawned process does not see it
    monkeypatch.setattr("gsar_otel.sidecar.intake.spans.read_json", spy)
    running = _sidecar(decode_process_bytes=MiB)
    try:
        assert not _receiver(running).big_json.started  # started at the first large body
        small = otlp_json(*agent_spans("1" * 32))  # a small body: read in a thread
        assert post(running, small)[0] == 200
        assert not _receiver(running).big_json.started
        assert post(running, body)[0] == 200
        assert _receiver(running).big_json.started
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 2, "both runs judged", 60)
        assert stats.get(DECODE_COUNT, "process") == 1
        assert stats.get(DECODE_COUNT, "process_failed") == 0
        assert stats.get("values", "truncated") == 1  # cut and counted as in a thread
        decisions = {e.attributes["gsar.decision"] for e in running.evaluations()
                     if e.attributes is not None}
        assert decisions == {"proceed"}
        assert in_this_process == [len(small)]  # never the large body
    finally:
        running.stop()


def test_with_the_threshold_at_zero_every_body_is_read_in_a_thread() -> None:
    running = _sidecar(decode_process_bytes=0)
    try:
        assert post(running, big_body())[0] == 200
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 1, "the run judged", 60)
        assert stats.get(DECODE_COUNT, "process") == 0
        assert not _receiver(running).big_json.started
    finally:
        running.stop()


class _GatedPool(concurrent.futures.ThreadPoolExecutor):
    """Stands in for the process pool: runs the decoding once ``gate`` opens."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.gate, self.entered = threading.Event(), threading.Event()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        def gated() -> Any:
            self.entered.set()
            assert self.gate.wait(30)
            return fn(*args, **kwargs)

        return super().submit(gated)


def test_the_byte_budget_holds_the_process_copies_while_it_decodes() -> None:
    body = big_body()
    running = _sidecar(decode_process_bytes=MiB, max_inflight_bytes=64 * MiB)
    pool = _GatedPool()
    _receiver(running).big_json._pool._pool = pool
    answer: list[int] = []
    sender = threading.Thread(target=lambda: answer.append(post(running, body)[0]))
    sender.start()
    try:
        assert pool.entered.wait(30)
        budget = running.sidecar.inflight
        # received + the decoded copy (as in a thread) + the process's copies, until it answers
        assert budget.held == (2 + CHILD_COPIES) * len(body)
        pool.gate.set()
        sender.join(30)
        assert answer == [200]
        assert budget.held == 0
    finally:
        pool.gate.set()
        sender.join(30)
        running.stop()
        pool.shutdown()


def test_a_body_whose_process_copies_do_not_fit_the_budget_is_429() -> None:
    body = big_body()
    # Room for the body and its decoded copy (all a thread needs), not for the process's copies.
    limit = 3 * len(body)
    running = _sidecar(decode_process_bytes=MiB, max_inflight_bytes=limit)
    try:
        status, _ = post(running, body)
        assert status == 429
        assert running.sidecar.stats.get("spans", "rejected_over_budget") == 1
        assert running.sidecar.inflight.held == 0
    finally:
        running.stop()


@pytest.mark.parametrize("body", [
    b"{" + b" " * (2 * MiB),  # not JSON
    b"[" + b"1, " * MiB + b"1]",  # JSON, not an object
    json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "zz", "spanId": "b" * 16, "name": "n",
         "attributes": [kv("blob", BIG)]}]}]}]}).encode(),  # no span readable
])
def test_a_large_body_that_is_not_a_request_gets_the_threads_400(body: bytes) -> None:
    answers = []
    for threshold in (MiB, 0):
        running = _sidecar(decode_process_bytes=threshold)
        try:
            answers.append(post(running, body))
            assert running.sidecar.stats.get("spans", "rejected_malformed") == 1
            assert running.sidecar.stats.get(DECODE_COUNT, "process_failed") == 0
        finally:
            running.stop()
    assert answers[0][0] == 400
    assert answers[0] == answers[1]


def test_stopping_the_sidecar_stops_the_decoding_process() -> None:
    running = _sidecar(decode_process_bytes=MiB)
    try:
        assert post(running, big_body())[0] == 200
        pool = _receiver(running).big_json._pool._pool
        assert pool is not None
        processes = list(pool._processes.values())
        assert processes and all(p.is_alive() for p in processes)
    finally:
        running.stop()
    assert not any(p.is_alive() for p in processes)


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


def test_a_process_that_cannot_start_falls_back_to_a_thread_logged_and_counted(
        caplog: pytest.LogCaptureFixture) -> None:
    notes: list[tuple[str, str]] = []
    process = JsonDecodeProcess(MiB, lambda name, reason: notes.append((name, reason)))
    process._pool._pool = _Broken()  # type: ignore[assignment]
    body = big_body()
    assert process.wanted(body, True) and not process.wanted(body, False)
    with caplog.at_level(logging.WARNING):
        decoded = asyncio.run(process.decode(
            body, "traces", lambda: decode_traces(body, json_encoded=True)))
    assert len(decoded.spans) == 3 and decoded.truncated == 1
    assert notes == [(DECODE_COUNT, "process_failed")]
    assert any("decoding process failed" in r.getMessage() for r in caplog.records)
    assert not process.started  # made anew for the next large body
    process.close()
    assert not process.wanted(body, True)
