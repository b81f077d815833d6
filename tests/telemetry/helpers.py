"""Judges and readers shared by the telemetry tests.

The judges are real implementations of the Judge protocol with scripted verdicts; no mocks.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage, JudgeVerdict

ANSWER = "CPU on db-prod-1 reached 97% at 14:02. The spike was caused by a runaway query."
CPU_ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"


def mixed_output(explanation: str = "The cause is not in the evidence.") -> JudgeOutput:
    """One grounded tool_match claim (E1) and one ungrounded inference: S = 1 / 1.6 = 0.625."""
    return JudgeOutput(
        grounding_score=0.6, is_grounded=False,
        grounded_claims=[Claim("CPU on db-prod-1 reached 97% at 14:02", "tool_match", ["E1"])],
        ungrounded_claims=[Claim("The spike was caused by a runaway query", "inference")],
        explanation=explanation)


def grounded_output() -> JudgeOutput:
    """Every claim grounded: S = 1.0, proceed."""
    return JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim("CPU on db-prod-1 reached 97% at 14:02", "tool_match", ["E1"])],
        explanation="Backed by the metrics row.")


WRONG_FACT_FACTS = ("CPU on db-prod-1 hit 97%", "db-prod-1 ran at 97% CPU",
                    "The CPU of db-prod-1 was 97%", "db-prod-1 was at 97% CPU")
WRONG_FACT = "CPU on db-prod-1 stayed at 40%"
WRONG_FACT_ANSWER = ". ".join([*WRONG_FACT_FACTS, WRONG_FACT]) + "."
"""Judged against CPU_ROW by :func:`wrong_fact_output`."""


def wrong_fact_output() -> JudgeOutput:
    """Four grounded tool facts and one tool fact the evidence refutes: S = 4 / 4.5 = 0.889
    proceeds on S alone, and the default contradiction policy caps it at regenerate."""
    return JudgeOutput(
        grounding_score=0.9, is_grounded=True,
        grounded_claims=[Claim(text, "tool_match", ["E1"]) for text in WRONG_FACT_FACTS],
        contradicted_claims=[Claim(WRONG_FACT, "tool_match", ["E1"])])


@dataclass
class ScriptedJudge:
    """Returns the given verdicts in turn (the last one repeats), with usage and a model."""

    outputs: Sequence[JudgeOutput] = field(default_factory=lambda: [mixed_output()])
    usage: JudgeUsage | None = None
    model: str | None = "scripted-model-1"
    name: str = "scripted"
    seen: list[tuple[str, EvidenceSet]] = field(default_factory=list)
    tracer_provider: trace.TracerProvider | None = None
    """When set, each round opens a client span of its own (like the anthropic SDK does)."""

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return (await self.judge_verdict(synthesis=synthesis, evidence=evidence)).output

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        self.seen.append((synthesis, evidence))
        output = self.outputs[min(len(self.seen), len(self.outputs)) - 1]
        if self.tracer_provider is not None:
            tracer = self.tracer_provider.get_tracer("fake-llm-sdk")
            with tracer.start_as_current_span("anthropic.messages.create",
                                              kind=trace.SpanKind.CLIENT):
                await asyncio.sleep(0)
        return JudgeVerdict(output=output, usage=self.usage, model=self.model)


class FailingJudge:
    """A judge whose provider is down: every round raises."""

    name = "failing"

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error or ConnectionError("provider unavailable")
        self.calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.calls += 1
        raise self.error


class BlockingJudge:
    """Waits until released (from any thread), then answers like ScriptedJudge."""

    name = "blocking"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.calls += 1
        self.started.set()
        while not self.release.is_set():
            await asyncio.sleep(0.005)
        return mixed_output()


class Otel:
    """In-memory tracer and meter providers, with readers for what was emitted."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.tracer = self.tracer_provider.get_tracer("tests")

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        spans = list(self.exporter.get_finished_spans())
        if name is None:
            return spans
        return [s for s in spans if s.name == name]

    def evaluate_spans(self) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if s.name.startswith("gsar.evaluate")]

    def one_evaluate_span(self) -> ReadableSpan:
        spans = self.evaluate_spans()
        assert len(spans) == 1, [s.name for s in self.exporter.get_finished_spans()]
        return spans[0]

    def metrics(self) -> dict[str, Any]:
        """Metric name -> the metric (with .unit and .data.data_points)."""
        data = self.reader.get_metrics_data()
        found: dict[str, Any] = {}
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found[metric.name] = metric
        return found

    def points(self, name: str) -> dict[frozenset[tuple[str, Any]], Any]:
        """Attribute set -> data point of one metric."""
        metric = self.metrics().get(name)
        if metric is None:
            return {}
        return {frozenset(p.attributes.items()): p for p in metric.data.data_points}
