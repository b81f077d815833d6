"""End to end into a real Arize Phoenix: an agent traced with the OpenTelemetry SDK (GenAI
semconv) sends its spans to the sidecar, as a tee (to Phoenix and to the sidecar) or in line
(only to the sidecar, which forwards them); the sidecar's grounding span is read back from
Phoenix in the agent's own trace, a child of the run span, for a grounded and an over-reaching
run."""

from __future__ import annotations

import uuid

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from gsar_otel import semconv as sc
from tests.sidecar.support import (
    GROUNDED,
    OVERREACHING,
    agent_tracer,
    run_genai_agent,
    start_sidecar,
)
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer, phoenix

pytestmark = pytest.mark.e2e
__all__ = ["phoenix"]

AGENT_SPANS = 4  # invoke_agent, chat, execute_tool, chat
SIDECAR_SPANS = 2  # gsar.evaluate, gsar.judge


@pytest.mark.parametrize(("placement", "answer", "decision"), [
    ("tee", GROUNDED, "proceed"), ("inline", OVERREACHING, "replan")])
def test_the_grounding_span_reads_back_from_phoenix_in_the_agents_trace(
        phoenix: PhoenixServer, placement: str, answer: str, decision: str) -> None:
    project = f"gsar-sidecar-{placement}-{uuid.uuid4().hex[:8]}"
    resource = {PROJECT_RESOURCE_ATTRIBUTE: project}
    running = start_sidecar(
        span_exporters=(OTLPSpanExporter(endpoint=phoenix.otlp_http_endpoint),),
        resource={"service.name": "gsar-sidecar", **resource},
        forward=phoenix.otlp_http_endpoint if placement == "inline" else None)
    try:
        to_sidecar = OTLPSpanExporter(endpoint=f"{running.http}/v1/traces")
        exporters = ((to_sidecar,) if placement == "inline" else
                     (OTLPSpanExporter(endpoint=phoenix.otlp_http_endpoint), to_sidecar))
        tracer, provider = agent_tracer(*exporters, resource=resource)
        trace_id, run_id = run_genai_agent(tracer, answer)
        provider.shutdown()
        running.wait_for(lambda: len(running.evaluations()) == 1, "the evaluation")
    finally:
        running.stop()

    spans = phoenix.wait_for_spans(project, count=AGENT_SPANS + SIDECAR_SPANS)
    names = sorted(s["name"] for s in spans)
    assert names.count("gsar.evaluate incident-bot") == 1 and names.count("chat gpt-4o") == 2
    [run] = [s for s in spans if s["name"] == "invoke_agent incident-bot"]
    [evaluate] = [s for s in spans if s["name"] == "gsar.evaluate incident-bot"]
    assert run["context"]["span_id"] == f"{run_id:016x}"
    assert evaluate["context"]["trace_id"] == run["context"]["trace_id"] == f"{trace_id:032x}"
    assert evaluate["parent_id"] == run["context"]["span_id"]
    assert evaluate["span_kind"] == sc.OPENINFERENCE_SPAN_KIND_EVALUATOR
    attributes = evaluate["attributes"]
    assert attributes[sc.GSAR_SOURCE] == "sidecar"
    assert attributes[sc.GSAR_SIDECAR_CONVENTION] == "genai"
    assert attributes[sc.GSAR_DECISION] == decision
    [result] = [e["attributes"] for e in evaluate["events"]
                if e["name"] == sc.EVENT_GEN_AI_EVALUATION_RESULT]
    assert result[sc.GEN_AI_EVALUATION_SCORE_LABEL] == decision
