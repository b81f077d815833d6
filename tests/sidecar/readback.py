"""Read the sidecar's grounding span back from a real Phoenix, for the end-to-end tests of every
agent kind: the span must be in the agent's own trace, a child of the run span, with one link to
it, filed as an OpenInference EVALUATOR with the decision and the ``gen_ai.evaluation.result``
event."""

from __future__ import annotations

import uuid
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from gsar_otel import semconv as sc
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer

SIDECAR_SPANS = 2
"""What the sidecar writes per judged run: ``gsar.evaluate`` and its ``gsar.judge`` child."""


def new_project(kind: str) -> str:
    """A Phoenix project of one's own, so tests never see each other's spans."""
    return f"gsar-sidecar-{kind}-{uuid.uuid4().hex[:8]}"


def sidecar_into_phoenix(phoenix: PhoenixServer, project: str, *, inline: bool,
                         **config: Any) -> RunningSidecar:
    """A sidecar whose own spans go to Phoenix under ``project``; in line, it also forwards
    every request it receives there."""
    return start_sidecar(
        span_exporters=(OTLPSpanExporter(endpoint=phoenix.otlp_http_endpoint),),
        resource={"service.name": "gsar-sidecar", PROJECT_RESOURCE_ATTRIBUTE: project},
        forward=phoenix.otlp_http_endpoint if inline else None, **config)


def read_back(phoenix: PhoenixServer, project: str, *, trace_id: str, run_span_id: str,
              agent_spans: int, decision: str, convention: str) -> dict[str, Any]:
    """Wait for the agent's spans and the sidecar's in ``project``; check the grounding span
    sits in the agent's trace under the run span; return it (Phoenix's span form)."""
    spans = phoenix.wait_for_spans(project, count=agent_spans + SIDECAR_SPANS)
    assert len(spans) == agent_spans + SIDECAR_SPANS, [s["name"] for s in spans]
    assert {s["context"]["trace_id"] for s in spans} == {trace_id}
    [run] = [s for s in spans if s["context"]["span_id"] == run_span_id]
    [evaluate] = [s for s in spans if s["name"].startswith(sc.SPAN_EVALUATE)]
    assert evaluate["parent_id"] == run["context"]["span_id"]
    assert evaluate["span_kind"] == sc.OPENINFERENCE_SPAN_KIND_EVALUATOR
    attributes = evaluate["attributes"]
    assert attributes[sc.GSAR_SOURCE] == "sidecar"
    assert attributes[sc.GSAR_SIDECAR_CONVENTION] == convention
    assert attributes[sc.GSAR_DECISION] == decision
    [result] = [e["attributes"] for e in evaluate["events"]
                if e["name"] == sc.EVENT_GEN_AI_EVALUATION_RESULT]
    assert result[sc.GEN_AI_EVALUATION_SCORE_LABEL] == decision
    return evaluate
