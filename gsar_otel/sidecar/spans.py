"""Received spans and log records as small frozen records, decoded from OTLP requests.

Both OTLP encodings are read: protobuf, and JSON with the specification's deviations from the
protobuf JSON mapping (hex ``traceId``/``spanId`` instead of base64, integer enums, unknown
fields ignored). A span or log record with a malformed id, or one its schema cannot read
(invalid UTF-8 in a protobuf string, a non-hex id in JSON), is rejected on its own and counted
by reason, so one bad item never costs the rest of the request (OTLP partial success,
:mod:`gsar_otel.sidecar.otlp_wire`).

Records hold plain Python values, never the decoded protobuf objects, and are bounded at intake:
a string or bytes value longer than ``max_value_bytes`` is cut to it, and past
``max_item_bytes`` of values in one span (its attributes and events) or log record further values
are dropped; both are counted in :attr:`Decoded.truncated` and in the record's ``truncated``.
Each record carries ``size``, an estimate of the bytes it holds, which the assembler's
``max_held_bytes`` budget is counted on. Resources are shared between the spans of a request,
and a small resource (the usual SDK one) between requests too.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from google.protobuf import json_format  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from gsar_otel.sidecar.otlp_wire import (
    REJECT_BAD_ID,
    MalformedBody,
    Shape,
    read_json,
    read_protobuf,
)

_EMPTY: Mapping[str, Any] = MappingProxyType({})
MAX_VALUE_DEPTH = 16
"""Deepest nesting of array / kvlist values decoded; deeper values become their JSON text."""
MAX_VALUE_BYTES = 1024 * 1024
"""Default cut of one string or bytes value (characters or bytes) at intake."""
MAX_ITEM_BYTES = 8 * 1024 * 1024
"""Default most bytes of values held for one span (attributes and events) or log record."""
RECORD_OVERHEAD = 600
"""Bytes a span record costs before its values: the record, its three ids and name, the
mappings around its attributes and its place in the assembler's buffers."""
SHARED_RESOURCE_BYTES = 16 * 1024
"""Resources up to this size are shared between requests (by their encoded bytes)."""
SHARED_RESOURCES = 1024
"""How many resources are kept for sharing (least recently used go first)."""


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
    size: int = field(default=0, compare=False)
    """Estimated bytes held (0: not estimated; the assembler then estimates it)."""
    truncated: int = field(default=0, compare=False)
    """Values cut or dropped at intake."""


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
    reasons: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    truncated: int = 0


# --- values ---------------------------------------------------------------------------------------


class Intake:
    """Turns OTLP values into plain ones within the byte bounds, counting what it holds.

    Args:
        max_value_bytes: a longer string or bytes value is cut to this many characters/bytes.
        max_item_bytes: past this many bytes of values in one item, further values are None.
    """

    __slots__ = ("held", "max_item_bytes", "max_value_bytes", "truncated")

    def __init__(self, max_value_bytes: int = MAX_VALUE_BYTES,
                 max_item_bytes: int = MAX_ITEM_BYTES) -> None:
        self.max_value_bytes, self.max_item_bytes = max_value_bytes, max_item_bytes
        self.held = 0
        self.truncated = 0

    def start_item(self) -> None:
        """The next values belong to a new span or log record."""
        self.held = 0

    def value(self, value: AnyValue, depth: int = 0) -> Any:
        """``value`` as a plain Python value (str, bool, int, float, bytes, list, dict)."""
        which = value.WhichOneof("value")
        if which is None:
            return None
        if self.held >= self.max_item_bytes:
            self.truncated += 1
            return None
        if which in ("array_value", "kvlist_value") and depth >= MAX_VALUE_DEPTH:
            return self._text(json_format.MessageToJson(value, indent=None))
        if which == "array_value":
            self.held += 56
            return [self.value(v, depth + 1) for v in value.array_value.values]
        if which == "kvlist_value":
            self.held += 64
            return {self._text(kv.key): self.value(kv.value, depth + 1)
                    for kv in value.kvlist_value.values}
        if which == "string_value":
            return self._text(value.string_value)
        if which == "bytes_value":
            raw: bytes = value.bytes_value
            if len(raw) > self.max_value_bytes:
                raw, self.truncated = raw[:self.max_value_bytes], self.truncated + 1
            self.held += 33 + len(raw)
            return raw
        self.held += 32
        return getattr(value, which)

    def _text(self, text: str) -> str:
        if len(text) > self.max_value_bytes:
            text, self.truncated = text[:self.max_value_bytes], self.truncated + 1
        self.held += 49 + (len(text) if text.isascii() else 4 * len(text))
        return text

    def attributes(self, pairs: Iterable[KeyValue]) -> Mapping[str, Any]:
        """Key-value pairs as a read-only mapping (a repeated key keeps its last value)."""
        decoded = {self._text(kv.key): self.value(kv.value) for kv in pairs}
        if not decoded:
            return _EMPTY
        self.held += 100 + 40 * len(decoded)
        return MappingProxyType(decoded)


def any_value(value: AnyValue, depth: int = 0) -> Any:
    """An OTLP AnyValue as a plain Python value, within the default bounds."""
    return Intake().value(value, depth)


def attributes_of(pairs: Iterable[KeyValue]) -> Mapping[str, Any]:
    """Key-value pairs as a read-only mapping (a repeated key keeps its last value)."""
    return Intake().attributes(pairs)


class _Resources:
    """Small resources shared between requests, keyed by their encoded bytes (thread-safe:
    requests are decoded in worker threads)."""

    def __init__(self) -> None:
        self._cache: OrderedDict[bytes, Mapping[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, resource: Any, intake: Intake) -> tuple[Mapping[str, Any], int]:
        """The resource's attributes and the bytes each span must count for them (0 when
        shared)."""
        encoded = resource.SerializeToString()
        if len(encoded) > SHARED_RESOURCE_BYTES:
            intake.start_item()
            attributes = intake.attributes(resource.attributes)
            return attributes, intake.held
        with self._lock:
            found = self._cache.get(encoded)
            if found is not None:
                self._cache.move_to_end(encoded)
                return found, 0
        intake.start_item()
        attributes = intake.attributes(resource.attributes)
        with self._lock:
            self._cache[encoded] = attributes
            while len(self._cache) > SHARED_RESOURCES:
                self._cache.popitem(last=False)
        return attributes, 0


_RESOURCES = _Resources()


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
                   reasons=MappingProxyType(dict(reasons)) if reasons else _EMPTY,
                   truncated=intake.truncated)


# --- traces -------------------------------------------------------------------------------------


def spans_from_request(request: ExportTraceServiceRequest, *, intake: Intake | None = None,
                       rejected: Counter[str] | None = None) -> Decoded:
    """The spans of a decoded trace export request; spans with bad ids are rejected."""
    intake = intake or Intake()
    reasons: Counter[str] = Counter(rejected or {})
    spans: list[SpanRecord] = []
    for resource_spans in request.resource_spans:
        resource, resource_bytes = _RESOURCES.get(resource_spans.resource, intake)
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
                name = intake._text(span.name)
                attributes = intake.attributes(span.attributes)
                events = tuple(EventRecord(intake._text(e.name), e.time_unix_nano,
                                           intake.attributes(e.attributes))
                               for e in span.events)
                spans.append(SpanRecord(
                    trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=name,
                    start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                    kind=span.kind, attributes=attributes, events=events,
                    resource=resource, scope=scope,
                    size=RECORD_OVERHEAD + 100 * len(events) + intake.held + resource_bytes,
                    truncated=intake.truncated - cut_before))
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
                name = intake._text(record.event_name
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
