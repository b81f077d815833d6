"""Ages and spans of years: a number of years a claim states, read off two years of one record.

A record gives years, not ages: "married when he was in his 40s" is grounded by ``Born: August
11, 1967`` beside ``Spouse: Jessica Ditzel (m. 2009)`` (41 or 42 that year), "served in the
military for 44 years" by ``Years of service: 1969-2013``. Read as plain numbers, 40 (or 40
seconds) and 44 are found nowhere.

- An age ("aged 42", "at the age of 42", "42 years old", "a 42-year-old", "when she was 42",
  "in his early 40s") is read off one record holding a birth year (a field keyed born or birth)
  and the year of the event the claim names (another field of the record whose key or value
  shares a word with the claim): E - B - 1 or E - B, as the birthday falls. A decade of age holds
  its ten years; "early" keeps the first four, "mid" the middle four, "late" the last four.
- A span ("for 44 years", "a 44-year career") is read off one field holding a range of two
  years (``1969-2013``, ``1998 to 2004``) whose key or value shares a word with the claim:
  within one year of their difference, as the record gives years, not days.

Either is a MATCH when the record allows the stated number and a CONFLICT when the record names
the event and allows only others; with no such record, the value is checked as a plain number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.text import words
from gsar_otel.judges.staged.alignment import FactIndex
from gsar_otel.judges.staged.anchoring import Spec, digits
from gsar_otel.judges.staged.eras import era_of, era_support, year_of
from gsar_otel.judges.staged.facts import Fact, Field
from gsar_otel.judges.staged.roots import root

Status = Literal["MATCH", "CONFLICT"]
UNIT_STEMS: Final = frozenset(root(w) for w in ("year", "years", "age", "aged", "old"))
"""Words of the stated number itself, never the words naming its event."""

_AGE_BEFORE: Final = re.compile(
    r"\b(?:aged|age(?:\s+of)?|turned|when\s+(?:he|she|they|it|i|we|you)\s+(?:was|were|turned))"
    r"\s+$", re.I)
_AGE_AFTER: Final = re.compile(r"(?:\s+|-)years?(?:\s+|-)old\b|\s+years?\s+of\s+age\b", re.I)
_DECADE_OF_AGE: Final = re.compile(
    r"\b(?:his|her|their|its|my|your|our)\s+(?:(early|mid|late)[\s-]+)?$", re.I)
_SPAN_AFTER: Final = re.compile(r"\s*\+?\s*(?:years?|yrs)\b(?![\s-]{1,3}(?:old|ago|of\s{1,3}age))",
                                re.I)
_RANGE: Final = re.compile(r"\b\d{4}\s*(?:-|\u2013|\u2014|to|until|through)\s*\d{4}\b", re.I)
"""Two years written as one range ("1969-2013", "1998 to 2004"), not a list of dates."""
_PARTS: Final = {"early": (0, 3), "mid": (3, 6), "late": (6, 9), None: (0, 9)}
BIRTH: Final = frozenset(root(w) for w in ("born", "birth"))
"""Key words of a record's birth field."""


@dataclass(frozen=True, slots=True)
class Stated:
    """A number of years the claim states: an age or a span, as the range it allows."""

    kind: Literal["age", "span"]
    low: int
    high: int
    said: str

    def allows(self, options: Iterable[int]) -> bool:
        return any(self.low <= n <= self.high for n in options)


def stated_years(text: str, spec: Spec) -> Stated | None:
    """The age or span of years the value ``spec`` of the claim ``text`` states, if any."""
    written = digits(spec)
    if spec.kind not in ("NUMBER", "DURATION") or not written.isdigit() or len(written) > 3:
        return None  # an age or a span of years is at most three digits
    number, at, end = int(written), spec.start, spec.end
    before, after = text[max(0, at - 40):at], text[end:end + 20]
    if spec.kind == "DURATION":  # "40s": a decade of age only after "his", "her early" ...
        owner = _DECADE_OF_AGE.search(before)
        if owner is None or not spec.text.lower().endswith("s") or number % 10:
            return None
        low, high = _PARTS[owner.group(1) and owner.group(1).lower()]
        said = f"{owner.group(1).lower()} {spec.text}" if owner.group(1) else spec.text
        return Stated("age", number + low, number + high, said)
    if spec.text.lower().endswith("-year-old") or _AGE_BEFORE.search(before) \
            or _AGE_AFTER.match(after):
        return Stated("age", number, number, f"age {number}")
    if spec.text.lower().endswith("-year") or _SPAN_AFTER.match(after):
        return Stated("span", number, number, f"{number} years")
    return None


def _years(field: Field) -> list[int]:
    return [y for y in map(year_of, field.anchors) if y is not None]


def _names(field: Field, wanted: frozenset[str]) -> bool:
    """The field's key or value shares a word with the claim."""
    if field.key_stems & wanted:
        return True
    return any(root(w.lower()) in wanted for w in words(field.value))


def _shown(field: Field) -> str:
    return f"{field.key}={field.value}"


def birth_year(facts: Sequence[Fact], index: FactIndex) -> tuple[int, Fact] | None:
    """The birth year of whom the claim is about: a birth field among its aligned ``facts``, or,
    when the whole evidence holds one birth year only (one person's record), that one."""
    for fact in facts:
        year = next((y for f in fact.fields if f.key_stems & BIRTH for y in _years(f)), None)
        if year is not None:
            return year, fact
    found: dict[int, Fact] = {}
    for position in sorted({p for stem in BIRTH for p in index.by_stem.get(stem, ())}):
        fact = index.facts[position]
        for field in fact.fields:
            if field.key_stems & BIRTH:
                for year in _years(field)[:1]:
                    found.setdefault(year, fact)
    return next(iter(found.items())) if len(found) == 1 else None


def _age(stated: Stated, wanted: frozenset[str], birth: tuple[int, Fact],
         fact: Fact) -> tuple[Status, Fact, str] | None:
    born, record = birth
    events = [(f, y) for f in fact.fields if not f.key_stems & BIRTH and _names(f, wanted)
              for y in _years(f) if y > born]
    for field, year in events:
        if stated.allows((year - born - 1, year - born)):
            return "MATCH", fact, (f"{_shown(field)}, born {born} ({record.ref}): age "
                                   f"{year - born - 1} or {year - born}")
    if not events:
        return None
    field, year = events[0]
    return "CONFLICT", fact, (f"{_shown(field)}, born {born} ({record.ref}): age "
                              f"{year - born - 1} or {year - born}")


def _span(stated: Stated, wanted: frozenset[str],
          fact: Fact) -> tuple[Status, Fact, str] | None:
    found: tuple[Status, Fact, str] | None = None
    for field in fact.fields:
        years = _years(field)
        if len(years) != 2 or years[1] <= years[0] or not _RANGE.search(field.value) \
                or not _names(field, wanted):
            continue
        length = years[1] - years[0]
        shown = f"{_shown(field)}: {length} years"
        if stated.allows(range(length - 1, length + 2)):
            return "MATCH", fact, shown
        found = found or ("CONFLICT", fact, shown)
    return found


def years_support(stated: Stated, wanted: frozenset[str], facts: Sequence[Fact],
                  index: FactIndex) -> tuple[Status, Fact, str] | None:
    """Where ``facts`` (aligned, best first) place the stated age or span: the first fact
    allowing it is a MATCH; else the first naming its event is a CONFLICT; else None."""
    birth = birth_year(facts, index) if stated.kind == "age" else None
    if stated.kind == "age" and birth is None:
        return None
    conflict: tuple[Status, Fact, str] | None = None
    for fact in facts:
        found = (_age(stated, wanted, birth, fact) if birth is not None
                 else _span(stated, wanted, fact))
        if found is not None and found[0] == "MATCH":
            return found
        conflict = conflict or found
    return conflict


def years_check(text: str, spec: Spec, key_words: frozenset[str], claim_words: frozenset[str],
                facts: Callable[[], Sequence[Fact]],
                index: FactIndex) -> tuple[Literal["MATCH", "CONFLICT", "ABSENT"], str,
                                           Fact | None] | None:
    """A value read as years (an era, an age, a span) against the aligned ``facts`` (best
    first): its status, reason and deciding fact; None to check it as a plain number.

    An era is placed by the fields its key words (``key_words``) name; an age or span by the
    record fields sharing any word of the claim (``claim_words``)."""
    era = era_of(text, spec)
    if era is not None:
        placed = era_support(era, key_words, facts())
        if placed is None:
            return "ABSENT", (f"{era.said} ({era.first}-{era.last}): no year in it in the "
                              "evidence about the claim"), None
        said = era.said
    else:
        stated = stated_years(text, spec)
        placed = (years_support(stated, claim_words - UNIT_STEMS, facts(), index)
                  if stated else None)
        if stated is None or placed is None:
            return None
        said = stated.said
    status, fact, shown = placed
    return status, (f"says {said}; {fact.ref} has {shown}" if status == "CONFLICT"
                    else f"{said} matches {fact.ref} ({shown})"), fact
