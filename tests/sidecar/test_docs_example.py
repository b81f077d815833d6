"""The hand-instrumented GenAI example of docs/sidecar.md, run as written against a sidecar: the
answer is judged against the one tool result, read as the page says."""

from __future__ import annotations

import re
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from gsar_otel.judges.staged.judge import StagedJudge
from tests.sidecar.support import start_sidecar

PAGE = Path(__file__).resolve().parents[2] / "docs" / "sidecar.md"
PODS = """NAME       READY   STATUS             RESTARTS   AGE
api-7f9    0/1     CrashLoopBackOff   14         2h"""
ANSWER = "Pod api-7f9 is in CrashLoopBackOff with 14 restarts."


def example() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("**A hand-instrumented agent.**")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1)


def test_the_documented_example_is_judged_against_its_tool_result() -> None:
    code = example()
    assert len(code.strip().splitlines()) <= 12
    running = start_sidecar(judge=StagedJudge())
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"{running.http}/v1/traces")))
    try:
        namespace = {"pods_table": PODS, "answer": ANSWER}
        real = trace.get_tracer
        trace.get_tracer = lambda name, *a, **k: provider.get_tracer(name)  # type: ignore[assignment]
        try:
            exec(compile(code, str(PAGE), "exec"), namespace)  # the page's example, as written
        finally:
            trace.get_tracer = real  # type: ignore[assignment]
        provider.force_flush()
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
        (span,) = running.evaluations()
        attributes = span.attributes or {}
        assert attributes["gsar.decision"] == "proceed"
        assert attributes["gsar.function"] == "oncall"
        [source] = attributes["gsar.sidecar.evidence.sources"]
        assert str(source).startswith("get_pods@")
    finally:
        provider.shutdown()
        running.stop()
