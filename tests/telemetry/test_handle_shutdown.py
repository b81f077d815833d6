"""TelemetryHandle.shutdown() lets pending background evaluations end before the providers stop,
so their spans are exported, not handed to a provider that is already shut down."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel import configure_telemetry, grounded, record_evidence
from gsar_otel.otel.background import set_exit_flush_timeout
from tests.telemetry.helpers import ScriptedJudge


class SlowJudge(ScriptedJudge):
    async def judge_verdict(self, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)
        return await super().judge_verdict(**kwargs)


def test_shutdown_waits_for_pending_background_evaluations() -> None:
    spans = InMemorySpanExporter()
    handle = configure_telemetry(set_global=False, console=False, console_metrics=False,
                                 otlp=False, span_exporters=[spans])

    @grounded(judge=SlowJudge(), mode="background", name="pending_at_shutdown")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "The answer."

    for _ in range(3):
        agent()
    handle.shutdown()
    names = [span.name for span in spans.get_finished_spans()]
    assert names.count("gsar.evaluate pending_at_shutdown") == 3


def test_what_cannot_end_within_the_budget_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    handle = configure_telemetry(set_global=False, console=False, console_metrics=False,
                                 otlp=False)

    class StuckJudge(ScriptedJudge):
        async def judge_verdict(self, **kwargs: Any) -> Any:
            await asyncio.sleep(2.0)
            return await super().judge_verdict(**kwargs)

    @grounded(judge=StuckJudge(), mode="background", name="stuck_at_shutdown")
    def agent() -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "The answer."

    set_exit_flush_timeout(0.05)
    try:
        agent()
        with caplog.at_level("WARNING", logger="gsar_otel.otel.setup"):
            handle.shutdown()
    finally:
        set_exit_flush_timeout(None)
    assert any("still pending" in record.getMessage() for record in caplog.records)
