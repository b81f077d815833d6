"""OTLP/HTTP on a small asyncio HTTP/1.1 server (stdlib streams, framed by ``h11``:
:mod:`gsar_otel.sidecar.intake.http_conn`).

``POST /v1/traces`` and ``/v1/logs`` take protobuf (``application/x-protobuf``) or JSON
(``application/json``), optionally gzip-compressed; answers follow the OTLP specification:
200 with ``partial_success`` when some items were rejected, 400 for an undecodable body, 413 over
the body limit (before reading it) or over the decompressed-size cap (while inflating, so a gzip
bomb costs at most the cap), 415 for another content type or encoding, 429 with ``Retry-After``
under backpressure, 401 without the bearer token. Also ``GET /healthz``, ``GET /metrics`` and
``POST /v1/judge``.

Work is refused before it is done, and every refusal is counted under ``rejected_*``: the token,
content type, encoding and backpressure are checked on the head, before the body is read
(``rejected_auth``, ...); malformed framing is 400 (``rejected_framing``); a head or body that
arrives too slowly is 408 and closes the connection (``rejected_slow_head`` / ``_slow_body``);
bodies take their bytes, received and then inflated (in steps, in a worker thread), from one
byte budget (429 past it, ``rejected_over_budget``); ``/v1/judge`` has its own concurrency and
queue (429 past them, ``rejected_judge_busy``). At ``max_connections`` a new connection closes
the one that has waited longest for a request's head (``rejected_evicted``), so slow or idle
clients cannot lock others out; when none waits, ``health_reserve`` more connections are served
only for ``/healthz``, ``/metrics`` and requests with the token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from google.rpc import status_pb2  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from gsar_otel.sidecar.intake.admission import (
    JudgeGate,
    Reservation,
    decompressed_limit,
    network_limits,
)
from gsar_otel.sidecar.intake.app import ReceiverApp
from gsar_otel.sidecar.intake.decode_process import CHILD_COPIES, JsonDecodeProcess
from gsar_otel.sidecar.intake.http_conn import (
    FRAMING,
    Head,
    HttpConnection,
    HttpFailure,
)
from gsar_otel.sidecar.intake.inflate import BodyTooLarge, OverBudget, inflate
from gsar_otel.sidecar.intake.spans import Decoded, MalformedRequest, decode_logs, decode_traces

logger = logging.getLogger(__name__)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
RETRY_AFTER_S = "1"
RESERVE_HEAD_TIMEOUT_S = 2.0
"""How long a connection in the reserve (past ``max_connections``) may take to send its head."""
EVICT_AFTER_S = 0.25
"""At the connection limit, a new connection closes the one that has waited longest for a
request's head, once it has waited this long (a client sends its head at once)."""
EXPORTS = {"/v1/traces": "traces", "/v1/logs": "logs"}
JUDGE = "/v1/judge"


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    close: bool = False


def _status(code: int, message: str, as_json: bool) -> tuple[bytes, str]:
    if as_json:
        return json.dumps({"code": code, "message": message}).encode(), JSON
    return status_pb2.Status(code=code, message=message).SerializeToString(), PROTOBUF


def error(status: int, message: str, *, as_json: bool = True, close: bool = False,
          headers: tuple[tuple[str, str], ...] = ()) -> Response:
    """An OTLP error answer: a ``google.rpc.Status`` in the request's encoding."""
    body, content_type = _status(status, message, as_json)
    return Response(status, body, content_type, headers, close)


def _export_response(signal: str, decoded: Decoded, as_json: bool) -> Response:
    if signal == "traces":
        response: Any = ExportTraceServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_spans = decoded.rejected
    else:
        response = ExportLogsServiceResponse()
        if decoded.rejected:
            response.partial_success.rejected_log_records = decoded.rejected
    if decoded.rejected:
        response.partial_success.error_message = decoded.error
    if as_json:
        from google.protobuf import json_format  # type: ignore[import-untyped]

        return Response(200, json_format.MessageToJson(response, indent=None).encode(), JSON)
    return Response(200, response.SerializeToString(), PROTOBUF)


def _precheck(app: ReceiverApp, head: Head) -> Response | None:
    """The answer a request gets on its head alone (before its body is read), or None."""
    path = head.path.split("?", 1)[0]
    if path not in EXPORTS and path != JUDGE:
        return None
    if head.method != "POST":
        return error(405, f"{path} takes POST", headers=(("Allow", "POST"),))
    if not app.authorized(head.headers.get("authorization")):
        app.stats.spans("rejected_auth")
        return error(401, "missing or wrong bearer token",
                     headers=(("WWW-Authenticate", "Bearer"),))
    limit = app.config.max_body_bytes
    if int(head.headers.get("content-length") or 0) > limit:  # h11 has checked it is digits
        app.stats.spans("rejected_too_large")
        return error(413, f"body over {limit} bytes")
    if path == JUDGE:
        return None
    content_type = head.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type not in (PROTOBUF, JSON):
        app.stats.spans("rejected_content_type")
        return error(415, f"content type must be {PROTOBUF} or {JSON}, got {content_type!r}")
    as_json = content_type == JSON
    encoding = head.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity", "gzip"):
        app.stats.spans("rejected_encoding")
        return error(415, f"content encoding must be gzip or identity, got {encoding!r}",
                     as_json=as_json)
    if head.method == "POST" and "content-length" not in head.headers and "chunked" not in (
            head.headers.get("transfer-encoding", "").lower()):
        app.stats.spans("rejected_framing")
        return error(411, "Content-Length required", as_json=as_json)
    if app.busy():
        app.stats.spans("rejected_busy")
        return _busy(as_json)
    return None


def _busy(as_json: bool) -> Response:
    return error(429, "the judging queue is full; retry later", as_json=as_json,
                 headers=(("Retry-After", RETRY_AFTER_S),))


async def _export(app: ReceiverApp, head: Head, body: bytes, reservation: Reservation,
                  signal: str, big_json: JsonDecodeProcess | None = None) -> Response:
    content_type = head.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    as_json = content_type == JSON
    if head.headers.get("content-encoding", "").strip().lower() == "gzip":
        try:
            inflated = await asyncio.to_thread(inflate, body, decompressed_limit(app.config),
                                               reservation)
        except BodyTooLarge as too_large:
            app.stats.spans("rejected_too_large")
            return error(413, str(too_large), as_json=as_json)
        except OverBudget as over:
            app.stats.spans("rejected_over_budget")
            return error(429, str(over), as_json=as_json,
                         headers=(("Retry-After", RETRY_AFTER_S),))
        except MalformedRequest as bad:
            app.stats.spans("rejected_malformed")
            return error(400, str(bad), as_json=as_json)
        reservation.give(len(body))
        body = cast(bytes, inflated)  # the bytearray it was built in, not copied: read alike
    if app.busy():
        app.stats.spans("rejected_busy")
        return _busy(as_json)
    if not reservation.take(len(body)):  # decoding makes a copy of about the body's size
        app.stats.spans("rejected_over_budget")
        return error(429, "too many request bytes in flight; retry later", as_json=as_json,
                     headers=(("Retry-After", RETRY_AFTER_S),))
    decode = partial(decode_traces if signal == "traces" else decode_logs, body,
                     json_encoded=as_json)
    try:
        if big_json is not None and big_json.wanted(body, as_json):
            if not reservation.take(CHILD_COPIES * len(body)):  # the decoding process's copies
                app.stats.spans("rejected_over_budget")
                return error(429, "too many request bytes in flight; retry later",
                             as_json=as_json, headers=(("Retry-After", RETRY_AFTER_S),))
            decoded = await big_json.decode(body, signal, decode)  # off this process's lock
            reservation.give(CHILD_COPIES * len(body))
        else:
            decoded = await asyncio.to_thread(decode)
    except MalformedRequest as bad:
        app.stats.spans("rejected_malformed")
        return error(400, str(bad), as_json=as_json)
    forged = app.ingest(decoded)
    app.forward(signal, body, content_type, len(decoded.spans) + len(decoded.logs), forged)
    return _export_response(signal, decoded, as_json)


async def _judge(app: ReceiverApp, body: bytes) -> Response:
    try:
        payload = json.loads(body)
        if not isinstance(payload, dict):
            raise ValueError("the body must be a JSON object")
        result = await app.judge_payload(payload)
    except (ValueError, TypeError, RecursionError) as bad:
        return error(400, f"bad judge request: {str(bad)[:300]}")
    return Response(200, json.dumps(result).encode(), JSON)


async def _plain(app: ReceiverApp, head: Head) -> Response:
    path = head.path.split("?", 1)[0]
    if path == "/healthz" and head.method == "GET":
        return Response(200, json.dumps(app.health()).encode(), JSON)
    if path == "/metrics" and head.method == "GET":
        return Response(200, app.stats.prometheus_text().encode(),
                        "text/plain; version=0.0.4; charset=utf-8")
    return error(404, f"no route for {head.method} {path}")


class HttpReceiver:
    """Serves the routes over HTTP/1.1 with keep-alive."""

    def __init__(self, app: ReceiverApp, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self.limits = network_limits(app.config)
        self.budget = app.inflight
        """The byte budget shared with the gRPC receiver (``--max-inflight-bytes``)."""
        self.judge_gate = JudgeGate(self.limits.judge_concurrency, self.limits.judge_queue)
        self._server: asyncio.Server | None = None
        self.big_json = JsonDecodeProcess(self.limits.decode_process_bytes, app.stats.note)
        """Large OTLP/JSON bodies, parsed in a process of their own (started at the first)."""
        self._connections: set[asyncio.Task[None]] = set()
        self._waiting: dict[asyncio.Task[None], float] = {}
        """Connections waiting for a request's head, by when they began to wait."""

    async def start(self) -> int:
        """Listen; returns the bound port (useful with port 0)."""
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        self.big_json.close()
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()

    def _connection(self, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter) -> HttpConnection:
        return HttpConnection(reader, writer, header_timeout_s=self.limits.header_timeout_s,
                              min_body_rate=self.limits.min_body_rate)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        ordinary = self.app.config.max_connections
        try:
            conn = self._connection(reader, writer)
            if len(self._connections) >= ordinary and self._evict():
                self.app.stats.spans("rejected_evicted")
            if len(self._connections) >= ordinary + self.limits.health_reserve:
                self.app.stats.spans("rejected_connections")
                await self._send(conn, error(503, "too many connections", close=True,
                                             headers=(("Retry-After", RETRY_AFTER_S),)))
                await conn.linger()
                return
            reserved = len(self._connections) >= ordinary
            if task is not None:
                self._connections.add(task)
            await self._requests(conn, reserved)
        except (TimeoutError, ConnectionError):
            return
        except asyncio.CancelledError:  # evicted or closing: ended normally, so asyncio logs
            return  # no traceback on this loop for each (hundreds a second under slowloris)
        except Exception as failure:  # one connection never takes the server down
            logger.warning("gsar sidecar: a connection failed: %s: %s", type(failure).__name__,
                           failure)
        finally:
            if task is not None:
                self._connections.discard(task)
                self._waiting.pop(task, None)
            writer.close()

    async def _requests(self, conn: HttpConnection, reserved: bool) -> None:
        """Serve requests on one connection until it closes (one only when ``reserved``)."""
        head_timeout = (min(RESERVE_HEAD_TIMEOUT_S, self.limits.header_timeout_s) if reserved
                        else None)
        first = True
        task = asyncio.current_task()
        while True:
            if task is not None:
                self._waiting[task] = asyncio.get_running_loop().time()
            try:
                head = await conn.request(first, head_timeout)
            except HttpFailure as failure:
                await self._fail(conn, failure)
                return
            finally:
                if task is not None:
                    self._waiting.pop(task, None)
            if head is None:
                return
            first = False
            if reserved and not self._may_use_reserve(head):
                self.app.stats.spans("rejected_connections")
                await self._send(conn, error(503, "too many connections", close=True,
                                             headers=(("Retry-After", RETRY_AFTER_S),)))
                await conn.linger()
                return
            keep = await self._one(conn, head)
            if reserved or not keep or head.headers.get("connection", "").lower() == "close":
                return

    def _evict(self) -> bool:
        """Make room for a new connection: close the one that has waited longest for a
        request's head (a slow or idle client), if it has waited ``EVICT_AFTER_S`` at least.
        True when one was closed."""
        if not self._waiting:
            return False
        task, since = min(self._waiting.items(), key=lambda item: item[1])
        if asyncio.get_running_loop().time() - since < EVICT_AFTER_S:
            return False
        del self._waiting[task]
        self._connections.discard(task)
        task.cancel()
        return True

    def _may_use_reserve(self, head: Head) -> bool:
        """``GET /healthz`` and ``/metrics``, and requests with the token (when one is set)."""
        path = head.path.split("?", 1)[0]
        if head.method == "GET" and path in ("/healthz", "/metrics"):
            return True
        return bool(self.app.config.token) and self.app.authorized(
            head.headers.get("authorization"))

    async def _one(self, conn: HttpConnection, head: Head) -> bool:
        """Answer one request; True when the connection may serve another."""
        early = _precheck(self.app, head)
        path = head.path.split("?", 1)[0]
        admitted = False
        if early is None and path == JUDGE:
            admitted = self.judge_gate.admit()
            if not admitted:
                self.app.stats.spans("rejected_judge_busy")
                early = error(429, "too many judge requests; retry later",
                              headers=(("Retry-After", RETRY_AFTER_S),))
        if early is not None:
            if conn.declared_length(head) == 0:  # nothing to skip: the connection lives on
                return await self._body_then(conn, head, early)
            await self._send(conn, Response(early.status, early.body, early.content_type,
                                            early.headers, close=True))
            await conn.linger()
            return False
        try:
            return await self._body_then(conn, head, None)
        finally:
            if admitted:
                self.judge_gate.leave()

    async def _body_then(self, conn: HttpConnection, head: Head,
                         answer: Response | None) -> bool:
        """Read the body, then answer ``answer`` or what the route gives."""
        reservation = self.budget.reservation()
        try:
            try:
                body = await conn.body(self.app.config.max_body_bytes, reservation)
            except HttpFailure as failure:
                await self._fail(conn, failure)
                return False
            if answer is None:
                try:
                    answer = await self._route(head, body, reservation)
                except Exception:
                    logger.exception("gsar sidecar: answering %s %s failed", head.method,
                                     head.path)
                    answer = error(500, "internal error")
        finally:
            reservation.release()
        return await self._send(conn, answer)

    async def _route(self, head: Head, body: bytes, reservation: Reservation) -> Response:
        path = head.path.split("?", 1)[0]
        if path in EXPORTS:
            return await _export(self.app, head, body, reservation, EXPORTS[path],
                                 self.big_json)
        if path == JUDGE:
            async with self.judge_gate.running:
                return await _judge(self.app, body)
        return await _plain(self.app, head)

    async def _fail(self, conn: HttpConnection, failure: HttpFailure) -> None:
        """Count a failed request, log one line, answer it and close."""
        self.app.stats.spans(f"rejected_{failure.reason}")
        log = logger.warning if failure.reason == FRAMING else logger.info
        log("gsar sidecar: %s (%d): %s", failure.reason, failure.status, failure.message)
        headers = (("Retry-After", RETRY_AFTER_S),) if failure.status == 429 else ()
        await self._send(conn, error(failure.status, failure.message, close=True,
                                     headers=headers))
        await conn.linger()

    async def _send(self, conn: HttpConnection, response: Response) -> bool:
        headers = [("Content-Type", response.content_type), *response.headers]
        return await conn.answer(response.status, response.body, headers, response.close)
