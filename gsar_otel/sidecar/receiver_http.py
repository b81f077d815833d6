"""OTLP/HTTP on a small asyncio HTTP/1.1 server (standard library only).

``POST /v1/traces`` and ``/v1/logs`` take protobuf (``application/x-protobuf``) or JSON
(``application/json``), optionally gzip-compressed; answers follow the OTLP specification:
200 with ``partial_success`` when some items were rejected, 400 for an undecodable body, 413 over
the body limit (before reading it) or over the decompressed-size cap (while inflating, so a gzip
bomb costs at most the cap), 415 for another content type or encoding, 429 with ``Retry-After``
under backpressure, 401 without the bearer token. Also ``GET /healthz``, ``GET /metrics`` and
``POST /v1/judge``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from google.rpc import status_pb2  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from gsar_otel.sidecar.spans import Decoded, MalformedRequest, decode_logs, decode_traces

if TYPE_CHECKING:
    from gsar_otel.sidecar.server import Sidecar

logger = logging.getLogger(__name__)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
MAX_HEADER_BYTES = 16 * 1024
MAX_HEADERS = 100
IDLE_TIMEOUT_S = 60.0
RETRY_AFTER_S = "1"
LINGER_BYTES = 256 * 1024
LINGER_S = 1.0
"""After an answer that closes the connection early, what is still read and dropped, and for
how long at most."""
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            405: "Method Not Allowed", 411: "Length Required", 413: "Content Too Large",
            415: "Unsupported Media Type", 429: "Too Many Requests", 431: "Request Header "
            "Fields Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    close: bool = False


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class BodyTooLarge(ValueError):
    """The (decompressed) body passed its limit."""


def inflate(body: bytes, limit: int) -> bytes:
    """Gunzip ``body``, stopping as soon as the output would pass ``limit`` bytes.

    Raises:
        BodyTooLarge: the decompressed body is over ``limit``.
        MalformedRequest: not gzip data.
    """
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error as error:
        raise MalformedRequest(f"not gzip data: {error}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise BodyTooLarge(f"decompressed body over {limit} bytes")
    if not inflater.eof:
        raise MalformedRequest("truncated gzip data")
    return out


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


async def route(app: Sidecar, request: Request) -> Response:
    """Answer one request."""
    path = request.path.split("?", 1)[0]
    if path in ("/v1/traces", "/v1/logs", "/v1/judge"):
        if request.method != "POST":
            return error(405, f"{path} takes POST", headers=(("Allow", "POST"),))
        if not app.authorized(request.headers.get("authorization")):
            return error(401, "missing or wrong bearer token",
                         headers=(("WWW-Authenticate", "Bearer"),))
        if path == "/v1/judge":
            return await _judge(app, request)
        return await _export(app, request, "traces" if path == "/v1/traces" else "logs")
    if path == "/healthz" and request.method == "GET":
        return Response(200, json.dumps(app.health()).encode(), JSON)
    if path == "/metrics" and request.method == "GET":
        return Response(200, app.stats.prometheus_text().encode(),
                        "text/plain; version=0.0.4; charset=utf-8")
    return error(404, f"no route for {request.method} {path}")


async def _export(app: Sidecar, request: Request, signal: str) -> Response:
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type not in (PROTOBUF, JSON):
        app.stats.spans("rejected_content_type")
        return error(415, f"content type must be {PROTOBUF} or {JSON}, got {content_type!r}")
    as_json = content_type == JSON
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    body = request.body
    if encoding == "gzip":
        try:
            body = inflate(body, app.config.max_decompressed_bytes)
        except BodyTooLarge as too_large:
            app.stats.spans("rejected_too_large")
            return error(413, str(too_large), as_json=as_json)
        except MalformedRequest as bad:
            app.stats.spans("rejected_malformed")
            return error(400, str(bad), as_json=as_json)
    elif encoding not in ("", "identity"):
        app.stats.spans("rejected_encoding")
        return error(415, f"content encoding must be gzip or identity, got {encoding!r}",
                     as_json=as_json)
    if app.busy():
        app.stats.spans("rejected_busy")
        return error(429, "the judging queue is full; retry later", as_json=as_json,
                     headers=(("Retry-After", RETRY_AFTER_S),))
    decode = decode_traces if signal == "traces" else decode_logs
    try:
        decoded = await asyncio.to_thread(decode, body, json_encoded=as_json)
    except MalformedRequest as bad:
        app.stats.spans("rejected_malformed")
        return error(400, str(bad), as_json=as_json)
    app.ingest(decoded)
    app.forward(signal, body, content_type, len(decoded.spans) + len(decoded.logs))
    return _export_response(signal, decoded, as_json)


async def _judge(app: Sidecar, request: Request) -> Response:
    try:
        payload = json.loads(request.body)
        if not isinstance(payload, dict):
            raise ValueError("the body must be a JSON object")
        result = await app.judge_payload(payload)
    except (ValueError, TypeError, RecursionError) as bad:
        return error(400, f"bad judge request: {str(bad)[:300]}")
    return Response(200, json.dumps(result).encode(), JSON)


class HttpReceiver:
    """Serves :func:`route` over HTTP/1.1 with keep-alive."""

    def __init__(self, app: Sidecar, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen; returns the bound port (useful with port 0)."""
        self._server = await asyncio.start_server(self._serve, self.host, self.port,
                                                  limit=MAX_HEADER_BYTES)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if len(self._connections) >= self.app.config.max_connections:
            self.app.stats.spans("rejected_connections")
            try:
                await self._write(writer, error(503, "too many connections", close=True,
                                                headers=(("Retry-After", RETRY_AFTER_S),)))
                await _linger(reader)
            except (ConnectionError, TimeoutError):
                pass
            finally:
                writer.close()
            return
        if task is not None:
            self._connections.add(task)
        try:
            while True:
                try:
                    request = await asyncio.wait_for(self._read(reader, writer), IDLE_TIMEOUT_S)
                except _Answer as early:
                    await self._write(writer, early.response)
                    await _linger(reader)
                    return
                if request is None:
                    return
                try:
                    response = await route(self.app, request)
                except Exception:
                    logger.exception("gsar sidecar: answering %s %s failed", request.method,
                                     request.path)
                    response = error(500, "internal error")
                keep = request.headers.get("connection", "").lower() != "close"
                await self._write(writer, response if keep else Response(
                    response.status, response.body, response.content_type, response.headers,
                    close=True))
                if response.close or not keep:
                    return
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _read(self, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter) -> Request | None:
        try:
            line = await reader.readuntil(b"\r\n")
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError:
            raise _Answer(error(431, "request line too long", close=True)) from None
        parts = line.decode("latin-1").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise _Answer(error(400, "malformed request line", close=True))
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADERS + 1):
            try:
                raw = await reader.readuntil(b"\r\n")
            except asyncio.LimitOverrunError:
                raise _Answer(error(431, "header too long", close=True)) from None
            if raw == b"\r\n":
                break
            name, sep, value = raw.decode("latin-1").partition(":")
            if not sep:
                raise _Answer(error(400, "malformed header", close=True))
            headers[name.strip().lower()] = value.strip()
        else:
            raise _Answer(error(431, "too many headers", close=True))
        body = await self._body(reader, writer, headers, parts[0])
        return Request(parts[0].upper(), parts[1], headers, body)

    async def _body(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    headers: dict[str, str], method: str) -> bytes:
        limit = self.app.config.max_body_bytes
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length_text = headers.get("content-length")
        if not chunked and length_text is None:
            if method.upper() == "POST":
                raise _Answer(error(411, "Content-Length required", close=True))
            return b""
        if not chunked:
            if not (length_text or "").isdigit():
                raise _Answer(error(400, "bad Content-Length", close=True))
            length = int(length_text or 0)
            if length > limit:
                self.app.stats.spans("rejected_too_large")
                raise _Answer(error(413, f"body over {limit} bytes", close=True))
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await writer.drain()
        if not chunked:
            return await reader.readexactly(length)
        return await self._chunks(reader, limit)

    async def _chunks(self, reader: asyncio.StreamReader, limit: int) -> bytes:
        body = bytearray()
        while True:
            size_line = (await reader.readuntil(b"\r\n")).split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise _Answer(error(400, "bad chunk size", close=True)) from None
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass
                return bytes(body)
            if len(body) + size > limit:
                self.app.stats.spans("rejected_too_large")
                raise _Answer(error(413, f"body over {limit} bytes", close=True))
            body += await reader.readexactly(size)
            await reader.readexactly(2)

    async def _write(self, writer: asyncio.StreamWriter, response: Response) -> None:
        head = [f"HTTP/1.1 {response.status} {_REASONS.get(response.status, 'Status')}",
                f"Content-Type: {response.content_type}",
                f"Content-Length: {len(response.body)}"]
        head.extend(f"{name}: {value}" for name, value in response.headers)
        if response.close:
            head.append("Connection: close")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + response.body)
        await writer.drain()


async def _linger(reader: asyncio.StreamReader) -> None:
    """Read and drop what the client still sends (a little, briefly) before closing, so that
    closing with unread data does not reset the connection before it reads our answer."""
    async def drain() -> None:
        left = LINGER_BYTES
        while left > 0 and (chunk := await reader.read(min(left, 16_384))):
            left -= len(chunk)

    await asyncio.wait_for(drain(), LINGER_S)


class _Answer(Exception):
    """Answer now with this response and close the connection."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status)
        self.response = response
