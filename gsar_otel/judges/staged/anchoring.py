"""The one place the judge reads anchors: :mod:`gsar_otel.core.anchors` when it is installed.

Every stage sees anchors as :class:`Spec` (kind name, text, value, key, offsets, the original
anchor) and compares them with :func:`agree`. Until ``gsar_otel.core.anchors`` is importable the
specs come from :func:`gsar_otel.core.text.anchors` (numbers, percentages, clock times and
identifiers): an adapter over the shared extractor, not a second one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Final, Literal

from gsar_otel.core.text import Number, anchors, number_matches, time_matches

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


def _load() -> Any:
    try:
        return importlib.import_module("gsar_otel.core.anchors")
    except Exception:  # absent, or mid-edit: the shared extractor of core.text stands in
        return None


_CORE: Final = _load()
SOURCE: Final = "gsar_otel.core.anchors" if _CORE is not None else "gsar_otel.core.text"
"""Which extractor produced the anchors (recorded in model.json)."""


def extract(text: str) -> tuple[Spec, ...]:
    """The anchors of ``text`` as specs, in order."""
    if _CORE is not None:
        specs_core: list[Spec] = []
        for a in _CORE.extract_anchors(text):
            specs_core.append(Spec(a.kind.name, a.text, str(a.value), a.key, a.start, a.end, a))
            parts = _CORE.timestamp_parts(a) if a.kind.name == "TIMESTAMP" else None
            for part in parts or ():
                # A timestamp's date and clock time, so "at 10:15 UTC" meets "10:15:32Z".
                specs_core.append(Spec(part.kind.name, part.text, str(part.value), part.key,
                                       part.start, part.end, part))
        return tuple(specs_core)
    if not any(ch.isdigit() for ch in text):
        return ()
    found_text = anchors(text)
    specs: list[Spec] = []
    for number in found_text.numbers:
        if number.raw[-2:].lower() == "xx":
            specs.append(Spec("HTTP_CLASS", number.raw, number.raw.lower(), None, -1, -1,
                              number.raw.lower()))
            continue
        kind = "PERCENT" if number.percent else "NUMBER"
        specs.append(Spec(kind, number.raw, str(number.value), None, -1, -1, number))
    for clock in found_text.times:
        specs.append(Spec("CLOCK", clock.raw, clock.raw, None, -1, -1, clock))
    for name in sorted(found_text.identifiers):
        specs.append(Spec("IDENTIFIER", name, name, None, -1, -1, name))
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
    if _CORE is not None:
        result = _CORE.compare_anchors(claim.raw, evidence.raw)
        name = str(getattr(result, "name", result)).lower()
        return "match" if name == "match" else "conflict" if name == "conflict" else "unrelated"
    if not comparable(claim, evidence):
        return "unrelated"
    if isinstance(claim.raw, Number) and isinstance(evidence.raw, Number):
        return "match" if number_matches(claim.raw, evidence.raw) else "conflict"
    if claim.kind == "CLOCK":
        return "match" if time_matches(claim.raw, evidence.raw) else "conflict"
    return "match" if claim.value == evidence.value else "unrelated"
