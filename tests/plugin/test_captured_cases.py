"""Captured runs as a regression suite: ``@grounded(capture=DIR)`` writes each judged call as a
case line, pytest collects the file, a case expects its recorded decision, and a changed answer
or judge fails naming the trace it was captured from."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel import grounded, record_evidence
from gsar_otel.config import reset_settings
from gsar_otel.otel import instruments
from tests.plugin.helpers import GOOD, HALF, METRIC_ROW

SECRET = "sk-ant-api03-" + "x" * 40


@pytest.fixture
def traced() -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instruments.set_providers(tracer_provider=provider)
    yield exporter
    instruments.set_providers()


def captured_lines(directory: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in sorted(directory.glob("gsar_captured_*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def test_grounded_capture_writes_each_judged_call_as_a_case(
        tmp_path: Path, traced: InMemorySpanExporter) -> None:
    directory = tmp_path / "captured"

    @grounded(judge="staged", capture=directory)
    def agent(answer: str) -> str:
        record_evidence(METRIC_ROW + f" token={SECRET}", source="get_metrics")
        return answer

    @grounded(judge="staged", capture=directory)
    def unwired(answer: str) -> str:
        return answer

    agent(GOOD)
    agent(HALF)
    unwired(GOOD)  # no evidence: not judged, not captured
    lines = captured_lines(directory)
    assert len(lines) == 2
    spans = {f"{s.context.span_id:016x}": s for s in traced.get_finished_spans()
             if s.name.startswith("gsar.evaluate")}
    first = lines[0]
    span = spans[first["run_id"]]
    assert first["trace_id"] == f"{span.context.trace_id:032x}"
    assert first["id"] == f"{first['trace_id']}-{first['run_id']}"
    assert first["synthesis"] == GOOD
    recorded = first["recorded"]
    assert recorded["decision"] == span.attributes["gsar.decision"]
    assert recorded["score"] == pytest.approx(span.attributes["gsar.score"], abs=1e-4)
    assert recorded["judge"] == "staged" and recorded["origin"] == "decorator"
    assert "agent" in recorded["agent"]
    [item] = first["evidence"]
    assert item["source"] == "get_metrics"
    assert SECRET not in json.dumps(lines) and "[REDACTED]" in item["content"]
    assert first["sources"] == [{"id": "E1", "tool": "get_metrics"}]


def test_gsar_capture_dir_turns_capture_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.setenv("GSAR_CAPTURE_DIR", str(tmp_path / "env"))
    reset_settings()  # the process's settings are read once

    @grounded(judge="staged")
    def agent() -> str:
        record_evidence(METRIC_ROW)
        return GOOD

    try:
        agent()
    finally:
        monkeypatch.delenv("GSAR_CAPTURE_DIR")
        reset_settings()
    assert len(captured_lines(tmp_path / "env")) == 1


def test_an_unusable_capture_directory_is_refused_when_decorating(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        grounded(capture=blocker)


def test_concurrent_calls_write_whole_lines(tmp_path: Path) -> None:
    directory = tmp_path / "many"

    @grounded(judge="staged", capture=directory)
    def agent(n: int) -> str:
        record_evidence(f"host=db-{n} cpu_pct=9{n % 10}.0 " + "pad " * 300)
        return f"CPU on db-{n} reached 9{n % 10}%."

    threads = [threading.Thread(target=lambda n=n: [agent(n * 10 + i) for i in range(5)])
               for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = captured_lines(directory)
    assert len(lines) == 40
    assert len({line["run_id"] for line in lines}) == 40


def test_pytest_runs_captured_cases_and_names_the_trace_of_a_regression(
        gsar_pytester: pytest.Pytester) -> None:
    directory = gsar_pytester.path / "captured"

    @grounded(judge="scripted", capture=directory)
    def agent(answer: str) -> str:
        record_evidence(METRIC_ROW, source="get_metrics")
        return answer

    agent(GOOD)   # proceeds
    agent(HALF)   # replan, recorded as the expectation
    [path] = directory.glob("gsar_captured_*.jsonl")
    lines = captured_lines(directory)
    assert [line["recorded"]["decision"] for line in lines] == ["proceed", "replan"]
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=2)
    # The answer of the first case changed: it no longer reaches its recorded decision.
    changed = dict(lines[0], synthesis=HALF)
    path.write_text("".join(json.dumps(line) + "\n" for line in (changed, lines[1])))
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*grounding check failed: decision is replan, expected proceed*",
        f"recorded from trace {lines[0]['trace_id']} run {lines[0]['run_id']}: decision "
        f"proceed, S = 1.00, judge scripted"])


def test_a_bad_recorded_field_is_a_collection_error(gsar_pytester: pytest.Pytester) -> None:
    (gsar_pytester.path / "gsar_bad.jsonl").write_text(json.dumps(
        {"id": "a", "synthesis": GOOD, "evidence": [METRIC_ROW],
         "recorded": {"decision": "ok"}}) + "\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.stdout.fnmatch_lines(["*gsar_bad.jsonl:1: field 'recorded': decision must be one of "
                                 "proceed, regenerate, replan, abstain, got 'ok'*"])
