"""The Honeycomb recipe of docs/backends.md, against a local OTLP/HTTP receiver: ``gsar demo`` sends
traces and metrics with the ``x-honeycomb-team`` (and, for metrics, ``x-honeycomb-dataset``)
headers taken from the standard variables, and never prints the key."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

GSAR = Path(sys.executable).with_name("gsar")
API_KEY = "hcaik_test_0123456789abcdef"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class OtlpReceiver:
    """A minimal OTLP/HTTP endpoint: answers 200 to every POST and keeps what it got."""

    requests: list[Received] = field(default_factory=list)
    port: int = 0


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    state = OtlpReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.requests.append(Received(self.path, {k.lower(): v for k, v in
                                                       self.headers.items()}, body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def test_demo_exports_traces_and_metrics_with_honeycomb_headers(
    receiver: OtlpReceiver, tmp_path: Path
) -> None:
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.port}",
        "OTEL_EXPORTER_OTLP_HEADERS": f"x-honeycomb-team={API_KEY}",
        "OTEL_EXPORTER_OTLP_METRICS_HEADERS":
            f"x-honeycomb-team={API_KEY},x-honeycomb-dataset=gsar-metrics",
        "OTEL_SERVICE_NAME": "incident-agent",
    }
    completed = subprocess.run([str(GSAR), "demo"], capture_output=True, text=True, env=env,
                               cwd=tmp_path, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    assert API_KEY not in completed.stdout
    assert "exported to OTLP http/protobuf to http://127.0.0.1:" in completed.stdout

    traces = [r for r in receiver.requests if r.path == "/v1/traces"]
    metrics = [r for r in receiver.requests if r.path == "/v1/metrics"]
    assert traces and metrics
    assert all(r.headers["x-honeycomb-team"] == API_KEY for r in traces + metrics)
    assert all("x-honeycomb-dataset" not in r.headers for r in traces)
    assert all(r.headers["x-honeycomb-dataset"] == "gsar-metrics" for r in metrics)

    span_names = []
    for request in traces:
        message = ExportTraceServiceRequest.FromString(request.body)
        for resource_spans in message.resource_spans:
            service = {kv.key: kv.value.string_value
                       for kv in resource_spans.resource.attributes}["service.name"]
            assert service == "incident-agent"
            span_names += [s.name for scope in resource_spans.scope_spans for s in scope.spans]
    assert "gsar.evaluate incident_agent.final_answer" in span_names
    assert span_names.count("gsar.judge") == 2

    metric_names = {m.name for r in metrics
                    for rm in ExportMetricsServiceRequest.FromString(r.body).resource_metrics
                    for scope in rm.scope_metrics for m in scope.metrics}
    assert {"gsar.score", "gsar.decisions", "gsar.claims", "gsar.judge.duration"} <= metric_names
