"""Issue 24 C11: one bad span in a batch is rejected alone (OTLP partial success), whatever the
encoding: invalid UTF-8 in a protobuf string, a non-hex trace id in OTLP/JSON. The rest of the
batch is accepted and judged; the answer says how many were rejected and why; each rejection is
counted under its reason."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from gsar_otel.sidecar.intake.spans import MalformedRequest, decode_logs, decode_traces
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post, span

RUNS = 50


def trace_id(n: int) -> str:
    return f"{n + 1:032x}"


def fifty_runs_json(bad: dict[str, object]) -> bytes:
    spans = [s for n in range(RUNS) for s in agent_spans(trace_id(n))]
    return otlp_json(*spans[:RUNS], bad, *spans[RUNS:])


def fifty_runs_protobuf() -> bytes:
    """The same 50 runs as protobuf, with one extra span whose name is invalid UTF-8."""
    from google.protobuf import json_format

    from gsar_otel.sidecar.intake.otlp_wire import _convert_ids

    document = json.loads(fifty_runs_json(span("00000000000000aa", "", "BADNAME1", [],
                                                trace_id=trace_id(999))))
    request = ExportTraceServiceRequest()
    json_format.ParseDict(_convert_ids(document, 1 << 20), request)
    body = request.SerializeToString()
    assert body.count(b"BADNAME1") == 1
    return body.replace(b"BADNAME1", b"BAD\xff\xfeME1")  # same length: framing intact


def test_invalid_utf8_in_one_protobuf_span_rejects_that_span_only() -> None:
    decoded = decode_traces(fifty_runs_protobuf(), json_encoded=False)
    assert (len(decoded.spans), decoded.rejected) == (2 * RUNS, 1)
    assert dict(decoded.reasons) == {"rejected_malformed_span": 1}
    assert "invalid UTF-8" in decoded.error


def test_a_non_hex_trace_id_in_json_rejects_that_span_only() -> None:
    bad = span("00000000000000aa", "", "x", [], trace_id="zz" * 16)
    decoded = decode_traces(fifty_runs_json(bad), json_encoded=True)
    assert (len(decoded.spans), decoded.rejected) == (2 * RUNS, 1)
    assert dict(decoded.reasons) == {"rejected": 1}
    assert "malformed trace or span id" in decoded.error


def test_a_log_record_with_invalid_utf8_is_rejected_alone() -> None:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    request = ExportLogsServiceRequest()
    scope = request.resource_logs.add().scope_logs.add()
    for n in range(3):
        record = scope.log_records.add(event_name=f"EVENTNO{n}")
        record.body.string_value = "row"
    body = request.SerializeToString().replace(b"EVENTNO1", b"EVEN\xffNO1")
    decoded = decode_logs(body, json_encoded=False)
    assert [r.event_name for r in decoded.logs] == ["EVENTNO0", "EVENTNO2"]
    assert decoded.rejected == 1


def test_a_request_with_nothing_readable_is_still_malformed() -> None:
    body = otlp_json(span("zz" * 8, "", "x", []))
    with pytest.raises(MalformedRequest):
        decode_traces(body, json_encoded=True)


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar(max_body_bytes=1024 * 1024, max_decompressed_bytes=4 * 1024 * 1024)
    yield running
    running.stop()


def one_span_rejected_and_every_run_judged(running: RunningSidecar) -> None:
    """The batch's one unreadable span rejected alone, counted as such; its 50 runs judged."""
    running.wait_for(lambda: len(running.evaluations()) == RUNS, "50 evaluations")
    stats = running.sidecar.stats
    assert stats.get("spans", "rejected_malformed_span") == 1
    assert stats.get("spans", "accepted") == 2 * RUNS
    assert stats.get("spans", "rejected_malformed") == 0


def test_over_http_the_batch_is_judged_and_the_answer_is_partial_success_protobuf(
        sidecar: RunningSidecar) -> None:
    status, body = post(sidecar, fifty_runs_protobuf(), "application/x-protobuf")
    assert status == 200
    answer = ExportTraceServiceResponse()
    answer.ParseFromString(body)
    assert answer.partial_success.rejected_spans == 1
    assert "invalid UTF-8" in answer.partial_success.error_message
    one_span_rejected_and_every_run_judged(sidecar)


def test_over_http_the_batch_is_judged_and_the_answer_is_partial_success_json(
        sidecar: RunningSidecar) -> None:
    bad = span("00000000000000aa", "", "x", [], trace_id="zz" * 16)
    status, body = post(sidecar, fifty_runs_json(bad))
    assert status == 200
    partial = json.loads(body)["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert "malformed trace or span id" in partial["errorMessage"]
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == RUNS, "50 evaluations")
    assert sidecar.sidecar.stats.get("spans", "rejected") == 1
    assert "gsar_sidecar_spans_total{gsar_sidecar_reason=\"rejected\"} 1" in (
        sidecar.sidecar.stats.prometheus_text())


def grpc_export(running: RunningSidecar, body: bytes) -> ExportTraceServiceResponse:
    """Send ``body`` as the Export message's bytes (as a client would frame it) over gRPC."""
    import grpc

    with grpc.insecure_channel(f"127.0.0.1:{running.sidecar.grpc_port}") as channel:
        call = channel.unary_unary(
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
        response: ExportTraceServiceResponse = call(body, timeout=30)
        return response


@pytest.fixture
def grpc_sidecar() -> Iterator[RunningSidecar]:
    from tests.support.servers import free_port

    running = start_sidecar(grpc_port=free_port(), max_body_bytes=1024 * 1024)
    yield running
    running.stop()


def test_over_grpc_one_invalid_utf8_span_is_rejected_alone_and_the_batch_judged(
        grpc_sidecar: RunningSidecar) -> None:
    answer = grpc_export(grpc_sidecar, fifty_runs_protobuf())
    assert answer.partial_success.rejected_spans == 1
    assert "invalid UTF-8" in answer.partial_success.error_message
    one_span_rejected_and_every_run_judged(grpc_sidecar)


def test_over_grpc_a_message_with_nothing_readable_is_invalid_argument_and_counted(
        grpc_sidecar: RunningSidecar) -> None:
    import grpc

    with pytest.raises(grpc.RpcError) as refused:
        grpc_export(grpc_sidecar, b"\x0a\xff\xff\xff\xff\x0f")  # a field longer than the message
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert grpc_sidecar.sidecar.stats.get("spans", "rejected_malformed") == 1
