"""Names read from an agent's spans are exported whatever content capture says, so a secret in
one is masked like content: the agent's name (``gsar.function``, the verdict span's name, the
metrics), the run span's name and each tool's name (evidence sources, on the span and on the
claim events), on a judged run, a skipped run and ``/v1/judge``; a plain name is kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gsar_otel.core.redact import REDACTED
from tests.sidecar.support import CPU_ROW, GROUNDED, RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import kv, otlp_json, post, span

SECRETS = {
    "agent": "sk-ant-api03-Zq8vR2mK9xT4wL7nB3cF6hJ1",
    "run span": "ghp_4fK9mQ2xV7bN1cR8tL3wZ6yH0jD5sA2eP9uG",
    "tool": "AKIAZ7QW3ERT5YUI8OPA",
    "function": "xoxb-2048-7719-Qe4Rt6Yu8Io0",
}
AGENT = f"ops-bot {SECRETS['agent']}"
RUN_SPAN = f"invoke_agent {SECRETS['run span']}"
TOOL = f"query_{SECRETS['tool']}"
PLAIN_TOOL = "get_metrics"


def _run(trace_id: str, *, answer: bool) -> bytes:
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": GROUNDED}],
                         "finish_reason": "stop"}])
    root, tool, plain = "a" * 16, "b" * 16, "c" * 16
    agent = [kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", AGENT)]
    if answer:
        agent.append(kv("gen_ai.output.messages", final))
    return otlp_json(
        span(tool, root, f"execute_tool {TOOL}", [
            kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", TOOL),
            kv("gen_ai.tool.call.id", "call_1"), kv("gen_ai.tool.call.result", CPU_ROW)],
             trace_id),
        span(plain, root, f"execute_tool {PLAIN_TOOL}", [
            kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", PLAIN_TOOL),
            kv("gen_ai.tool.call.id", "call_2"), kv("gen_ai.tool.call.result", "region=eu")],
             trace_id),
        span(root, "", RUN_SPAN, agent, trace_id))


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict) or hasattr(value, "items"):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)


def _exported(running: RunningSidecar) -> list[str]:
    """Every span name, attribute and event attribute the sidecar exported, and every metric
    point's attributes."""
    out: list[str] = []
    for item in running.exporter.get_finished_spans():
        out.append(item.name)
        out.extend(_texts(dict(item.attributes or {})))
        for event in item.events:
            out.append(event.name)
            out.extend(_texts(dict(event.attributes or {})))
    data = running.reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    out.extend(_texts(dict(point.attributes or {})))
    return out


@pytest.mark.parametrize("capture_content", [False, True])
def test_secrets_in_agent_run_span_and_tool_names_are_masked_on_every_exported_span(
        capture_content: bool) -> None:
    running = start_sidecar(capture_content=capture_content)
    try:
        assert post(running, _run("1" * 32, answer=True))[0] == 200
        assert post(running, _run("2" * 32, answer=False))[0] == 200
        body = json.dumps({"answer": GROUNDED, "evidence": [CPU_ROW],
                           "function": f"api {SECRETS['function']}"}).encode()
        assert post(running, body, path="/v1/judge")[0] == 200
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 1
                         and stats.get("runs_skipped") == 1, "both runs")
        running.wait_for(lambda: len(running.evaluations()) == 2, "both verdict spans")
    finally:
        running.stop()
    exported = _exported(running)
    for where, secret in SECRETS.items():
        leaks = [text for text in exported if secret in text]
        assert not leaks, f"the {where} secret reached the sidecar's telemetry: {leaks[:3]}"
    [judged] = [s for s in running.evaluations() if s.attributes
                and s.attributes.get("gsar.source") == "sidecar"]
    attributes = dict(judged.attributes or {})
    assert judged.name == f"gsar.evaluate ops-bot {REDACTED}"
    assert attributes["gsar.function"] == f"ops-bot {REDACTED}"
    assert attributes["gsar.sidecar.run.span_name"] == f"invoke_agent {REDACTED}"
    sources = list(attributes["gsar.sidecar.evidence.sources"])  # type: ignore[arg-type]
    assert sources == [f"query_{REDACTED}@{'b' * 16}", f"{PLAIN_TOOL}@{'c' * 16}"]
    claim_sources = [source for event in judged.events if event.name == "gsar.claim"
                     for source in (event.attributes or {}).get("gsar.claim.evidence_sources", ())]
    assert f"query_{REDACTED}@{'b' * 16}@E1" in claim_sources  # cites the masked tool
    [skipped] = [s for s in running.exporter.get_finished_spans()
                 if s.name == "gsar.sidecar.skipped"]
    assert (skipped.attributes or {})["gsar.function"] == f"ops-bot {REDACTED}"
