"""What the tiered judge and the offline second opinion put on spans, events and metrics
(in-memory exporters, injected providers; the real SDK against the fake Messages API)."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel.judges.tiered.judge import TieredJudge
from gsar_otel.otel.instruments import get_telemetry
from gsar_otel.otel.traced import TracedEvaluator
from tests.anthropic.conftest import API_KEY, JudgeFactory
from tests.anthropic.test_tiered import EVIDENCE, ONE_UNVERIFIABLE, WORRIED
from tests.support.fake_anthropic import FakeMessagesServer, claim, verdict, verdict_message


class Telemetry:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.telemetry = get_telemetry(tracer_provider=tracer_provider,
                                       meter_provider=MeterProvider(metric_readers=[self.reader]))

    def span(self, prefix: str) -> Any:
        return next(s for s in self.exporter.get_finished_spans() if s.name.startswith(prefix))

    def points(self, name: str) -> list[tuple[dict[str, Any], int]]:
        data = self.reader.get_metrics_data()
        return [(dict(p.attributes), p.value) for r in data.resource_metrics
                for s in r.scope_metrics for m in s.metrics if m.name == name
                for p in m.data.data_points]


def test_tiers_are_on_the_claim_events_the_spans_and_the_metric(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    seen = Telemetry()
    evaluator = TracedEvaluator(TieredJudge(make_judge()), function="agent",
                                telemetry=seen.telemetry, capture_content=True)
    evaluator.evaluate_sync(report_synthesis=ONE_UNVERIFIABLE, evidence_corpus=EVIDENCE)
    evaluate = seen.span("gsar.evaluate")
    assert evaluate.attributes["gsar.judge.escalated_claims"] == 1
    assert evaluate.attributes["gsar.judge.settled_claims"] == 1
    assert evaluate.attributes["gsar.judge.name"] == "tiered"
    judged = {e.attributes["gsar.claim.text"]: e.attributes["gsar.claim.judged_by"]
              for e in evaluate.events if e.name == "gsar.claim"}
    assert judged == {"api-1 ran at 95% CPU.": "offline", WORRIED: "model"}
    round_span = seen.span("gsar.judge")
    assert round_span.attributes["gen_ai.usage.input_tokens"] == 1200
    assert round_span.attributes["gen_ai.usage.output_tokens"] == 180
    counted = sorted((a["gsar.claim.judged_by"], a["gsar.claim.escalation"], v)
                     for a, v in seen.points("gsar.judge.claims"))
    assert counted == [("model", "escalated", 1), ("offline", "settled", 1)]
    exported = "".join(str(s.to_json()) for s in seen.exporter.get_finished_spans())
    assert API_KEY not in exported


def test_without_a_model_call_the_span_says_why(fake_anthropic: FakeMessagesServer,
                                                make_judge: JudgeFactory) -> None:
    seen = Telemetry()
    TracedEvaluator(TieredJudge(make_judge()), function="agent",
                    telemetry=seen.telemetry).evaluate_sync(
        report_synthesis="api-1 ran at 95% CPU.", evidence_corpus=EVIDENCE)
    evaluate = seen.span("gsar.evaluate")
    assert evaluate.attributes["gsar.judge.escalated_claims"] == 0
    assert evaluate.attributes["gsar.judge.model_tier.skipped"] == "all_settled"
    assert fake_anthropic.message_requests == []


def test_a_dispute_is_on_its_event_and_counted(fake_anthropic: FakeMessagesServer,
                                               make_judge: JudgeFactory) -> None:
    wrong = "api-2 ran at 95% CPU."
    fake_anthropic.enqueue(verdict_message(verdict(grounded=[claim(wrong, refs=["E1"])])))
    seen = Telemetry()
    TracedEvaluator(make_judge(), function="agent", telemetry=seen.telemetry,
                    dispute_policy="cap").evaluate_sync(
        report_synthesis=wrong, evidence_corpus=EVIDENCE)
    evaluate = seen.span("gsar.evaluate")
    [event] = [e for e in evaluate.events if e.name == "gsar.claim"]
    assert event.attributes["gsar.claim.disputed"] is True
    assert event.attributes["gsar.claim.judged_by"] == "model"
    assert "gsar.claim.dispute_reason" not in event.attributes  # content capture is off
    assert evaluate.attributes["gsar.claims.disputed"] == 1
    assert evaluate.attributes["gsar.dispute.policy"] == "cap"
    assert evaluate.attributes["gsar.dispute.capped"] is True
    assert [(a["gsar.dispute.policy"], v) for a, v in seen.points("gsar.claims.disputed")] == [
        ("cap", 1)]
