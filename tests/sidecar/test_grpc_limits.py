"""The OTLP/gRPC receiver's limits, with real gRPC clients on loopback: the token is checked
before the message is read (unauthenticated slow senders never hold an in-flight place), a
message must arrive within the receive time, ``--max-body-bytes`` applies (plain and gzip), and
calls past the in-flight limit on one connection are refused and counted."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.sidecar.intake.admission import NetworkLimits
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.support.servers import free_port

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
TOKEN = "s3cret"
AUTH = (("authorization", f"Bearer {TOKEN}"),)


def one_span(n: int, name: str = "step") -> trace_service_pb2.ExportTraceServiceRequest:
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.append(trace_pb2.Span(
        trace_id=n.to_bytes(16, "big"), span_id=n.to_bytes(8, "big"), name=name))
    return request


class SlowSender:
    """A call whose message never comes (until ``stop``): its request iterator blocks."""

    def __init__(self, channel: grpc.Channel, metadata: tuple[tuple[str, str], ...] = ()
                 ) -> None:
        self.stop = threading.Event()
        request = trace_service_pb2.ExportTraceServiceRequest
        call = channel.stream_unary(
            EXPORT, request_serializer=request.SerializeToString,
            response_deserializer=trace_service_pb2.ExportTraceServiceResponse.FromString)
        self.future = call.future(self._messages(), timeout=30, metadata=metadata)

    def _messages(self) -> Iterator[trace_service_pb2.ExportTraceServiceRequest]:
        self.stop.wait(30)
        yield one_span(99)

    def code(self) -> grpc.StatusCode:
        try:
            self.future.result(timeout=30)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
        return grpc.StatusCode.OK


def channel(running: RunningSidecar) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}",
                                 options=[("grpc.use_local_subchannel_pool", 1)])


@pytest.fixture
def guarded() -> Iterator[RunningSidecar]:
    running = start_sidecar(grpc_port=free_port(), token=TOKEN, max_grpc_inflight=1,
                            network=NetworkLimits(grpc_receive_timeout_s=0.5))
    yield running
    running.stop()


def test_unauthenticated_slow_senders_are_refused_on_their_metadata_and_hold_no_place(
        guarded: RunningSidecar) -> None:
    # one connection each: streams past twice --max-grpc-inflight on one connection may be
    # refused by gRPC itself (REFUSED_STREAM, UNAVAILABLE) before the sidecar sees them
    slow_channels = [channel(guarded) for _ in range(4)]
    with channel(guarded) as good:
        slow = [SlowSender(each) for each in slow_channels]
        try:
            assert [s.code() for s in slow] == [grpc.StatusCode.UNAUTHENTICATED] * 4
        finally:
            for sender in slow:
                sender.stop.set()
            for each in slow_channels:
                each.close()
        assert guarded.sidecar.stats.get("spans", "rejected_auth") == 4
        trace_service_pb2_grpc.TraceServiceStub(good).Export(one_span(1), timeout=10,
                                                            metadata=AUTH)
    assert guarded.sidecar.stats.get("spans", "accepted") == 1
    assert guarded.sidecar.stats.get("spans", "rejected_grpc_inflight") == 0


def test_an_authenticated_slow_sender_is_cut_off_and_frees_its_place(
        guarded: RunningSidecar) -> None:
    with channel(guarded) as slow_channel, channel(guarded) as good:
        slow = SlowSender(slow_channel, AUTH)
        try:
            assert slow.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        finally:
            slow.stop.set()
        assert guarded.sidecar.stats.get("spans", "rejected_slow_body") == 1
        guarded.wait_for(lambda: guarded.sidecar._receivers[-1].limit.active == 0, "the place")
        trace_service_pb2_grpc.TraceServiceStub(good).Export(one_span(2), timeout=10,
                                                            metadata=AUTH)
    assert guarded.sidecar.stats.get("spans", "accepted") == 1


def test_a_call_past_the_inflight_limit_on_one_connection_is_refused_and_counted(
        guarded: RunningSidecar) -> None:
    with channel(guarded) as shared:
        slow = SlowSender(shared, AUTH)
        try:
            guarded.wait_for(lambda: guarded.sidecar._receivers[-1].limit.active == 1,
                             "the slow call in progress")
            with pytest.raises(grpc.RpcError) as refused:
                trace_service_pb2_grpc.TraceServiceStub(shared).Export(
                    one_span(3), timeout=10, metadata=AUTH)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert guarded.sidecar.stats.get("spans", "rejected_grpc_inflight") == 1
        finally:
            slow.stop.set()
        slow.code()


@pytest.mark.parametrize("compression", [None, grpc.Compression.Gzip])
def test_max_body_bytes_applies_to_grpc_messages(compression: grpc.Compression | None) -> None:
    running = start_sidecar(grpc_port=free_port(), max_body_bytes=64 * 1024)
    try:
        with channel(running) as shared:
            stub = trace_service_pb2_grpc.TraceServiceStub(shared)
            with pytest.raises(grpc.RpcError) as too_big:
                stub.Export(one_span(4, "x" * (200 * 1024)), timeout=10, compression=compression)
            assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            running.wait_for(lambda: running.sidecar.stats.get("spans", "rejected_too_large")
                             == 1, "the refusal counted")
            stub.Export(one_span(5, "x" * (60 * 1024)), timeout=10, compression=compression)
        assert running.sidecar.stats.get("spans", "accepted") == 1
    finally:
        running.stop()
