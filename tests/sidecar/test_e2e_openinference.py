"""End to end with a real instrumentation package: the official ``openai`` SDK, instrumented by
``openinference-instrumentation-openai``, calls a local fake Chat Completions server; the agent
runs the tool itself and sends everything with the OTLP/HTTP exporter to a running sidecar. The
sidecar reads the OpenInference LLM spans (the tool result rides as a ``role: tool`` input
message) and writes its grounding span into the agent's trace, which is read back from a real
Phoenix: the grounded run as a tee (the agent exports to Phoenix and to the sidecar), the
over-reaching one in line (the agent exports only to the sidecar, which forwards)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from gsar_otel import semconv as sc
from tests.sidecar.readback import new_project, read_back, sidecar_into_phoenix
from tests.sidecar.support import CPU_ROW, GROUNDED, OVERREACHING, agent_tracer
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer

pytestmark = pytest.mark.e2e
AGENT_SPANS = 3  # the root and two OpenInference LLM spans


def _completion(message: dict[str, Any], finish: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}}).encode()


class _FakeOpenAI(http.server.BaseHTTPRequestHandler):
    """Asks for the metrics tool first; once a tool result is in the conversation, answers."""

    answer = GROUNDED

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if any(m.get("role") == "tool" for m in request["messages"]):
            body = _completion({"role": "assistant", "content": type(self).answer}, "stop")
        else:
            body = _completion({"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function", "function": {
                    "name": "get_metrics", "arguments": '{"host": "db-prod-1"}'}}]},
                "tool_calls")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def llm() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def _run_agent(client: OpenAI, tracer: Any) -> tuple[int, int]:
    """One tool-using run under a plain root span (no agent convention: the root is the run)."""
    with tracer.start_as_current_span("handle incident") as root:
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": "Why is db-prod-1 slow?"}]
        first = client.chat.completions.create(model="gpt-4o", messages=messages)  # type: ignore[arg-type]
        call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
        messages.append(first.choices[0].message.model_dump(exclude_none=True))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": CPU_ROW})
        client.chat.completions.create(model="gpt-4o", messages=messages)  # type: ignore[arg-type]
        context = root.get_span_context()
    return context.trace_id, context.span_id


@pytest.mark.parametrize(("placement", "answer", "decision"), [
    ("tee", GROUNDED, "proceed"), ("inline", OVERREACHING, "replan")])
def test_an_openinference_instrumented_openai_agent_is_judged_in_its_trace_in_phoenix(
        llm: str, phoenix: PhoenixServer, placement: str, answer: str, decision: str) -> None:
    _FakeOpenAI.answer = answer
    project = new_project(f"openinference-{placement}")
    running = sidecar_into_phoenix(phoenix, project, inline=placement == "inline")
    try:
        to_sidecar = OTLPSpanExporter(endpoint=f"{running.http}/v1/traces")
        exporters = ((to_sidecar,) if placement == "inline" else
                     (OTLPSpanExporter(endpoint=phoenix.otlp_http_endpoint), to_sidecar))
        tracer, provider = agent_tracer(*exporters,
                                        resource={PROJECT_RESOURCE_ATTRIBUTE: project})
        instrumentor = OpenAIInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        try:
            trace_id, run_id = _run_agent(
                OpenAI(api_key="test-key", base_url=llm, max_retries=0), tracer)
        finally:
            instrumentor.uninstrument()
            provider.shutdown()
        running.wait_for(lambda: len(running.evaluations()) == 1, "the grounding span")
    finally:
        running.stop()
    (evaluation,) = running.evaluations()
    attributes = evaluation.attributes
    assert attributes is not None and evaluation.context.trace_id == trace_id
    assert [link.context.span_id for link in evaluation.links] == [run_id]
    assert attributes[sc.GSAR_EVIDENCE_COUNT] == 1
    assert "test-key" not in json.dumps({k: str(v) for k, v in attributes.items()})
    read_back(phoenix, project, trace_id=f"{trace_id:032x}", run_span_id=f"{run_id:016x}",
              agent_spans=AGENT_SPANS, decision=decision, convention="openinference")
