"""Numbers stated as the difference of two others.

"CBOW outperforms CMOW by 2.3 points", "5 points lower", "+0.9 BLEU", "an improvement of 3.2%",
"cuts latency by 20%": such a number is no value a record holds but the gap between two of its
values. The judge reads it off two rows the claim names
(:mod:`gsar_otel.judges.staged.differences`); the guard (:mod:`gsar_otel.core.integrity`)
accepts one in a grounded claim when two numbers of the cited items under one key differ by
it.

A number is a difference when it is signed ("+0.9"), follows "by" after a word of change or
comparison ("outperforms CMOW by", never "put out by 600 firefighters"; "rose by 2012" may be
a year, so it is a difference only where two values make it) or a noun
of change ("an improvement of"), or comes before a word of comparison or change ("5 points
lower", "0.8% F1 improvement"). It allows two values ``a`` and ``b`` when ``|a - b|`` is
within the rounding of the written number (half a unit of its last digit; a tenth of the number
when written "about"), and, for a percentage, also when ``|a - b|`` is that share of the
smaller (a relative change) or, both being fractions of one, that many hundredths (0.531 and
0.539 differ by 0.8%).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.anchor.compare import views
from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.text import STOPWORDS

_CHANGE: Final = (r"(?:increas|decreas|ris|rose|fell|fall|drop|declin|grew|grow|improv|reduc|cut|"
                  r"outperform|beat|exceed|lead|trail|boost|lower|rais|gain|los[te]|jump|climb|"
                  r"shr[ai]nk|higher|better|worse|more|less|ahead|behind|margin|accelerat|"
                  r"slow|speed|differ|up|down)\w*")
_BEFORE: Final = re.compile(
    rf"(?:\b{_CHANGE}(?:\s+[\w-]+){{0,6}}?\s+by|\b(?:improvement|increase|decrease|gain|drop|"
    r"reduction|boost|difference|gap|margin|rise|fall|jump|lead)s?\s+of)\s+(?:a\s+)?"
    r"(?:about|around|roughly|approximately|nearly|almost|only|just|some|over|up\s+to|~)?\s*$",
    re.I)
"""Before a difference: "by" after a word of change or comparison ("rose to 90% by" is no
change of 90%, but "outperforms CMOW by"), or a noun of change and "of"."""
_AFTER: Final = re.compile(
    r"\s*(?:points?|pts|pp|percentage\s+points?|%)?\s*(?:[\w-]+\s+){0,2}?"
    r"(?:higher|lower|more|less|better|worse|fewer|greater|larger|smaller|improvements?|"
    r"increases?|decreases?|gains?|drops?|reductions?|boosts?|ahead|behind)\b", re.I)
_LOOSE: Final = frozenset({"about", "nearly", "over", "under", "at_least", "at_most"})
_LOOSE_SHARE: Final = 0.1
"""How far "about 20%" may be from the difference it states: a tenth of it."""


@dataclass(frozen=True, slots=True)
class Difference:
    """A stated difference: its size, how far a computed one may be from it, and whether it may
    also be a relative change (a percentage)."""

    size: float
    tolerance: float
    relative: bool
    seconds: bool = False
    """A duration: compared with the evidence's values in seconds (``p99_ms=1200`` is 1.2)."""
    year_like: bool = False
    """Written as a year may be ("rose by 1850."): a difference only where two values make it,
    else read as written."""

    def allows(self, first: float, second: float) -> bool:
        """Whether two values differ by this, absolutely or (for a percentage) relatively."""
        gap = abs(first - second)
        if abs(gap - self.size) <= self.tolerance:
            return True
        if self.relative and max(abs(first), abs(second)) <= 1 \
                and abs(gap * 100 - self.size) <= self.tolerance:
            return True  # shares written as fractions: 0.531 and 0.539 differ by 0.8%
        base = min(abs(first), abs(second))
        return self.relative and base > 0 and abs(gap / base * 100 - self.size) <= self.tolerance


def stated_difference(text: str, anchor: Anchor) -> Difference | None:
    """The difference ``anchor`` (a number or percentage of ``text``) states, or None when it is
    not written as one."""
    if anchor.kind not in (AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION):
        return None
    if not isinstance(anchor.value, (int, float)) or anchor.value == 0:
        return None
    written = anchor.text.strip()
    signed = written[:1] in "+-\u2212" and anchor.start > 0 and not text[anchor.start - 1].isalnum()
    after = text[anchor.end:anchor.end + 3]
    if not (signed or _BEFORE.search(text[max(0, anchor.start - 80):anchor.start])
            or _AFTER.match(text, anchor.end)):
        return None
    if re.match(r"(?:st|nd|rd|th)\b", after):
        return None  # "by 20th Television": a name
    size = abs(float(anchor.value))
    number = re.search(r"\d+(?:\.(\d+))?", written)
    if number is None or float(number.group()) == 0:
        return None
    # half a unit of the last digit written, in the anchor's own scale (seconds for "300 ms")
    tolerance = (0.5 * 10 ** -len(number.group(1) or "") * size / float(number.group())) + 1e-9
    if anchor.qualifier in _LOOSE:
        tolerance = max(tolerance, size * _LOOSE_SHARE + 1e-9)
    return Difference(size, tolerance, anchor.kind is AnchorKind.PERCENT,
                      anchor.kind is AnchorKind.DURATION, _year(written, text[anchor.end:]))


def _year(written: str, rest: str) -> bool:
    """A number that may be a year of the last two centuries, not written as a count of
    something ("by 2012", "by 2012 the line had closed"; not "by 1500", "by 2000 requests")."""
    if not re.fullmatch(r"\d{4}", written) or not 1800 <= int(written) <= 2100:
        return False
    following = re.match(r"\s+([a-z]+)", rest, re.I)
    return following is None or following.group(1).lower() in STOPWORDS


def magnitude(anchor: Anchor, seconds: bool) -> float | None:
    """The number an evidence anchor holds, or its length in seconds (``seconds``) where it
    is a duration or a number keyed in a unit of time; None when it holds no such value."""
    if seconds:
        found = next((v.value for v in views(anchor) if v.space == "sec"), None)
        return float(found) if found is not None and not isinstance(found, str) else None
    if anchor.kind in (AnchorKind.NUMBER, AnchorKind.PERCENT) \
            and isinstance(anchor.value, (int, float)):
        return float(anchor.value)
    return None


def numbers_of(anchors: Iterable[Anchor], seconds: bool = False) -> tuple[float, ...]:
    """The numbers of ``anchors`` (:func:`magnitude`), sorted (for :func:`differs_by`)."""
    found = (magnitude(a, seconds) for a in anchors)
    return tuple(sorted(n for n in found if n is not None))


def numbers_by_key(anchors: Iterable[Anchor],
                   seconds: bool = False) -> tuple[tuple[float, ...], ...]:
    """The numbers of ``anchors`` grouped by the key they are written under (``trec=88.0``),
    and by its parent (``trec.cmow`` and ``trec.hybrid`` are both of ``trec``); numbers under
    no key, as in prose, join every group (a row's 88.0 and a sentence's 85.6). Each group
    sorted: a difference is of two values of one key, never of a score and a count that
    happen to differ by it."""
    groups: dict[str, list[Anchor]] = {}
    unkeyed: list[Anchor] = []
    for anchor in anchors:
        if not anchor.key:
            unkeyed.append(anchor)
            continue
        groups.setdefault(anchor.key, []).append(anchor)
        if "." in anchor.key:
            groups.setdefault(anchor.key.rsplit(".", 1)[0] + ".*", []).append(anchor)
    if not groups:
        return (numbers_of(unkeyed, seconds),)
    return tuple(numbers_of([*group, *unkeyed], seconds) for group in groups.values())


def differs_by(stated: Difference, numbers: tuple[float, ...]) -> bool:
    """Whether two of ``numbers`` (sorted, :func:`numbers_of`) differ by ``stated``; in
    O(n log n), never over every pair."""
    for at, low in enumerate(numbers):
        ends = [(low + stated.size - stated.tolerance, low + stated.size + stated.tolerance)]
        if stated.relative and low > 0:
            ends.append((low * (1 + (stated.size - stated.tolerance) / 100),
                         low * (1 + (stated.size + stated.tolerance) / 100)))
        if stated.relative and abs(low) <= 1:
            ends.append((low + (stated.size - stated.tolerance) / 100,
                         min(1.0, low + (stated.size + stated.tolerance) / 100)))
        for lo, hi in ends:
            place = bisect.bisect_left(numbers, lo, at + 1)
            if place < len(numbers) and numbers[place] <= hi:
                return True
    return False
