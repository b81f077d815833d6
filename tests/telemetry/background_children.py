"""Work for child processes in the fork tests: background calls whose evaluate spans are written to
a file (one line each), so the parent can count what every child judged after it exited."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

import gsar_otel
from gsar_otel import grounded, record_evidence
from gsar_otel.otel import instruments as telemetry
from tests.telemetry.helpers import ScriptedJudge


class FileSpanExporter(SpanExporter):
    """Appends ``<name> <decision>`` of each evaluate span to a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.path.open("a", encoding="utf-8") as out:
            for span in spans:
                if span.name.startswith("gsar.evaluate"):
                    decision = (span.attributes or {}).get("gsar.decision")
                    out.write(f"{span.name} {decision}\n")
        return SpanExportResult.SUCCESS


class SlowJudge(ScriptedJudge):
    async def judge_verdict(self, **kwargs: Any) -> Any:
        await asyncio.sleep(0.01)
        return await super().judge_verdict(**kwargs)


def child_work(path: str, calls: int, flush_at_end: bool) -> None:
    """``calls`` background evaluations; with ``flush_at_end`` the child waits for them itself."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(Path(path))))
    telemetry.set_providers(tracer_provider=provider)

    @grounded(judge=SlowJudge(), mode="background", name="child")
    def agent(n: int) -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return f"Answer {n}."

    for n in range(calls):
        agent(n)
    if flush_at_end:
        gsar_otel.flush(30.0)


def judged_lines(directory: Path) -> list[str]:
    """Every line the children wrote."""
    return [line for path in sorted(directory.glob("*.spans"))
            for line in path.read_text(encoding="utf-8").splitlines()]
