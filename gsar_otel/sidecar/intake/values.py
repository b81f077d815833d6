"""OTLP values turned into plain Python values at intake, cut to their bounds and charged what they
hold (:mod:`gsar_otel.sidecar.intake.sizes`), and resources shared between requests when identical.

A string or bytes value longer than ``max_value_bytes`` is cut to it; past ``max_item_bytes``
held for one span (its attributes and events) or log record, further values are dropped, an
array or map stopping there; both are counted in :attr:`Intake.truncated`. Every value is
charged, an empty one too (its slot in the array or map that holds it), as it is decoded, so the
item bound holds for arrays of empty values as well.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from google.protobuf import json_format  # type: ignore[import-untyped]
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from gsar_otel.sidecar.intake.sizes import (
    MAPPING_BYTES,
    SLOT_BYTES,
    scalar_bytes,
    text_bytes,
    value_bytes,
)

EMPTY: Mapping[str, Any] = MappingProxyType({})
MAX_VALUE_DEPTH = 16
"""Deepest nesting of array / kvlist values decoded; deeper values become their JSON text."""
MAX_VALUE_BYTES = 1024 * 1024
"""Default cut of one string or bytes value (characters or bytes) at intake."""
MAX_ITEM_BYTES = 8 * 1024 * 1024
"""Default most bytes of values held for one span (attributes and events) or log record."""
ENTRY_BYTES = 24
"""A map entry charged as it is decoded (its hash, key and value references); the map's whole
size replaces it once the map is built."""
SHARED_RESOURCE_BYTES = 16 * 1024
"""Resources up to this size on the wire are shared between requests (by their encoded bytes)."""
SHARED_RESOURCES = 1024
"""Most resources kept for sharing (least recently used go first) ..."""
SHARED_RESOURCES_HELD = 8 * 1024 * 1024
"""... and most bytes they hold, encoded keys and decoded values together. The cache is the one
thing decoded that no budget counts: at most this much, whatever is sent."""


class Intake:
    """Turns OTLP values into plain ones within the byte bounds, counting what they hold.

    Args:
        max_value_bytes: a longer string or bytes value is cut to this many characters/bytes.
        max_item_bytes: past this many bytes held for one item, further values are dropped.
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
        """``value`` as a plain Python value (str, bool, int, float, bytes, list, dict, None)."""
        which = value.WhichOneof("value")
        if which is None:
            return None  # shared: only the slot holding it costs, charged by its container
        if self.held >= self.max_item_bytes:
            self.truncated += 1
            return None
        if which in ("array_value", "kvlist_value") and depth >= MAX_VALUE_DEPTH:
            return self.text(json_format.MessageToJson(value, indent=None))
        if which == "array_value":
            return self._array(value.array_value.values, depth + 1)
        if which == "kvlist_value":
            return self.map(value.kvlist_value.values, depth + 1)
        if which == "string_value":
            return self.text(value.string_value)
        if which == "bytes_value":
            raw: bytes = value.bytes_value
            if len(raw) > self.max_value_bytes:
                raw, self.truncated = raw[:self.max_value_bytes], self.truncated + 1
            self.held += scalar_bytes(raw)
            return raw
        plain = getattr(value, which)
        self.held += scalar_bytes(plain)
        return plain

    def text(self, text: str) -> str:
        """``text`` cut to ``max_value_bytes`` characters, charged."""
        if len(text) > self.max_value_bytes:
            text, self.truncated = text[:self.max_value_bytes], self.truncated + 1
        self.held += text_bytes(text)
        return text

    def _array(self, values: Sequence[AnyValue], depth: int) -> list[Any]:
        out: list[Any] = []
        for item in values:
            if self.held >= self.max_item_bytes:
                self.truncated += len(values) - len(out)
                break
            self.held += SLOT_BYTES
            out.append(self.value(item, depth))
        self.held += sys.getsizeof(out) - SLOT_BYTES * len(out)
        return out

    def map(self, pairs: Sequence[KeyValue], depth: int = 0) -> dict[str, Any]:
        """Key-value pairs as a dict (a repeated key keeps its last value), charged."""
        out: dict[str, Any] = {}
        read = 0
        for pair in pairs:
            if self.held >= self.max_item_bytes:
                self.truncated += len(pairs) - read
                break
            self.held += ENTRY_BYTES
            read += 1
            key = self.text(pair.key)
            if key in out:  # a repeated key: the value it replaces and this key object go
                self.held -= text_bytes(key) + value_bytes(out[key])
            out[key] = self.value(pair.value, depth)
        self.held += sys.getsizeof(out) - ENTRY_BYTES * read
        return out

    def attributes(self, pairs: Sequence[KeyValue]) -> Mapping[str, Any]:
        """Key-value pairs as a read-only mapping (a repeated key keeps its last value)."""
        if not len(pairs):
            return EMPTY
        decoded = self.map(pairs)
        self.held += MAPPING_BYTES
        return MappingProxyType(decoded)


def any_value(value: AnyValue, depth: int = 0) -> Any:
    """An OTLP AnyValue as a plain Python value, within the default bounds."""
    return Intake().value(value, depth)


def attributes_of(pairs: Sequence[KeyValue]) -> Mapping[str, Any]:
    """Key-value pairs as a read-only mapping (a repeated key keeps its last value)."""
    return Intake().attributes(pairs)


class SharedResources:
    """Resources shared between requests, keyed by their encoded bytes, so identical ones are one
    object (thread-safe: requests are decoded in worker threads). Bounded in count and bytes."""

    def __init__(self) -> None:
        self._cache: OrderedDict[bytes, tuple[Mapping[str, Any], int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, resource: Any, intake: Intake) -> tuple[Mapping[str, Any], int]:
        """The resource's attributes and the bytes they hold (for whoever holds the spans to
        charge once per distinct resource: identical resources are the same object)."""
        encoded = resource.SerializeToString()
        shared = len(encoded) <= SHARED_RESOURCE_BYTES
        if shared:
            with self._lock:
                found = self._cache.get(encoded)
                if found is not None:
                    self._cache.move_to_end(encoded)
                    return found
        intake.start_item()
        attributes = intake.attributes(resource.attributes)
        found = attributes, intake.held if attributes else 0
        cost = sys.getsizeof(encoded) + found[1]
        if shared and cost <= SHARED_RESOURCES_HELD // 16:
            with self._lock:
                if encoded not in self._cache:
                    self._cache[encoded] = found
                    self._held += cost
                while len(self._cache) > SHARED_RESOURCES or self._held > SHARED_RESOURCES_HELD:
                    key, (_, size) = self._cache.popitem(last=False)
                    self._held -= sys.getsizeof(key) + size
        return found

    def clear(self) -> None:
        """Forget every resource kept for sharing (the spans holding them keep them)."""
        with self._lock:
            self._cache.clear()
            self._held = 0
