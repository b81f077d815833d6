"""OTLP/gRPC: TraceService and LogsService on ``grpc.aio`` (the Collector's ``loadbalancing``
exporter speaks gRPC only).

Three interceptors run before any message is read, in this order:

* :class:`TokenCheck`: a missing or wrong bearer token is ``UNAUTHENTICATED`` on the call's
  metadata alone, counted ``rejected_auth``; such a call never takes an in-flight place.
* :class:`InflightLimit`: more than ``max_grpc_inflight`` calls in progress is
  ``RESOURCE_EXHAUSTED`` with a ``RetryInfo`` detail (the OTLP throttling answer a client retries),
  counted ``rejected_grpc_inflight``; a place is held from the call's start to the end of its task.
* :class:`MessageGuard` reads the one message itself, as raw bytes: within
  ``grpc_receive_timeout_s`` of the call's start (else ``DEADLINE_EXCEEDED``, counted
  ``rejected_slow_body``), and at most ``min(max_body_bytes, max_decompressed_bytes)`` bytes
  (gRPC's ``max_receive_message_length``, which gRPC checks after decompression; a larger message
  is ``RESOURCE_EXHAUSTED`` from gRPC, counted ``rejected_too_large``). The message then takes
  its bytes, as received and once more for its decoded copy, from the byte budget OTLP/HTTP
  bodies take theirs from (``--max-inflight-bytes``, :class:`~.admission.ByteBudget`), given
  back when the call ends; a call the budget cannot cover (or arriving while it is spent) is
  ``RESOURCE_EXHAUSTED`` with ``RetryInfo``, counted ``rejected_over_budget``, as OTLP/HTTP
  answers 429. An OTLP export message is handed on as those bytes and decoded by the services in
  a worker thread with the same partial-success decoding as OTLP/HTTP
  (:func:`~gsar_otel.sidecar.intake.spans.decode_traces`): a span or log record its schema
  cannot read (invalid UTF-8 in a string) is rejected alone and named in the answer's
  ``partial_success``, counted by reason; a message with nothing readable is
  ``INVALID_ARGUMENT``, counted ``rejected_malformed``. Any other method's message is parsed in a
  worker thread.

A full judging queue is ``RESOURCE_EXHAUSTED`` with ``RetryInfo`` too (``rejected_busy``). gRPC's
own limits stay behind ours as the hard bound: twice ``max_grpc_inflight`` calls at once and
streams per connection (past that gRPC refuses the stream itself, before the sidecar sees it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc  # type: ignore[import-untyped]
from google.protobuf import duration_pb2  # type: ignore[import-untyped]
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from gsar_otel.sidecar.intake.admission import network_limits
from gsar_otel.sidecar.intake.app import ReceiverApp
from gsar_otel.sidecar.intake.spans import Decoded, MalformedRequest, decode_logs, decode_traces

RETRY_DELAY_S = 1
"""The delay ``RetryInfo`` asks a throttled client to wait."""
RAW_METHODS = frozenset({"/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                         "/opentelemetry.proto.collector.logs.v1.LogsService/Export"})
"""Methods whose handler takes the message's bytes (decoded with partial success)."""


async def _throttle(context: Any, message: str) -> None:
    """Abort with ``RESOURCE_EXHAUSTED`` and a ``RetryInfo`` detail (retryable per OTLP)."""
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=RETRY_DELAY_S))
    status = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message=message)
    status.details.add().Pack(retry)
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, message)


async def _admit(app: ReceiverApp, context: Any) -> None:
    """Abort the call when the token is wrong or the sidecar is busy."""
    metadata = dict(context.invocation_metadata() or ())
    if not app.authorized(metadata.get("authorization")):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
    if app.busy():
        app.stats.spans("rejected_busy")
        await _throttle(context, "the judging queue is full; retry later")


def _refusal(behavior: Any) -> Any:
    """A handler that answers without reading the call's message (a client-streaming handler
    is called before any message arrives)."""
    return grpc.stream_unary_rpc_method_handler(behavior)


class TokenCheck(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """``UNAUTHENTICATED`` on the metadata alone (before the message is read), counted
    ``rejected_auth``."""

    def __init__(self, app: ReceiverApp) -> None:
        self.app = app

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        metadata = dict(details.invocation_metadata or ())
        if self.app.authorized(metadata.get("authorization")):
            return await continuation(details)
        self.app.stats.spans("rejected_auth")
        return _refusal(self._refuse)

    async def _refuse(self, requests: AsyncIterator[bytes], context: Any) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")


class InflightLimit(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """At most ``limit`` calls in progress; one more is refused with ``RESOURCE_EXHAUSTED`` and
    ``RetryInfo`` (without reading its message), and counted. A call counts from its
    interception until its task ends, however it ends (answered, aborted, cancelled, message
    too large)."""

    def __init__(self, app: ReceiverApp, limit: int) -> None:
        self.app, self.limit, self.active = app, limit, 0

    def _release(self, _task: object = None) -> None:
        self.active -= 1

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        task = asyncio.current_task()
        if self.active >= self.limit or task is None:
            self.app.stats.spans("rejected_grpc_inflight")
            return _refusal(self._refuse)
        self.active += 1
        task.add_done_callback(self._release)
        return await continuation(details)

    async def _refuse(self, requests: AsyncIterator[bytes], context: Any) -> None:
        await _throttle(context, f"more than {self.limit} calls in progress; retry later")


class MessageGuard(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Reads a unary call's message as bytes within ``timeout_s`` of the call's start, counts
    a message gRPC refused as too large, and parses the bytes in a worker thread (an OTLP export
    is handed on as bytes, see :data:`RAW_METHODS`)."""

    def __init__(self, app: ReceiverApp, timeout_s: float, limit: int) -> None:
        self.app, self.timeout_s, self.limit = app, timeout_s, limit

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        handler = await continuation(details)
        if handler is None or handler.unary_unary is None:
            return handler
        inner, parse = handler.unary_unary, handler.request_deserializer
        if details.method in RAW_METHODS:
            parse = None  # the service decodes the bytes itself, item by item
        app, limit = self.app, self.limit

        async def guarded(requests: AsyncIterator[bytes], context: Any) -> Any:
            if app.inflight.held >= app.inflight.limit:  # full: refused before reading
                app.stats.spans("rejected_over_budget")
                await _throttle(context, "too many request bytes in flight; retry later")
            left = deadline - asyncio.get_running_loop().time()
            try:
                raw = await asyncio.wait_for(anext(requests), max(left, 0.001))
            except TimeoutError:
                app.stats.spans("rejected_slow_body")
                await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                    "the message arrived too slowly")
            except StopAsyncIteration:  # gRPC refused it (over the limit), or the client left
                app.stats.spans("rejected_grpc_cancelled" if context.cancelled()
                                else "rejected_too_large")
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"message over {limit} bytes")
            # Charged as OTLP/HTTP charges a body: the bytes received and one decoded copy.
            reservation = app.inflight.reservation()
            try:
                if not reservation.take(2 * len(raw)):
                    del raw
                    app.stats.spans("rejected_over_budget")
                    await _throttle(context, "too many request bytes in flight; retry later")
                request = await asyncio.to_thread(parse, raw) if parse is not None else raw
                return await inner(request, context)
            finally:
                reservation.release()

        return grpc.stream_unary_rpc_method_handler(
            guarded, request_deserializer=None, response_serializer=handler.response_serializer)


async def _decode(app: ReceiverApp, context: Any, raw: bytes, signal: str) -> Decoded:
    """The message's items, decoded in a worker thread (a bad item rejected alone); a message
    with nothing readable is ``INVALID_ARGUMENT``, counted ``rejected_malformed``."""
    decode = decode_traces if signal == "traces" else decode_logs
    try:
        return await asyncio.to_thread(decode, raw, json_encoded=False)
    except MalformedRequest as bad:
        app.stats.spans("rejected_malformed")
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(bad)[:300])
        raise  # abort raises; this keeps the type checker sure of it


class _Traces(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, app: ReceiverApp) -> None:
        self.app = app

    async def Export(self, request: bytes, context: Any) -> Any:  # gRPC's method name
        await _admit(self.app, context)
        decoded = await _decode(self.app, context, request, "traces")
        forged = self.app.ingest(decoded)
        self.app.forward("traces", request, "application/x-protobuf", len(decoded.spans),
                         forged)
        response = trace_service_pb2.ExportTraceServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_spans = decoded.rejected
            response.partial_success.error_message = decoded.error
        return response


class _Logs(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, app: ReceiverApp) -> None:
        self.app = app

    async def Export(self, request: bytes, context: Any) -> Any:  # gRPC's method name
        await _admit(self.app, context)
        decoded = await _decode(self.app, context, request, "logs")
        self.app.ingest(decoded)
        self.app.forward("logs", request, "application/x-protobuf", len(decoded.logs))
        response = logs_service_pb2.ExportLogsServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_log_records = decoded.rejected
            response.partial_success.error_message = decoded.error
        return response


class GrpcReceiver:
    """The gRPC server (same event loop as the HTTP receiver)."""

    def __init__(self, app: ReceiverApp, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._server: Any = None
        self.limit: InflightLimit | None = None

    async def start(self) -> int:
        """Listen; returns the bound port."""
        config = self.app.config
        limits = network_limits(config)
        message_limit = min(config.max_body_bytes, config.max_decompressed_bytes)
        inflight = config.max_grpc_inflight
        options = [("grpc.max_receive_message_length", message_limit),
                   ("grpc.max_concurrent_streams", 2 * inflight)]
        self.limit = InflightLimit(self.app, inflight)
        guard = MessageGuard(self.app, limits.grpc_receive_timeout_s, message_limit)
        server = grpc.aio.server(
            options=options,
            interceptors=(TokenCheck(self.app), self.limit, *self.app.grpc_interceptors, guard),
            maximum_concurrent_rpcs=2 * inflight)
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
