"""End to end: an agent traced with the OpenTelemetry SDK exports GenAI-semconv spans with the
real OTLP exporters to a running sidecar, which writes its grounding span into the same trace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcSpanExporter,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel import semconv as sc
from tests.sidecar.support import (
    GROUNDED,
    OVERREACHING,
    RunningSidecar,
    agent_tracer,
    run_genai_agent,
    start_sidecar,
)


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar(grpc_port=0)
    yield running
    running.stop()


def _evaluation_of(running: RunningSidecar, trace_id: int) -> object:
    running.wait_for(lambda: any(s.context.trace_id == trace_id
                                 for s in running.evaluations()), "the grounding span")
    (span,) = [s for s in running.evaluations() if s.context.trace_id == trace_id]
    return span


def test_grounded_run_proceeds_and_over_reaching_run_does_not(sidecar: RunningSidecar) -> None:
    tracer, provider = agent_tracer(OTLPSpanExporter(endpoint=f"{sidecar.http}/v1/traces"))
    sent = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(sent))
    good_trace, good_run = run_genai_agent(tracer, GROUNDED)
    bad_trace, bad_run = run_genai_agent(tracer, OVERREACHING)
    provider.shutdown()

    good = _evaluation_of(sidecar, good_trace)
    bad = _evaluation_of(sidecar, bad_trace)
    for span, run_span_id in ((good, good_run), (bad, bad_run)):
        attributes = span.attributes  # type: ignore[attr-defined]
        assert span.parent.span_id == run_span_id  # type: ignore[attr-defined]
        (link,) = span.links  # type: ignore[attr-defined]
        assert link.context.span_id == run_span_id
        assert attributes[sc.GSAR_SOURCE] == "sidecar"
        assert attributes[sc.GSAR_SIDECAR_CONVENTION] == "genai"
        assert attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE] is False
        assert attributes[sc.GSAR_FUNCTION] == "incident-bot"
        assert attributes["evaluations.0.evaluation.label"] == attributes[sc.GSAR_DECISION]
        assert attributes["evaluations.0.evaluation.score"] == attributes[sc.GSAR_SCORE]
        assert attributes["evaluations.0.evaluation.annotator_kind"] == "CODE"
        # One tool result, seen on the execute_tool span and again in the chat history.
        assert attributes[sc.GSAR_EVIDENCE_COUNT] == 1
        names = [e.name for e in span.events]  # type: ignore[attr-defined]
        assert sc.EVENT_GEN_AI_EVALUATION_RESULT in names and sc.EVENT_CLAIM in names
    assert good.attributes[sc.GSAR_DECISION] == "proceed"  # type: ignore[attr-defined]
    assert bad.attributes[sc.GSAR_DECISION] != "proceed"  # type: ignore[attr-defined]
    assert bad.attributes[sc.GSAR_CLAIMS_UNGROUNDED] >= 1  # type: ignore[attr-defined]
    # The claim's refs resolve, through the evidence sources, to the execute_tool span.
    (source,) = good.attributes[sc.GSAR_SIDECAR_EVIDENCE_SOURCES]  # type: ignore[attr-defined]
    (tool_span,) = [s for s in sent.get_finished_spans()
                    if s.name == "execute_tool get_metrics" and s.context.trace_id == good_trace]
    assert source == f"get_metrics@{tool_span.context.span_id:016x}"
    claims = [e for e in good.events if e.name == sc.EVENT_CLAIM]  # type: ignore[attr-defined]
    assert [list(c.attributes[sc.GSAR_CLAIM_EVIDENCE_REFS]) for c in claims] == [["E1"]]
    sidecar.wait_for(lambda: sidecar.sidecar.stats.get("runs_judged") == 2, "two runs counted")
    assert sidecar.sidecar.stats.get("runs_judged", "complete") == 2


def test_an_agent_exporting_over_grpc_is_judged_alike() -> None:
    running = start_sidecar(grpc_port=_free_port())
    try:
        tracer, provider = agent_tracer(GrpcSpanExporter(
            endpoint=f"127.0.0.1:{running.sidecar.grpc_port}", insecure=True))
        trace_id, run_id = run_genai_agent(tracer, GROUNDED)
        provider.shutdown()
        span = _evaluation_of(running, trace_id)
        assert span.parent.span_id == run_id  # type: ignore[attr-defined]
        assert span.attributes[sc.GSAR_DECISION] == "proceed"  # type: ignore[attr-defined]
    finally:
        running.stop()


def test_the_sidecar_never_judges_its_own_spans(sidecar: RunningSidecar) -> None:
    tracer, provider = agent_tracer(OTLPSpanExporter(endpoint=f"{sidecar.http}/v1/traces"))
    trace_id, _ = run_genai_agent(tracer, GROUNDED)
    provider.shutdown()
    _evaluation_of(sidecar, trace_id)
    # Send the sidecar's own output back to it, as a misconfigured pipeline would.
    echo = OTLPSpanExporter(endpoint=f"{sidecar.http}/v1/traces")
    echo.export(list(sidecar.exporter.get_finished_spans()))
    echo.shutdown()
    sidecar.wait_for(lambda: sidecar.sidecar.stats.get("spans", "own") >= 1, "own spans")
    assert sidecar.sidecar.stats.get("spans", "late") == 0
    assert len(sidecar.evaluations()) == 1


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
