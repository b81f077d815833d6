"""A run the sidecar cannot judge leaves a visible, explained mark in its own trace: a
``gsar.sidecar.skipped`` span, child of and linked to the run span, with the reason and what to
turn on; the reason is logged once per process and the run counted skipped."""

from __future__ import annotations

import logging

import pytest

from gsar_otel.sidecar.output import verdict_spans as emit
from tests.sidecar.support import start_sidecar
from tests.sidecar.test_receiver_http import ROOT, kv, otlp_json, post, span


def test_a_run_without_an_answer_writes_a_skipped_span_and_logs_once(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emit, "_logged", set())
    running = start_sidecar()
    try:
        for n in (1, 2):  # two runs, one log line
            trace_id = f"{n:032x}"
            body = otlp_json(span(ROOT, "", "invoke_agent bot", [
                kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot")],
                trace_id))
            with caplog.at_level(logging.WARNING, logger="gsar_otel.sidecar.output.verdict_spans"):
                assert post(running, body)[0] == 200
                running.wait_for(lambda n=n: running.sidecar.stats.get(
                    "runs_skipped", "no_answer") == n, "the skipped run")
        skipped = [s for s in running.exporter.get_finished_spans()
                   if s.name == "gsar.sidecar.skipped"]
    finally:
        running.stop()
    assert len(skipped) == 2 and running.evaluations() == []
    first = skipped[0]
    assert first.parent is not None and f"{first.parent.span_id:016x}" == ROOT
    assert [f"{link.context.span_id:016x}" for link in first.links] == [ROOT]
    assert {f"{s.context.trace_id:032x}" for s in skipped} == {f"{1:032x}", f"{2:032x}"}
    attributes = first.attributes
    assert attributes is not None
    assert attributes["gsar.sidecar.skipped.reason"] == "no_answer"
    assert "message content" in str(attributes["gsar.sidecar.skipped.hint"])
    assert attributes["gsar.function"] == "bot"
    assert len([r for r in caplog.records if "no_answer" in r.getMessage()]) == 1
