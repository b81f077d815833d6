"""Bounded memory, shown: 10,000 concurrent traces and a trace that never ends keep the traced
memory under a stated bound (far below what holding them all would take), with every span and
run counted by reason; and gRPC reads at most ``max_grpc_inflight`` calls at once, refusing
more with ``RESOURCE_EXHAUSTED`` and ``RetryInfo``, counted."""

from __future__ import annotations

import asyncio
import threading
import tracemalloc
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from tests.sidecar.support import Clock, retry_delay_s, start_sidecar
from tests.sidecar.test_receiver_http import post
from tests.support.servers import free_port

TRACES = 10_000
SPANS_PER_TRACE = 2
PAYLOAD = "x" * 2_048
"""Each span carries 2 KiB of attribute text, so holding every trace would take > 40 MiB."""
MAX_TRACES = 1_000
MEMORY_BOUND = 24 * 1024 * 1024
"""Traced peak allowed: the 1,000 traces held (~5 MiB), the ids remembered for late spans, one
request body in flight and the decoded copy of it, with room to spare."""
NEVER_ENDS = "f" * 32



def _request(spans: list[tuple[str, int, int]]) -> bytes:
    """An OTLP protobuf body of ``(trace id, span id, parent span id)`` spans, each with a
    2 KiB attribute and no agent convention (so no run settles before the hard cap)."""
    request = trace_service_pb2.ExportTraceServiceRequest()
    out = request.resource_spans.add().scope_spans.add().spans
    for trace_id, span_id, parent in spans:
        out.append(trace_pb2.Span(
            trace_id=bytes.fromhex(trace_id), span_id=span_id.to_bytes(8, "big"),
            parent_span_id=parent.to_bytes(8, "big"), name="step",
            attributes=[common_pb2.KeyValue(key="payload", value=common_pb2.AnyValue(
                string_value=PAYLOAD))]))
    return request.SerializeToString()


def test_ten_thousand_concurrent_traces_and_one_that_never_ends_stay_within_a_memory_bound(
        ) -> None:
    clock = Clock()
    limits = AssemblyLimits(decision_wait_s=5, max_age_s=60, max_traces=MAX_TRACES,
                            max_spans_per_trace=200, remember_released=20_000)
    running = start_sidecar(limits=limits, clock=clock, max_body_bytes=8 * 1024 * 1024)
    stats = running.sidecar.stats
    sent = 0
    sent_bytes = 0
    tracemalloc.start()
    try:
        # A trace that never ends: 1,000 spans with no root; 200 are held, 800 counted over
        # the cap; at the hard cap it is released (flagged), and what follows counts as late.
        for batch in range(5):
            body = _request([(NEVER_ENDS, 2 + batch * 200 + n, 1) for n in range(200)])
            assert post(running, body, "application/x-protobuf")[0] == 200
            sent += 200
            sent_bytes += len(body)
        clock.now += 61
        running.wait_for(lambda: stats.get("runs_skipped", "no_answer") == 1, "the hard cap")
        # 10,000 concurrent traces (none settles: no root), 500 per request, with more spans
        # of the endless trace in every request.
        for start in range(0, TRACES, 500):
            spans = [(f"{t + 1:032x}", s + 2, 1) for t in range(start, start + 500)
                     for s in range(SPANS_PER_TRACE)]
            spans += [(NEVER_ENDS, 10_000 + start + n, 1) for n in range(10)]
            body = _request(spans)
            assert post(running, body, "application/x-protobuf")[0] == 200
            sent += len(spans)
            sent_bytes += len(body)
        _, peak = tracemalloc.get_traced_memory()
        pending = running.call(lambda: running.sidecar.assembler.pending)
    finally:
        tracemalloc.stop()
        running.stop()
    assert sent_bytes > 40 * 1024 * 1024 > MEMORY_BOUND  # holding it all could not pass
    assert peak < MEMORY_BOUND, f"traced peak {peak / 2**20:.1f} MiB"
    assert pending == MAX_TRACES
    counts = stats.snapshot()
    assert counts["spans"] == {"accepted": 200 + TRACES * SPANS_PER_TRACE,
                               "over_trace_cap": 800, "late": 200}
    assert sum(counts["spans"].values()) == sent
    # Traces with no run span are fragments: evicted and counted apart from runs.
    assert counts["traces_evicted"] == {"fragment": TRACES - MAX_TRACES}
    assert "runs_dropped" not in counts
    # The endless trace at the hard cap, and the 1,000 held traces at shutdown: none has an
    # answer, each is counted.
    assert counts["runs_skipped"] == {"no_answer": 1 + MAX_TRACES}


class _Hold(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Holds the first ``count`` calls until released (slow peers, seen from the server);
    lets the others through."""

    def __init__(self, count: int) -> None:
        self.release = threading.Event()
        self.count = count
        self.entered = 0

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        self.entered += 1
        if self.entered <= self.count:
            while not self.release.is_set():
                await asyncio.sleep(0.005)
        return await continuation(details)


def _one_span(n: int) -> trace_service_pb2.ExportTraceServiceRequest:
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.append(trace_pb2.Span(
        trace_id=n.to_bytes(16, "big"), span_id=n.to_bytes(8, "big"), name="step"))
    return request


def test_grpc_reads_at_most_max_grpc_inflight_calls_and_keeps_serving() -> None:
    hold = _Hold(2)
    running = start_sidecar(grpc_port=free_port(), max_grpc_inflight=2, grpc_interceptors=(hold,))
    target = f"127.0.0.1:{running.sidecar.grpc_port}"
    own_connection = [("grpc.use_local_subchannel_pool", 1)]
    try:
        with grpc.insecure_channel(target, options=own_connection) as first, \
                grpc.insecure_channel(target, options=own_connection) as second:
            held = [trace_service_pb2_grpc.TraceServiceStub(first).Export.future(
                _one_span(n), timeout=30) for n in (1, 2)]
            running.wait_for(lambda: hold.entered == 2, "two calls in progress")
            with pytest.raises(grpc.RpcError) as refused:
                trace_service_pb2_grpc.TraceServiceStub(second).Export(_one_span(3), timeout=10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_delay_s(refused.value) == 1.0, "throttling: retryable, with RetryInfo"
            assert running.sidecar.stats.get("spans", "rejected_grpc_inflight") == 1
            hold.release.set()
            for call in held:
                assert not call.result().HasField("partial_success")
            trace_service_pb2_grpc.TraceServiceStub(second).Export(_one_span(4), timeout=10)
        assert running.sidecar.stats.get("spans", "accepted") == 3  # the refused one is not
        assert running.sidecar.stats.get("spans", "rejected_grpc_inflight") == 1
        grpc_receiver = running.sidecar._receivers[-1]
        running.wait_for(lambda: grpc_receiver.limit.active == 0, "every place released")
    finally:
        hold.release.set()
        running.stop()


def test_a_grpc_call_that_fails_before_our_code_still_frees_its_inflight_place() -> None:
    running = start_sidecar(grpc_port=free_port(), max_grpc_inflight=1,
                            max_decompressed_bytes=4096)
    big = _one_span(1)
    big.resource_spans[0].scope_spans[0].spans[0].name = "x" * 10_000
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}") as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            for _ in range(3):  # a leaked place would refuse every call after the first
                with pytest.raises(grpc.RpcError) as too_big:
                    stub.Export(big, timeout=10)
                assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert retry_delay_s(too_big.value) is None, "too large: not retryable"
            stub.Export(_one_span(2), timeout=10)
        assert running.sidecar.stats.get("spans", "accepted") == 1
        assert running.sidecar.stats.get("spans", "rejected_grpc_inflight") == 0
    finally:
        running.stop()
