"""Numbers of a claim that no cited item holds as written but that the cited items make: an
era, age or span of years, a difference of two values of one key, or a range one value lies
within. The judge does the strict reading, against a record's fields
(:mod:`gsar_otel.judges.staged.years`, :mod:`~gsar_otel.judges.staged.differences`,
:mod:`~gsar_otel.judges.staged.ranges`); the integrity guard (:mod:`gsar_otel.core.integrity`)
accepts these in a grounded claim, leniently, when the cited items make them
(:func:`derived_reader`).

Years read another way: "the 1980s" is not the number 1980 and "in his 40s" not forty seconds:
a decade or a century is a range of years; an age ("aged 42", "42 years old", "when she was
42", "in her early 30s") or a span ("for 44 years", "a 44-year career") is a count of years
between two dates. Records write years, not these: the guard accepts one when the cited items
hold the years it is read from. Ranges (ends included): a decade ``D0s`` is D0 to D9, and a
round hundred before 2000 (``1900s``) its whole century ("the 2000s" is the decade); the ``Nth
century`` is (N - 1) x 100 to N x 100 (both ways of counting); "early" keeps the first 40% of
the range, "mid" the middle 40%, "late" the last 40% (of a decade of age: its first four years,
the middle four, the last four). "over 45 years" allows 46 and more, "under 5" 4 and less, "at
least"/"at most" include the number.

Differences: "CBOW outperforms CMOW by 2.3 points", "5 points lower", "+0.9 BLEU", "an
improvement of 3.2%", "cuts latency by 20%": such a number is no value a record holds but the
gap between two of its values. The judge reads it off two rows the claim names; the guard
accepts one when two numbers of the cited items under one key differ by it. A number is a
difference when it is signed ("+0.9"), follows "by" after a word of change or comparison
("outperforms CMOW by", never "put out by 600 firefighters"; "rose by 2012" may be a year, so it
is a difference only where two values make it) or a noun of change ("an improvement of"), or
comes before a word of comparison or change ("5 points lower", "0.8% F1 improvement"). It
allows two values ``a`` and ``b`` when ``|a - b|`` is within the rounding of the written number
(half a unit of its last digit; a tenth of the number when written "about"), and, for a
percentage, also when ``|a - b|`` is that share of the smaller (a relative change) or, both
being fractions of one, that many hundredths (0.531 and 0.539 differ by 0.8%).

Ranges a text states: "between 80 and 90%", "80-90%", "in the 1-2 s range". The two ends of a
range are no values of their own: a range holds a value that lies within it. The judge reads the
value of the key the claim names against it; the guard accepts both ends when a cited number
lies within. The lower end takes the upper end's unit ("between 1 and 2 seconds" is 1-2 s),
durations are in seconds, and "from 80 to 90%" is a change, never a range.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, Literal

from gsar_otel.core.anchor.compare import views
from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.times import date_numbers
from gsar_otel.core.text import STOPWORDS


def derived_reader(claim: str, anchors: Sequence[Anchor], years: Callable[[], frozenset[int]],
                   numbers: Callable[[bool], tuple[tuple[float, ...], ...]]
                   ) -> Callable[[Anchor], bool]:
    """Whether a number of ``claim`` is an era, age or span the cited items' years allow ("the
    1980s" by 1982, "for 44 years" by 1969-2013), a difference two of their numbers under one key
    make ("by 2.4 points" by trec=85.6 and trec=88.0), or a range one lies within ("between 80
    and 90%" by 85). ``anchors`` are the claim's; ``years`` and ``numbers`` (grouped by key, in
    seconds or not) are read once per set of cited items."""
    ranges = stated_ranges(claim, anchors)

    def allowed(anchor: Anchor) -> bool:
        stated, gap, bounds = (stated_years(claim, anchor), stated_difference(claim, anchor),
                               ranges.get(anchor.start))
        return (stated is not None and years_allow(stated, years())) or (
            gap is not None and any(differs_by(gap, group) for group in numbers(gap.seconds))) or (
            bounds is not None and any(bounds.holds_any(g) for g in numbers(bounds.seconds)))
    return allowed


# -- eras, ages and spans of years --------------------------------------------------------------

_DECADE: Final = re.compile(r"(\d{3}0)(?:'s|\u2019s|s)(?![\w'])")
_CENTURY: Final = re.compile(r"(\d{1,2})(?:st|nd|rd|th)[\s-]+century\b", re.I)
_QUALIFIER: Final = re.compile(r"\b(early|mid|late)[\s-]*$", re.I)
_ERA_PARTS: Final = {"early": (0.0, 0.4), "mid": (0.3, 0.7), "late": (0.6, 1.0)}
_AGE_BEFORE: Final = re.compile(
    r"\b(?:aged|age(?:\s+of)?|turned|when\s+(?:he|she|they|it|i|we|you)\s+(?:was|were|turned))"
    r"\s+$", re.I)
_AGE_AFTER: Final = re.compile(r"(?:\s+|-)years?(?:\s+|-)old\b|\s+years?\s+of\s+age\b", re.I)
_DECADE_OF_AGE: Final = re.compile(
    r"\b(?:his|her|their|its|my|your|our)\s+(?:(early|mid|late)[\s-]+)?$", re.I)
_SPAN_AFTER: Final = re.compile(
    r"\s*\+?\s*(?:years?|yrs)\b(?![\s-]{1,3}(?:old|ago|of\s{1,3}age))", re.I)
_AGE_PARTS: Final = {"early": (0, 3), "mid": (3, 6), "late": (6, 9), None: (0, 9)}
MAX_COUNT: Final = 150
"""Most years an age or a span may count."""


@dataclass(frozen=True, slots=True)
class Years:
    """A stated era, age or span as the range (inclusive) it allows, and how it was said."""

    kind: Literal["era", "age", "span"]
    low: int
    high: int
    said: str

    def holds(self, number: int) -> bool:
        return self.low <= number <= self.high


def _era(text: str, at: int) -> Years | None:
    decade, century = _DECADE.match(text, at), _CENTURY.match(text, at)
    if decade is not None:
        start = int(decade.group(1))
        whole = start % 100 == 0 and start < 2000  # "the 2000s" is the decade, as it is said
        low, high, end = start, start + (99 if whole else 9), decade.end()
    elif century is not None and 1 <= int(century.group(1)) <= 30:
        number = int(century.group(1))
        low, high, end = (number - 1) * 100, number * 100, century.end()
    else:
        return None
    qualifier = _QUALIFIER.search(text[max(0, at - 8):at])
    said = text[at:end]
    if qualifier is not None:
        first, last = _ERA_PARTS[qualifier.group(1).lower()]
        width = high - low
        low, high = low + round(width * first), low + round(width * last)
        said = f"{qualifier.group(1).lower()} {said}"
    return Years("era", low, high, said)


def stated_years(text: str, anchor: Anchor) -> Years | None:
    """The era, age or span of years the number ``anchor`` of ``text`` states, if any."""
    if anchor.kind not in (AnchorKind.NUMBER, AnchorKind.DURATION):
        return None
    era = _era(text, anchor.start)
    if era is not None:
        return era
    number = _whole(anchor)
    if number is None or number > MAX_COUNT:  # an age or a span: a whole number, no unit
        return None
    at, end = anchor.start, anchor.end
    before, after, surface = text[max(0, at - 40):at], text[end:end + 20], anchor.text.lower()
    if anchor.kind is AnchorKind.DURATION:  # "40s": a decade of age after "his", "her early"
        owner = _DECADE_OF_AGE.search(before)
        if owner is None or not surface.endswith("s") or number % 10:
            return None
        part = owner.group(1) and owner.group(1).lower()
        low, high = _AGE_PARTS[part]
        return Years("age", number + low, number + high,
                     f"{part} {anchor.text}" if part else anchor.text)
    if surface.endswith("-year-old") or _AGE_BEFORE.search(before) or _AGE_AFTER.match(after):
        return _qualified(Years("age", number, number, f"age {number}"), anchor.qualifier)
    if surface.endswith("-year") or _SPAN_AFTER.match(after):
        return _qualified(Years("span", number, number, f"{number} years"), anchor.qualifier)
    return None


def _whole(anchor: Anchor) -> int | None:
    """The anchor's value as a whole number written plainly (no decimals, separators, unit or
    currency; "-year" and "-year-old" and a decade's "s" are part of how ages are written)."""
    digits = anchor.text.lower().removesuffix("-year-old").removesuffix("-year")
    digits = digits.removesuffix("s") if anchor.kind is AnchorKind.DURATION else digits
    if not digits.isascii() or not digits.isdigit() or len(digits) > 3:
        return None  # an age or a span is at most three digits (and int() of 5,000 raises)
    return int(digits)


def _qualified(stated: Years, qualifier: str | None) -> Years:
    """"over 45 years" allows 46 and more, "under 5" 4 and less, "at least 40" 40 and more."""
    number = stated.low
    low, high = {"over": (number + 1, MAX_COUNT), "under": (0, number - 1),
                 "at_least": (number, MAX_COUNT), "at_most": (0, number)}.get(
        qualifier or "", (number, number))
    if (low, high) == (number, number):
        return stated
    return Years(stated.kind, low, high, f"{(qualifier or '').replace('_', ' ')} {stated.said}")


def year_of(anchor: Anchor) -> int | None:
    """The year a date or timestamp states (when written), or a year-like whole number."""
    if anchor.kind in (AnchorKind.DATE, AnchorKind.TIMESTAMP):
        written = date_numbers(anchor)
        return int(written[0]) if len(written) == 2 else None
    if anchor.kind is AnchorKind.NUMBER and anchor.unit is None and anchor.text.isdigit() \
            and len(anchor.text) == 4 and 1000 <= int(anchor.text) <= 2100:
        return int(anchor.text)  # written as a year: no decimals, separator, unit or currency
    return None


def years_in(anchors: Iterable[Anchor]) -> frozenset[int]:
    """Every year the anchors state (see :func:`year_of`)."""
    return frozenset(y for y in map(year_of, anchors) if y is not None)


def ages_between(birth: int, year: int) -> tuple[int, int]:
    """The ages one born in ``birth`` may have in ``year``, as the birthday falls."""
    return year - birth - 1, year - birth


def span_allows(stated: Years, first: int, last: int) -> bool:
    """A span of years within one year of ``last - first`` (records give years, not days)."""
    return any(stated.holds(n) for n in range(last - first - 1, last - first + 2))


def years_allow(stated: Years, years: frozenset[int]) -> bool:
    """Whether ``years`` (of the cited items, :func:`years_in`) allow the stated era, age or
    span: a year inside an era; two years an allowed age or span apart.

    Lenient by design: any two cited years may be the birth and the event, or a span's ends;
    the judge reads ages and spans against a record's fields, this is the guard's check that a
    claim's citations hold years it could be read from at all."""
    if stated.kind == "era":
        return any(stated.holds(y) for y in years)
    lengths = range(stated.low, min(stated.high, MAX_COUNT) + 1)
    # two years: born in a and aged n in a + n or a + n + 1; a span of n within one year
    ends = (0, 1) if stated.kind == "age" else (-1, 0, 1)
    if len(years) <= len(lengths):  # few years, a wide range ("over 20 years"): by pairs
        ordered = sorted(years)
        return any(any(map(stated.holds, ages_between(a, b))) if stated.kind == "age"
                   else span_allows(stated, a, b)
                   for i, a in enumerate(ordered) for b in ordered[i + 1:])
    return any(n + end > 0 and a + n + end in years
               for a in years for n in lengths for end in ends)


# -- differences --------------------------------------------------------------------------------

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


# -- ranges -------------------------------------------------------------------------------------

_BETWEEN: Final = re.compile(r"\bbetween\s+$", re.IGNORECASE)
_AND: Final = re.compile(r"^\s*(?:and|to)\s*$", re.IGNORECASE)
_DASH: Final = re.compile(r"^\s*[-\u2013\u2014]\s*$")
_KINDS: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
_UNIT_AFTER: Final = re.compile(r"\s*(?:ms|s|secs?|seconds?|minutes?|mins?|hours?|hrs?|h|"
                                r"[kmgt]i?b|bytes)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Range:
    """A stated range: its ends (seconds for durations) and the anchors that state them."""

    low: float
    high: float
    seconds: bool
    ends: tuple[int, int]
    """The start offsets of the two anchors in the text."""

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies within the range (its ends included)."""
        slack = (self.high - self.low) * 1e-9 + 1e-9
        return self.low - slack <= value <= self.high + slack

    def holds_any(self, numbers: tuple[float, ...]) -> bool:
        """Whether one of ``numbers`` (sorted) lies within; by bisection."""
        at = bisect.bisect_left(numbers, self.low - (self.high - self.low) * 1e-9 - 1e-9)
        return at < len(numbers) and self.holds(numbers[at])


def _written(text: str) -> float | None:
    found = re.search(r"\d+(?:\.\d+)?", text)
    return float(found.group()) if found else None


def stated_ranges(text: str, anchors: Sequence[Anchor]) -> dict[int, Range]:
    """The ranges of ``text`` by the start offset of each end's anchor (``anchors`` are the
    text's own, in any order)."""
    ordered = sorted((a for a in anchors if a.kind in _KINDS), key=lambda a: a.start)
    found: dict[int, Range] = {}
    for low, high in pairwise(ordered):
        if low.kind not in (AnchorKind.NUMBER, high.kind) or low.start in found:
            continue
        between = text[low.end:high.start]
        if not (_DASH.match(between) or (_AND.match(between)
                                          and _BETWEEN.search(text[max(0, low.start - 12):
                                                                   low.start]))):
            continue
        if high.kind is AnchorKind.NUMBER and _UNIT_AFTER.match(text, high.end):
            continue  # "1-2 seconds" read as two bare numbers: its unit is unknown here
        top, written, bottom = high.value, _written(high.text), _written(low.text)
        if not isinstance(top, (int, float)) or not written or bottom is None:
            continue
        seconds = high.kind is AnchorKind.DURATION
        if low.kind is high.kind and isinstance(low.value, (int, float)):
            bottom = float(low.value)  # "between 1 s and 2 s", "80% to 90%"
        elif seconds:
            bottom *= float(top) / written  # "between 1 and 2 seconds": the unit of the end
        first, second = sorted((bottom, float(top)))
        stated = Range(first, second, seconds, (low.start, high.start))
        found[low.start] = found[high.start] = stated
    return found
