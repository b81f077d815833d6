"""A sidecar running on its own event loop in a thread, with in-memory exporters, and an
"agent" traced with the OpenTelemetry SDK that emits GenAI-semconv spans."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

from gsar_otel.core.protocol import Judge
from gsar_otel.judges.lexical.judge import LexicalJudge
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from gsar_otel.sidecar.server import Sidecar, SidecarConfig

CPU_ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
GROUNDED = "CPU on db-prod-1 reached 97.2% at 14:02."
OVERREACHING = ("CPU on db-prod-1 reached 97.2% at 14:02. The spike was caused by a runaway "
                "query from the billing service.")


@dataclass
class RunningSidecar:
    sidecar: Sidecar
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.sidecar.http_port}"

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the sidecar's loop (the assembler belongs to it)."""
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def wait_for(self, predicate: Callable[[], bool], what: str, bound_s: float = 30.0) -> None:
        """Poll until ``predicate`` holds; fail (not a speed assert: a generous bound)."""
        end = time.monotonic() + bound_s
        while not predicate():
            if time.monotonic() > end:
                raise AssertionError(f"gave up waiting for {what}; counts: "
                                     f"{self.sidecar.stats.snapshot()}")
            time.sleep(0.01)

    def evaluations(self) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans()
                if s.name.startswith("gsar.evaluate")]

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.sidecar.stop(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def start_sidecar(*, judge: Judge | None = None, decision_wait_s: float = 0.05,
                  max_age_s: float = 10.0, span_exporters: tuple[SpanExporter, ...] = (),
                  resource: dict[str, str] | None = None, clock: Callable[[], float] | None = None,
                  grpc_interceptors: tuple[Any, ...] = (), **config: Any) -> RunningSidecar:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider(resource=Resource.create(resource or {}))
    for extra in (exporter, *span_exporters):
        tracer_provider.add_span_processor(SimpleSpanProcessor(extra))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    limits = config.pop("limits", None) or AssemblyLimits(decision_wait_s=decision_wait_s,
                                                          max_age_s=max_age_s)
    settings = SidecarConfig(http_port=0, grpc_port=config.pop("grpc_port", 0), limits=limits,
                             tick_s=0.01, **config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    sidecar = Sidecar(settings, tracer_provider=tracer_provider, meter_provider=meter_provider,
                      judge=judge or LexicalJudge(), clock=clock or time.monotonic,
                      grpc_interceptors=grpc_interceptors)
    asyncio.run_coroutine_threadsafe(sidecar.start(), loop).result(10)
    return RunningSidecar(sidecar, loop, thread, exporter, reader)


def agent_tracer(*exporters: SpanExporter, resource: dict[str, str] | None = None
                 ) -> tuple[Tracer, TracerProvider]:
    """A tracer exporting each span as it ends (children before their root, as in life)."""
    provider = TracerProvider(resource=Resource.create(
        {"service.name": "incident-agent", **(resource or {})}))
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("incident-agent"), provider


def messages(*items: dict[str, Any]) -> str:
    return json.dumps(list(items))


def run_genai_agent(tracer: Tracer, answer: str, tool_result: str = CPU_ROW) -> tuple[int, int]:
    """One agent run in GenAI semconv v1.41 shape: invoke_agent > chat (tool call) >
    execute_tool > chat (final). Returns (trace id, run span id)."""
    user = {"role": "user", "parts": [{"type": "text", "content": "Why is db-prod-1 slow?"}]}
    call = {"role": "assistant", "finish_reason": "tool_call", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "get_metrics",
         "arguments": {"host": "db-prod-1"}}]}
    result = {"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "call_1", "response": tool_result}]}
    final = {"role": "assistant", "finish_reason": "stop",
             "parts": [{"type": "text", "content": answer}]}
    with tracer.start_as_current_span("invoke_agent incident-bot", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "incident-bot",
            "gen_ai.provider.name": "openai"}) as agent:
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.input.messages": messages(user),
                "gen_ai.output.messages": messages(call)}):
            pass
        with tracer.start_as_current_span("execute_tool get_metrics", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
                "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.result": tool_result}):
            pass
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.input.messages": messages(user, call, result),
                "gen_ai.output.messages": messages(final)}):
            pass
        agent.set_attribute("gen_ai.output.messages", messages(final))
        context = agent.get_span_context()
    return context.trace_id, context.span_id


class GatedJudge:
    """The lexical judge behind a gate: each call waits until ``release`` is set; counts how
    many calls run at once."""

    name = "gated"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.inner = LexicalJudge()
        self.running = 0
        self.most_at_once = 0
        self.calls = 0
        self._lock = threading.Lock()

    async def judge(self, *, synthesis: str, evidence: Any) -> Any:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            while not self.release.is_set():
                await asyncio.sleep(0.005)
            return await self.inner.judge(synthesis=synthesis, evidence=evidence)
        finally:
            with self._lock:
                self.running -= 1


class RaisingJudge:
    """A judge that always fails."""

    name = "raising"

    async def judge(self, *, synthesis: str, evidence: Any) -> Any:
        raise RuntimeError("the judge backend is down")


def retry_delay_s(error: Any) -> float | None:
    """The ``RetryInfo`` delay a gRPC error carries (None: no ``RetryInfo``, not retryable)."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
    return None


def start_sidecar_command(*flags: str, env: dict[str, str]
                          ) -> tuple[subprocess.Popen[str], str, str]:
    """``gsar sidecar FLAGS`` in a process of its own, its OTLP/HTTP base URL once it listens
    (read from the line it logs on stderr) and the stderr read up to that line."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from gsar_otel.cli import main; sys.exit(main())",
         "sidecar", *flags], stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    lines = [process.stderr.readline()]
    while "OTLP/HTTP" not in lines[-1] and lines[-1] and len(lines) < 50:
        lines.append(process.stderr.readline())
    port = re.search(r"127\.0\.0\.1:(\d+)", lines[-1])
    if port is None:
        process.kill()
        process.wait(timeout=10)
        raise AssertionError(f"gsar sidecar did not say where it listens: {lines}")
    return process, f"http://127.0.0.1:{port.group(1)}", "".join(lines)


class Clock:
    """Monotonic seconds a test steps by hand (the assembler's and the sidecar's clock)."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now
