"""Derivations, one mechanism: the values a claim may state that no record holds as written.

From the records a claim speaks of, :func:`derived` yields candidate values, each as an evidence
anchor with the key and unit of what it was computed from, so the claim's number is compared
exactly as a written one is (within its own precision, units converted by
:func:`gsar_otel.core.anchors.compare_anchors`). The operations are rows of :data:`OPERATIONS`:
each names the cue words a claim must use for it (a total needs "total", a difference "more
than" ...), so a wrong number is not rescued by an operation the claim never spoke of. Counts of
records (by a state or any value of a column) need no cue. The search is bounded: at most
:data:`MAX_VALUES` numbers enter the pairwise operations.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Final, NamedTuple

from gsar_otel.core.anchors import Anchor, AnchorKind
from gsar_otel.judges.records.forms import states_of
from gsar_otel.judges.records.record import Record
from gsar_otel.judges.records.units import SIZE_FACTORS, cores, key_factor, measure_of

CUE_REACH: Final = 40
"""How many characters around a claimed number are read for the words of an operation."""
MAX_VALUES: Final = 40
"""Most numbers of a claim's records that enter pairwise operations (differences, ratios)."""
_NUMERIC: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
_MOMENTS: Final = frozenset({AnchorKind.TIMESTAMP, AnchorKind.CLOCK})


class Operation(NamedTuple):
    """A derivation and the words of a claim that ask for it."""

    name: str
    cue: re.Pattern[str]


def _cue(words: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{words})", re.IGNORECASE)


OPERATIONS: Final = {
    "sum": Operation("sum", _cue(r"total|sum|combined|altogether|in all|overall|together|"
                                r"aggregate|across|all\b|add(?:s|ed)? up|cumulative|net\b")),
    "mean": Operation("mean", _cue(r"average|mean|avg|typical|per\b|each\b|on average")),
    "extreme": Operation("extreme", _cue(
        r"max|min|peak|highest|lowest|largest|smallest|most|least|fewest|top|slowest|fastest|"
        r"biggest|longest|shortest|worst|best|busiest|high of|low of|up to|as (?:high|low)")),
    "difference": Operation("difference", _cue(
        r"more|less|fewer|higher|lower|difference|gap|delta|increase|decrease|rose|grew|fell|"
        r"drop|up from|down from|up by|down by|change|jump|climb|decline|faster|slower|larger|"
        r"smaller|over\b|"
        r"above|below|under|short|remaining|left|behind|ahead|lag|after|before|later|earlier|"
        r"since|apart|between|within|took|lasted|elapsed|duration|span|spent|ago")),
    "ratio": Operation("ratio", _cue(
        r"percent|%|ratio|share|fraction|rate|times|x\b|half|double|twice|triple|quarter|"
        r"third|portion|proportion|of\b|out of|utili[sz]")),
}
"""Cue words per operation family (``extreme`` covers min and max; ``ratio`` shares, ratios and
percentages; ``difference`` differences, percent changes and time spans)."""


def derived(claim_text: str, anchor: Anchor, records: list[Record],
            claim_numbers: list[Anchor], named: bool = False) -> Iterator[tuple[Anchor, str]]:
    """Candidate values for ``anchor`` derived from ``records`` (and the claim's other numbers),
    each with a short description of how it was derived. When the claim ``named`` the records,
    a duration may be the span between two of their moments without a cue ("the init container
    completed in 12 seconds")."""
    around = claim_text[max(0, anchor.start - CUE_REACH):anchor.end + CUE_REACH]
    asks = {name for name, op in OPERATIONS.items() if op.cue.search(around)}
    if named and anchor.kind is AnchorKind.DURATION:
        asks.add("difference")
    if anchor.kind in _NUMERIC:
        yield from _conversions(anchor, records)
        groups: dict[str, list[Record]] = {}
        for record in records:
            groups.setdefault(record.group, []).append(record)
        if anchor.kind is AnchorKind.NUMBER and not anchor.unit:
            for rows in groups.values():  # counted within one table, array or item
                yield from _counts(rows)
        columns = _columns(records)
        pool: list[Entry] = []
        for column, numbers in columns.items():
            key = column.split("\0", 1)[1]
            pool += [Entry(n, a, column, row) for n, a, row in numbers]
            if len(numbers) < 2:
                continue
            values = [n for n, _, _ in numbers]
            source = numbers[0][1]
            total = math.fsum(values)
            pool.append(Entry(total, source, column, _TOTAL))  # a row's share of its column
            if "sum" in asks or "ratio" in asks:
                yield _like(source, total, key), f"sum of {key}"
            if "mean" in asks:
                yield _like(source, total / len(values), key), f"mean of {key}"
            if "extreme" in asks:
                yield _like(source, max(values), key), f"max of {key}"
                yield _like(source, min(values), key), f"min of {key}"
        pool += [Entry(float(a.value), a, "", _CLAIMED) for a in claim_numbers
                 if a is not anchor and isinstance(a.value, float)]
        pool = sorted(pool, key=lambda e: (e.number, e.column, e.row))[:MAX_VALUES]  # any order
        if "difference" in asks or "ratio" in asks:
            yield from _pairs(pool, asks)
    if anchor.kind in (AnchorKind.DURATION, AnchorKind.NUMBER) and "difference" in asks:
        yield from _spans(records, claim_numbers)


def _like(source: Anchor, value: float, key: str) -> Anchor:
    text = f"{value:.6g}"
    return Anchor(source.kind, text, value, source.unit, 0, 0, key or source.key,
                  None)


def _number(value: float) -> Anchor:
    return Anchor(AnchorKind.NUMBER, f"{value:.6g}", value, None, 0, 0, None, None)


def _percent(value: float) -> Anchor:
    return Anchor(AnchorKind.PERCENT, f"{value:.6g}%", value, "%", 0, 0, None, None)


def _columns(records: list[Record]) -> dict[str, list[tuple[float, Anchor, int]]]:
    """Numbers by column (one key of one group: rows of unrelated items never add up), each with
    the position of its record in ``records``."""
    columns: dict[str, list[tuple[float, Anchor, int]]] = {}
    for position, record in enumerate(records):
        for value in record.values:
            numeric = [(a.value, a) for a in value.anchors if a.kind in _NUMERIC
                       and isinstance(a.value, float)]
            if len(numeric) == 1:
                number, anchor = numeric[0]
                columns.setdefault(f"{record.group}\0{value.key}", []).append(
                    (number, anchor, position))
    return columns


def _counts(records: list[Record]) -> Iterator[tuple[Anchor, str]]:
    """How many records there are, and how many hold each value or state of a column."""
    yield _number(float(len(records))), "count of records"
    tally: Counter[str] = Counter()
    for record in records:
        seen: set[str] = set()
        for value in record.values:
            if len(value.raw) > 40 or not value.key:
                continue
            word = value.raw.lower()
            seen.add(f"{value.key}={word}")
            seen.update(f"{s.family}:{s.name}" for s in states_of([word]))
        tally.update(seen)
    for count in sorted(set(tally.values())):
        yield _number(float(count)), "count of records with one value"
        yield _number(float(len(records) - count)), "count of the other records"


class Entry(NamedTuple):
    """A number that may enter a pairwise operation: from which column and row (or the claim,
    or a column's total)."""

    number: float
    anchor: Anchor
    column: str
    row: int


_CLAIMED: Final = -1
_TOTAL: Final = -2


def _pairs(pool: list[Entry], asks: set[str]) -> Iterator[tuple[Anchor, str]]:
    """Differences and percent changes of two values of one column (or stated by the claim);
    ratios and shares of two values of one row, of one column, or of a row and its column's
    total. Values of unrelated columns are never combined."""
    for i, x in enumerate(pool):
        for y in pool[i + 1:]:
            claimed = _CLAIMED in (x.row, y.row)
            same_column = x.column == y.column
            if ("difference" in asks and x.anchor.kind == y.anchor.kind
                    and (same_column or claimed) and _TOTAL not in (x.row, y.row)):
                key = x.column.split("\0", 1)[-1] or y.column.split("\0", 1)[-1]
                yield _like(x.anchor, abs(x.number - y.number), key), "difference"
                for low, high in ((x.number, y.number), (y.number, x.number)):
                    if low:
                        yield _percent(100.0 * (high - low) / abs(low)), "percent change"
            if "ratio" in asks and (same_column or claimed or x.row == y.row):
                for num, den in ((x.number, y.number), (y.number, x.number)):
                    if den:
                        yield _number(num / den), "ratio"
                        yield _percent(100.0 * num / den), "share"


def _spans(records: list[Record], claim_numbers: list[Anchor]) -> Iterator[tuple[Anchor, str]]:
    """Time between two moments of the records (and of the claim)."""
    moments: list[float] = []
    for record in records:
        for value in record.values:
            for anchor in value.anchors:
                if anchor.kind in _MOMENTS:
                    seconds = _seconds(anchor)
                    if seconds is not None:
                        moments.append(seconds)
    moments += [s for a in claim_numbers if a.kind in _MOMENTS
                if (s := _seconds(a)) is not None]
    unique = sorted(set(moments))[:MAX_VALUES]
    for i, first in enumerate(unique):
        for second in unique[i + 1:]:
            gap = second - first
            yield Anchor(AnchorKind.DURATION, f"{gap:g}s", gap, "s", 0, 0, None, None), "span"


def _seconds(anchor: Anchor) -> float | None:
    if anchor.kind is AnchorKind.CLOCK and isinstance(anchor.value, float):
        return anchor.value
    if anchor.kind is AnchorKind.TIMESTAMP and isinstance(anchor.value, str):
        try:
            moment = datetime.fromisoformat(anchor.value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return float(moment.hour * 3600 + moment.minute * 60 + moment.second)
    return None


def _conversions(anchor: Anchor, records: list[Record]) -> Iterator[tuple[Anchor, str]]:
    """Unit-less numbers of the records read in the claim's unit: a share (0.042) as a
    percentage, a duration or a size in the unit its key names (seconds and bytes when it
    names none), cents as an amount."""
    unit = (anchor.unit or "").lower().split("/")[0]
    measure = measure_of(anchor)
    for record in records:
        for value in record.values:
            for evidence in value.anchors:
                if evidence.kind is not AnchorKind.NUMBER or evidence.unit or not isinstance(
                        evidence.value, float):
                    continue
                number = evidence.value
                if anchor.kind is AnchorKind.PERCENT and 0 < abs(number) <= 1:
                    yield _percent(100.0 * number), "share as a percentage"
                    continue
                factor = key_factor(value.key_words, measure) if measure else 0.0
                if not factor:
                    continue
                if measure == "duration":
                    seconds = number * factor
                    yield (Anchor(AnchorKind.DURATION, f"{seconds:g}s", seconds, "s", 0, 0,
                                  None, None), f"{value.key} in seconds")
                elif measure == "cpu":
                    yield cores(anchor, number * factor), f"{value.key} in cores"
                elif measure == "bytes":
                    size = number * factor / SIZE_FACTORS[unit]
                    yield (Anchor(AnchorKind.NUMBER, f"{size:.6g}", size, anchor.unit, 0, 0,
                                  None, None), f"{value.key} in the claim's unit")
                else:
                    amount = number * factor
                    yield (Anchor(AnchorKind.NUMBER, f"{amount:.2f}", amount, anchor.unit, 0,
                                  0, None, None), f"{value.key} as an amount")
