"""Numbers that are years read another way: an era, an age, a span of years.

"the 1980s" is not the number 1980 and "in his 40s" not forty seconds: a decade or a century is
a range of years; an age ("aged 42", "42 years old", "when she was 42", "in her early 30s") or
a span ("for 44 years", "a 44-year career") is a count of years between two dates. Records
write years, not these: the judge reads them against a record's fields, and the guard
(:mod:`gsar_otel.core.integrity`) accepts one in a grounded claim when the cited items hold the
years it is read from.

Ranges (ends included): a decade ``D0s`` is D0 to D9, and a round hundred before 2000
(``1900s``) its whole century ("the 2000s" is the decade); the ``Nth century`` is (N - 1) x 100
to N x 100 (both ways of counting); "early" keeps the first 40% of the range, "mid" the middle
40%, "late" the last 40% (of a decade of age: its first four years, the middle four, the last
four). "over 45 years" allows 46 and more, "under 5" 4 and less, "at least"/"at most" include
the number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.times import date_numbers

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
