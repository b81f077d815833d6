"""What every conformance agent shares (runs inside a framework's own venv: the standard
library and the OpenTelemetry SDK only, nothing from gsar-otel).

An agent script answers "Why is db-prod-1 slow?" once per answer given on the command line,
each run in its own trace: the model (the framework's own test model, or a local fake OpenAI /
Anthropic server) first asks for the ``get_metrics`` tool, the tool returns :data:`ROW`, then the
model answers with the run's answer text. Spans (and log records, where the instrumentation
writes them) go over OTLP/HTTP to ``--endpoint``; the last stdout line is JSON: the trace id
of each run, in order.
"""

from __future__ import annotations

import argparse
import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
QUESTION = "Why is db-prod-1 slow?"
HOST_ARGUMENTS = {"host": "db-prod-1"}


def get_metrics(host: str) -> str:
    """Read the current metrics of a host."""
    return ROW if host == "db-prod-1" else f"host={host} unknown"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True, help="the sidecar's OTLP/HTTP base URL")
    parser.add_argument("--mode", default="", help="a variant of the agent, if it has several")
    parser.add_argument("answers", nargs="+")
    return parser.parse_args()


class _Roots(SpanProcessor):
    """Records the trace id of every local root span that ends."""

    def __init__(self) -> None:
        self.trace_ids: list[str] = []

    def on_end(self, span: ReadableSpan) -> None:
        if span.parent is None or span.parent.is_remote:
            trace_id = f"{span.context.trace_id:032x}"
            if trace_id not in self.trace_ids:
                self.trace_ids.append(trace_id)


@dataclass
class Telemetry:
    provider: TracerProvider
    roots: _Roots
    flushers: list[Callable[[], Any]] = field(default_factory=list)

    def flush(self) -> None:
        self.provider.force_flush()
        for flush in self.flushers:
            flush()


def setup(endpoint: str, service: str, *, logs: bool = False, global_provider: bool = True,
          processors: tuple[SpanProcessor, ...] = ()) -> Telemetry:
    """A tracer provider exporting in batches to the sidecar (and a logger provider when the
    instrumentation writes log records), set as the global ones; ``processors`` run on each
    span before it is exported (a converter such as OpenInference's for Strands)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    roots = _Roots()
    provider.add_span_processor(roots)
    for processor in processors:
        provider.add_span_processor(processor)
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
    if global_provider:
        trace.set_tracer_provider(provider)
    telemetry = Telemetry(provider, roots)
    if logs:
        from opentelemetry._logs import set_logger_provider
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logger_provider = LoggerProvider(resource=Resource.create({"service.name": service}))
        logger_provider.add_log_record_processor(BatchLogRecordProcessor(
            OTLPLogExporter(endpoint=f"{endpoint}/v1/logs")))
        set_logger_provider(logger_provider)
        telemetry.flushers.append(logger_provider.force_flush)
    return telemetry


def run_all(telemetry: Telemetry, answers: list[str], run_one: Callable[[str], Any], *,
            last_trace: bool = False) -> None:
    """Run the agent once per answer, flushing after each run; print the runs' trace ids
    (``last_trace``: a run makes several traces, the last one holds its answer)."""
    runs: list[dict[str, str]] = []
    for answer in answers:
        before = len(telemetry.roots.trace_ids)
        run_one(answer)
        telemetry.flush()
        new = telemetry.roots.trace_ids[before:]
        if len(new) != 1 and not (last_trace and new):
            raise SystemExit(f"one run made {len(new)} traces: {new}")
        runs.append({"answer": answer, "trace_id": new[-1]})
    telemetry.provider.shutdown()
    print(json.dumps({"runs": runs}))


# --- a local fake model server -----------------------------------------------------------------


class FakeModel:
    """What the fake servers answer: a tool call until a tool result is in the conversation,
    then :attr:`answer`."""

    answer = ""
    calls = 0

    @classmethod
    def next_call_id(cls, prefix: str) -> str:
        cls.calls += 1
        return f"{prefix}{cls.calls}"


def _has_tool_result(request: dict[str, Any]) -> bool:
    for message in request.get("messages") or request.get("input") or ():
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" or message.get("type") == "function_call_output":
            return True
        content = message.get("content")
        if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return True
    return False


def _openai_chat(request: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if _has_tool_result(request):
        return {"role": "assistant", "content": FakeModel.answer}, "stop"
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": FakeModel.next_call_id("call_"), "type": "function", "function": {
            "name": "get_metrics", "arguments": json.dumps(HOST_ARGUMENTS)}}]}, "tool_calls"


def _openai_body(request: dict[str, Any]) -> bytes:
    message, finish = _openai_chat(request)
    return json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "gpt-4o"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}}).encode()


def _openai_stream(request: dict[str, Any]) -> Iterator[bytes]:
    message, finish = _openai_chat(request)
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": request.get("model", "gpt-4o")}
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
    else:
        delta["content"] = message["content"]
    chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
              {**base, "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 10,
                                                "total_tokens": 30}}]
    for chunk in chunks:
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _anthropic_body(request: dict[str, Any]) -> bytes:
    if _has_tool_result(request):
        content: list[dict[str, Any]] = [{"type": "text", "text": FakeModel.answer}]
        stop = "end_turn"
    else:
        content = [{"type": "tool_use", "id": FakeModel.next_call_id("toolu_"),
                    "name": "get_metrics", "input": HOST_ARGUMENTS}]
        stop = "tool_use"
    return json.dumps({
        "id": "msg_1", "type": "message", "role": "assistant", "model": request.get("model"),
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 10}}).encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if self.path.endswith("/messages"):
            self._send(_anthropic_body(request), "application/json")
        elif request.get("stream"):
            self._send(b"".join(_openai_stream(request)), "text/event-stream")
        else:
            self._send(_openai_body(request), "application/json")

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def fake_server() -> str:
    """Start the fake OpenAI / Anthropic server on a loopback port; returns its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


@contextmanager
def answering(answer: str) -> Iterator[None]:
    """The fake servers answer ``answer`` inside the block."""
    FakeModel.answer = answer
    try:
        yield
    finally:
        FakeModel.answer = ""
