"""OTLP/gRPC and OTLP/HTTP take their request bytes from one budget (``--max-inflight-bytes``),
counted the same way: the message as received and one decoded copy of its size. A gRPC call the
budget cannot cover is ``RESOURCE_EXHAUSTED`` with ``RetryInfo`` (the OTLP throttling answer),
counted ``rejected_over_budget``, as HTTP answers 429."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.sidecar.intake.admission import NetworkLimits
from tests.sidecar.support import RunningSidecar, retry_delay_s, start_sidecar
from tests.sidecar.test_receiver_http import post
from tests.support.servers import free_port

KiB = 1024
BUDGET = 256 * KiB


def export(n: int, size: int) -> trace_service_pb2.ExportTraceServiceRequest:
    """One unrooted span whose name is ``size`` bytes."""
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.append(trace_pb2.Span(
        trace_id=n.to_bytes(16, "big"), span_id=n.to_bytes(8, "big"),
        parent_span_id=(n + 1).to_bytes(8, "big"), name="x" * size))
    return request


@pytest.fixture
def running() -> Iterator[RunningSidecar]:
    sidecar = start_sidecar(grpc_port=free_port(), max_body_bytes=1024 * KiB,
                            network=NetworkLimits(max_inflight_bytes=BUDGET))
    yield sidecar
    sidecar.stop()


def grpc_export(running: RunningSidecar, request: trace_service_pb2.ExportTraceServiceRequest
                ) -> tuple[grpc.StatusCode, float | None]:
    with grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}") as channel:
        stub = trace_service_pb2_grpc.TraceServiceStub(channel)
        try:
            stub.Export(request, timeout=30)
        except grpc.RpcError as error:
            return error.code(), retry_delay_s(error)
    return grpc.StatusCode.OK, None


def test_grpc_and_http_answer_alike_against_the_byte_budget(running: RunningSidecar) -> None:
    stats = running.sidecar.stats
    fits, over = export(1, 100 * KiB), export(2, 150 * KiB)  # x2 (received, decoded): 200 / 300
    assert grpc_export(running, fits) == (grpc.StatusCode.OK, None)
    assert post(running, fits.SerializeToString(), "application/x-protobuf")[0] == 200
    assert grpc_export(running, over) == (grpc.StatusCode.RESOURCE_EXHAUSTED, 1.0)
    assert post(running, over.SerializeToString(), "application/x-protobuf")[0] == 429
    assert stats.get("spans", "rejected_over_budget") == 2
    budget = running.sidecar.inflight
    assert budget.held == 0 and budget.peak <= BUDGET


def test_grpc_draws_on_the_same_budget_as_http(running: RunningSidecar) -> None:
    budget = running.sidecar.inflight
    assert running.call(lambda: budget.take(BUDGET - 64 * KiB))  # held by requests elsewhere
    try:
        assert grpc_export(running, export(3, 40 * KiB))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        running.call(lambda: budget.give(BUDGET - 64 * KiB))
    assert grpc_export(running, export(3, 40 * KiB))[0] == grpc.StatusCode.OK
    assert running.sidecar.stats.get("spans", "rejected_over_budget") == 1
    assert budget.held == 0
