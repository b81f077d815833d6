"""Data sizes in bytes: "4 GB" of memory is ``mem_used_mb=4096``, and "4 GiB" is
``mem_used_bytes=4294967296``.

A size is compared in bytes. Tools and people write the decimal units (KB, MB, GB, TB) for
binary amounts as often as for decimal ones ("4 GB" for 4096 MB), so a decimal unit stands for
both readings; the binary units (KiB, MiB, GiB, TiB and Kubernetes' ``Ki``, ``Mi``, ``Gi``,
``Ti``) for the binary one only. A wrong scale is never within either reading: "40 GB" or
"4 MB" against 4096 MB is another size.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from gsar_otel.core.anchor.words import TIME_UNIT_WORDS

_DECIMAL: Final = {"b": 0, "kb": 1, "mb": 2, "gb": 3, "tb": 4, "pb": 5}
_BINARY: Final = {"kib": 1, "mib": 2, "gib": 3, "tib": 4, "ki": 1, "mi": 2, "gi": 3, "ti": 4}
_SPELLED: Final = {"byte": "b", "bytes": "b", "kilobytes": "kb", "megabytes": "mb",
                   "gigabytes": "gb", "terabytes": "tb"}


_SHORT: Final = {"ki": "kib", "mi": "mib", "gi": "gib", "ti": "tib"}
SIZE_UNITS: Final = frozenset({*_DECIMAL, *(u for u in _BINARY if u not in _SHORT)})
"""Every size unit in one spelling: a size is compared across units, never within one (there
"23 GB" and "21 GB" are two numbers, whatever bytes each may stand for)."""


def size_unit(unit: str | None) -> str | None:
    """A size unit in one spelling (``GiB`` and ``Gi`` are ``gib``), or None."""
    if not unit:
        return None
    unit = _SPELLED.get(unit.lower(), unit.lower())
    unit = _SHORT.get(unit, unit)
    return unit if unit in SIZE_UNITS else None


def byte_factors(unit: str | None) -> tuple[Decimal, ...]:
    """Bytes in one ``unit``, in each reading it may have (none when it is no size unit)."""
    if not unit:
        return ()
    unit = _SPELLED.get(unit.lower(), unit.lower())
    if unit in _BINARY:
        return (Decimal(1024) ** _BINARY[unit],)
    if unit not in _DECIMAL:
        return ()
    power = _DECIMAL[unit]
    return tuple(dict.fromkeys((Decimal(1000) ** power, Decimal(1024) ** power)))


def key_parts(key: str | None) -> list[str]:
    """The parts of a key (``mem_used_mb`` -> mem, used, mb), split at ``_ . - /``; a key per
    a time (iostat's ``w/s``, ``rkB/s``, ``req/min``) is a rate, never a time or a size."""
    if not key:
        return []
    head, per, unit = key.rpartition("/")
    if per and head and unit.lower() in TIME_UNIT_WORDS:
        key = f"{head}_rate"
    for separator in ".-/":
        key = key.replace(separator, "_")
    return [part for part in key.split("_") if part]
