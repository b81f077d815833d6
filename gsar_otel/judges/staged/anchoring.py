"""The one place the judge reads anchors: an adapter over :mod:`gsar_otel.core.anchors`.

Every stage sees anchors as :class:`Spec` (kind name, text, value, key, offsets, the original
anchor) and compares them with :func:`agree` (``core.anchors.compare_anchors``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Literal

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


_DURATION_JOINS: Final = frozenset({"", ",", "and", ", and"})
"""What may stand between the parts of one duration written in words."""


def _joined_durations(anchors: list[Any], text: str) -> list[Any]:
    """Durations written in parts ("19 minutes 38 seconds", "2 hours and 5 minutes") as one
    duration of their summed length, as a row writes it (``19m38s``)."""
    out: list[Any] = []
    for a in anchors:
        last = out[-1] if out else None
        if (last is not None and a.kind.name == "DURATION" and last.kind.name == "DURATION"
                and last.key is None and a.key is None
                and " ".join(text[last.end:a.start].split()) in _DURATION_JOINS
                and a.value < last.value):
            out[-1] = replace(last, text=text[last.start:a.end], value=last.value + a.value,
                              end=a.end, unit=None)
            continue
        out.append(a)
    return out


def extract(text: str) -> tuple[Spec, ...]:
    """The anchors of ``text`` as specs, in order."""
    specs: list[Spec] = []
    for a in _joined_durations(list(extract_anchors(text)), text):
        specs.append(Spec(a.kind.name, a.text, str(a.value), a.key, a.start, a.end, a))
        parts = timestamp_parts(a) if a.kind.name == "TIMESTAMP" else None
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
    """True when the two anchors are of kinds that can agree or conflict."""
    return evidence.kind in family(claim.kind)


def agree(claim: Spec, evidence: Spec) -> Agreement:
    """Whether the evidence anchor states the claim anchor's value, another one, or neither."""
    result = compare_anchors(claim.raw, evidence.raw)
    if result is CoreAgreement.MATCH:
        return "match"
    return "conflict" if result is CoreAgreement.CONFLICT else "unrelated"
