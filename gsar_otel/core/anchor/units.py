"""Amounts in units, each compared in one measure: a data size in bytes, a duration in
seconds however many parts it is written in.

Sizes: "4 GB" of memory is ``mem_used_mb=4096``, and "4 GiB" is ``mem_used_bytes=4294967296``.
Tools and people write the decimal units (KB, MB, GB, TB) for binary amounts as often as for
decimal ones ("4 GB" for 4096 MB), so a decimal unit stands for both readings; the binary units
(KiB, MiB, GiB, TiB and Kubernetes' ``Ki``, ``Mi``, ``Gi``, ``Ti``) for the binary one only. A
wrong scale is never within either reading: "40 GB" or "4 MB" against 4096 MB is another size.
A key's last part may name the unit of its value (``mem_used_mb``): :func:`key_parts`.

Durations in parts: ``19 minutes 38 seconds``, ``1 h 5 min``, ``2 hours and 5 minutes`` read as
one DURATION of the summed length, as a row writes it (``19m38s``). A reader that kept the
parts apart would look for ``38 seconds`` in evidence that says ``oldest_age=19m38s`` and find
nothing. Parts join only when each is a smaller unit than the one before it, on one line, with
nothing but spaces, a comma or ``and`` between them: ``5 minutes, 30 seconds`` is one duration;
``30 seconds and 5 minutes`` stays two. Such a duration is as precise as its last part
(:func:`duration_quantum`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from typing import Final

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.scan import bare_number
from gsar_otel.core.anchor.words import SECONDS_PER_UNIT, TIME_UNIT_WORDS

# -- data sizes in bytes ------------------------------------------------------------------------

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


# -- durations written in parts -----------------------------------------------------------------

_GLUED_PART: Final = re.compile(r"(\d{1,6}(?:\.\d{1,6})?)(ms|us|µs|ns|min|[wdhms])",
                                re.IGNORECASE)

JOINS: Final = frozenset({"", ",", "and", ", and"})
"""What may stand between the parts of one duration, spaces aside."""


def join_durations(text: str, anchors: tuple[Anchor, ...]) -> tuple[Anchor, ...]:
    """``anchors`` of ``text`` with each run of duration parts joined into one duration."""
    if sum(a.kind is AnchorKind.DURATION for a in anchors) < 2:
        return anchors
    out: list[Anchor] = []
    last_unit: Decimal | None = None  # seconds in the smallest unit of out[-1], a duration
    for anchor in anchors:
        unit = duration_unit(anchor.text) if anchor.kind is AnchorKind.DURATION else None
        previous = out[-1] if out else None
        if (previous is not None and unit is not None and last_unit is not None
                and previous.kind is AnchorKind.DURATION and anchor.key is None
                and anchor.qualifier is None and unit < last_unit
                and _joins(text[previous.end:anchor.start])
                and isinstance(previous.value, float) and isinstance(anchor.value, float)):
            out[-1] = replace(previous, text=text[previous.start:anchor.end],
                              value=previous.value + anchor.value, unit=None, end=anchor.end)
            last_unit = unit
            continue
        out.append(anchor)
        last_unit = unit
    return tuple(out)


def _joins(gap: str) -> bool:
    return "\n" not in gap and len(gap) <= 8 and " ".join(gap.split()) in JOINS


def _last_part(text: str) -> tuple[str, str] | None:
    """The amount and unit of a duration's last part, spaced (``19 minutes 38 seconds``) or
    glued (``3m20s``)."""
    words = text.split()
    if (len(words) >= 2 and words[-1].lower() in TIME_UNIT_WORDS
            and bare_number(words[-2]) is not None):  # "0 seconds" is a part too
        return words[-2], words[-1]
    parts = _GLUED_PART.findall(words[-1]) if words else []
    return parts[-1] if parts else None


def duration_unit(text: str) -> Decimal | None:
    """Seconds in the unit of a duration's last part (``19 minutes 38 seconds`` -> 1)."""
    last = _last_part(text)
    if last is None:
        return None
    return SECONDS_PER_UNIT.get(last[1]) or SECONDS_PER_UNIT.get(last[1].lower())


def duration_quantum(text: str) -> Decimal:
    """The precision of a duration written in parts: its last part's unit and decimals
    (``3m20s`` -> 1 second, ``1h30m`` and ``2 hours and 5 minutes`` -> 60 seconds)."""
    last = _last_part(text)
    unit = duration_unit(text)
    if last is None or unit is None:
        return Decimal(1)
    amount = last[0]
    decimals = len(amount) - amount.index(".") - 1 if "." in amount else 0
    return unit * Decimal(1).scaleb(-decimals)
