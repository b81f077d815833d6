"""Decoding OTLP requests: protobuf and OTLP/JSON (hex ids) give the same records; any bytes
either decode or raise MalformedRequest, never anything else."""

from __future__ import annotations

import base64
import contextlib
import json
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel.sidecar.intake.spans import MalformedRequest, decode_logs, decode_traces

_IDS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids(node: Any) -> Any:
    """protobuf's JSON mapping (base64 ids) -> OTLP/JSON (hex ids)."""
    if isinstance(node, dict):
        return {k: (base64.b64decode(v).hex() if k in _IDS else _hex_ids(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


def _sdk_spans() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("invoke_agent", attributes={
            "gen_ai.operation.name": "invoke_agent", "n": 3, "ok": True, "x": 0.5,
            "tags": ["a", "b"]}), tracer.start_as_current_span("execute_tool t") as child:
        child.add_event("gen_ai.tool.message", {"content": "row", "id": "c1"})
    return exporter.get_finished_spans()


def test_protobuf_and_json_decode_to_the_same_records() -> None:
    request = encode_spans(_sdk_spans())
    from_protobuf = decode_traces(request.SerializeToString(), json_encoded=False)
    as_json = json.dumps(_hex_ids(json_format.MessageToDict(request))).encode()
    from_json = decode_traces(as_json, json_encoded=True)
    assert from_protobuf == from_json
    child, root = from_protobuf.spans
    assert root.parent_span_id == "" and child.parent_span_id == root.span_id
    assert len(root.trace_id) == 32 and len(root.span_id) == 16
    assert dict(root.attributes) == {"gen_ai.operation.name": "invoke_agent", "n": 3,
                                     "ok": True, "x": 0.5, "tags": ["a", "b"]}
    assert child.events[0].name == "gen_ai.tool.message"
    assert dict(child.events[0].attributes) == {"content": "row", "id": "c1"}
    assert root.scope == "agent" and "service.name" in root.resource


def test_log_records_keep_their_trace_context_and_event_name() -> None:
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    tracer_provider = TracerProvider()
    with tracer_provider.get_tracer("a").start_as_current_span("s") as span:
        provider.get_logger("agent").emit(event_name="gen_ai.tool.message",
                                          body={"content": "row", "id": "c1"})
    request = encode_logs(exporter.get_finished_logs())
    decoded = decode_logs(request.SerializeToString(), json_encoded=False)
    (record,) = decoded.logs
    assert record.trace_id == f"{span.get_span_context().trace_id:032x}"
    assert record.event_name == "gen_ai.tool.message"
    assert record.body == {"content": "row", "id": "c1"}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_decode_or_raise_malformed(body: bytes) -> None:
    for json_encoded in (False, True):
        for decode in (decode_traces, decode_logs):
            with contextlib.suppress(MalformedRequest):
                decode(body, json_encoded=json_encoded)


def test_deeply_nested_json_is_malformed_not_a_crash() -> None:
    deep_array = b"[" * 100_000 + b"]" * 100_000
    deep_value = (b'{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":'
                  + b'{"arrayValue":{"values":[' * 5_000 + b"]}}" * 5_000 + b"}]}}]}")
    for body in (deep_array, deep_value):
        with pytest.raises(MalformedRequest):
            decode_traces(body, json_encoded=True)


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    size, length = bytearray(), len(payload)
    while True:
        byte, length = length & 0x7F, length >> 7
        size.append(byte | (0x80 if length else 0))
        if not length:
            return bytes([number << 3 | 2]) + bytes(size) + payload


def test_deeply_nested_protobuf_values_are_malformed_not_a_crash() -> None:
    value = AnyValue(string_value="leaf").SerializeToString()
    for _ in range(500):  # AnyValue.array_value (5) > ArrayValue.values (1) > AnyValue ...
        value = _field(5, _field(1, value))
    key_value = _field(1, b"k") + _field(2, value)
    body = _field(1, _field(1, _field(1, key_value)))  # request > resource_spans > resource
    with pytest.raises(MalformedRequest):
        decode_traces(body, json_encoded=False)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(
                         ["resourceSpans", "scopeSpans", "spans", "traceId", "spanId",
                          "attributes", "key", "value", "name", "x"]), inner, max_size=4),
                     max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_any_json_document_decodes_or_raises_malformed(document: Any) -> None:
    with contextlib.suppress(MalformedRequest):
        decode_traces(json.dumps(document).encode(), json_encoded=True)
