"""In-line placement under a slow or down ``--forward`` endpoint: the forward queue is bounded
in bytes (drops counted ``forward_dropped{queue_bytes}``), and grounding spans that cannot be
delivered are counted, held in a bounded buffer and retried with backoff until the endpoint is
back (the real OTLP/HTTP exporter against a local collector)."""

from __future__ import annotations

import contextlib
import http.server
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import ClassVar

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.output.stats import SidecarStats
from gsar_otel.sidecar.output.exporters import VerdictExporter
from tests.sidecar.support import start_sidecar, start_sidecar_command
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post
from tests.support.servers import free_port


class BlackHole:
    """Accepts connections and never answers (a forward endpoint that hangs)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        try:
            while True:
                self.accepted.append(self.listener.accept()[0])
        except OSError:
            return

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self.listener.close()
        self.thread.join(10)  # no connection accepted after this
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def black_hole() -> Iterator[BlackHole]:
    hole = BlackHole()
    yield hole
    hole.close()


def test_the_forward_queue_is_bounded_in_bytes_and_drops_are_counted(
        black_hole: BlackHole) -> None:
    body = otlp_json(*agent_spans())
    running = start_sidecar(forward=f"http://127.0.0.1:{black_hole.port}/v1/traces",
                            network=NetworkLimits(forward_max_bytes=int(2.5 * len(body))))
    try:
        for _ in range(6):
            assert post(running, body)[0] == 200
        stats = running.sidecar.stats
        assert stats.get("forward_dropped", "queue_bytes") == 4
        assert stats.get("spans", "forward_queue_bytes") == 4 * 2
        forwarder = running.sidecar._forwarder
        assert forwarder is not None and forwarder.queued_bytes <= 2.5 * len(body)
        black_hole.close()  # the endpoint gives up: the two held requests fail, counted
        running.wait_for(lambda: stats.get("forward_dropped", "send_failed") == 2, "the sends")
        assert forwarder.queued_bytes == 0
    finally:
        black_hole.close()
        running.stop()


class _Collector(http.server.BaseHTTPRequestHandler):
    names: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                self.names.extend(span.name for span in scope.spans)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_undelivered_verdict_spans_are_counted_held_in_a_bounded_buffer_and_retried() -> None:
    port = free_port()
    exporter = VerdictExporter(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=1),
        buffer=3, first_delay_s=0.05, max_delay_s=0.2)
    stats = SidecarStats()
    exporter.attach(stats)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("sidecar")
    _Collector.names = []
    server: http.server.ThreadingHTTPServer | None = None
    try:
        for n in range(5):  # the endpoint is down
            tracer.start_span(f"gsar.evaluate {n}").end()
        assert stats.get("verdicts_undelivered", "export_failed") == 5
        assert stats.get("verdicts_dropped", "buffer_full") == 2  # the oldest two
        assert exporter.held == 3
        assert 'gsar_sidecar_verdicts_undelivered_total{gsar_sidecar_reason="export_failed"} 5' \
            in stats.prometheus_text()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Collector)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        end = threading.Event()
        for _ in range(3000):  # the endpoint is back: the retry delivers the held spans
            if stats.get("verdicts_retried", "delivered") == 3:
                break
            end.wait(0.01)
        assert stats.get("verdicts_retried", "delivered") == 3
        assert _Collector.names == ["gsar.evaluate 2", "gsar.evaluate 3", "gsar.evaluate 4"]
        tracer.start_span("gsar.evaluate 5").end()  # delivered at once again
        assert _Collector.names[-1] == "gsar.evaluate 5"
        assert stats.get("verdicts_undelivered", "export_failed") == 5
    finally:
        provider.shutdown()
        if server is not None:
            server.shutdown()
    assert stats.get("verdicts_dropped", "shutdown") == 0
    assert exporter.held == 0


def test_verdict_spans_still_held_at_shutdown_are_counted() -> None:
    exporter = VerdictExporter(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{free_port()}/v1/traces", timeout=1),
        buffer=10, first_delay_s=60)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("sidecar")
    for n in range(4):  # the endpoint is down (and counted before stats are attached)
        tracer.start_span(f"gsar.evaluate {n}").end()
    stats = SidecarStats()
    exporter.attach(stats)
    assert stats.get("verdicts_undelivered", "export_failed") == 4
    provider.shutdown()
    assert stats.get("verdicts_dropped", "shutdown") == 4
    assert exporter.held == 0


def test_the_command_counts_grounding_spans_it_cannot_forward() -> None:
    env = {**os.environ, "GSAR_JUDGE": "staged", "OTEL_BSP_SCHEDULE_DELAY": "100"}
    process, base, _ = start_sidecar_command(
        "--http-port", "0", "--grpc-port", "0", "--decision-wait", "0.05",
        "--forward", f"http://127.0.0.1:{free_port()}/v1/traces", env=env)
    try:
        request = urllib.request.Request(f"{base}/v1/traces", data=otlp_json(*agent_spans()),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
        series = 'gsar_sidecar_verdicts_undelivered_total{gsar_sidecar_reason="export_failed"}'
        end, text = time.monotonic() + 90, ""
        while series not in text and time.monotonic() < end:
            time.sleep(0.2)
            with urllib.request.urlopen(f"{base}/metrics", timeout=30) as response:
                text = response.read().decode()
        assert series in text, text
        assert 'gsar_sidecar_runs_total{gsar_sidecar_outcome="judged"' in text
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
