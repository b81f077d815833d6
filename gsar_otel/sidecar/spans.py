"""Received spans and log records as small frozen records, decoded from OTLP requests.

Both OTLP encodings are read: protobuf, and JSON with the specification's deviations from the
protobuf JSON mapping (hex ``traceId``/``spanId`` instead of base64, integer enums, unknown
fields ignored). A span or log record with a malformed id is rejected on its own and counted,
so one bad item never costs the rest of the request (OTLP partial success).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from google.protobuf import json_format  # type: ignore[import-untyped]
from google.protobuf.message import DecodeError, Message  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

_EMPTY: Mapping[str, Any] = MappingProxyType({})
MAX_VALUE_DEPTH = 16
"""Deepest nesting of array / kvlist values decoded; deeper values become their JSON text."""


class MalformedRequest(ValueError):
    """The request body is not an OTLP export request in the stated encoding."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One span event: its name, time and attributes."""

    name: str
    time_ns: int
    attributes: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One received span. Ids are lowercase hex; ``parent_span_id`` is empty on a root."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    start_ns: int = 0
    end_ns: int = 0
    kind: int = 0
    attributes: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    events: tuple[EventRecord, ...] = ()
    resource: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    scope: str = ""


@dataclass(frozen=True, slots=True)
class LogRecordData:
    """One received log record, tied to a span by ``trace_id``/``span_id`` when it has them.

    ``event_name`` is the record's ``event_name`` field, else its ``event.name`` attribute.
    """

    trace_id: str
    span_id: str
    event_name: str
    time_ns: int = 0
    body: Any = None
    attributes: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class Decoded:
    """What one export request held: the valid items and how many were rejected, and why."""

    spans: tuple[SpanRecord, ...] = ()
    logs: tuple[LogRecordData, ...] = ()
    rejected: int = 0
    error: str = ""


# --- values ---------------------------------------------------------------------------------------


def any_value(value: AnyValue, depth: int = 0) -> Any:
    """An OTLP AnyValue as a plain Python value (str, bool, int, float, bytes, list, dict)."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which in ("array_value", "kvlist_value") and depth >= MAX_VALUE_DEPTH:
        return json_format.MessageToJson(value, indent=None)
    if which == "array_value":
        return [any_value(v, depth + 1) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: any_value(kv.value, depth + 1) for kv in value.kvlist_value.values}
    return getattr(value, which)


def attributes_of(pairs: Iterable[KeyValue]) -> Mapping[str, Any]:
    """Key-value pairs as a read-only mapping (a repeated key keeps its last value)."""
    decoded = {kv.key: any_value(kv.value) for kv in pairs}
    return MappingProxyType(decoded) if decoded else _EMPTY


def _hex_id(raw: bytes, size: int, *, optional: bool = False) -> str | None:
    """``raw`` as lowercase hex when it is ``size`` bytes and not all zero, else None.
    An empty optional id (a root's parent) is ''."""
    if optional and (not raw or (len(raw) == size and not any(raw))):
        return ""
    if len(raw) != size or not any(raw):
        return None
    return raw.hex()


# --- traces -------------------------------------------------------------------------------------


def spans_from_request(request: ExportTraceServiceRequest) -> Decoded:
    """The spans of a decoded trace export request; spans with bad ids are rejected."""
    spans: list[SpanRecord] = []
    rejected = 0
    for resource_spans in request.resource_spans:
        resource = attributes_of(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope.name
            for span in scope_spans.spans:
                trace_id = _hex_id(span.trace_id, 16)
                span_id = _hex_id(span.span_id, 8)
                parent = _hex_id(span.parent_span_id, 8, optional=True)
                if trace_id is None or span_id is None or parent is None:
                    rejected += 1
                    continue
                spans.append(SpanRecord(
                    trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=span.name,
                    start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                    kind=span.kind, attributes=attributes_of(span.attributes),
                    events=tuple(EventRecord(e.name, e.time_unix_nano, attributes_of(e.attributes))
                                 for e in span.events),
                    resource=resource, scope=scope))
    error = f"{rejected} span(s) with a malformed trace or span id" if rejected else ""
    return Decoded(spans=tuple(spans), rejected=rejected, error=error)


def logs_from_request(request: ExportLogsServiceRequest) -> Decoded:
    """The log records of a decoded logs export request; records with bad ids are rejected.
    A record with no trace context is kept with empty ids (it joins no run)."""
    logs: list[LogRecordData] = []
    rejected = 0
    for resource_logs in request.resource_logs:
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                trace_id = _hex_id(record.trace_id, 16, optional=True)
                span_id = _hex_id(record.span_id, 8, optional=True)
                if trace_id is None or span_id is None:
                    rejected += 1
                    continue
                attributes = attributes_of(record.attributes)
                name = record.event_name or str(attributes.get("event.name", ""))
                logs.append(LogRecordData(
                    trace_id=trace_id, span_id=span_id, event_name=name,
                    time_ns=record.time_unix_nano or record.observed_time_unix_nano,
                    body=any_value(record.body), attributes=attributes))
    error = f"{rejected} log record(s) with a malformed trace or span id" if rejected else ""
    return Decoded(logs=tuple(logs), rejected=rejected, error=error)


# --- wire formats ---------------------------------------------------------------------------------


def parse_protobuf(body: bytes, message: type[Message]) -> Any:
    """``body`` as a protobuf ``message``; raises :class:`MalformedRequest`."""
    request = message()
    try:
        request.ParseFromString(body)
    except (DecodeError, ValueError, RuntimeError) as error:
        raise MalformedRequest(f"not a protobuf {message.__name__}: {error}") from None
    return request


_ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id",
                        "parent_span_id"})


def _hex_to_base64(value: Any, field: str) -> Any:
    if not isinstance(value, str):
        raise MalformedRequest(f"{field} must be a hex string, got {type(value).__name__}")
    try:
        raw = binascii.unhexlify(value)
    except (binascii.Error, ValueError):
        raise MalformedRequest(f"{field} is not hex: {value[:40]!r}") from None
    return base64.b64encode(raw).decode("ascii")


def _convert_ids(node: Any, depth: int = 0) -> Any:
    """Rewrite every hex id field (at any depth: spans, links, log records) as base64, the
    form protobuf's JSON mapping reads. Attribute values are left alone."""
    if depth > 64:
        raise MalformedRequest("JSON nested too deeply")
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _ID_FIELDS and value != "":
                out[key] = _hex_to_base64(value, key)
            elif key in ("attributes", "body", "value"):
                out[key] = value
            else:
                out[key] = _convert_ids(value, depth + 1)
        return out
    if isinstance(node, list):
        return [_convert_ids(v, depth + 1) for v in node]
    return node


def parse_json(body: bytes, message: type[Message]) -> Any:
    """``body`` as OTLP/JSON for ``message``; raises :class:`MalformedRequest`."""
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise MalformedRequest(f"not JSON: {str(error)[:200]}") from None
    if not isinstance(document, dict):
        raise MalformedRequest("an OTLP/JSON request must be a JSON object")
    request = message()
    try:
        json_format.ParseDict(_convert_ids(document), request, ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        raise MalformedRequest(f"not an OTLP/JSON {message.__name__}: {error}") from None
    return request


def decode_traces(body: bytes, *, json_encoded: bool) -> Decoded:
    """Decode an ``/v1/traces`` body; raises :class:`MalformedRequest`."""
    parse = parse_json if json_encoded else parse_protobuf
    return spans_from_request(parse(body, ExportTraceServiceRequest))


def decode_logs(body: bytes, *, json_encoded: bool) -> Decoded:
    """Decode an ``/v1/logs`` body; raises :class:`MalformedRequest`."""
    parse = parse_json if json_encoded else parse_protobuf
    return logs_from_request(parse(body, ExportLogsServiceRequest))


def json_text(value: Any) -> Any:
    """A JSON-encoded string attribute as its value; anything else unchanged."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
