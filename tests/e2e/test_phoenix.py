"""End to end: ``@grounded`` telemetry through real OTLP exporters into a real Arize Phoenix.

Each test decorates an agent function with ``@grounded`` (inline, the offline StagedJudge),
calls it under a caller span, exports the spans with the SDK's own OTLP exporter (http/protobuf
or gRPC) into the Phoenix server the session started, and reads them back through Phoenix's REST
API: the ``gsar.evaluate`` span with its ``gsar.*`` attributes and ``openinference.span.kind``,
the ``gsar.judge`` child, and every ``gsar.claim`` event with its attributes. What Phoenix
returns is compared with what the SDK exported (an in-memory copy of the same spans), key by key.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel import config, plugins, semconv
from gsar_otel.core.capture import record_evidence, tool_evidence
from gsar_otel.decorator.api import grounded
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.otel import instruments as telemetry
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer

pytestmark = pytest.mark.e2e

PROTOCOLS = ("http/protobuf", "grpc")
FUNCTION = "incident.final_answer"
CAUSAL_CLAIM = "The outage was caused by config push cfg-4471."
CONTRADICTED_CLAIM = "The request rate on db-prod-1 was 48 rps."
ANSWER = (
    "CPU on db-prod-1 reached 97.2% at 14:02:01. Alert A-9912 fired at 14:02:00. "
    f"{CONTRADICTED_CLAIM} {CAUSAL_CLAIM}"
)


@tool_evidence(source="query_metrics")
def query_metrics(host: str) -> list[str]:
    return [f"host={host} cpu_pct=97.2 ts=14:02:01", f"host={host} rps=12.4 ts=14:02:01"]


def incident_answer(alert_id: str) -> str:
    """The agent step under test: tools record evidence, then the (over-reaching) answer."""
    for row in query_metrics("db-prod-1"):
        record_evidence(row, source="query_metrics")
    record_evidence("14:01:30 deploy-bot: config push cfg-4471 applied to db-prod-1",
                    source="search_logs")
    record_evidence(f"[signal] alert_id={alert_id} fired_at=14:02:00 severity=high "
                    "host=db-prod-1")
    return ANSWER


@pytest.fixture(autouse=True)
def clean_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No GSAR_* / OTLP settings from the outside; settings and plugins reloaded per test."""
    for name in list(os.environ):
        if name.startswith(("GSAR_", "OTEL_")):
            monkeypatch.delenv(name)
    config.reset_settings()
    plugins.reset_plugin_manager()
    yield
    config.reset_settings()
    plugins.reset_plugin_manager()


def otlp_exporter(protocol: str, phoenix: PhoenixServer) -> SpanExporter:
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter(endpoint=phoenix.otlp_grpc_endpoint, insecure=True)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HttpSpanExporter,
    )

    return HttpSpanExporter(endpoint=phoenix.otlp_http_endpoint)


def run_grounded_call(phoenix: PhoenixServer, protocol: str, project: str) -> list[ReadableSpan]:
    """Call the decorated agent once with its telemetry exported to Phoenix over ``protocol``.

    Returns the spans as the SDK exported them (an in-memory copy, for comparison).
    """
    copy = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": "gsar-e2e", PROJECT_RESOURCE_ATTRIBUTE: project}))
    provider.add_span_processor(BatchSpanProcessor(otlp_exporter(protocol, phoenix)))
    provider.add_span_processor(SimpleSpanProcessor(copy))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry.set_providers(tracer_provider=provider, meter_provider=meter_provider)
    try:
        answer = grounded(judge=StagedJudge(), name=FUNCTION)(incident_answer)
        with provider.get_tracer("tests.e2e").start_as_current_span("agent.turn"):
            returned = answer("A-9912")
        assert returned is ANSWER  # on_low="observe": the very same object comes back
    finally:
        telemetry.set_providers()
        provider.shutdown()  # flushes the batch processor: the OTLP export happens here
        meter_provider.shutdown()
    return list(copy.get_finished_spans())


def by_name(spans: Sequence[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [span for span in spans if span["name"] == name]


def wire(value: Any) -> Any:
    """An attribute value as it reads back from JSON (OTel sequences are tuples)."""
    return list(value) if isinstance(value, tuple) else value


def exported(span: ReadableSpan, name: str) -> list[dict[str, Any]]:
    return [{k: wire(v) for k, v in (event.attributes or {}).items()}
            for event in span.events if event.name == name]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_grounding_span_claim_events_and_judge_child_reach_phoenix_intact(
    phoenix: PhoenixServer, protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(semconv.ENV_CAPTURE_CONTENT, "true")
    project = f"gsar-e2e-{protocol.replace('/', '-')}-{uuid.uuid4().hex[:8]}"
    local = run_grounded_call(phoenix, protocol, project)
    local_evaluate = next(s for s in local if s.name == f"{semconv.SPAN_EVALUATE} {FUNCTION}")

    spans = phoenix.wait_for_spans(project, count=len(local))
    assert sorted(s["name"] for s in spans) == sorted(s.name for s in local)
    [evaluate] = by_name(spans, f"{semconv.SPAN_EVALUATE} {FUNCTION}")
    [caller] = by_name(spans, "agent.turn")
    judges = by_name(spans, semconv.SPAN_JUDGE)

    # The evaluation span: a child of the caller's span, marked for Phoenix as an evaluator.
    assert evaluate["span_kind"] == semconv.OPENINFERENCE_SPAN_KIND_EVALUATOR
    assert evaluate["parent_id"] == caller["context"]["span_id"]
    assert evaluate["context"]["trace_id"] == caller["context"]["trace_id"]
    attributes = evaluate["attributes"]
    for key, value in (local_evaluate.attributes or {}).items():
        if key != semconv.OPENINFERENCE_SPAN_KIND:  # Phoenix lifts it into span_kind
            assert attributes.get(key) == wire(value), key
    assert attributes[semconv.GSAR_FUNCTION] == FUNCTION
    assert attributes[semconv.GSAR_DECISION] == "replan"
    assert attributes[semconv.GSAR_JUDGE_NAME] == "staged"
    assert attributes[semconv.GSAR_CLAIMS_TOTAL] == 4
    assert attributes[semconv.GSAR_CLAIMS_GROUNDED] == 2
    assert attributes[semconv.GSAR_CLAIMS_UNGROUNDED] == 1
    assert attributes[semconv.GSAR_CLAIMS_CONTRADICTED] == 1
    assert attributes[semconv.GSAR_EVIDENCE_COUNT] == 5
    assert 0.0 <= attributes[semconv.GSAR_SCORE] < attributes[semconv.GSAR_THRESHOLDS_REGENERATE]

    # One gsar.judge child per judge round (one round: observe mode does not recover).
    assert len(judges) == attributes[semconv.GSAR_ROUNDS] == 1
    assert judges[0]["parent_id"] == evaluate["context"]["span_id"]

    # Every claim event arrives with every attribute as exported; the causal claim is ungrounded.
    claims = [e["attributes"] for e in evaluate["events"] if e["name"] == semconv.EVENT_CLAIM]
    assert claims == exported(local_evaluate, semconv.EVENT_CLAIM)
    assert len(claims) == attributes[semconv.GSAR_CLAIMS_TOTAL]
    verdicts = {claim[semconv.GSAR_CLAIM_TEXT]: claim for claim in claims}
    causal = verdicts[CAUSAL_CLAIM]
    assert causal[semconv.GSAR_CLAIM_VERDICT] == "ungrounded"
    assert causal[semconv.GSAR_CLAIM_EVIDENCE_TYPE] == "inference"
    assert causal[semconv.GSAR_CLAIM_WEIGHT] == pytest.approx(0.6)
    assert isinstance(causal[semconv.GSAR_CLAIM_ADJUSTED], bool)
    assert verdicts[CONTRADICTED_CLAIM][semconv.GSAR_CLAIM_VERDICT] == "contradicted"
    assert sorted(claim[semconv.GSAR_CLAIM_INDEX] for claim in claims) == [0, 1, 2, 3]
    assert all(isinstance(claim[semconv.GSAR_CLAIM_EVIDENCE_REFS], list) for claim in claims)

    # The GenAI evaluation event carries S and the decision.
    [evaluation] = [e["attributes"] for e in evaluate["events"]
                    if e["name"] == semconv.EVENT_GEN_AI_EVALUATION_RESULT]
    assert evaluation == exported(local_evaluate, semconv.EVENT_GEN_AI_EVALUATION_RESULT)[0]
    assert evaluation[semconv.GEN_AI_EVALUATION_NAME] == "gsar"
    assert evaluation[semconv.GEN_AI_EVALUATION_SCORE_VALUE] == attributes[semconv.GSAR_SCORE]
    assert evaluation[semconv.GEN_AI_EVALUATION_SCORE_LABEL] == "replan"


def test_phoenix_searches_from_the_readme_find_the_evaluation(phoenix: PhoenixServer) -> None:
    project = f"gsar-e2e-search-{uuid.uuid4().hex[:8]}"
    local = run_grounded_call(phoenix, "http/protobuf", project)
    spans = phoenix.wait_for_spans(project, count=len(local))
    [evaluate] = by_name(spans, f"{semconv.SPAN_EVALUATE} {FUNCTION}")
    span_id = evaluate["context"]["span_id"]

    # REST filters: by attribute, and by span kind.
    assert [s["context"]["span_id"] for s in
            phoenix.spans(project, attributes={semconv.GSAR_DECISION: "replan"})] == [span_id]
    assert phoenix.spans(project, attributes={semconv.GSAR_DECISION: "proceed"}) == []
    assert [s["context"]["span_id"] for s in
            phoenix.spans(project, span_kind="EVALUATOR")] == [span_id]
    # The span table's search bar (Phoenix's filter expressions).
    assert phoenix.filter_span_ids(project, "gsar.decision == 'replan'") == [span_id]
    assert phoenix.filter_span_ids(project, "span_kind == 'EVALUATOR' and gsar.score < 0.8") == [
        span_id]
    assert phoenix.filter_span_ids(project, "gsar.degraded == True") == []


def test_claim_text_stays_out_of_phoenix_without_content_capture(phoenix: PhoenixServer) -> None:
    project = f"gsar-e2e-private-{uuid.uuid4().hex[:8]}"
    local = run_grounded_call(phoenix, "grpc", project)
    spans = phoenix.wait_for_spans(project, count=len(local))
    [evaluate] = by_name(spans, f"{semconv.SPAN_EVALUATE} {FUNCTION}")
    claims = [e["attributes"] for e in evaluate["events"] if e["name"] == semconv.EVENT_CLAIM]
    assert len(claims) == 4
    assert all(semconv.GSAR_CLAIM_TEXT not in claim for claim in claims)
    assert all(claim[semconv.GSAR_CLAIM_VERDICT] for claim in claims)
    text = str(spans)
    assert CAUSAL_CLAIM not in text and "97.2% at 14:02:01" not in text
    # The OTLP view of the same span keeps openinference.span.kind as an attribute.
    [raw] = phoenix.spans(project, name=evaluate["name"], otlp=True)
    raw_attributes = {kv["key"]: kv["value"] for kv in raw["attributes"]}
    assert raw_attributes[semconv.OPENINFERENCE_SPAN_KIND]["string_value"] == "EVALUATOR"
