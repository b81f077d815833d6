"""End to end into a real Arize Phoenix: an agent traced with the OpenTelemetry SDK (GenAI
semconv) sends its spans to the sidecar, as a tee (to Phoenix and to the sidecar) or in line
(only to the sidecar, which forwards them); the sidecar's grounding span is read back from
Phoenix in the agent's own trace, a child of the run span, for a grounded and an over-reaching
run. (The OpenInference-instrumented and Node.js agents are read back alike in their own
modules.)"""

from __future__ import annotations

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from tests.sidecar.readback import new_project, read_back, sidecar_into_phoenix
from tests.sidecar.support import GROUNDED, OVERREACHING, agent_tracer, run_genai_agent
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer

pytestmark = pytest.mark.e2e

AGENT_SPANS = 4  # invoke_agent, chat, execute_tool, chat


@pytest.mark.parametrize(("placement", "answer", "decision"), [
    ("tee", GROUNDED, "proceed"), ("inline", OVERREACHING, "replan")])
def test_the_grounding_span_reads_back_from_phoenix_in_the_agents_trace(
        phoenix: PhoenixServer, placement: str, answer: str, decision: str) -> None:
    project = new_project(placement)
    running = sidecar_into_phoenix(phoenix, project, inline=placement == "inline")
    try:
        to_sidecar = OTLPSpanExporter(endpoint=f"{running.http}/v1/traces")
        exporters = ((to_sidecar,) if placement == "inline" else
                     (OTLPSpanExporter(endpoint=phoenix.otlp_http_endpoint), to_sidecar))
        tracer, provider = agent_tracer(*exporters,
                                        resource={PROJECT_RESOURCE_ATTRIBUTE: project})
        trace_id, run_id = run_genai_agent(tracer, answer)
        provider.shutdown()
        running.wait_for(lambda: len(running.evaluations()) == 1, "the evaluation")
    finally:
        running.stop()
    evaluate = read_back(phoenix, project, trace_id=f"{trace_id:032x}",
                         run_span_id=f"{run_id:016x}", agent_spans=AGENT_SPANS,
                         decision=decision, convention="genai")
    assert evaluate["name"] == "gsar.evaluate incident-bot"
