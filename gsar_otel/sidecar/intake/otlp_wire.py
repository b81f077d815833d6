"""Reading an OTLP export request so that one bad span or log record costs only itself.

protobuf: the request is parsed whole first (the fast path). When that fails, it is read again
through two shell messages of protobuf's own parser that take each nested message as bytes
(``ExportTraceServiceRequest`` -> ``ResourceSpans`` -> ``ScopeSpans`` -> ``Span``; logs have the
same shape), and each resource, scope and span is parsed on its own: a span holding invalid
UTF-8, say, is rejected alone (``malformed_span``) and the rest of the request is kept. A
resource or scope that cannot be parsed rejects the items under it.

JSON: each span (log record) is converted (hex ids to base64) and parsed on its own; a span
whose id is not hex or that does not fit the schema is rejected alone.

Only a body that is not a request at all (not protobuf, not a JSON object, or not one item of
it readable) raises :class:`MalformedBody`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from google.protobuf import (  # type: ignore[import-untyped]
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
)
from google.protobuf.message import DecodeError, Message  # type: ignore[import-untyped]

from gsar_otel.errors import GSARError

REJECT_BAD_ID = "rejected"
"""A span or log record with a malformed trace or span id (the reason's historical name)."""
REJECT_MALFORMED = "rejected_malformed_span"
"""A span or log record (or the resource or scope above it) that its schema cannot read:
invalid UTF-8 in a string, a value of the wrong type."""


class MalformedBody(ValueError, GSARError):
    """The body is not an export request at all."""


@dataclass(frozen=True, slots=True)
class Shape:
    """Where the items sit in one signal's export request."""

    request: type[Message]
    resource_field: str  # resource_spans / resource_logs
    scope_field: str  # scope_spans / scope_logs
    item_field: str  # spans / log_records
    json_keys: tuple[tuple[str, str], tuple[str, str], tuple[str, str]]


def _shells() -> tuple[type[Message], type[Message]]:
    """``Outer {repeated bytes items = 1}`` and ``Group {bytes head = 1; repeated bytes items =
    2}``: the wire shape of requests, resource groups and scope groups, nested parts unread."""
    proto = descriptor_pb2.FileDescriptorProto(name="gsar_otlp_shells.proto",
                                               package="gsar.shells", syntax="proto3")
    outer = proto.message_type.add(name="Outer")
    outer.field.add(name="items", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    group = proto.message_type.add(name="Group")
    group.field.add(name="head", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    group.field.add(name="items", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return (message_factory.GetMessageClass(pool.FindMessageTypeByName("gsar.shells.Outer")),
            message_factory.GetMessageClass(pool.FindMessageTypeByName("gsar.shells.Group")))


_OUTER, _GROUP = _shells()


def _parse(message: Message, body: bytes) -> bool:
    try:
        message.ParseFromString(body)
    except (DecodeError, ValueError, RuntimeError):
        return False
    return True


def read_protobuf(body: bytes, shape: Shape) -> tuple[Any, Counter[str]]:
    """The request in ``body`` and the items rejected by reason.

    Raises:
        MalformedBody: ``body`` is not a protobuf message of the request's shape.
    """
    request = shape.request()
    if _parse(request, body):
        return request, Counter()
    outer = _OUTER()
    if not _parse(outer, body):
        raise MalformedBody(f"not a protobuf {shape.request.__name__}")
    rejected: Counter[str] = Counter()
    request = shape.request()
    accepted, broken = 0, False
    for resource_bytes in outer.items:
        group = _GROUP()
        if not _parse(group, resource_bytes):
            rejected[REJECT_MALFORMED] += 1  # items unknown: the group counts as one
            broken = True
            continue
        resource_group = getattr(request, shape.resource_field).add()
        resource_ok = _parse(resource_group.resource, group.head)
        broken = broken or not resource_ok
        for scope_bytes in group.items:
            scope = _GROUP()
            if not _parse(scope, scope_bytes):
                rejected[REJECT_MALFORMED] += 1
                broken = True
                continue
            scope_group = getattr(resource_group, shape.scope_field).add()
            if not resource_ok or not _parse(scope_group.scope, scope.head):
                rejected[REJECT_MALFORMED] += len(scope.items)
                broken = True
                continue
            items = getattr(scope_group, shape.item_field)
            for item_bytes in scope.items:
                if _parse(items.add(), item_bytes):
                    accepted += 1
                else:
                    del items[-1]
                    rejected[REJECT_MALFORMED] += 1
    if (broken or rejected) and not accepted:
        raise MalformedBody(f"not a protobuf {shape.request.__name__}: no part of it is readable")
    return request, rejected


_ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id",
                        "parent_span_id"})
MAX_JSON_DEPTH = 64


class _BadId(ValueError, GSARError):
    pass


def _cut(node: Any, limit: int, depth: int = 0) -> Any:
    """Strings in an attribute value cut to ``limit + 1`` characters before protobuf's JSON
    parser reads them (it scans each string whole, holding the interpreter lock); the intake
    then sees them over the limit and cuts and counts them on their span."""
    if isinstance(node, str):
        return node[:limit + 1] if len(node) > limit + 1 else node
    if depth > MAX_JSON_DEPTH:
        return node
    if isinstance(node, dict):
        return {key: _cut(value, limit, depth + 1) for key, value in node.items()}
    if isinstance(node, list):
        return [_cut(value, limit, depth + 1) for value in node]
    return node


def _convert_ids(node: Any, limit: int, depth: int = 0) -> Any:
    """Rewrite every hex id field (spans, links, log records) as base64, the form protobuf's
    JSON mapping reads. Attribute values are only cut (:func:`_cut`)."""
    if depth > MAX_JSON_DEPTH:
        raise _BadId("nested too deeply")
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _ID_FIELDS and value != "":
                if not isinstance(value, str):
                    raise _BadId(f"{key} must be a hex string")
                try:
                    out[key] = base64.b64encode(binascii.unhexlify(value)).decode("ascii")
                except (binascii.Error, ValueError):
                    raise _BadId(f"{key} is not hex: {value[:40]!r}") from None
            elif key in ("attributes", "body", "value"):
                out[key] = _cut(value, limit)
            else:
                out[key] = _convert_ids(value, limit, depth + 1)
        return out
    if isinstance(node, list):
        return [_convert_ids(v, limit, depth + 1) for v in node]
    return node


def _list(document: dict[str, Any], keys: tuple[str, str]) -> list[Any]:
    value = document.get(keys[0], document.get(keys[1]))
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedBody(f"{keys[0]} must be a list")
    return value


def _parse_dict(node: Any, message: Message) -> bool:
    """Parse ``node`` (ids already converted) into ``message``; False when it does not fit."""
    try:
        json_format.ParseDict(node, message, ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError, AttributeError, RecursionError):
        return False
    return True


def read_json(body: bytes, shape: Shape, max_value_bytes: int = 1 << 20
              ) -> tuple[Any, Counter[str]]:
    """The request in the OTLP/JSON ``body`` and the items rejected by reason (string values
    longer than ``max_value_bytes`` are cut on the way, see :func:`_cut`).

    Raises:
        MalformedBody: not JSON, not an object, or its lists are not lists.
    """
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise MalformedBody(f"not JSON: {str(error)[:200]}") from None
    if not isinstance(document, dict):
        raise MalformedBody("an OTLP/JSON request must be a JSON object")
    resource_keys, scope_keys, item_keys = shape.json_keys
    request = shape.request()
    rejected: Counter[str] = Counter()
    accepted, broken = 0, False
    for resource_node in _list(document, resource_keys):
        if not isinstance(resource_node, dict):
            raise MalformedBody(f"each of {resource_keys[0]} must be an object")
        resource_group = getattr(request, shape.resource_field).add()
        resource_ok = _parse_dict(_cut(resource_node.get("resource") or {}, max_value_bytes),
                                  resource_group.resource)
        broken = broken or not resource_ok
        for scope_node in _list(resource_node, scope_keys):
            if not isinstance(scope_node, dict):
                raise MalformedBody(f"each of {scope_keys[0]} must be an object")
            scope_group = getattr(resource_group, shape.scope_field).add()
            nodes = _list(scope_node, item_keys)
            if not resource_ok or not _parse_dict(scope_node.get("scope") or {},
                                                  scope_group.scope):
                rejected[REJECT_MALFORMED] += len(nodes)
                broken = True
                continue
            items = getattr(scope_group, shape.item_field)
            for node in nodes:
                if not isinstance(node, dict):
                    rejected[REJECT_MALFORMED] += 1
                    continue
                try:
                    converted = _convert_ids(node, max_value_bytes)
                except _BadId:
                    rejected[REJECT_BAD_ID] += 1
                    continue
                if _parse_dict(converted, items.add()):
                    accepted += 1
                else:
                    del items[-1]
                    rejected[REJECT_MALFORMED] += 1
    if (broken or rejected) and not accepted:
        raise MalformedBody(f"not an OTLP/JSON request: no part of it is readable "
                            f"({', '.join(sorted(rejected))})")
    return request, rejected
