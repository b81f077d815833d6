"""Comparisons: a claimed direction ("goes up to 12", "fell from 6,120 to 5,587") checked
against the values it compares.

A claim's direction words are a table (:data:`DIRECTIONS`: a word and its sign). A value the
claim gives a direction is checked two ways: against the claim's own starting value ("from A to
B": the sign of B - A), and against the changes the evidence records (``max_size = 20 -> 12``,
``from 20 to 12``: the change whose new value is the claimed one). The same sign is verified, the
opposite contradicted; a value no change ends at is left to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from itertools import pairwise
from typing import Final

from gsar_otel.core.anchor.compare import views
from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors
from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.derive import columns_of
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import Record
from gsar_otel.judges.records.rules import Check
from gsar_otel.judges.records.subjects import CLAUSE, Subjects

DIRECTIONS: Final = {
    "up": 1, "rose": 1, "rise": 1, "rises": 1, "risen": 1, "increase": 1, "increased": 1,
    "increases": 1, "grew": 1, "grows": 1, "grown": 1, "raised": 1, "raise": 1, "raises": 1,
    "higher": 1, "more": 1, "doubled": 1, "doubles": 1, "tripled": 1, "climbed": 1,
    "jumped": 1, "bumped": 1, "spiked": 1, "larger": 1, "bigger": 1, "greater": 1,
    "down": -1, "fell": -1, "falls": -1, "fallen": -1, "dropped": -1, "drops": -1,
    "decrease": -1, "decreased": -1, "decreases": -1, "lowered": -1, "lower": -1,
    "reduced": -1, "reduces": -1, "less": -1, "fewer": -1, "halved": -1, "shrank": -1,
    "shrunk": -1, "declined": -1, "slipped": -1, "cut": -1, "smaller": -1,
}
"""Words that give a value a direction, and which: one table, one row per word."""
MAX_STEPS: Final = 8
"""How many rows down a column a move is looked for from each row."""
REACH: Final = 40
"""How far before a value its direction word may stand (in its clause)."""
_NUMERIC: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
_WORD: Final = re.compile(r"[a-z]+")
_FROM: Final = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_TO: Final = re.compile(r"^\s*(?:to|->|\u2192)\s*$", re.IGNORECASE)


class ComparisonRule:
    """A direction given to a value: the claim's own "from A to B", or the evidence's change
    that ends at the value."""

    name = "comparison"

    def applies(self, claim: ClaimText) -> bool:
        return any(_direction(claim, a) for a in claim.values if a.kind in _NUMERIC)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        numbers = [a for a in claim.values if a.kind in _NUMERIC]
        for position, value in enumerate(numbers):
            sign = _direction(claim, value)
            if not sign:
                continue
            start = _start(claim, numbers, position)
            if start is not None:
                moved = _sign(start, value)
                if moved:
                    yield _checked(moved == sign, (), f"from {start.text} to {value.text}")
                continue
            changes = _changes(index, subjects, value)
            moves = {_sign(before, after) for before, after, _ in changes}
            moves.discard(0)
            if len(moves) == 1:
                refs = tuple(dict.fromkeys(item for _, _, item in changes))
                yield _checked(moves == {sign}, refs, f"a change to {value.text}")
                continue
            steps = _steps(index, subjects, value)
            if len(steps) == 1:
                (moved, refs), = steps.items()
                yield _checked(moved == sign, refs, f"a change of {value.text} down the rows")


def _checked(same: bool, refs: tuple[str, ...], what: str) -> Check:
    if same:
        return Check("comparison", "verified", refs, f"{what} goes the way the claim says")
    return Check("comparison", "contradicted", refs,
                 f"{what} goes the other way from what the claim says")


def _direction(claim: ClaimText, value: Anchor) -> int:
    """The sign the claim's words give ``value`` (0 when none)."""
    window = CLAUSE.split(claim.plain[max(0, value.start - REACH):value.start].lower())[-1]
    signs = {DIRECTIONS[w] for w in _WORD.findall(window) if w in DIRECTIONS}
    return signs.pop() if len(signs) == 1 else 0


def _start(claim: ClaimText, numbers: list[Anchor], position: int) -> Anchor | None:
    """The claim's own starting value of a move to ``numbers[position]`` ("from A to B")."""
    if position == 0:
        return None
    before, value = numbers[position - 1], numbers[position]
    if before.kind is not value.kind or not _TO.match(claim.clean[before.end:value.start]):
        return None
    return before if _FROM.search(claim.clean[max(0, before.start - 12):before.start]) else None


def _changes(index: RecordIndex, subjects: Subjects,
             value: Anchor) -> list[tuple[Anchor, Anchor, str]]:
    """The evidence's changes whose new value is ``value``: on the claim's records when any of
    them changed, else anywhere."""
    scope = subjects.near(value.start) or subjects.all
    value = replace(value, qualifier=None)  # "up to 12" ends at 12, not at most 12
    found: dict[bool, list[tuple[Anchor, Anchor, str]]] = {True: [], False: []}
    for position in sorted(index.holding(value)):
        for before, after in index.records[position].changes:
            if compare_anchors(value, after) is Agreement.MATCH:
                found[position in scope].append((before, after, index.records[position].item))
    return found[True] or found[False]


def _steps(index: RecordIndex, subjects: Subjects,
           value: Anchor) -> dict[int, tuple[str, ...]]:
    """The directions in which one column of the claim's records moves by ``value`` from an
    earlier row to a later one ("p99_latency_ms=1129" then "=8858": up by 7729), with the
    items they are in; empty when no two rows differ by it."""
    named = subjects.near(value.start) or subjects.all
    if not named:
        return {}
    scope = index.scope(named)
    records = [index.records[i] for i in scope]
    exact = replace(value, qualifier=None)
    found: dict[int, tuple[str, ...]] = {}
    for column in columns_of(records, across=len(named) > 1).values():
        # in the order of the records' own times where each has one, else as they stand
        numbers = sorted(column, key=lambda n: _moment(records[n[2]]) or 0.0) if all(
            _moment(records[n[2]]) is not None for n in column) else column
        for a in range(len(numbers) - 1):
            for b in range(a + 1, min(len(numbers), a + MAX_STEPS)):
                (x, seen, _), (y, _, row) = numbers[a], numbers[b]
                gap = Anchor(seen.kind, f"{abs(y - x):.6g}", abs(y - x), seen.unit, 0, 0,
                             seen.key, None)
                if y != x and compare_anchors(exact, gap) is Agreement.MATCH:
                    moved = 1 if y > x else -1
                    found[moved] = tuple(dict.fromkeys(
                        (*found.get(moved, ()), records[numbers[a][2]].item, records[row].item)))
    return found


def _moment(record: Record) -> float | None:
    """When ``record`` was written: its first timestamp, as seconds since the epoch."""
    for value in record.values:
        for anchor in value.anchors:
            if anchor.kind is AnchorKind.TIMESTAMP and isinstance(anchor.value, str):
                try:
                    return datetime.fromisoformat(anchor.value.replace("Z", "+00:00")).timestamp()
                except ValueError:
                    return None
    return None


def _sign(before: Anchor, after: Anchor) -> int:
    if not isinstance(before.value, float) or not isinstance(after.value, float):
        return 0
    return (after.value > before.value) - (after.value < before.value)


RELATIONS: Final = {
    "over": 1, "above": 1, "exceeds": 1, "exceeding": 1, "beyond": 1, "past": 1,
    "more than": 1, "greater than": 1, "higher than": 1, "larger than": 1, "bigger than": 1,
    "under": -1, "below": -1, "less than": -1, "lower than": -1, "fewer than": -1,
    "smaller than": -1, "short of": -1,
}
"""Words that set one value of a claim against another of the same measure ("3.8G, just over
its 4G cap"), and which way: one row per phrase."""
_HEDGES: Final = (r"(?:just|well|barely|slightly|far|way|still|already|now|comfortably|safely|"
                  r"right|only|is|are|was|were|sits|sitting|stays|remains|which\s+is|that's)")
_RELATION_WORDS: Final = "|".join(sorted(RELATIONS, key=len, reverse=True))
_RELATION: Final = re.compile(
    rf"^\s*(?:[A-Za-z-]+\s*){{0,2}}[\s,]*(?:{_HEDGES}\s+)*({_RELATION_WORDS})\s+"
    r"(?:(?:the|its|their|his|her|a|an|of|configured|set|current)\s+)*(?:[\w.]+\s*[=:]\s*)?$",
    re.IGNORECASE)


class RelationRule:
    """One value set against another by the claim itself ("3.8G, just over its
    ``SystemMaxUse=4G`` cap"): the claim's own two values must stand the way its words say, in
    the measure both are written in; a claim whose comparison its own numbers deny is
    contradicted."""

    name = "relation"

    def applies(self, claim: ClaimText) -> bool:
        return len(claim.values) >= 2 and any(w in claim.clean.lower() for w in RELATIONS)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        numbers = [a for a in claim.values if a.kind in _NUMERIC]
        for first, second in pairwise(numbers):
            said = _RELATION.match(claim.clean[first.end:second.start])
            if said is None:
                continue
            pair = _magnitudes(first, second)
            if pair is None or pair[0] == pair[1]:
                continue
            sign = RELATIONS[said.group(1).lower()]
            holds = (pair[0] > pair[1]) == (sign > 0)
            what = f"{first.text} {said.group(1)} {second.text}"
            yield Check(self.name, "verified" if holds else "contradicted", (),
                        f"{what}: {'so it is' if holds else 'the numbers say the opposite'}")


def _magnitudes(first: Anchor, second: Anchor) -> tuple[Decimal, Decimal] | None:
    """The two values in the one strict space both offer (bytes, seconds, percent), or None
    when they measure different things."""
    for a in views(first):
        for b in views(second):
            if (a.strict and b.strict and a.space == b.space and a.space != "num"
                    and isinstance(a.value, Decimal) and isinstance(b.value, Decimal)):
                return a.value, b.value
    if (first.kind is second.kind is AnchorKind.NUMBER and not first.unit and not second.unit
            and isinstance(first.value, float) and isinstance(second.value, float)):
        return Decimal(str(first.value)), Decimal(str(second.value))
    return None
