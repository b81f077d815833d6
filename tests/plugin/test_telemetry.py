"""Judging during tests emits the usual gsar spans; an OTLP endpoint receives them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.plugin.helpers import GOOD, HALF, case, write_cases

IN_MEMORY_CONFTEST = """
import json
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from gsar_otel.otel.instruments import set_providers

exporter = InMemorySpanExporter()

def pytest_configure(config):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    set_providers(tracer_provider=provider)

def pytest_unconfigure(config):
    set_providers()
    spans = [{"name": s.name, "parent": s.parent.span_id if s.parent else None,
              "id": s.context.span_id, "attributes": dict(s.attributes),
              "events": [e.name for e in s.events]} for s in exporter.get_finished_spans()]
    with open("spans.json", "w") as out:
        json.dump(spans, out, default=list)
"""


def test_each_judgement_emits_an_evaluate_span_with_a_judge_round_and_claim_events(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest(IN_MEMORY_CONFTEST)
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD),
                                                    case("half", HALF, expect="replan")])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=2)
    spans = json.loads((gsar_pytester.path / "spans.json").read_text())
    evaluations = [s for s in spans if s["name"] == "gsar.evaluate gsar_cases.jsonl"]
    assert len(evaluations) == 2
    scores = sorted(s["attributes"]["gsar.score"] for s in evaluations)
    assert scores == [0.625, 1.0]
    for span in evaluations:
        assert span["attributes"]["gsar.function"] == "gsar_cases.jsonl"
        assert span["attributes"]["gsar.judge.name"] == "scripted"
        assert "gsar.claim" in span["events"]
        assert "gen_ai.evaluation.result" in span["events"]
        rounds = [s for s in spans if s["name"] == "gsar.judge" and s["parent"] == span["id"]]
        assert len(rounds) == 1


class _Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.server.received.append((self.path, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def otlp_receiver() -> Iterator[ThreadingHTTPServer]:
    """A minimal OTLP/HTTP receiver on 127.0.0.1 that keeps every request body."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_otlp_endpoint_in_the_environment_receives_the_spans(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
        otlp_receiver: ThreadingHTTPServer) -> None:
    host, port = otlp_receiver.server_address[:2]
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://{host!s}:{port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "agent-ci")
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD)])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)
    traces = [body for path, body in otlp_receiver.received  # type: ignore[attr-defined]
              if path == "/v1/traces"]
    names = set()
    for body in traces:
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                names.update(span.name for span in scope_spans.spans)
    assert "gsar.evaluate gsar_cases.jsonl" in names
    assert "gsar.judge" in names
