"""Eras: a decade or a century a claim states is a range of years, not a number.

"written in the 1980s" is grounded by a constitution dated 4 December 1982; "the late 1990s"
by ``Years active: 1998 - present``; "painted in the 17th century" by 1610. Read as plain
numbers, 1980, 1990 and 17 are found nowhere, so a faithful paraphrase of a date would be
ungrounded; read as ranges, a year outside the range is never grounded (another decade, another
century, "early" for a year late in it).

Ranges (both ends included): a decade ``D0s`` is D0 to D9, and a round hundred (``1900s``,
``the 1500's``) is its whole century, which holds the decade reading too; the ``Nth century``
is (N - 1) x 100 to N x 100, so both ways of counting centuries are accepted. "early" keeps the
first 40% of the range, "mid" the middle 40%, "late" the last 40%.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.anchor_times import date_numbers
from gsar_otel.judges.staged.anchoring import Spec, shape
from gsar_otel.judges.staged.facts import Fact

Status = Literal["MATCH", "CONFLICT"]

_DECADE: Final = re.compile(r"(\d{3}0)(?:'s|\u2019s|s)(?![\w'])")
_CENTURY: Final = re.compile(r"(\d{1,2})(?:st|nd|rd|th)[\s-]+century\b", re.I)
_QUALIFIER: Final = re.compile(r"\b(early|mid|late)[\s-]*$", re.I)
_PARTS: Final = {"early": (0.0, 0.4), "mid": (0.3, 0.7), "late": (0.6, 1.0)}


@dataclass(frozen=True, slots=True)
class Era:
    """The years (inclusive) a stated decade or century spans, and how the claim said it."""

    first: int
    last: int
    said: str

    def holds(self, year: int) -> bool:
        return self.first <= year <= self.last


def era_of(text: str, spec: Spec) -> Era | None:
    """The era the value ``spec`` of the claim ``text`` states, or None when it states none."""
    if spec.kind not in ("NUMBER", "DURATION"):
        return None
    at = spec.start
    decade = _DECADE.match(text, at)
    century = _CENTURY.match(text, at)
    if decade is not None:
        start = int(decade.group(1))
        first, last, end = start, start + (99 if start % 100 == 0 else 9), decade.end()
    elif century is not None and 1 <= int(century.group(1)) <= 30:
        number = int(century.group(1))
        first, last, end = (number - 1) * 100, number * 100, century.end()
    else:
        return None
    qualifier = _QUALIFIER.search(text[max(0, at - 8):at])
    said = text[at:end]
    if qualifier is not None:
        low, high = _PARTS[qualifier.group(1).lower()]
        width = last - first
        first, last = first + round(width * low), first + round(width * high)
        said = f"{qualifier.group(1).lower()} {said}"
    return Era(first, last, said)


def year_of(spec: Spec) -> int | None:
    """The year a date or timestamp states (when written), or a year-like number, if any."""
    if spec.kind in ("DATE", "TIMESTAMP"):
        written = date_numbers(spec.raw)
        return int(written[0]) if len(written) == 2 else None
    return int(float(spec.value)) if shape(spec) == "year" else None


def era_support(era: Era, wanted: frozenset[str],
                facts: Sequence[Fact]) -> tuple[Status, Fact, str] | None:
    """Where ``facts`` (aligned, best first) place the era: a field whose key the claim names
    (``wanted``) holding a year inside it is a MATCH, such fields holding only years outside it
    a CONFLICT; without such a field, any year inside it in a fact is a MATCH; else None."""
    outside: tuple[Fact, str] | None = None
    loose: tuple[Fact, str] | None = None
    for fact in facts:
        for field in fact.fields:
            years = [y for y in map(year_of, field.anchors) if y is not None]
            if years and field.key_stems & wanted:
                shown = f"{field.key}={field.value}"
                if any(era.holds(y) for y in years):
                    return "MATCH", fact, shown
                outside = outside or (fact, shown)
        if loose is None:
            inside = [s for s in fact.facts.anchors if (y := year_of(s)) and era.holds(y)]
            loose = (fact, inside[0].text) if inside else None
    if outside is not None:
        return "CONFLICT", *outside
    if loose is not None:
        return "MATCH", *loose
    return None
