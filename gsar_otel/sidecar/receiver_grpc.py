"""OTLP/gRPC: TraceService and LogsService on ``grpc.aio`` (the Collector's ``loadbalancing``
exporter speaks gRPC only).

Under backpressure (the judging queue full, or more than ``max_grpc_inflight`` calls in
progress) the answer is ``RESOURCE_EXHAUSTED`` with a ``RetryInfo`` detail: the OTLP
specification's throttling answer, which a client retries only because ``RetryInfo`` is there
(without it the code means "never retry"). Each refusal is counted (``rejected_busy``,
``rejected_grpc_inflight``). A missing bearer token is ``UNAUTHENTICATED``. The in-flight limit
is ours (``InflightLimit``, the first interceptor, counting from the start of a call to the
end of its task); gRPC's own limits stay behind it as the hard memory bound: twice as many calls,
``max_grpc_inflight`` streams per connection, each message at most ``max_decompressed_bytes``
(checked after decompression)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import grpc  # type: ignore[import-untyped]
from google.protobuf import duration_pb2  # type: ignore[import-untyped]
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from gsar_otel.sidecar.spans import Decoded, logs_from_request, spans_from_request

if TYPE_CHECKING:
    from gsar_otel.sidecar.server import Sidecar


RETRY_DELAY_S = 1
"""The delay ``RetryInfo`` asks a throttled client to wait."""


async def _throttle(context: Any, message: str) -> None:
    """Abort with ``RESOURCE_EXHAUSTED`` and a ``RetryInfo`` detail (retryable per OTLP)."""
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=RETRY_DELAY_S))
    status = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message=message)
    status.details.add().Pack(retry)
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, message)


async def _admit(app: Sidecar, context: Any) -> None:
    """Abort the call when the token is wrong or the sidecar is busy."""
    metadata = dict(context.invocation_metadata() or ())
    if not app.authorized(metadata.get("authorization")):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
    if app.busy():
        app.stats.spans("rejected_busy")
        await _throttle(context, "the judging queue is full; retry later")


class InflightLimit(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """At most ``limit`` calls in progress; one more is refused with ``RESOURCE_EXHAUSTED`` and
    ``RetryInfo``, and counted. A call counts from its interception (before its message is read)
    until its task ends, however it ends (answered, aborted, cancelled, message too large)."""

    def __init__(self, app: Sidecar, limit: int) -> None:
        self.app, self.limit, self.active = app, limit, 0

    def _release(self, _task: object = None) -> None:
        self.active -= 1

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        task = asyncio.current_task()
        if self.active >= self.limit or task is None:
            self.app.stats.spans("rejected_grpc_inflight")
            return grpc.unary_unary_rpc_method_handler(self._refuse)
        self.active += 1
        task.add_done_callback(self._release)
        return await continuation(details)

    async def _refuse(self, request: bytes, context: Any) -> None:
        await _throttle(context, f"more than {self.limit} calls in progress; retry later")


class _Traces(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, app: Sidecar) -> None:
        self.app = app

    async def Export(self, request: Any, context: Any) -> Any:  # gRPC's method name
        await _admit(self.app, context)
        decoded: Decoded = spans_from_request(request)
        self.app.ingest(decoded)
        self.app.forward("traces", request.SerializeToString(), "application/x-protobuf",
                         len(decoded.spans))
        response = trace_service_pb2.ExportTraceServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_spans = decoded.rejected
            response.partial_success.error_message = decoded.error
        return response


class _Logs(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, app: Sidecar) -> None:
        self.app = app

    async def Export(self, request: Any, context: Any) -> Any:  # gRPC's method name
        await _admit(self.app, context)
        decoded: Decoded = logs_from_request(request)
        self.app.ingest(decoded)
        self.app.forward("logs", request.SerializeToString(), "application/x-protobuf",
                         len(decoded.logs))
        response = logs_service_pb2.ExportLogsServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_log_records = decoded.rejected
            response.partial_success.error_message = decoded.error
        return response


class GrpcReceiver:
    """The gRPC server (same event loop as the HTTP receiver)."""

    def __init__(self, app: Sidecar, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._server: Any = None
        self.limit: InflightLimit | None = None

    async def start(self) -> int:
        """Listen; returns the bound port."""
        config = self.app.config
        options = [("grpc.max_receive_message_length", config.max_decompressed_bytes),
                   ("grpc.max_concurrent_streams", config.max_grpc_inflight)]
        self.limit = InflightLimit(self.app, config.max_grpc_inflight)
        server = grpc.aio.server(options=options,
                                 interceptors=(self.limit, *self.app.grpc_interceptors),
                                 maximum_concurrent_rpcs=2 * config.max_grpc_inflight)
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(  # type: ignore[no-untyped-call]
            _Traces(self.app), server)
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(  # type: ignore[no-untyped-call]
            _Logs(self.app), server)
        port: int = server.add_insecure_port(f"{self.host}:{self.port}")
        if port == 0:
            raise OSError(f"cannot bind gRPC to {self.host}:{self.port}")
        await server.start()
        self._server = server
        return port

    async def close(self) -> None:
        if self._server is not None:
            await self._server.stop(grace=2.0)
