"""What the sidecar holds, in bytes: one accounting for every decoded value, record, scope name,
resource and trace buffer, which ``--max-held-bytes`` is counted on.

Everything is charged what it costs in memory after decoding, never its size on the wire: an
empty OTLP value is 2 bytes on the wire but holds a reference of 8 in its array (an array of 9
million of them, 18 MB sent, holds 72 MB). Strings, bytes, numbers, lists and dicts are charged
``sys.getsizeof`` of the object itself (which counts a list's or dict's spare capacity); the
interpreter's shared objects (``None``, booleans, small integers, the empty and one-character
strings) cost nothing of their own, only the slot that holds them. The fixed parts of a record
are constants measured once with ``tracemalloc`` on CPython 3.11 (64-bit) and rounded up; the
property test ``tests/sidecar/test_held_accounting.py`` checks the whole against tracemalloc for
any shape of OTLP content.

A record's ``size`` covers what is its own. What spans share (a request's resource, a scope's
name) is charged once per distinct object held, by whoever holds the spans
(:class:`SharedBytes` in the assembler; once per run for a released run); identical resources
are one object (:mod:`gsar_otel.sidecar.intake.spans` shares them by their encoded bytes).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

SLOT_BYTES = 8
"""A reference in a list or tuple (64-bit)."""
RECORD_OVERHEAD = 600
"""A span or log record before its values: the record (136 bytes), its trace, span and parent
ids (81 + 65 + 65), two timestamps (36 each) and its place in the assembler's buffers (its entry
in the trace's span mapping and parent-link shortcuts): 470 measured for the record alone."""
EVENT_OVERHEAD = 144
"""A span event before its name and attributes: the record (56), its time (36), its slot and a
share of the events tuple: 116 to 120 measured."""
MAPPING_BYTES = 96
"""The read-only view (``MappingProxyType``) around a record's attributes: 88 measured
(``sys.getsizeof`` says 40)."""
TRACE_OVERHEAD = 1280
"""A trace buffer before its spans: the buffer, its empty mappings, its parent links, its
entries in the assembler's ordered mappings and its two deadlines (hard cap, settled; about 120
each): 1,040 measured for a trace of one span."""
SHARED_OVERHEAD = 192
"""A shared object's entry in the holders' table (:class:`SharedBytes`): a list of three (80)
and its slot in the table's dict (up to 112 when the dict has just grown)."""
_SMALL_INTS = range(-5, 257)


def text_bytes(text: str) -> int:
    """What a decoded string costs (the empty and one-character Latin-1 strings are shared)."""
    if len(text) <= 1 and text <= "\xff":
        return 0
    return sys.getsizeof(text)


def scalar_bytes(value: Any) -> int:
    """What a decoded scalar (string, bytes, number, boolean, None) costs of its own."""
    if value is None or value is True or value is False:
        return 0
    if isinstance(value, str):
        return text_bytes(value)
    if isinstance(value, bytes) and len(value) <= 1:
        return 0
    if isinstance(value, int) and value in _SMALL_INTS:
        return 0
    return sys.getsizeof(value)


def value_bytes(value: Any) -> int:
    """What a plain value (lists, dicts and scalars, nested) costs, walked without recursion: a
    value the intake replaced, or one of a record made in code."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, str | bytes | int | float):
            total += scalar_bytes(item)
        elif isinstance(item, list | tuple):
            total += sys.getsizeof(item)
            stack.extend(item)
        elif isinstance(item, dict | MappingProxyType | Mapping):  # the ABC checked last
            if isinstance(item, dict):
                total += sys.getsizeof(item)
            else:  # a view (or another mapping) around a dict
                total += MAPPING_BYTES + sys.getsizeof(dict(item))
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            total += sys.getsizeof(item)
    return total


class SharedBytes:
    """Objects that held records share (a resource, a scope name), each charged once while any
    holder holds it: ``total`` is their bytes."""

    __slots__ = ("_held", "total")

    def __init__(self) -> None:
        self._held: dict[int, list[Any]] = {}
        """id -> [the object (kept so its id is not reused), holders, bytes]."""
        self.total = 0

    def hold(self, shared: object, size: int) -> None:
        """One more holder of ``shared`` (charged ``size`` bytes and its entry here the first
        time)."""
        slot = self._held.get(id(shared))
        if slot is None:
            size += SHARED_OVERHEAD
            self._held[id(shared)] = [shared, 1, size]
            self.total += size
        else:
            slot[1] += 1

    def drop(self, shared: object) -> None:
        """One holder fewer; the last one frees the charge."""
        slot = self._held.get(id(shared))
        if slot is not None:
            slot[1] -= 1
            if not slot[1]:
                del self._held[id(shared)]
                self.total -= slot[2]
