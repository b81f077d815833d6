"""Comparisons: a claimed direction ("goes up to 12", "fell from 6,120 to 5,587") checked
against the values it compares, and a comparison between two sides the claim names ("Blue is
the slower one", "more open bugs than iOS") against the facts it compares.

A claim's direction words are a table (:data:`DIRECTIONS`: a word and its sign). A value the
claim gives a direction is checked two ways: against the claim's own starting value ("from A to
B": the sign of B - A), and against the changes the evidence records (``max_size = 20 -> 12``,
``from 20 to 12``: the change whose new value is the claimed one). The same sign is verified, the
opposite contradicted; a value no change ends at is left to the other rules.

A comparison between two sides (:data:`COMPARATIVES`: a comparative word and which side's
quantity it says is the greater) is checked against the values the claim itself binds to each
side (each value to the side named in its clause), else against how many rows of one table
hold each side's word.

A record said to hold the extreme of its rows (:data:`SUPERLATIVES`: "the least", "the
fullest") is checked against every row of its table under the key holding the claim's value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from itertools import pairwise
from typing import Final

from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors
from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.records.claims import NAMED_KINDS, ClaimText
from gsar_otel.judges.records.derive import (
    NUMERIC,
    columns_of,
    magnitudes,
    own_share,
    strict_values,
)
from gsar_otel.judges.records.derive import conversions as converted
from gsar_otel.judges.records.forms import WORDS
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import Record
from gsar_otel.judges.records.rules import Check
from gsar_otel.judges.records.subjects import CLAUSE, Subjects
from gsar_otel.judges.records.units import claim_measure

DIRECTIONS: Final = {**dict.fromkeys(WORDS["directions"]["up"], 1),
                     **dict.fromkeys(WORDS["directions"]["down"], -1)}
"""Words that give a value a direction, and which: one table, one row per word."""
MAX_STEPS: Final = 8
"""How many rows down a column a move is looked for from each row."""
REACH: Final = 40
"""How far before a value its direction word may stand (in its clause)."""

COMPARATIVES: Final = {word: (sign, measure) for (name, sign, measure) in (
    ("greater", 1, ""), ("lesser", -1, ""), ("greater_duration", 1, "duration"),
    ("lesser_duration", -1, "duration")) for word in WORDS["comparatives"][name]}
"""Comparative words: which side's quantity each says is the greater."""
_THAN: Final = re.compile(
    r"\b(" + "|".join(COMPARATIVES) + r")\b((?:\s+[\w-]+){0,4}?)\s+than\s+(?:the\s+|that\s+of\s+)?"
    r"([\w.-]+)", re.IGNORECASE)
_THE_ONE: Final = re.compile(
    r"\b(?:is|was|are|were)\s+(?:by far\s+|clearly\s+)?the\s+(" + "|".join(COMPARATIVES) +
    r")\s+(?:one|of the two)\b", re.IGNORECASE)
_PRONOUNS: Final = frozenset(WORDS["side_pronouns"])
_MEASURED: Final = frozenset({AnchorKind.NUMBER, AnchorKind.DURATION, AnchorKind.PERCENT})
_WORD: Final = re.compile(r"[a-z]+")
_FROM: Final = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_TO: Final = re.compile(r"^\s*(?:to|->|\u2192)\s*$", re.IGNORECASE)


class ComparisonRule:
    """A direction given to a value: the claim's own "from A to B", or the evidence's change
    that ends at the value."""

    name = "comparison"

    def applies(self, claim: ClaimText) -> bool:
        return any(_direction(claim, a) for a in claim.values if a.kind in NUMERIC)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        numbers = [a for a in claim.values if a.kind in NUMERIC]
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


RELATIONS: Final = {**dict.fromkeys(WORDS["relations"]["over"], 1),
                    **dict.fromkeys(WORDS["relations"]["under"], -1)}
"""Words setting one value of a claim against another ("3.8G, just over its 4G cap")."""
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
        return len(claim.values) >= 2 and ("%" in claim.clean or any(
            w in claim.clean.lower() for w in RELATIONS))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        numbers = [a for a in claim.values if a.kind in NUMERIC]
        for share in numbers:
            found = own_share(claim.clean, numbers, share)
            if found is not None:
                part, whole, ratio, holds = found
                yield Check(self.name, "verified" if holds else "contradicted", (),
                            f"{part.text} is {ratio:.3g}% of {whole.text}"
                            f"{'' if holds else f', not {share.text}'}")
        for first, second in pairwise(numbers):
            said = _RELATION.match(claim.clean[first.end:second.start])
            if said is None:
                continue
            pair = magnitudes(first, second)
            if pair is None or pair[0] == pair[1]:
                continue
            sign = RELATIONS[said.group(1).lower()]
            holds = (pair[0] > pair[1]) == (sign > 0)
            what = f"{first.text} {said.group(1)} {second.text}"
            yield Check(self.name, "verified" if holds else "contradicted", (),
                        f"{what}: {'so it is' if holds else 'the numbers say the opposite'}")


class ComparativeRule:
    """A comparison between two sides the claim names, against the values it binds to each
    side or the rows of one table each side's word is on."""

    name = "comparison"

    def applies(self, claim: ClaimText) -> bool:
        return bool(_THAN.search(claim.clean) or _THE_ONE.search(claim.clean))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        text = claim.clean
        than = _THAN.search(text)
        the_one = _THE_ONE.search(text) if than is None else None
        found = than or the_one
        assert found is not None
        word = found.group(1).lower()
        first = _first_side(text, found.start())
        if first is None:
            return
        second = than.group(3).lower().strip(".,;:") if than is not None else None
        if second in STOPWORDS or second in _PRONOUNS or second == first:
            return
        direction, measure = COMPARATIVES[word]
        mine, theirs = _sides(claim, first, second)
        if mine and theirs:
            yield from _by_values(word, direction, measure, mine, theirs, first)
        elif than is not None and second and not mine and not theirs and (
                claim.clean[found.end(1):found.end(2)].strip()):
            yield from _by_rows(word, direction, first, second, index)


def _first_side(text: str, before: int) -> str | None:
    """The first side: the first content word of the clause the comparative stands in."""
    clause_start = max((m.end() for m in CLAUSE.finditer(text, 0, before)), default=0)
    for token in text[clause_start:before].split():
        word = token.strip(".,;:()`'\"").lower()
        if not word or word in ("the", "a", "an", "so", "and", "but", "yes", "no"):
            continue
        if word in STOPWORDS or word in _PRONOUNS:
            return None
        return word.removesuffix("'s")
    return None


_SIDE_CLAUSE: Final = re.compile(r"(?<!\d),|,(?!\d)|[;:\u2014(]|\.\s| and | but | while | whereas ")
"""What ends a side's clause: :data:`~gsar_otel.judges.records.subjects.CLAUSE` without the
comma of a number ("17,904" holds no end). The value binding keeps splitting there: without it
a value binds to a side across "versus" ("14,790 events versus just 33 in staging"), which moves
verdicts of faithful answers."""


def _clause(text: str, at: int) -> str:
    start = max((m.end() for m in _SIDE_CLAUSE.finditer(text, 0, at)), default=0)
    end = _SIDE_CLAUSE.search(text, at)
    return text[start:end.start() if end else len(text)].lower()


def _sides(claim: ClaimText, first: str,
           second: str | None) -> tuple[list[Anchor], list[Anchor]]:
    """The claim's measured values said of each side: a value whose clause names the first
    side is its; one whose clause names the second (or, with no second named, does not name
    the first) is the other's."""
    mine: list[Anchor] = []
    theirs: list[Anchor] = []
    pattern = re.compile(rf"\b{re.escape(first)}\b")
    other = re.compile(rf"\b{re.escape(second)}\b") if second else None
    for value in claim.values:
        if value.kind not in _MEASURED or value.kind in NAMED_KINDS:
            continue
        clause = _clause(claim.clean, value.start)
        if pattern.search(clause):
            mine.append(value)
        elif other is None or other.search(clause):
            theirs.append(value)
    return mine, theirs


def _by_values(word: str, direction: int, measure: str, mine: list[Anchor],
               theirs: list[Anchor], first: str) -> Iterable[Check]:
    for a in mine:
        b = next((b for b in theirs if claim_measure(b) == claim_measure(a)
                  and (a.unit or "").lower() == (b.unit or "").lower()), None)
        if b is None or not isinstance(a.value, float) or not isinstance(b.value, float):
            continue
        said = claim_measure(a)
        if measure and said not in (measure, "rate"):
            continue  # "slower" of a count says nothing of which is greater
        sign = -direction if measure and said == "rate" else direction
        if a.value == b.value:
            continue
        holds = (a.value > b.value) == (sign > 0)
        yield Check("comparison", "verified" if holds else "contradicted", (),
                    f"{first} is {word}: {a.text} against {b.text}" if holds else
                    f"says {first} is {word}, but the claim gives it {a.text} against {b.text}")
        return


def _by_rows(word: str, direction: int, first: str, second: str,
             index: RecordIndex) -> Iterable[Check]:
    """How many rows of one table hold each side's word as a whole cell word (``bug,
    android, p1``): "more open bugs than iOS" compares those counts."""
    counts: dict[str, list[int]] = {}
    for record in index.records:
        words = {w for v in record.values if v.key and len(v.raw) <= 80
                 for w in re.split(r"[\s,;|/]+", v.raw.lower()) if w}
        tally = counts.setdefault(record.group, [0, 0])
        tally[0] += first in words
        tally[1] += second in words
    # the table where the two sides stand on the most rows (a list of the labels themselves
    # holds each once)
    both = sorted(((a + b, a, b) for a, b in counts.values() if a and b), reverse=True)
    if not both or (len(both) > 1 and both[0][0] == both[1][0]):
        return
    _, a, b = both[0]
    holds = (a > b) == (direction > 0) and a != b
    yield Check("comparison", "verified" if holds else "contradicted", (),
                f"{first} is on {a} rows, {second} on {b}" if holds else
                f"says {first} has {word}; {first} is on {a} rows, {second} on {b}")


SUPERLATIVES: Final = {**dict.fromkeys(WORDS["superlatives"]["greatest"], 1),
                       **dict.fromkeys(WORDS["superlatives"]["least"], -1)}
"""Words that say a record's value is the extreme of its rows, and which extreme ("fastest",
"best", "worst" are not here: which way they point depends on the measure)."""
_RANKED: Final = re.compile(r"\b(?:second|third|next|after|among|one of|other)\b", re.IGNORECASE)
"""Words that make a superlative a rank or a choice among some ("the second largest", "the
most ... after it"), not the extreme of all rows."""
_RANK_REACH: Final = 25
_NOT_EXTREME: Final = re.compile(r"(?:most|least)\s+(?:\w+ly|recent|of|likely)\b")
""""most recently", "at least", "most of": no extreme of a value."""
_MAX_OWN: Final = 4
"""Most records one name may stand for in a superlative (the same node in a few items)."""


class SuperlativeRule:
    """A record said to hold the extreme of its rows ("`mq-03` uses the least, about 4.4 GiB",
    "`/var/lib/postgresql` is the fullest at 92%"): the key is the one holding the claim's value
    on that record, and every row of its table holding that key is compared. The extreme is
    verified, another row's greater (or lesser) value contradicts it."""

    name = "superlative"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.values) and any(w in SUPERLATIVES for w in _WORD.findall(
            claim.clean.lower()))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        lowered = claim.clean.lower()
        for match in re.finditer(r"[a-z]+", lowered):
            direction = SUPERLATIVES.get(match.group(0))
            if (direction is None or _NOT_EXTREME.match(lowered, match.start())
                    or lowered.endswith("at ", 0, match.start())
                    or _RANKED.search(lowered, max(0, match.start() - _RANK_REACH),
                                      match.end() + _RANK_REACH)):
                continue
            own = subjects.near(match.start(), claim.clean)
            clause = _clause_span(claim.clean, match.start())
            measured = [a for a in claim.values
                        if a.kind in _MEASURED and a.start not in subjects.naming]
            values = [a for a in measured if clause[0] <= a.start < clause[1]] or [
                a for a in measured if 0 <= a.start - match.end() <= _RANK_REACH]
            if not own or len(own) > _MAX_OWN or not values:
                continue
            family = frozenset(i for w in _WORD.findall(claim.plain.lower()) if len(w) > 2
                               for i in index.prefixed(w) if i not in own)
            for position in sorted(own):  # the record of the claim's that holds its value
                found = _extreme(index, position, values[0], direction, subjects.all,
                                 family | own if family else frozenset())
                if found is not None:
                    yield found
                    break


def _clause_span(text: str, at: int) -> tuple[int, int]:
    starts = [m.end() for m in CLAUSE.finditer(text, 0, at)]
    end = CLAUSE.search(text, at)
    return (starts[-1] if starts else 0), (end.start() if end else len(text))


def _extreme(index: RecordIndex, position: int, value: Anchor, direction: int,
             named: frozenset[int], family: frozenset[int] = frozenset()) -> Check | None:
    """Whether the record at ``position`` holds the extreme of its rows under the key its
    ``value`` is held under (of the rows the claim ``named`` or names by a leading part of
    their names, the ``family``, when that is several: "the three Kafka brokers ..., `kafka-1`
    the highest"), or None when no key of it holds the value or it has no peers."""
    record = index.records[position]
    key = next((v.key for v in record.values if v.key and any(
        compare_anchors(value, a) is Agreement.MATCH for a in v.anchors)), None)
    if key is None:
        key = next((v.key for v in record.values if v.key and any(
            compare_anchors(value, a) is Agreement.MATCH
            for a, _ in converted(value, _alone(record, v)))), None)
    if key is None:
        return None
    rows = index.scope([position])
    chosen = [i for i in rows if i in named or i in family]
    column = {i: n for i in (chosen if len(chosen) > 1 else rows)
              if (n := _number(index.records[i], key)) is not None}
    mine = column.get(position)
    if mine is None or len(column) < 2:
        return None
    best = max(column.values()) if direction > 0 else min(column.values())
    word = "greatest" if direction > 0 else "least"
    if mine == best:
        return Check("superlative", "verified", (record.item,),
                     f"{record.item} holds the {word} {key} of its {len(column)} rows")
    other = index.records[next(i for i, n in column.items() if n == best)]
    name = next(iter(sorted(other.names)), other.item)
    return Check("superlative", "contradicted", (record.item, other.item),
                 f"says the {word} {key}; {name} has {key}={best:g}")


def _alone(record: Record, value: object) -> list[Record]:
    """``record`` with only ``value``: a conversion read from that one key."""
    single = Record(record.item, record.group)
    single.values = [value]  # type: ignore[list-item]
    single.currency = record.currency
    return [single]


def _number(record: Record, key: str) -> float | None:
    for value in record.values:
        if value.key == key:
            numbers = [a for a in value.anchors if a.kind in _MEASURED
                       and isinstance(a.value, float)]
            if len(numbers) != 1:
                return None
            strict = strict_values(numbers[0])  # 1.412GiB is more than 734.2MiB
            return float(strict[0][1]) if strict else float(numbers[0].value)  # type: ignore[arg-type]
    return None
