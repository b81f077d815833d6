"""The sidecar under load and failure: backpressure, bounded concurrency, a judge that raises,
graceful shutdown, in-line forwarding (and its endpoint down), 10,000 concurrent traces, gRPC
auth. The sidecar keeps serving; nothing is lost without a counted reason."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Iterator
from typing import ClassVar

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from tests.sidecar.support import GatedJudge, RaisingJudge, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post


def trace_hex(n: int) -> str:
    return f"{n + 1:032x}"


def test_a_full_queue_answers_429_and_concurrency_stays_bounded() -> None:
    judge = GatedJudge()
    running = start_sidecar(judge=judge, queue_size=1, concurrency=1)
    try:
        assert post(running, otlp_json(*agent_spans(trace_hex(1))))[0] == 200
        running.wait_for(lambda: judge.calls == 1, "the first run in the judge")
        assert post(running, otlp_json(*agent_spans(trace_hex(2))))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.queue_depth == 1, "a queued run")
        status, _ = post(running, otlp_json(*agent_spans(trace_hex(3))))
        assert status == 429
        assert running.sidecar.stats.get("spans", "rejected_busy") == 1
        judge.release.set()
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 2, "both judged")
        assert judge.most_at_once == 1
        assert post(running, otlp_json(*agent_spans(trace_hex(3))))[0] == 200  # retry works
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 3, "the retry")
    finally:
        judge.release.set()
        running.stop()


def test_a_full_queue_answers_grpc_resource_exhausted_with_retry_info() -> None:
    from tests.sidecar.support import retry_delay_s
    from tests.support.servers import free_port

    judge = GatedJudge()
    running = start_sidecar(judge=judge, queue_size=1, concurrency=1, grpc_port=free_port())
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.append(
        trace_pb2.Span(trace_id=b"\x07" * 16, span_id=b"\x08" * 8, name="step"))
    try:
        assert post(running, otlp_json(*agent_spans(trace_hex(1))))[0] == 200
        running.wait_for(lambda: judge.calls == 1, "the first run in the judge")
        assert post(running, otlp_json(*agent_spans(trace_hex(2))))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.queue_depth == 1, "a queued run")
        with grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}") as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Export(request, timeout=10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_delay_s(refused.value) == 1.0  # RetryInfo: the client may retry
            assert running.sidecar.stats.get("spans", "rejected_busy") == 1
            judge.release.set()
            running.wait_for(lambda: not running.sidecar.busy(), "room in the queue")
            stub.Export(request, timeout=10)  # the retry is taken
        assert running.sidecar.stats.get("spans", "accepted") == 5
    finally:
        judge.release.set()
        running.stop()


def test_a_judge_that_raises_is_recorded_and_the_sidecar_keeps_serving() -> None:
    running = start_sidecar(judge=RaisingJudge())
    try:
        for n in range(3):
            assert post(running, otlp_json(*agent_spans(trace_hex(n))))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 3, "three evaluations")
        for span in running.evaluations():
            assert span.attributes is not None
            assert span.attributes["gsar.decision"] != "proceed"
        judges = [s for s in running.exporter.get_finished_spans() if s.name == "gsar.judge"]
        assert judges and all(s.attributes is not None and
                              s.attributes["gsar.judge.error_type"] == "RuntimeError"
                              for s in judges)
    finally:
        running.stop()


def test_shutdown_judges_every_buffered_run_and_flags_it() -> None:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=600, max_age_s=600))
    assert post(running, otlp_json(*agent_spans(trace_hex(1))))[0] == 200
    tool_only = otlp_json(agent_spans(trace_hex(2))[0])
    assert post(running, tool_only)[0] == 200
    running.stop()
    stats = running.sidecar.stats
    assert stats.get("runs_judged", "shutdown") == 1  # the run with an answer
    assert stats.get("runs_skipped", "no_answer") == 1  # the trace with a tool span only
    (span,) = running.evaluations()
    assert span.attributes is not None
    assert span.attributes["gsar.sidecar.run.incomplete_reason"] == "shutdown"


class _Collector(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        type(self).bodies.append((self.path, self.rfile.read(length)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    _Collector.bodies = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    server.shutdown()


def test_in_line_every_request_is_forwarded_unchanged(collector: str) -> None:
    running = start_sidecar(forward=collector)
    try:
        body = otlp_json(*agent_spans())
        assert post(running, body)[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("spans", "forward_sent") == 2,
                         "the forward")
        assert _Collector.bodies == [("/v1/traces", body)]
    finally:
        running.stop()


def test_a_forward_endpoint_down_is_counted_and_judging_goes_on() -> None:
    running = start_sidecar(forward="http://127.0.0.1:9/v1/traces")
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("spans", "forward_failed") == 2,
                         "the failed forward")
        running.wait_for(lambda: len(running.evaluations()) == 1, "the evaluation")
    finally:
        running.stop()


def test_ten_thousand_concurrent_traces_stay_within_max_traces() -> None:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=600, max_age_s=600,
                                                  max_traces=1_000))
    try:
        request = trace_service_pb2.ExportTraceServiceRequest()
        spans = request.resource_spans.add().scope_spans.add().spans
        for n in range(10_000):
            spans.add(trace_id=bytes.fromhex(trace_hex(n)), span_id=(n + 1).to_bytes(8, "big"),
                      parent_span_id=b"\x00" * 7 + b"\x01", name="step")
        assert post(running, request.SerializeToString(), "application/x-protobuf")[0] == 200
        stats = running.sidecar.stats
        assert stats.get("spans", "accepted") == 10_000
        assert stats.get("traces_evicted", "fragment") == 9_000  # no run span: fragments
        assert running.call(lambda: running.sidecar.assembler.pending) == 1_000
        with urllib.request.urlopen(f"{running.http}/healthz", timeout=10) as response:
            health = json.loads(response.read())
        assert health["traces_buffered"] == 1_000
    finally:
        running.stop()
    # At shutdown the 1,000 held runs are released; none has an answer, each is counted.
    assert running.sidecar.stats.get("runs_skipped", "no_answer") == 1_000


def test_grpc_requires_the_token_and_rejects_bad_ids_with_partial_success() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    running = start_sidecar(grpc_port=port, token="s3cret")
    try:
        request = trace_service_pb2.ExportTraceServiceRequest()
        spans = request.resource_spans.add().scope_spans.add().spans
        spans.append(trace_pb2.Span(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="ok"))
        spans.append(trace_pb2.Span(trace_id=b"\x01" * 3, span_id=b"\x02" * 8, name="bad"))
        with grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}") as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Export(request, timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            answer = stub.Export(request, timeout=10,
                                 metadata=(("authorization", "Bearer s3cret"),))
        assert answer.partial_success.rejected_spans == 1
        assert running.sidecar.stats.get("spans", "accepted") == 1
    finally:
        running.stop()


def test_filters_and_sampling_skip_runs_with_a_counted_reason() -> None:
    from gsar_otel.sidecar.server import sampled

    running = start_sidecar(services=("agent",), agents=("bot",))
    try:
        assert post(running, otlp_json(*agent_spans(trace_hex(1))))[0] == 200  # agent "bot"
        other = json.loads(otlp_json(*agent_spans(trace_hex(2))))
        other["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"] = "web"
        assert post(running, json.dumps(other).encode())[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1
                         and running.sidecar.stats.get("runs_skipped", "filtered") == 1,
                         "one judged, one filtered")
    finally:
        running.stop()
    # Deterministic on the trace id: the same ids are chosen every time, about `rate` of them.
    ids = [f"{n * 0x9E3779B97F4A7C15 % 2**128:032x}" for n in range(1, 2001)]
    chosen = [i for i in ids if sampled(i, 0.25)]
    assert chosen == [i for i in ids if sampled(i, 0.25)]
    assert 400 <= len(chosen) <= 600


def test_sidecar_metrics_reach_the_meter_provider() -> None:
    running = start_sidecar()
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
        data = running.reader.get_metrics_data()
        points = {
            (metric.name, tuple(sorted(point.attributes.items()))): getattr(point, "value", None)
            for resource in data.resource_metrics for scope in resource.scope_metrics
            for metric in scope.metrics for point in metric.data.data_points}
        assert points[("gsar.sidecar.spans", (("gsar.sidecar.reason", "accepted"),))] == 2
        assert points[("gsar.sidecar.runs", (("gsar.sidecar.outcome", "judged"),
                                             ("gsar.sidecar.reason", "complete")))] == 1
        assert any(name == "gsar.sidecar.lag" for name, _ in points)
        assert any(name == "gsar.decisions" for name, _ in points)
    finally:
        running.stop()


def test_a_run_without_its_tool_spans_is_judged_flagged_and_counted() -> None:
    """Another replica got the tool spans: the answer is judged, never as if complete."""
    running = start_sidecar()
    try:
        assert post(running, otlp_json(agent_spans()[1]))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
        assert running.sidecar.stats.get("runs_judged", "no_evidence") == 1
        (span,) = running.evaluations()
        assert span.attributes is not None
        assert span.attributes["gsar.sidecar.run.incomplete"] is True
        assert span.attributes["gsar.sidecar.run.incomplete_reason"] == "no_evidence"
        assert span.attributes["gsar.decision"] != "proceed"
    finally:
        running.stop()


def test_a_judge_that_never_returns_cannot_hold_shutdown_and_every_run_is_counted() -> None:
    judge = GatedJudge()  # never released
    running = start_sidecar(judge=judge, concurrency=1, shutdown_grace_s=0.2)
    for n in (1, 2):
        assert post(running, otlp_json(*agent_spans(trace_hex(n))))[0] == 200
    running.wait_for(lambda: judge.calls == 1 and running.sidecar.stats.queue_depth == 1,
                     "one run judging, one waiting")
    running.stop()
    assert running.sidecar.stats.get("runs_dropped", "shutdown_timeout") == 2
    assert running.sidecar.stats.get("runs_judged") == 0
