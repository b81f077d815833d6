"""Times of day and dates as comparison keys, for :mod:`gsar_otel.core.anchor.compare`.

Two written times agree to the precision of the less precise one (``10:15`` and ``10:15:32``
agree; ``10:15:32`` and ``10:15:33`` do not), in the zone as written or, when the zone is
known, in UTC. A date without a year (``March 5``) agrees with any year's March 5. Each
precision is a separate key, so an index finds a time with one dictionary lookup.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Final, NamedTuple

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.scan import read_clock
from gsar_otel.core.anchor.words import zone_offset

_DAY: Final = 86400

def _levels(digits: str) -> int:
    """Precision of a written time: 0 minutes, 1 seconds, 1 + k for k digits of a fraction."""
    if digits.count(":") < 2:
        return 0
    return 1 + (len(digits.split(".")[1]) if "." in digits else 0)


def _cut(seconds: Decimal, level: int) -> int:
    if level == 0:
        return int(seconds // 60)
    return int((seconds * Decimal(10) ** (level - 1)) // 1)


def _clock_keys(seconds: Decimal, level: int, offer: bool) -> list[str]:
    """Keys under which a time of day meets another written to a coarser or finer precision:
    two times agree to the precision of the less precise one."""
    seconds %= _DAY
    if offer:
        keys = [f"ge|{lvl}|{_cut(seconds, lvl)}" for lvl in range(level + 1)]
        return [*keys, f"eq|{level}|{_cut(seconds, level)}"]
    return [f"ge|{level}|{_cut(seconds, level)}",
            *(f"eq|{lvl}|{_cut(seconds, lvl)}" for lvl in range(level))]


def _time_of_day(seconds: Decimal) -> Decimal:
    """Seconds since midnight, wrapped into one day: a Decimal remainder keeps the dividend's
    sign (04:41 JST is 19:41 UTC of the day before, not -04:19)."""
    return (seconds % _DAY + _DAY) % _DAY


class _Moment(NamedTuple):
    day: str | None
    seconds: Decimal
    level: int


def _moments(anchor: Anchor, offer: bool = True) -> list[_Moment]:
    """The time as written and, when its zone is known, the same time in UTC; a claim's time
    in a zone other than UTC only in UTC ("14:02 PST" is 22:02Z, never 14:02Z)."""
    if anchor.kind is AnchorKind.CLOCK:
        read = read_clock(anchor.text)
        if read is None:
            return []
        # the anchor's value reads "9:15 PM" as 21:15, which the token alone does not
        local = (Decimal(str(anchor.value)) if isinstance(anchor.value, (int, float))
                 else read[0].seconds)
        level = _levels(read[0].digits)
        offset = zone_offset(anchor.unit) if anchor.unit else None
        found = [_Moment(None, local, level)]
        if offset:
            utc = _Moment(None, _time_of_day(local - offset * 60), level)
            found = [*found, utc] if offer else [utc]
        return found
    value = str(anchor.value)
    day, _, clock = value.partition("T")
    digits = clock.rstrip("Z")
    level = _levels(digits)
    parts = digits.split(":")
    seconds = Decimal(int(parts[0]) * 3600 + int(parts[1]) * 60) + Decimal(
        parts[2] if len(parts) > 2 else 0)
    found = [_Moment(day, seconds, level)]
    offset = zone_offset(anchor.unit) if anchor.unit and clock.endswith("Z") else None
    if offset:
        moment = datetime.fromisoformat(day) + timedelta(seconds=float(seconds), minutes=offset)
        found.append(_Moment(moment.strftime("%Y-%m-%d"), _time_of_day(seconds + offset * 60),
                              level))
    return found


def time_keys(anchor: Anchor, offer: bool) -> list[tuple[str, str]]:
    """(space, key) pairs a CLOCK, TIMESTAMP or DATE anchor offers as evidence (``offer``) or
    asks for as a claim. A timestamp offers its time of day and its date too; as a claim it
    asks for both together."""
    kind = anchor.kind
    if kind is AnchorKind.DATE:
        return _date_keys(str(anchor.value), offer)
    keys: list[tuple[str, str]] = []
    for moment in _moments(anchor, offer):
        clock = _clock_keys(moment.seconds, moment.level, offer)
        if kind is AnchorKind.CLOCK or offer:
            keys += [("tod", key) for key in clock]
        if moment.day is not None:
            keys += [("ts", f"{moment.day}|{key}") for key in clock]
            if offer:
                keys += _date_keys(moment.day, offer)
    return keys


def _date_keys(day: str, offer: bool) -> list[tuple[str, str]]:
    month_day = day[-5:]
    if day.startswith("--"):
        return [("md", month_day), ("md_noyear", month_day)] if offer else [("md", month_day)]
    if offer:
        return [("date", day), ("md", month_day)]
    return [("date", day), ("md_noyear", month_day)]


def date_numbers(anchor: Anchor) -> tuple[str, ...]:
    """The year (when written) and the day of the month of a DATE or TIMESTAMP as written."""
    if anchor.kind is AnchorKind.DATE:
        day = str(anchor.value)
    elif anchor.kind is AnchorKind.TIMESTAMP:
        day = str(anchor.value)[:10]  # ISO whatever the text ("07/Dec/2024:14:20:03")
    else:
        return ()
    day_of_month = str(int(day[-2:]))
    return (day_of_month,) if day.startswith("--") else (day[:4], day_of_month)
