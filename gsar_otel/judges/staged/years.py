"""Values read as years against a record's fields: eras, ages and spans of years.

What a claim states (:func:`gsar_otel.core.anchor.derived.stated_years`) is read here against the
aligned facts:

- An era ("the 1980s", "the late 1990s", "the 17th century") is placed by a field whose key
  the claim names: a year inside it is a MATCH, only years outside it a CONFLICT; without such
  a field, any year inside it in an aligned fact is a MATCH. "written in the 1980s" is grounded
  by ``Current constitution: 4 December 1982``.
- An age ("aged 42", "when he was in his 40s") is read off a birth year (a field keyed born or
  birth among the aligned facts, or the only birth year in the evidence) and the year of the
  event the claim names (a field of an aligned fact whose key or value shares a word with the
  claim): E - B - 1 or E - B, as the birthday falls. ``Born: August 11, 1967`` and ``Spouse:
  Jessica Ditzel (m. 2009)`` ground "married when he was in his 40s".
- A span ("for 44 years", "a 44-year career") is read off one field holding a range of two
  years (``1969-2013``, ``1998 to 2004``) whose key or value shares a word with the claim,
  within one year of their difference, as records give years, not days.

An age or span is a MATCH when the record allows it and a CONFLICT when the record names the
event and allows only others; with no such record it is checked as a plain number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.anchor.derived import Years, ages_between, span_allows, stated_years
from gsar_otel.core.anchor.derived import year_of as core_year_of
from gsar_otel.core.text import words
from gsar_otel.judges.staged.anchoring import Spec
from gsar_otel.judges.staged.facts import Fact, Field
from gsar_otel.judges.staged.roots import root

Status = Literal["MATCH", "CONFLICT", "ABSENT"]
Placed = tuple[Literal["MATCH", "CONFLICT"], Fact, str]
UNIT_STEMS: Final = frozenset(root(w) for w in ("year", "years", "age", "aged", "old"))
"""Words of the stated number itself, never the words naming its event."""
BIRTH: Final = frozenset(root(w) for w in ("born", "birth"))
"""Key words of a record's birth field."""
EVENTS: Final = BIRTH | frozenset(root(w) for w in ("died", "death", "dead"))
"""Key words of fields dating one event of a life: their year dates no other event."""
_RANGE: Final = re.compile(r"\b\d{4}\s*(?:-|\u2013|\u2014|to|until|through)\s*\d{4}\b", re.I)
"""Two years written as one range ("1969-2013", "1998 to 2004"), not a list of dates."""


@dataclass(frozen=True, slots=True)
class YearsCheck:
    """How a value read as years stands: its status, the reason, the deciding fact, and the
    birth record an age was read from (cited beside it)."""

    status: Status
    reason: str
    fact: Fact | None = None
    birth: Fact | None = None
    plain: bool = False
    """ABSENT unless the value is found as a plain number ("died aged 41" by ``(aged 41)``)."""


def year_of(spec: Spec) -> int | None:
    """:func:`gsar_otel.core.anchor.derived.year_of` of the spec's anchor."""
    return core_year_of(spec.raw)


def _years(field: Field) -> list[int]:
    return [y for y in map(year_of, field.anchors) if y is not None]


def _names(field: Field, wanted: frozenset[str]) -> bool:
    """The field's key or value shares a word with the claim."""
    return bool(field.key_stems & wanted) or any(root(w.lower()) in wanted
                                                 for w in words(field.value))


def _era(era: Years, wanted: frozenset[str], facts: Sequence[Fact]) -> Placed | None:
    """The first aligned fact with a field the claim's key words name decides (a year inside
    the era in such a field: MATCH; only years outside: CONFLICT); without one, a year inside
    it in a fact, outside the fields of another event (a birth year never dates a death)."""
    loose: tuple[Fact, str] | None = None
    for fact in facts:
        named = [f for f in fact.fields if f.key_stems & wanted and _years(f)]
        for field in named:
            if any(era.holds(y) for y in _years(field)):
                return "MATCH", fact, field.shown
        if named:
            return "CONFLICT", fact, named[0].shown
        if loose is None:  # a record's fields, but not another event's; a sentence's words
            anchors = ([a for f in fact.fields if not f.key_stems & (EVENTS - wanted)
                        for a in f.anchors] if fact.fields else list(fact.facts.anchors))
            inside = [s for s in anchors if (y := year_of(s)) and era.holds(y)]
            loose = (fact, inside[0].text) if inside else None
    return ("MATCH", *loose) if loose is not None else None


def birth_year(facts: Sequence[Fact]) -> tuple[int, Fact] | None:
    """The birth year of whom the claim is about: the first birth field among its aligned
    ``facts`` (another person's record, unaligned, never lends its own)."""
    for fact in facts:
        year = next((y for f in fact.fields if f.key_stems & BIRTH for y in _years(f)), None)
        if year is not None:
            return year, fact
    return None


def _aged(field: Field, born: int, year: int) -> str:
    young, old = ages_between(born, year)
    return f"{field.shown}: age {young} or {old}"


def _age(stated: Years, wanted: frozenset[str], born: int, fact: Fact) -> Placed | None:
    events = [(f, y) for f in fact.fields if not f.key_stems & BIRTH and _names(f, wanted)
              for y in _years(f) if y > born]
    for field, year in events:
        if any(stated.holds(n) for n in ages_between(born, year)):
            return "MATCH", fact, _aged(field, born, year)
    if not events:
        return None
    field, year = events[0]
    return "CONFLICT", fact, _aged(field, born, year)


def _span(stated: Years, wanted: frozenset[str], fact: Fact) -> Placed | None:
    found: Placed | None = None
    for field in fact.fields:
        years = _years(field)
        if len(years) != 2 or years[1] <= years[0] or not _RANGE.search(field.value) \
                or not _names(field, wanted):
            continue
        shown = f"{field.shown}: {years[1] - years[0]} years"
        if span_allows(stated, years[0], years[1]):
            return "MATCH", fact, shown
        found = found or ("CONFLICT", fact, shown)
    return found


def years_check(text: str, spec: Spec, key_words: frozenset[str], claim_words: frozenset[str],
                facts: Callable[[], Sequence[Fact]]) -> YearsCheck | None:
    """A value read as years against the aligned ``facts`` (best first); None to check it as a
    plain number. An era is placed by the fields its key words (``key_words``) name, an age or
    span by the fields sharing any word of the claim (``claim_words``)."""
    stated = stated_years(text, spec.raw)
    if stated is None:
        return None
    aligned, birth = facts(), None
    if stated.kind == "era":
        placed = _era(stated, key_words, aligned)
        if placed is None:
            return YearsCheck("ABSENT", f"{stated.said} ({stated.low}-{stated.high}): no year "
                              "in it in the evidence about the claim")
    elif stated.kind == "age":  # the event is a field of the birth year's own record
        birth = birth_year(aligned)
        if birth is None:
            return YearsCheck("ABSENT", f"{stated.said}: no birth year in the evidence about "
                              "the claim", plain=True)
        placed = _age(stated, claim_words - UNIT_STEMS, birth[0], birth[1])
        if placed is None:
            return YearsCheck("ABSENT", f"{stated.said}: no field of its record dates the "
                              "event", plain=True)
    else:  # a span: the first fact allowing it, else the first naming its event
        spans = [p for f in aligned if (p := _span(stated, claim_words - UNIT_STEMS, f))]
        placed = next((p for p in spans if p[0] == "MATCH"), spans[0] if spans else None)
        if placed is None:
            return None
    status, fact, shown = placed
    if birth is not None:
        shown = f"{shown}, born {birth[0]} in {birth[1].ref}"
    return YearsCheck(status, f"says {stated.said}; {fact.ref} has {shown}"
                      if status == "CONFLICT" else f"{stated.said} matches {fact.ref} ({shown})",
                      fact, birth[1] if birth is not None else None)
