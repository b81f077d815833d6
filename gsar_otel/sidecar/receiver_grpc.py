"""OTLP/gRPC: TraceService and LogsService on ``grpc.aio`` (the Collector's ``loadbalancing``
exporter speaks gRPC only). Backpressure answers ``UNAVAILABLE`` with a ``RetryInfo`` detail
(retryable per the OTLP specification); a missing bearer token ``UNAUTHENTICATED``. Memory is
bounded by gRPC itself: at most ``max_grpc_inflight`` calls at once (and streams per
connection; more are refused ``RESOURCE_EXHAUSTED`` before our code sees them, so the client
counts them as failed exports), each message at most ``max_decompressed_bytes`` (gRPC checks
the size after decompression)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import grpc  # type: ignore[import-untyped]
from google.protobuf import duration_pb2  # type: ignore[import-untyped]
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from gsar_otel.sidecar.spans import Decoded, logs_from_request, spans_from_request

if TYPE_CHECKING:
    from gsar_otel.sidecar.server import Sidecar


async def _admit(app: Sidecar, context: Any) -> None:
    """Abort the call when the token is wrong or the sidecar is busy."""
    metadata = dict(context.invocation_metadata() or ())
    if not app.authorized(metadata.get("authorization")):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
    if app.busy():
        app.stats.spans("rejected_busy")
        retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1))
        status = status_pb2.Status(code=grpc.StatusCode.UNAVAILABLE.value[0],
                                   message="the judging queue is full; retry later")
        status.details.add().Pack(retry)
        context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
        await context.abort(grpc.StatusCode.UNAVAILABLE, status.message)


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

    async def start(self) -> int:
        """Listen; returns the bound port."""
        config = self.app.config
        options = [("grpc.max_receive_message_length", config.max_decompressed_bytes),
                   ("grpc.max_concurrent_streams", config.max_grpc_inflight)]
        server = grpc.aio.server(options=options, interceptors=self.app.grpc_interceptors or None,
                                 maximum_concurrent_rpcs=config.max_grpc_inflight)
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
