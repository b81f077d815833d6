"""The one place the judge reads anchors: an adapter over :mod:`gsar_otel.core.anchors`.

Every stage sees anchors as :class:`Spec` (kind name, text, value, key, offsets, the original
anchor) and compares them with :func:`agree` (``core.anchors.compare_anchors``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from gsar_otel.core.anchor.derived import year_of
from gsar_otel.core.anchors import Agreement as CoreAgreement
from gsar_otel.core.anchors import compare_anchors, extract_anchors, timestamp_parts

Agreement = Literal["match", "conflict", "unrelated"]

NUMERIC_KINDS: Final = frozenset({"NUMBER", "PERCENT", "PERCENTILE", "DURATION", "PORT",
                                  "HTTP_STATUS", "HTTP_CLASS"})
TIME_KINDS: Final = frozenset({"CLOCK", "TIMESTAMP", "DATE"})
NAME_KINDS: Final = frozenset({"IDENTIFIER", "HOST", "IPV4", "IPV6", "NAME", "QUOTED",
                               "VERSION"})
SUBJECT_KINDS: Final = frozenset({"HOST", "IPV4", "IPV6", "IDENTIFIER"})
"""Kinds that name what a row or sentence is about (a host, an address, an id)."""


@dataclass(frozen=True, slots=True)
class Spec:
    """One anchor as the stages see it."""

    kind: str
    text: str
    value: str
    key: str | None
    start: int
    end: int
    raw: Any


SOURCE: Final = "gsar_otel.core.anchors"
"""Which extractor produced the anchors (recorded in model.json)."""


def extract(text: str) -> tuple[Spec, ...]:
    """The anchors of ``text`` as specs, in order."""
    specs: list[Spec] = []
    # Durations written in parts come joined (core.anchor.units: "19 minutes 38 seconds").
    for a in extract_anchors(text):
        specs.append(Spec(a.kind.name, a.text, str(a.value), a.key, a.start, a.end, a))
        # a zoned timestamp's own date and time are local; the whole compares in UTC
        local = a.unit not in (None, "Z", "UTC", "GMT", "z", "utc")
        parts = timestamp_parts(a) if a.kind.name == "TIMESTAMP" and not local else None
        for part in parts or ():
            # A timestamp's date and clock time, so "at 10:15 UTC" meets "10:15:32Z".
            specs.append(Spec(part.kind.name, part.text, str(part.value), part.key,
                              part.start, part.end, part))
    return tuple(specs)


FAMILY: Final[dict[str, tuple[str, ...]]] = {
    "NUMBER": ("NUMBER", "PERCENT", "DURATION", "HTTP_STATUS", "PORT"),
    "PERCENT": ("PERCENT", "NUMBER"),
    "DURATION": ("DURATION", "NUMBER"),
    "CLOCK": ("CLOCK", "TIMESTAMP"),
    "DATE": ("DATE", "TIMESTAMP"),
    "TIMESTAMP": ("TIMESTAMP", "CLOCK", "DATE"),
    "HOST": ("HOST", "IDENTIFIER", "NAME"),
    "IDENTIFIER": ("IDENTIFIER", "HOST"),
    "HTTP_STATUS": ("HTTP_STATUS", "NUMBER"),
    "PORT": ("PORT", "NUMBER"),
}
"""The evidence kinds a claim anchor of each kind is compared with (its own, by default)."""


def family(kind: str) -> tuple[str, ...]:
    """Evidence kinds a claim anchor of ``kind`` can match or conflict with."""
    return FAMILY.get(kind, (kind,))


def comparable(claim: Spec, evidence: Spec) -> bool:
    """True when the two anchors are of kinds that can agree or conflict (a bare three-digit
    number and a status code can)."""
    return evidence.kind in family(claim.kind) or _code_pair(claim, evidence)


def _code_pair(claim: Spec, evidence: Spec) -> bool:
    if {claim.kind, evidence.kind} != {"NUMBER", "HTTP_STATUS"}:
        return False
    return STATUS_CODE.fullmatch((claim if claim.kind == "NUMBER" else evidence).text) is not None


def agree(claim: Spec, evidence: Spec) -> Agreement:
    """Whether the evidence anchor states the claim anchor's value, another one, or neither; a
    bare three-digit number read against a status code is a code ("returned 200" beside
    ``status=502``)."""
    if _code_pair(claim, evidence):
        return "match" if claim.text == evidence.text else "conflict"
    result = compare_anchors(claim.raw, evidence.raw)
    if result is CoreAgreement.MATCH:
        return "match"
    return "conflict" if result is CoreAgreement.CONFLICT else "unrelated"


STATUS_CODE: Final = re.compile(r"[1-5]\d\d")
"""A bare number that may be an HTTP status code ("returned 503")."""
NAMING_KINDS: Final = frozenset({"IPV4", "IPV6", "HOST", "IDENTIFIER", "URL"})
"""Kinds of value that name what a claim is about (an address, an id), not a measure of it."""


def digits(spec: Spec) -> str:
    """The number as written, without unit or separators ("15600 minutes" -> "15600")."""
    return "".join(ch for ch in spec.text.split()[0] if ch.isdigit() or ch == ".").rstrip(".")


def shape(spec: Spec) -> str:
    """Year-like numbers only conflict with year-like numbers."""
    if spec.kind == "NUMBER" and year_of(spec.raw) is not None:
        return "year"  # written as a year: four digits, no separator, unit or currency
    return spec.kind


def number_of(spec: Spec) -> float | None:
    """A number or percent as a float; None for any other anchor."""
    if spec.kind not in ("NUMBER", "PERCENT"):
        return None
    try:
        return float(str(spec.value))
    except ValueError:
        return None
