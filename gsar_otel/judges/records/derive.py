"""Derivations, one mechanism: the values a claim may state that no record holds as written.

From the records a claim speaks of, :class:`Derivations` finds the candidate value a claimed one
is derived from, each candidate an evidence anchor with the key and unit of what it was computed
from, so the claim's number is compared exactly as a written one is (within its own precision,
units converted by
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
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from typing import Final, NamedTuple

from gsar_otel.core.anchor.compare import ANY, UNITLESS, Interval, queries, views
from gsar_otel.core.anchor.scan import number_text
from gsar_otel.core.anchors import Agreement, Anchor, AnchorIndex, AnchorKind, compare_anchors
from gsar_otel.judges.records.forms import WORDS, states_of
from gsar_otel.judges.records.record import Record, Value
from gsar_otel.judges.records.units import (
    SIZE_FACTORS,
    claim_measure,
    cores,
    key_factors,
    key_measure,
    measure_of,
    measures_differ,
)

CUE_REACH: Final = 40
"""How many characters around a claimed number are read for the words of an operation."""
MAX_VALUES: Final = 40
"""Most numbers of a claim's records that enter pairwise operations (differences, ratios)."""
NUMERIC: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
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
    "mean": Operation("mean", _cue(r"averag|mean|avg|typical|per\b|each\b|on average")),
    "extreme": Operation("extreme", _cue(
        r"max|min|peak|highest|lowest|largest|smallest|most|least|fewest|top|slowest|fastest|"
        r"biggest|longest|shortest|worst|best|busiest|high of|low of|up to|as (?:high|low)|"
        r"between|rang(?:e|es|ing)")),
    "difference": Operation("difference", _cue(
        r"more|less|fewer|higher|lower|difference|gap|delta|increase|decrease|rose|grew|fell|"
        r"drop|up from|down from|up by|down by|change|jump|climb|decline|faster|slower|larger|"
        r"smaller|over\b|"
        r"above|below|under|short|remaining|left|behind|ahead|lag|after|before|later|earlier|"
        r"since|apart|between|within|took|lasted|elapsed|duration|span|spent|ago|leaving|"
        r"free|spare|headroom|room")),
    "ratio": Operation("ratio", _cue(
        r"percent|%|ratio|share|fraction|rate|times|x\b|half|double|twice|triple|quarter|"
        r"third|portion|proportion|of\b|out of|utili[sz]|against|versus|vs\b|never|only")),
    "product": Operation("product", re.compile(
        r"\u00d7|\d\s?x\s?\d|\btimes\b|\bmultipl", re.IGNORECASE)),
}
"""Cue words per operation family (``extreme`` covers min and max; ``ratio`` shares, ratios and
percentages; ``difference`` differences, percent changes and time spans)."""


_OPENING_OPS: Final = frozenset({"sum", "mean"})
"""Operations whose word opening a sentence asks for them of every value in it ("Averaging `rt`
across those 8 requests gives about 686 ms", "In total, ...")."""


class Derivations:
    """The values derivable from scopes of records, each scope's computed once per judgement:
    the claims of one answer that speak of one table share its columns, counts, conversions
    and moments, so checking them is linear in claims plus rows, not their product."""

    def __init__(self) -> None:
        self._scopes: dict[tuple[int, ...], _Scope] = {}

    def match(self, claim_text: str, anchor: Anchor, exact: Anchor, scope: list[int],
              records: list[Record], claim_numbers: list[Anchor],
              named: bool = False, across: bool = False) -> str | None:
        """How ``exact`` (the claim's ``anchor`` at the precision written) is derived from the
        records of ``scope`` (and the claim's other numbers), or None. When the claim ``named``
        the records, a duration may be the span between two of their moments without a cue
        ("the init container completed in 12 seconds"). With ``across``, the scope is records
        the claim names one by one (the same host in two metric dumps): their columns are one
        key across items."""
        around = claim_text[max(0, anchor.start - CUE_REACH):anchor.end + CUE_REACH]
        opening = " ".join(claim_text.split()[:2])  # "Averaging rt ..." governs the sentence
        asks = {name for name, op in OPERATIONS.items()
                if op.cue.search(around) or (name in _OPENING_OPS and op.cue.match(opening))}
        key = (*scope, -1 if across else -2)
        facts = self._scopes.get(key)
        if facts is None:
            facts = self._scopes[key] = _Scope([records[i] for i in scope], across)
        return facts.match(anchor, exact, asks, claim_numbers,
                           spans=named and anchor.kind is AnchorKind.DURATION)


class _Scope:
    """The derivable values of one scope of records, computed as they are first asked for."""

    def __init__(self, records: list[Record], across: bool = False) -> None:
        self.records = records
        self.across = across
        self._conversions: dict[tuple[str, str, bool], _Candidates] = {}
        self._counts: _Candidates | None = None
        self._columns: dict[str, list[tuple[float, Anchor, int]]] | None = None
        self._moments: list[float] | None = None

    def match(self, anchor: Anchor, exact: Anchor, asks: set[str],
              claim_numbers: list[Anchor], spans: bool = False) -> str | None:
        """How ``exact`` derives from these records; with ``spans``, a duration may be the
        time between two of their moments with no cue."""
        if anchor.kind in NUMERIC:
            found = self.conversions(anchor).find(exact)
            if found is None and anchor.kind is AnchorKind.NUMBER and not anchor.unit:
                found = self.counts().find(exact)
            if found is None:
                found = _first(exact, self._aggregates(asks))
            if found is None and anchor.unit:  # "totalling $13,505.00": a sum of cents
                found = _first(exact, self._converted(anchor, asks))
            if found is None and asks & {"difference", "ratio", "sum", "product"}:
                found = _first(exact, _pairs(self._pool(anchor, claim_numbers), asks,
                                             _within(exact), meets_percents(exact),
                                             meets_unkeyed(exact)))
            if found is not None:
                return found
        if anchor.kind in (AnchorKind.DURATION, AnchorKind.NUMBER) and (
                "difference" in asks or spans):
            return _first(exact, _spans(self.moments(), claim_numbers))
        return None

    def conversions(self, anchor: Anchor) -> _Candidates:
        unit = (anchor.unit or "").lower().split("/")[0]
        key = (measure_of(anchor), unit, anchor.kind is AnchorKind.PERCENT)
        found = self._conversions.get(key)
        if found is None:
            found = self._conversions[key] = _Candidates(list(conversions(anchor,
                                                                          self.records)))
        return found

    def counts(self) -> _Candidates:
        if self._counts is None:
            groups: dict[str, list[Record]] = {}
            for record in self.records:
                groups.setdefault(record.group, []).append(record)
            # counted within one table, array or item
            self._counts = _Candidates([c for rows in groups.values() for c in _counts(rows)])
        return self._counts

    def columns(self) -> dict[str, list[tuple[float, Anchor, int]]]:
        if self._columns is None:
            self._columns = columns_of(self.records, self.across)
        return self._columns

    def moments(self) -> list[float]:
        if self._moments is None:
            self._moments = _moments(self.records)
        return self._moments

    def _aggregates(self, asks: set[str]) -> Iterator[tuple[Anchor, str]]:
        for column, numbers in self.columns().items():
            key = column.split("\0", 1)[1]
            if len(numbers) < 2:
                continue
            values = [n for n, _, _ in numbers]
            source = numbers[0][1]
            total = math.fsum(values)
            if "sum" in asks or "ratio" in asks:
                yield _like(source, total, key), f"sum of {key}"
            if "mean" in asks:
                yield _like(source, total / len(values), key), f"mean of {key}"
            if "extreme" in asks:
                yield _like(source, max(values), key), f"max of {key}"
                yield _like(source, min(values), key), f"min of {key}"

    def _converted(self, anchor: Anchor, asks: set[str]) -> Iterator[tuple[Anchor, str]]:
        """The aggregates of the columns read in the claim's unit (cents as an amount)."""
        for aggregate, how in self._aggregates(asks):
            alone = Record(self.records[0].item, "", currency=self.records[0].currency)
            alone.values = [Value(aggregate.key or "", aggregate.text, (aggregate,))]
            for converted, _ in conversions(anchor, [alone]):
                yield converted, f"{how} in the claim's unit"

    def _pool(self, anchor: Anchor, claim_numbers: list[Anchor]) -> list[Entry]:
        pool: list[Entry] = []
        for column, numbers in self.columns().items():
            pool += [Entry(n, a, column, row) for n, a, row in numbers]
            if len(numbers) > 1:  # a row's share of its column
                pool.append(Entry(math.fsum(n for n, _, _ in numbers), numbers[0][1], column,
                                  _TOTAL))
        claimed = [Entry(abs(float(a.value)), a, "", _CLAIMED) for a in claim_numbers
                   if a is not anchor and isinstance(a.value, float)][:MAX_VALUES]
        # the claim's own numbers always enter ("hits against misses"): what other items hold
        # never pushes them out; a sign the claim writes marks a direction ("+1,842/-1,297"),
        # the size is what enters
        kept = sorted(pool, key=lambda e: (e.number, e.column, e.row))
        return [*kept[:MAX_VALUES - len(claimed)], *claimed]


class _Candidates:
    """Derived values filed for look-up by value (:class:`AnchorIndex`), each with how."""

    def __init__(self, candidates: list[tuple[Anchor, str]]) -> None:
        self.hows = [how for _, how in candidates]
        self.index = AnchorIndex(anchor for anchor, _ in candidates)

    def find(self, anchor: Anchor) -> str | None:
        found = self.index.matches(anchor, 1)
        return self.hows[found[0]] if found else None


def _first(anchor: Anchor, candidates: Iterable[tuple[Anchor, str]]) -> str | None:
    """How the first candidate matching ``anchor`` was derived. A plain number or percentage
    far from every value the claim's written form allows (read as itself, a share or a
    percentage) is passed over without the full comparison: most pairs of values are."""
    bounds = _bounds(anchor)
    percents, unkeyed = meets_percents(anchor), meets_unkeyed(anchor)
    for candidate, how in candidates:
        if not percents and candidate.kind is AnchorKind.PERCENT:
            continue  # never a match, in itself or in a measure
        if not unkeyed and candidate.kind is AnchorKind.NUMBER and not candidate.unit and (
                not candidate.key):
            continue  # a bare number never matches a measure, nor is it read in one
        if bounds is not None and candidate.unit in (None, "%") and isinstance(
                candidate.value, float) and not any(
                bounds[0] <= candidate.value * scale <= bounds[1] for scale in _SCALES):
            continue
        bare = (candidate.kind is AnchorKind.NUMBER and not candidate.unit
                and key_measure(candidate.key) != claim_measure(anchor))
        if not (bare and claim_measure(anchor)) and compare_anchors(
                anchor, candidate) is Agreement.MATCH:
            return how  # a duration, a size or a share is never a bare number's match
        measured = _in_measure(anchor, candidate)
        if measured is not None and compare_anchors(anchor, measured) is Agreement.MATCH:
            return f"{how} in {measure_of(anchor)}"
    return None


PERCENT_FILINGS: Final = frozenset({("pct", UNITLESS), ("num", "%"), ("num", ANY)})
"""The comparison spaces and dimensions every percentage offers its value in, whatever its
value (:func:`gsar_otel.core.anchor.compare.views`)."""


def meets_percents(anchor: Anchor) -> bool:
    """Whether a percentage can match ``anchor`` at all: one of its queries asks in a space and
    dimension a percentage offers (``3100 ms`` asks in seconds and in plain numbers of no unit,
    which no percentage is)."""
    return any((query.space, dim) in PERCENT_FILINGS for query in queries(anchor)
               for dim in query.dims)


def meets_unkeyed(anchor: Anchor) -> bool:
    """Whether a number of no unit and no key (a ratio, a product) can match ``anchor``: not
    when ``anchor`` names a measure by its unit (``3100 ms``, ``2 GB``, ``40%``), as such a
    number is no match of a measure's value and no column a value is read in a measure from
    (:func:`_in_measure` reads keyed numbers only)."""
    return not claim_measure(anchor)


MEASURE_KEYS: Final = {
    "duration": frozenset({"time", "rt", "latency", "duration", "elapsed", "took", "age",
                           "uptime", "wait", "ttl", "seconds", "secs", "sec"}),
    "bytes": frozenset({"offset", "bytes", "size", "memory", "mem", "rss", "used", "length",
                        "len", "heap"}),
}
"""Key words of a column whose unit-less numbers a derived duration or size may be read from
(``rt``, ``master_repl_offset``)."""


def _in_measure(anchor: Anchor, candidate: Anchor) -> Anchor | None:
    """A unit-less derived value read in the claim's measure (seconds for a duration, bytes
    for a size: what a key that names no unit holds), or None."""
    if candidate.kind is not AnchorKind.NUMBER or candidate.unit or not isinstance(
            candidate.value, float) or measures_differ(anchor, candidate):
        return None
    measure = measure_of(anchor)
    if not _measure_words(candidate.key) & MEASURE_KEYS.get(measure, frozenset()):
        return None  # a ratio, a count or a column of no such measure is no duration
    if measure == "duration":
        return Anchor(AnchorKind.DURATION, f"{candidate.value:g}s", candidate.value, "s", 0, 0,
                      None, None)
    if measure == "bytes":
        unit = (anchor.unit or "").lower().split("/")[0]
        size = candidate.value / SIZE_FACTORS[unit]
        return Anchor(AnchorKind.NUMBER, f"{size:.6g}", size, anchor.unit, 0, 0, None, None)
    return None


@lru_cache(maxsize=4096)
def _measure_words(key: str | None) -> frozenset[str]:
    """The words of a candidate's key, lower-cased, as :func:`_in_measure` reads them."""
    return frozenset(re.split(r"[._\-\s/]+", (key or "").lower()))


_SCALES: Final = (1.0, 100.0, 0.01)


def _bounds(anchor: Anchor) -> tuple[float, float] | None:
    """The lowest and highest values a plain number or a percentage allows, or None."""
    if anchor.kind not in (AnchorKind.NUMBER, AnchorKind.PERCENT) or anchor.unit not in (
            None, "%"):
        return None
    intervals = [q.accepts for q in queries(anchor) if isinstance(q.accepts, Interval)]
    if not intervals:
        return None
    low = min(float(i.low) for i in intervals)
    high = max(float(i.high) for i in intervals)
    return low - abs(low) * 1e-9, high + abs(high) * 1e-9


def _like(source: Anchor, value: float, key: str) -> Anchor:
    text = f"{value:.6g}"
    return Anchor(source.kind, text, value, source.unit, 0, 0, key or source.key,
                  None)


def plain_number(value: float) -> Anchor:
    """A derived plain number as an anchor (to six significant digits)."""
    return Anchor(AnchorKind.NUMBER, f"{value:.6g}", value, None, 0, 0, None, None)


def percent(value: float) -> Anchor:
    """A derived percentage as an anchor."""
    return Anchor(AnchorKind.PERCENT, f"{value:.6g}%", value, "%", 0, 0, None, None)


def columns_of(records: list[Record],
               across: bool = False) -> dict[str, list[tuple[float, Anchor, int]]]:
    """Numbers by column, each with the position of its record in ``records``. A column is one
    key of one group (rows of unrelated items never add up), or with ``across`` one key of the
    records given (records a claim named one by one)."""
    columns: dict[str, list[tuple[float, Anchor, int]]] = {}
    for position, record in enumerate(records):
        for value in record.values:
            numeric = [(a.value, a) for a in value.anchors if a.kind in NUMERIC
                       and isinstance(a.value, float)]
            if len(numeric) == 1:
                number, anchor = numeric[0]
                group = "*" if across else record.group
                columns.setdefault(f"{group}\0{value.key}", []).append(
                    (number, anchor, position))
    return columns


def _counts(records: list[Record]) -> Iterator[tuple[Anchor, str]]:
    """How many records there are, and how many hold each value or state of a column."""
    yield plain_number(float(len(records))), "count of records"
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
        yield plain_number(float(count)), "count of records with one value"
        yield plain_number(float(len(records) - count)), "count of the other records"


class Entry(NamedTuple):
    """A number that may enter a pairwise operation: from which column and row (or the claim,
    or a column's total)."""

    number: float
    anchor: Anchor
    column: str
    row: int


_CLAIMED: Final = -1
_TOTAL: Final = -2


def _within(anchor: Anchor) -> Callable[[float], bool]:
    """Whether a plain derived number or share could meet ``anchor`` at all (read as itself,
    a share or a percentage): the rest are never built."""
    bounds = _bounds(anchor)
    if bounds is None:
        return lambda _: True
    low, high = bounds
    return lambda value: any(low <= value * scale <= high for scale in _SCALES)


def _pairs(pool: list[Entry], asks: set[str],
           within: Callable[[float], bool] = lambda _: True,
           percents: bool = True, unkeyed: bool = True) -> Iterator[tuple[Anchor, str]]:
    """Differences and percent changes of two values of one column (or stated by the claim);
    sums and products of two values the claim states; ratios and shares of two values of one
    row, of one column, or of a row and its column's total. Values of unrelated columns are
    never combined; a plain number or share that cannot meet the claimed value (``within``)
    is not built, nor a percentage when ``percents`` is False (:func:`meets_percents`), nor a
    number of no unit and no key (a ratio, a product) when ``unkeyed`` is False
    (:func:`meets_unkeyed`)."""
    for i, x in enumerate(pool):
        for y in pool[i + 1:]:
            if x.row == y.row and x.anchor == y.anchor:
                continue  # one value read twice (under its key and in its line)
            claimed = _CLAIMED in (x.row, y.row)
            both_claimed = x.row == y.row == _CLAIMED
            same_column = x.column == y.column or _attribute_of(x.column) == _attribute_of(
                y.column) != ""
            if ("difference" in asks and x.anchor.kind == y.anchor.kind
                    and (same_column or claimed) and _TOTAL not in (x.row, y.row)):
                key = x.column.split("\0", 1)[-1] or y.column.split("\0", 1)[-1]
                yield _like(x.anchor, abs(x.number - y.number), key), "difference"
                for low, high in ((x.number, y.number), (y.number, x.number)):
                    if percents and low and within(
                            change := 100.0 * (high - low) / abs(low)):
                        yield percent(change), "percent change"
            if "sum" in asks and both_claimed and x.anchor.kind == y.anchor.kind:
                # two numbers the claim writes: "+1,842/-1,297, about 3,100 in total"
                yield _like(x.anchor, x.number + y.number, ""), "sum of the two"
            if "product" in asks and unkeyed and both_claimed and AnchorKind.NUMBER in (
                    x.anchor.kind, y.anchor.kind):  # "32,768 that 8 workers x 4096 allow"
                yield plain_number(x.number * y.number), "product of the two"
            if "ratio" in asks and (same_column or claimed or x.row == y.row):
                for num, den in ((x.number, y.number), (y.number, x.number)):
                    if den:
                        ratio = num / den
                        if unkeyed and within(ratio):
                            yield plain_number(ratio), "ratio"
                        if percents and within(100.0 * ratio):
                            yield percent(100.0 * ratio), "share"
                        if percents and within(100.0 - 100.0 * ratio):
                            yield percent(100.0 - 100.0 * ratio), "share of the rest"
                whole = x.number + y.number
                if percents and whole and _TOTAL not in (x.row, y.row):  # "hits against misses"
                    for part in (x.number, y.number):
                        if within(100.0 * part / whole):
                            yield percent(100.0 * part / whole), "share of the two"


@lru_cache(maxsize=4096)
def _attribute_of(column: str) -> str:
    """The last word of a column's key (``master_repl_offset`` and ``offset`` are one
    attribute: offsets), or ``""``."""
    key = column.split("\0", 1)[-1]
    words = [w for w in re.split(r"[._\-\s/]+", key) if w and not w.isdigit()]
    return words[-1] if words else ""


def _moments(records: list[Record]) -> list[float]:
    """The records' moments (seconds of the day), each once, the first :data:`MAX_VALUES`."""
    moments = {seconds for record in records for value in record.values
               for anchor in value.anchors if anchor.kind in _MOMENTS
               if (seconds := _seconds(anchor)) is not None}
    return sorted(moments)[:MAX_VALUES]


def _spans(moments: list[float],
           claim_numbers: list[Anchor]) -> Iterator[tuple[Anchor, str]]:
    """Time between two moments of the records (and of the claim)."""
    claimed = {s for a in claim_numbers if a.kind in _MOMENTS
               if (s := _seconds(a)) is not None}
    unique = sorted(set(moments) | claimed)[:MAX_VALUES]
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


CURRENCIES: Final = frozenset({"usd", "eur", "gbp", "cad", "aud", "chf", "sek", "nok", "dkk",
                               "nzd", "sgd", "hkd", "mxn", "brl", "inr", "pln"})
"""Currencies written in cents (two decimals): an amount of a record that names one is in
its minor unit, as payment APIs keep it (``"amount": 23900, "currency": "usd"``)."""
AMOUNT_KEYS: Final = frozenset({"amount", "total", "subtotal", "due", "paid", "remaining",
                                "balance", "price", "unit", "mrr", "arr", "fee", "tax",
                                "refunded", "captured", "credit", "debit", "net", "gross"})
"""Key words of amounts kept in a currency's minor unit."""


def minor_units(record: Record, value: Value) -> bool:
    """True when ``value`` is an amount in cents: an integer under an amount key of a record
    whose item names a two-decimal currency (:attr:`Record.currency`, set as items are
    read)."""
    return record.currency and bool(value.key_words & AMOUNT_KEYS) and "." not in value.raw


_KEY_BEFORE: Final = re.compile(r"([A-Za-z_][\w.-]*)\s*[=:]\s*$")


def restates(claim_text: str, anchor: Anchor, stated: Anchor) -> bool:
    """True when ``anchor`` is ``stated`` (another value the claim writes just before it)
    written in another unit: "`MemoryHigh=5368709120` (5 GiB)", "1733573400, i.e. 12:10 UTC".
    ``stated`` is read as a record's value under the key the claim writes before it."""
    key = _KEY_BEFORE.search(claim_text[max(0, stated.start - 40):stated.start])
    record = Record("claim", "claim")
    record.add(key.group(1) if key else "", stated.text)
    if any(compare_anchors(anchor, held) is Agreement.MATCH
           for value in record.values for held in value.anchors):
        return True
    if (stated.kind is AnchorKind.PERCENT and anchor.kind is AnchorKind.NUMBER
            and isinstance(stated.value, float) and compare_anchors(anchor, plain_number(
                stated.value / 100.0)) is Agreement.MATCH):
        return True  # "121.7% CPU (about 1.2 of the 4 cores)": a share as a fraction
    return any(compare_anchors(anchor, found) is Agreement.MATCH
               for found, _ in conversions(anchor, [record]))


def conversions(anchor: Anchor, records: list[Record]) -> Iterator[tuple[Anchor, str]]:
    """Unit-less numbers of the records read in the claim's unit: a share (0.042) as a
    percentage, a duration or a size in the unit its key names (seconds and bytes when it
    names none), cents as an amount."""
    unit = (anchor.unit or "").lower().split("/")[0]
    measure = measure_of(anchor)
    for record in records:
        for value in record.values:
            for evidence in value.anchors:
                if (evidence.kind is not AnchorKind.NUMBER or evidence.unit
                        or not isinstance(evidence.value, float)
                        or measures_differ(anchor, evidence)):
                    continue
                number = evidence.value
                if anchor.kind is AnchorKind.PERCENT and 0 < abs(number) <= 1:
                    yield percent(100.0 * number), "share as a percentage"
                    continue
                factors = key_factors(value.key_words, measure) if measure else ()
                if measure == "money" and not factors and minor_units(record, value):
                    factors = (0.01,)
                if not factors:
                    continue
                factor = factors[0]
                if measure == "duration":
                    for factor in factors:
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


SHARE_REACH: Final = 40
"""Most characters between a part and the share the claim says it is of a whole."""
_SHARE_OF: Final = re.compile(r"\s*of\s+(?:(?:the|its|their|all|a|an|total|[\w-]+['\u2019]s)\s+)*$",
                             re.IGNORECASE)


_HEDGE: Final = rf"(?:{'|'.join(WORDS['share_hedges'])})"
_THEN_SHARE: Final = re.compile(rf"(?:\s*[\w-]+){{0,3}}\s*(?:\(\s*(?:{_HEDGE}\s*)?|"
                                rf"[,\u2014\u2013-]?\s*{_HEDGE}\s*)", re.IGNORECASE)
"""Between a part of a whole the claim states and the share it says that is: a parenthesis or a
hedge ("46 MB snapshot, about ", "requests (about "); not a bare comma ("3 of 5 pods, 90%
CPU" gives no share)."""


def own_share(clean: str, numbers: list[Anchor], share: Anchor
              ) -> tuple[Anchor, Anchor, float, bool] | None:
    """Where the claim says ``share`` is the share one value it states is of another ("352.18
    GiB compressed, about 75% of the table's 612.40 GiB", "31.2 MB of the 46 MB snapshot, about
    78%"): the part, the whole, their share and whether ``share`` is it (each value as precise
    as written); else None."""
    at = numbers.index(share) if share in numbers else -1
    if share.kind is not AnchorKind.PERCENT or at < 1:
        return None
    if at + 1 < len(numbers) and _SHARE_OF.match(clean[share.end:numbers[at + 1].start]):
        part, whole = numbers[at - 1], numbers[at + 1]  # the share, then of what
    elif at >= 2 and _SHARE_OF.match(clean[numbers[at - 2].end:numbers[at - 1].start]) and (
            _THEN_SHARE.fullmatch(clean[numbers[at - 1].end:share.start])):
        part, whole = numbers[at - 2], numbers[at - 1]  # the part of the whole, then the share
    else:
        return None
    if part.kind is AnchorKind.PERCENT or share.start - part.end > 2 * SHARE_REACH or (
            whole.kind is AnchorKind.PERCENT):
        return None
    pair = magnitudes(part, whole)
    if pair is None or not pair[1]:
        return None
    ratio = float(100 * pair[0] / pair[1])
    slack = _slack(part) + _slack(whole)
    holds = (any(compare_anchors(share, percent(r)) is Agreement.MATCH
                 for r in (ratio * (1 - slack), ratio, ratio * (1 + slack)))
             or abs(float(share.value) - ratio) <= ratio * slack)  # type: ignore[arg-type]
    return part, whole, ratio, holds


def _slack(anchor: Anchor) -> float:
    """How far off a value may be as written, relative to it ("1.41" is 1.405 to 1.415; a
    whole number, a limit's "2 GiB", is exact)."""
    written = number_text(anchor)
    value = float(written[0].replace(",", "")) if written else 0.0
    return 0.5 * 10.0 ** -written[1] / abs(value) if written and written[1] and value else 0.0


def strict_values(anchor: Anchor) -> list[tuple[str, Decimal]]:
    """The values ``anchor`` offers in a measure's own unit, each with its space (bytes,
    seconds, percent): 1.412GiB and 734.2MiB compare there."""
    return [(v.space, v.value) for v in views(anchor)
            if v.strict and v.space != "num" and isinstance(v.value, Decimal)]


def magnitudes(first: Anchor, second: Anchor) -> tuple[Decimal, Decimal] | None:
    """The two values in the one strict space both offer (bytes, seconds, percent), or None
    when they measure different things."""
    for space, a in strict_values(first):
        for other, b in strict_values(second):
            if space == other:
                return a, b
    if (first.kind is second.kind is AnchorKind.NUMBER and not first.unit and not second.unit
            and isinstance(first.value, float) and isinstance(second.value, float)):
        return Decimal(str(first.value)), Decimal(str(second.value))
    return None
