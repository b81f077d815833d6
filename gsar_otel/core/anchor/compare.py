"""Comparing typed anchors: :func:`compare_anchors` for one pair, :class:`AnchorIndex` for one
claim anchor against many evidence anchors in about constant time.

Both rest on one reading of each anchor. An evidence anchor offers *views*: values in a
comparison space (``num``, ``pct``, ``sec``, time of day, date, or the normalised text of an
identifier, host, version ...). A claim anchor asks *queries*: an interval of values its
written form allows (by rounding at its own precision, widened or made one-sided by
``about``, ``over`` ...), or one exact value. A query and a view meet when they share a space
and a unit dimension; the pair agrees when the value lies in the query; it conflicts when
both sides are strict (``97%`` against ``cpu_pct=95``, not ``97`` against ``3 GB``). Each
space's values are kept sorted: a query is one binary search or dictionary lookup."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Final, NamedTuple

from gsar_otel.core.anchor.model import Agreement, Anchor, AnchorKind
from gsar_otel.core.anchor.scan import number_text
from gsar_otel.core.anchor.times import date_numbers, time_keys
from gsar_otel.core.anchor.units import (
    SIZE_UNITS,
    byte_factors,
    duration_quantum,
    key_parts,
    size_unit,
)
from gsar_otel.core.anchor.words import (
    PERCENT_WORDS,
    SECONDS_PER_UNIT,
    TIME_UNIT_WORDS,
    canonical_unit,
    is_spaced_unit,
    looks_like_host,
    unit_dimension,
)

ANY: Final = "*"
"""The dimension every numeric view is also filed under: a claim number without a unit meets
numbers of any unit."""
UNITLESS: Final = ""
_PCT_WORDS: Final = frozenset({"pct", "percent", "percentage", "perc"})
_RATIO_WORDS: Final = frozenset({"rate", "ratio", "share", "fraction", "utilization",
                                 "utilisation", "util"})
_KEY_SECONDS: Final = {"ms": "0.001", "s": "1", "sec": "1", "secs": "1", "seconds": "1",
                       "us": "0.000001", "ns": "0.000000001", "min": "60", "mins": "60",
                       "minutes": "60", "h": "3600", "hours": "3600", "days": "86400"}
_MEASURED_IN: Final = {"await": "ms", "svctm": "ms"}  # keys kept in a unit: iostat's waits
_WIDEN: Final = Decimal("0.1")
_INFINITY: Final = Decimal("Infinity")
_SIGNIFICANT: Final = 24  # digits a rounding interval is computed to (the context keeps 28)


class Interval(NamedTuple):
    """Values from ``low`` to ``high``; each end open or closed."""

    low: Decimal
    low_closed: bool
    high: Decimal
    high_closed: bool

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, Decimal):
            return False
        return ((value >= self.low if self.low_closed else value > self.low)
                & (value <= self.high if self.high_closed else value < self.high))


class View(NamedTuple):
    """A value an evidence anchor offers in one comparison space."""

    space: str
    dims: frozenset[str]
    value: Decimal | str
    strict: bool


class Query(NamedTuple):
    """What a claim anchor accepts in one comparison space: an interval, or one exact value."""

    space: str
    dims: frozenset[str]
    accepts: Interval | str
    strict: bool


_ONLY: Final = frozenset({UNITLESS})
_ALL: Final = frozenset({ANY})


def compare_anchors(claim: Anchor, evidence: Anchor) -> Agreement:
    """How ``evidence`` stands to ``claim``: MATCH, CONFLICT (same concept, different value) or
    UNRELATED (different kinds or units; a time never contradicts a percentage)."""
    comparable = False
    offered = views(evidence)  # read once, not once per query: callers compare many pairs
    for query in queries(claim):
        accepts = query.accepts
        exact = not isinstance(accepts, Interval)
        for view in offered:
            if view.space != query.space or not view.dims & query.dims:
                continue
            if accepts == view.value if exact else view.value in accepts:
                return Agreement.MATCH
            comparable = comparable or (query.strict and view.strict)
    return Agreement.CONFLICT if comparable else Agreement.UNRELATED


class AnchorIndex:
    """Evidence anchors filed by comparison space and value, for constant-time support checks.

    ``find(claim)`` returns an evidence anchor that MATCHes ``claim`` (as
    :func:`compare_anchors` would say), or None, after one lookup or binary search per query.
    Building it is one pass over the anchors; each space is sorted the first time it is asked."""

    def __init__(self, anchors: Iterable[Anchor]) -> None:
        self._exact: dict[tuple[str, str], list[tuple[int, Anchor]]] = {}
        self._filed: dict[tuple[str, str], list[tuple[Decimal, int, Anchor]]] = {}
        self._sorted: dict[tuple[str, str], tuple[list[Decimal], list[Anchor], list[int]]] = {}
        exact, filed = self._exact, self._filed
        for position, anchor in enumerate(anchors):
            for where, value in _filings(anchor):
                if isinstance(value, str):
                    exact.setdefault((where[0], value), []).append((position, anchor))
                else:
                    filed.setdefault(where, []).append((value, position, anchor))

    def _space(self, where: tuple[str, str]
               ) -> tuple[list[Decimal], list[Anchor], list[int]] | None:
        found = self._sorted.get(where)
        if found is None:
            entries = self._filed.get(where)
            if not entries:
                return None
            # sorted() leaves the filed list alone: an index may be shared between threads.
            ordered = sorted(entries, key=lambda entry: (entry[0], entry[1]))
            found = ([entry[0] for entry in ordered], [entry[2] for entry in ordered],
                     [entry[1] for entry in ordered])
            self._sorted[where] = found
        return found

    def _hits(self, query: Query) -> Iterator[tuple[int, Anchor]]:
        """The evidence anchors one query accepts, with their positions: a lookup, or per
        dimension a binary search and a walk over the matches, made as they are asked for."""
        interval = query.accepts
        if isinstance(interval, str):
            yield from self._exact.get((query.space, interval), ())
            return
        for dim in query.dims:
            space = self._space((query.space, dim))
            if space is None:
                continue
            values, anchors, positions = space
            at = (bisect_left(values, interval.low) if interval.low_closed
                  else bisect_right(values, interval.low))
            while at < len(values) and values[at] in interval:
                yield positions[at], anchors[at]
                at += 1

    def matches(self, claim: Anchor, limit: int) -> list[int]:
        """Positions (in the order the anchors were given) of up to ``limit`` evidence anchors
        that match ``claim`` (an exact query's hits are all taken, the lowest positions kept)."""
        found: dict[int, None] = {}
        for query in queries(claim):
            bounded = not isinstance(query.accepts, str)
            for position, _ in self._hits(query):
                if bounded and len(found) >= limit:
                    break
                found[position] = None
            if bounded and len(found) >= limit:
                break
        return sorted(found)[:limit]

    def find(self, claim: Anchor) -> Anchor | None:
        """An evidence anchor that matches ``claim``, or None."""
        return next((anchor for query in queries(claim) for _, anchor in self._hits(query)),
                    None)

    def supports(self, claim: Anchor) -> bool:
        """True when some evidence anchor matches ``claim``."""
        return self.find(claim) is not None


# -- views and queries ---------------------------------------------------------------------------

def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    try:
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        return None


def _rounding(value: Decimal, quantum: Decimal, qualifier: str | None) -> Interval:
    """The values a number written as ``value`` (to ``quantum``) stands for: rounded to the
    nearest at the written precision (``9%`` is not 9.9%: that rounds to 10%), widened
    (``about`` by 10%, ``nearly`` by 10% below) or opened to one side (``over``, ``under``,
    ``at least``, ``at most``) by its qualifier."""
    if value.adjusted() - quantum.adjusted() > _SIGNIFICANT:
        return Interval(value, True, value, True)  # more digits than arithmetic keeps: exact
    half = quantum / 2
    if value > 0:
        # both ends closed: a value exactly halfway (42.5) may be written either way (42 or 43)
        interval = Interval(value - half, True, value + half, True)
    elif value < 0:
        interval = Interval(value - half, True, value + half, True)
    else:
        interval = Interval(-quantum, False, quantum, False)
    spread = abs(value) * _WIDEN
    if qualifier == "about":
        return Interval(min(interval.low, value - spread), True,
                        max(interval.high, value + spread), True)
    if qualifier == "nearly":
        return Interval(min(interval.low, value - spread), True, interval.high,
                        interval.high_closed)
    # One-sided words extend the rounding interval to one side and never narrow it: "over 600"
    # is supported by evidence that itself says "more than 600", written as 600.
    if qualifier in ("over", "at_least"):
        return Interval(interval.low, interval.low_closed, _INFINITY, True)
    if qualifier in ("under", "at_most"):
        return Interval(-_INFINITY, True, interval.high, interval.high_closed)
    return interval


def _written(anchor: Anchor) -> tuple[Decimal, Decimal] | None:
    """The number at the start of a numeric anchor's text, and its quantum (``41.2`` -> 0.1)."""
    found = number_text(anchor)
    if found is None:
        return None
    raw, decimals = found
    try:
        value = Decimal(raw.replace(",", "").lstrip("+"))
    except InvalidOperation:
        return None
    quantum = Decimal(1).scaleb(-decimals)
    # a number written short and read at its scale ("193.6k" as 193,600) keeps the precision
    # written: to the hundred
    after = anchor.text.lstrip("~≈≥≤$€£¥")[len(raw):len(raw) + 2]
    scale = _SHORT_SCALES.get(after) or _SHORT_SCALES.get(after[:1])
    if (scale is not None and isinstance(anchor.value, float) and value
            and math.isclose(anchor.value, float(value * scale), rel_tol=1e-9)):
        return value * scale, quantum * scale
    return value, quantum


_SHORT_SCALES: Final = {"k": Decimal(1000), "K": Decimal(1000), "M": Decimal(10) ** 6,
                        "B": Decimal(10) ** 9, "bn": Decimal(10) ** 9}
"""Multipliers of a number written short, when its anchor's value was read at that scale."""


@lru_cache(maxsize=65536)
def views(anchor: Anchor) -> tuple[View, ...]:
    """Every value ``anchor`` offers as evidence."""
    kind = anchor.kind
    if kind in (AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION):
        return _magnitude_views(anchor)
    if kind in (AnchorKind.CLOCK, AnchorKind.TIMESTAMP, AnchorKind.DATE):
        dated = [View(space, _ONLY, key, True) for space, key in time_keys(anchor, True)]
        # The year and the day of a date stand for the numbers a claim may write them as
        # ("in 2019", "on the 7th"), without ever conflicting with them.
        dated += [View("num", _ALL, Decimal(number), False) for number in date_numbers(anchor)]
        return tuple(dated)
    found = [View(space, _ONLY, key, strict) for space, key, strict in _exact_keys(anchor, True)]
    if kind in (AnchorKind.HTTP_STATUS, AnchorKind.PORT):
        found.append(View("num", _ALL, Decimal(str(anchor.value)), False))
    return tuple(found)


@lru_cache(maxsize=65536)
def _filings(anchor: Anchor) -> tuple[tuple[tuple[str, str], Decimal | str], ...]:
    """((space, dimension), value) for each place ``anchor`` is filed in an index."""
    return tuple(((view.space, dim), view.value) for view in views(anchor) for dim in view.dims)


@lru_cache(maxsize=65536)
def queries(anchor: Anchor) -> tuple[Query, ...]:
    """Everything ``anchor`` accepts as a claim."""
    kind = anchor.kind
    if kind in (AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION):
        return _magnitude_queries(anchor)
    if kind in (AnchorKind.CLOCK, AnchorKind.TIMESTAMP, AnchorKind.DATE):
        return tuple(Query(space, _ONLY, key, True) for space, key in time_keys(anchor, False))
    found = [Query(space, _ONLY, key, strict) for space, key, strict in _exact_keys(anchor, False)]
    if kind in (AnchorKind.HTTP_STATUS, AnchorKind.PORT):
        number = Decimal(str(anchor.value))
        found.append(Query("num", _ONLY, Interval(number, True, number, True), False))
    return tuple(found)


def _status_class(anchor: Anchor) -> str:
    return f"{str(anchor.value)[0]}xx"


def _exact_keys(anchor: Anchor, offer: bool) -> list[tuple[str, str, bool]]:
    """Exact keys of a named anchor. An HTTP status offers its class (``503`` is a ``5xx``) and
    a class asks for any status of it; a status asks for a class, not for a sibling status."""
    kind = anchor.kind
    value = anchor.value
    if kind is AnchorKind.VERSION and isinstance(value, tuple):
        numbers = [str(part) for part in value[:-1]]
        while len(numbers) > 1 and numbers[-1] == "0":
            numbers.pop()
        return [("version", ".".join(numbers) + "|" + str(value[-1]), True)]
    text = str(value)
    if kind in (AnchorKind.IDENTIFIER, AnchorKind.HOST):
        short = text.split(".", 1)[0] if offer and kind is AnchorKind.HOST else text
        # a host's own name before its domain names it too (ip-10-0-3-17.ec2.internal)
        extra = [("host", short, True)] if short != text and looks_like_host(short) else []
        return [(kind.value, text, True), ("label", text, False), *extra]
    if kind is AnchorKind.HTTP_STATUS:
        return [("status", text, True),
                ("status_class" if offer else "class", _status_class(anchor), True)]
    if kind is AnchorKind.HTTP_CLASS:
        return [("class", text, True)] + ([] if offer else [("status_class", text, True)])
    return [(kind.value, text, True)]


def _magnitude_views(anchor: Anchor) -> tuple[View, ...]:
    written = _written(anchor)
    value = _decimal(anchor.value)
    if anchor.kind is not AnchorKind.DURATION and written is not None:
        value = written[0]  # exact as written: no float rounding of long numbers
    if value is None:
        return ()
    found: list[View] = []
    if anchor.kind is AnchorKind.PERCENT:
        found.append(View("pct", _ONLY, value, True))
        found.append(View("num", frozenset({"%", ANY}), value, False))
    elif anchor.kind is AnchorKind.DURATION:
        found.append(View("sec", _ONLY, value, True))
        if written is not None and anchor.unit is not None:
            dims = frozenset({_dimension(anchor.unit), ANY})
            found.append(View("num", dims, written[0], False))
    else:
        unit = _dimension(anchor.unit) if anchor.unit else _key_unit(anchor.key)
        keyed = [] if anchor.unit else _key_views(anchor.key, value)
        # a share of 1 (``error_ratio=0.005``, 0.5%) is never a percentage written alike (0.01%)
        share = any(v.space == "pct" and v.value != value for v in keyed)
        found.append(View("num", frozenset({ANY} if share else {unit, ANY}), value, True))
        sized = anchor.unit or (key_parts(anchor.key) or [""])[-1]
        found += [View("bytes", frozenset({size_unit(sized) or ""}), value * f, True)
                  for f in byte_factors(sized)]
        found += keyed
    return tuple(found)


def _dimension(unit: str) -> str:  # time units by their length: s, sec and seconds are one
    seconds = SECONDS_PER_UNIT.get(unit)
    return f"time:{seconds}" if seconds is not None else unit_dimension(canonical_unit(unit))


def _key_unit(key: str | None) -> str:
    """The unit a key's last part gives its value (``mem_gb=12`` is 12 GB, ``rx_bytes``,
    ``rps``); UNITLESS when it names none. Times and percentages are read by _key_views."""
    parts = key_parts(key)
    last = _MEASURED_IN.get(parts[-1], parts[-1]) if parts else ""
    if last in TIME_UNIT_WORDS:
        return _dimension(last)  # p99_latency_ms=1374 is 1374 ms, never 1374 s
    if not is_spaced_unit(last) or last in PERCENT_WORDS:
        return UNITLESS
    return unit_dimension(canonical_unit(last))


def _key_views(key: str | None, value: Decimal) -> list[View]:
    """What a number's key says it is: ``error_ratio=0.021`` is 2.1%, ``latency_ms=250`` 0.25 s."""
    parts = key_parts(key)
    found: list[View] = []
    if any(part in _PCT_WORDS or part.endswith("pct") for part in parts):
        found.append(View("pct", _ONLY, value, True))
    elif any(part in _RATIO_WORDS for part in parts) and 0 <= value <= 1:
        found.append(View("pct", _ONLY, value * 100, True))
    last = _MEASURED_IN.get(parts[-1], parts[-1]) if parts else ""
    if last in _KEY_SECONDS:
        found.append(View("sec", _ONLY, value * Decimal(_KEY_SECONDS[last]), True))
    return found


def _magnitude_queries(anchor: Anchor) -> tuple[Query, ...]:
    written = _written(anchor)
    if written is None:
        return ()
    number, quantum = written
    qualifier = anchor.qualifier
    # "over 30 seconds", "above 5%": a bound no bare number (a size, a count) meets
    bare = qualifier not in ("over", "at_least", "under", "at_most")
    if anchor.kind is AnchorKind.PERCENT:
        near = _rounding(number, quantum, qualifier)
        return (Query("pct", _ONLY, near, True), Query("num", _ONLY, near, False))[:1 + bare]
    if anchor.kind is AnchorKind.DURATION:
        seconds = _decimal(anchor.value)
        if seconds is None:
            return ()
        unit = anchor.unit or ""
        step = (SECONDS_PER_UNIT[unit] * quantum if unit in SECONDS_PER_UNIT
                else duration_quantum(anchor.text))
        found = [Query("sec", _ONLY, _rounding(seconds, step, qualifier), True)]
        if anchor.unit is not None and bare:
            found.append(Query("num", _ONLY, _rounding(number, quantum, qualifier), False))
        return tuple(found)
    dims = _ALL if anchor.unit is None else frozenset({_dimension(anchor.unit), UNITLESS})
    near = _rounding(number, quantum, qualifier)
    other = SIZE_UNITS - {size_unit(anchor.unit)}  # "23 GB" is never "21 GB" in bytes
    return (Query("num", dims, near, True), *(Query("bytes", other, Interval(
        near.low * f, near.low_closed, near.high * f, near.high_closed), True)
        for f in byte_factors(anchor.unit)))
