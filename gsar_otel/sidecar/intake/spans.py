"""Received spans and log records as small frozen records, decoded from OTLP requests.

Both OTLP encodings are read: protobuf, and JSON with the specification's deviations from the
protobuf JSON mapping (hex ``traceId``/``spanId`` instead of base64, integer enums, unknown
fields ignored). A span or log record with a malformed id, or one its schema cannot read
(invalid UTF-8 in a protobuf string, a non-hex id in JSON), is rejected on its own and counted
by reason, so one bad item never costs the rest of the request (OTLP partial success,
:mod:`gsar_otel.sidecar.intake.otlp_wire`).

Records hold plain Python values, never the decoded protobuf objects, and are bounded at intake
(:mod:`gsar_otel.sidecar.intake.values`): a string or bytes value longer than
``max_value_bytes`` is cut to it, and past ``max_item_bytes`` held for one span (its attributes
and events) or log record further values are dropped; both are counted in
:attr:`Decoded.truncated` and in the record's ``truncated``. Each record carries ``size``, the
bytes it holds of its own after decoding (:mod:`gsar_otel.sidecar.intake.sizes`), which the
assembler's ``max_held_bytes`` budget is counted on.
A resource is one object for the spans of a request, and for identical resources of other
requests too; what spans share (their resource, ``resource_size`` bytes, and their scope name)
is charged once per distinct object by whoever holds them (:func:`shared_parts`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from gsar_otel.errors import GSARError
from gsar_otel.sidecar.intake.otlp_wire import (
    REJECT_BAD_ID,
    MalformedBody,
    Shape,
    read_json,
    read_protobuf,
)
from gsar_otel.sidecar.intake.sizes import (
    EVENT_OVERHEAD,
    RECORD_OVERHEAD,
    text_bytes,
    value_bytes,
)
from gsar_otel.sidecar.intake.values import (
    EMPTY,
    MAX_ITEM_BYTES,
    MAX_VALUE_BYTES,
    Intake,
    SharedResources,
)


class MalformedRequest(ValueError, GSARError):
    """The request body is not an OTLP export request in the stated encoding."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One span event: its name, time and attributes."""

    name: str
    time_ns: int
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY)


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
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    events: tuple[EventRecord, ...] = ()
    resource: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    scope: str = ""
    size: int = field(default=0, compare=False)
    """Bytes held of its own, resource and scope name aside (0: not measured; then measured
    from its values, :func:`held_size`)."""
    truncated: int = field(default=0, compare=False)
    """Values cut or dropped at intake."""
    resource_size: int = field(default=0, compare=False)
    """Bytes ``resource`` holds, charged once per distinct resource held (0: not measured)."""


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
    attributes: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    size: int = field(default=0, compare=False)
    truncated: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Decoded:
    """What one export request held: the valid items, how many were rejected and why (by
    reason in ``reasons``; ``error`` is the partial-success message), and the values cut."""

    spans: tuple[SpanRecord, ...] = ()
    logs: tuple[LogRecordData, ...] = ()
    rejected: int = 0
    error: str = ""
    reasons: Mapping[str, int] = field(default_factory=lambda: EMPTY)
    truncated: int = 0


# --- bytes held -----------------------------------------------------------------------------------


def held_size(item: SpanRecord | LogRecordData) -> int:
    """The bytes ``item`` holds of its own: its decoder's ``size``, else measured from its
    values (a record made in code)."""
    if item.size:
        return item.size
    total = RECORD_OVERHEAD + value_bytes(item.attributes)
    if isinstance(item, SpanRecord):
        total += text_bytes(item.name) + sum(
            EVENT_OVERHEAD + text_bytes(e.name) + value_bytes(e.attributes) for e in item.events)
    else:
        total += text_bytes(item.event_name) + value_bytes(item.body)
    return total


def shared_parts(span: SpanRecord) -> Iterator[tuple[object, int]]:
    """What ``span`` shares with other spans, and its bytes: its resource and its scope name."""
    if span.resource:
        yield span.resource, span.resource_size or value_bytes(span.resource)
    if span.scope:
        yield span.scope, text_bytes(span.scope)


def shared_size(spans: Iterable[SpanRecord]) -> int:
    """The bytes of the distinct resources and scope names ``spans`` hold (each once)."""
    seen: dict[int, int] = {}
    for span in spans:
        for part, size in shared_parts(span):
            seen[id(part)] = size
    return sum(seen.values())


_RESOURCES = SharedResources()


def clear_shared_resources() -> None:
    """Forget the resources kept for sharing between requests (tests measure without them)."""
    _RESOURCES.clear()


def _hex_id(raw: bytes, size: int, *, optional: bool = False) -> str | None:
    """``raw`` as lowercase hex when it is ``size`` bytes and not all zero, else None.
    An empty optional id (a root's parent) is ''."""
    if optional and (not raw or (len(raw) == size and not any(raw))):
        return ""
    if len(raw) != size or not any(raw):
        return None
    return raw.hex()


def _decoded(spans: tuple[SpanRecord, ...], logs: tuple[LogRecordData, ...],
             reasons: Counter[str], intake: Intake, what: str) -> Decoded:
    rejected = sum(reasons.values())
    error = ""
    if rejected:
        parts = [f"{n} with a malformed trace or span id" if reason == REJECT_BAD_ID
                 else f"{n} its schema cannot read (invalid UTF-8, a wrong type)"
                 for reason, n in sorted(reasons.items())]
        error = f"{rejected} {what} rejected: " + "; ".join(parts)
    return Decoded(spans=spans, logs=logs, rejected=rejected, error=error,
                   reasons=MappingProxyType(dict(reasons)) if reasons else EMPTY,
                   truncated=intake.truncated)


# --- traces -------------------------------------------------------------------------------------


def spans_from_request(request: ExportTraceServiceRequest, *, intake: Intake | None = None,
                       rejected: Counter[str] | None = None) -> Decoded:
    """The spans of a decoded trace export request; spans with bad ids are rejected."""
    intake = intake or Intake()
    reasons: Counter[str] = Counter(rejected or {})
    spans: list[SpanRecord] = []
    for resource_spans in request.resource_spans:
        resource, resource_size = _RESOURCES.get(resource_spans.resource, intake)
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope.name[:1024]
            for span in scope_spans.spans:
                trace_id = _hex_id(span.trace_id, 16)
                span_id = _hex_id(span.span_id, 8)
                parent = _hex_id(span.parent_span_id, 8, optional=True)
                if trace_id is None or span_id is None or parent is None:
                    reasons[REJECT_BAD_ID] += 1
                    continue
                intake.start_item()
                cut_before = intake.truncated
                name = intake.text(span.name)
                attributes = intake.attributes(span.attributes)
                events = tuple(EventRecord(intake.text(e.name), e.time_unix_nano,
                                           intake.attributes(e.attributes))
                               for e in span.events)
                spans.append(SpanRecord(
                    trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=name,
                    start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                    kind=span.kind, attributes=attributes, events=events,
                    resource=resource, scope=scope,
                    size=RECORD_OVERHEAD + EVENT_OVERHEAD * len(events) + intake.held,
                    truncated=intake.truncated - cut_before, resource_size=resource_size))
    return _decoded(tuple(spans), (), reasons, intake, "span(s)")


def logs_from_request(request: ExportLogsServiceRequest, *, intake: Intake | None = None,
                      rejected: Counter[str] | None = None) -> Decoded:
    """The log records of a decoded logs export request; records with bad ids are rejected.
    A record with no trace context is kept with empty ids (it joins no run)."""
    intake = intake or Intake()
    reasons: Counter[str] = Counter(rejected or {})
    logs: list[LogRecordData] = []
    for resource_logs in request.resource_logs:
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                trace_id = _hex_id(record.trace_id, 16, optional=True)
                span_id = _hex_id(record.span_id, 8, optional=True)
                if trace_id is None or span_id is None:
                    reasons[REJECT_BAD_ID] += 1
                    continue
                intake.start_item()
                cut_before = intake.truncated
                attributes = intake.attributes(record.attributes)
                name = intake.text(record.event_name
                                   or str(attributes.get("event.name", "")))
                logs.append(LogRecordData(
                    trace_id=trace_id, span_id=span_id, event_name=name,
                    time_ns=record.time_unix_nano or record.observed_time_unix_nano,
                    body=intake.value(record.body), attributes=attributes,
                    size=RECORD_OVERHEAD + intake.held,
                    truncated=intake.truncated - cut_before))
    return _decoded((), tuple(logs), reasons, intake, "log record(s)")


# --- wire formats ---------------------------------------------------------------------------------

_TRACES = Shape(ExportTraceServiceRequest, "resource_spans", "scope_spans", "spans",
                (("resourceSpans", "resource_spans"), ("scopeSpans", "scope_spans"),
                 ("spans", "spans")))
_LOGS = Shape(ExportLogsServiceRequest, "resource_logs", "scope_logs", "log_records",
              (("resourceLogs", "resource_logs"), ("scopeLogs", "scope_logs"),
               ("logRecords", "log_records")))


def _read(body: bytes, shape: Shape, json_encoded: bool, max_value_bytes: int
          ) -> tuple[Any, Counter[str]]:
    try:
        if json_encoded:
            return read_json(body, shape, max_value_bytes)
        return read_protobuf(body, shape)
    except MalformedBody as error:
        raise MalformedRequest(str(error)) from None


def decode_traces(body: bytes, *, json_encoded: bool, max_value_bytes: int = MAX_VALUE_BYTES,
                  max_item_bytes: int = MAX_ITEM_BYTES) -> Decoded:
    """Decode an ``/v1/traces`` body; raises :class:`MalformedRequest` when no part of it is
    a request (a bad span alone is rejected in the result)."""
    request, rejected = _read(body, _TRACES, json_encoded, max_value_bytes)
    return spans_from_request(request, intake=Intake(max_value_bytes, max_item_bytes),
                              rejected=rejected)


def decode_logs(body: bytes, *, json_encoded: bool, max_value_bytes: int = MAX_VALUE_BYTES,
                max_item_bytes: int = MAX_ITEM_BYTES) -> Decoded:
    """Decode an ``/v1/logs`` body; raises :class:`MalformedRequest` as :func:`decode_traces`."""
    request, rejected = _read(body, _LOGS, json_encoded, max_value_bytes)
    return logs_from_request(request, intake=Intake(max_value_bytes, max_item_bytes),
                             rejected=rejected)


def json_text(value: Any) -> Any:
    """A JSON-encoded string attribute as its value; anything else unchanged."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def read_serialized(body: bytes, signal: str, max_value_bytes: int = MAX_VALUE_BYTES
                    ) -> tuple[bytes, dict[str, int]]:
    """An OTLP/JSON ``body`` read into its protobuf request (values cut, ids converted) and
    serialized, with the items rejected by reason: what the decoding process
    (:mod:`gsar_otel.sidecar.intake.decode_process`) sends back. Raises
    :class:`MalformedRequest` as :func:`decode_traces` does."""
    shape = _TRACES if signal == "traces" else _LOGS
    request, rejected = _read(body, shape, True, max_value_bytes)
    return request.SerializeToString(), dict(rejected)


def decode_read(data: bytes, rejected: Counter[str], signal: str, *,
                max_value_bytes: int = MAX_VALUE_BYTES,
                max_item_bytes: int = MAX_ITEM_BYTES) -> Decoded:
    """The spans or log records of a request :func:`read_serialized` read, as
    :func:`decode_traces` / :func:`decode_logs` give them for the JSON body."""
    shape = _TRACES if signal == "traces" else _LOGS
    request = shape.request.FromString(data)
    build = spans_from_request if signal == "traces" else logs_from_request
    return build(request, intake=Intake(max_value_bytes, max_item_bytes), rejected=rejected)
