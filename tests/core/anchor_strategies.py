"""Hypothesis strategies for typed anchors: one written token of each kind, with the value it
must be read as, how it appears as a row's ``key=value``, and a rewrite with another value."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from hypothesis import strategies as st

from gsar_otel.core.anchors import AnchorKind

K = AnchorKind
MONTH_NAMES = ["January", "Feb", "March", "Apr", "May", "June", "Jul", "August", "Sep",
               "October", "Nov", "December"]


@dataclass(frozen=True)
class Token:
    """A written anchor: its kind, the value it is read as, a row holding it, and a rewrite."""

    kind: AnchorKind
    text: str
    value: object
    row_key: str
    row_value: str
    changed: str
    alone: bool = True
    """False when the text holds other anchors too (``db-1:5432`` is a host and a port)."""

    @property
    def row(self) -> str:
        return f"{self.row_key}={self.row_value}"


def _shifted(number: str, steps: int) -> str:
    """``number`` plus ``steps`` units of its last written digit."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    shifted = Decimal(number) + Decimal(steps).scaleb(-decimals)
    return f"{shifted:.{decimals}f}"


def _numbers(max_whole: int, max_decimals: int = 2) -> st.SearchStrategy[str]:
    return st.builds(
        lambda whole, decimals, digits: f"{whole}.{digits % 10 ** decimals:0{decimals}d}"
        if decimals else str(whole),
        st.integers(0, max_whole), st.integers(0, max_decimals), st.integers(0, 99))


@st.composite
def percents(draw: st.DrawFn) -> Token:
    number = draw(_numbers(999))
    form = draw(st.sampled_from(["{}%", "{} %", "{} percent"]))
    return Token(K.PERCENT, form.format(number), float(number), "cpu_pct", form.format(number),
                 form.format(_shifted(number, 2)))


@st.composite
def numbers_with_units(draw: st.DrawFn) -> Token:
    number = draw(_numbers(99999))
    if "." not in number and int(number) >= 1000 and draw(st.booleans()):
        written = f"{int(number):,}"
    else:
        written = number
    unit = draw(st.sampled_from(["", " GB", "GB", " MB", " req/s", " RPS", "rps", " cores"]))
    if unit == "" and draw(st.booleans()):
        written = "-" + written
    text = written + unit
    value = float(written.replace(",", ""))
    changed = _shifted(written.replace(",", ""), 2 if value >= 0 else -2) + unit
    return Token(K.NUMBER, text, value, "mem", text, changed)


@st.composite
def clocks(draw: st.DrawFn) -> Token:
    hour, minute = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    second = draw(st.none() | st.integers(0, 59))
    fraction = draw(st.none() | st.integers(1, 999)) if second is not None else None
    zones = [None, " UTC", "Z", " CEST"] + (["+02:00", "-05:00"] if second is not None else [])
    zone = draw(st.sampled_from(zones))

    def written(minute_: int) -> str:
        text = f"{hour:02d}:{minute_:02d}"
        if second is not None:
            text += f":{second:02d}" + (f".{fraction:03d}" if fraction is not None else "")
        return text + (zone or "")

    seconds = Decimal(hour * 3600 + minute * 60 + (second or 0)) + Decimal(fraction or 0) / 1000
    return Token(K.CLOCK, written(minute), float(seconds), "at", written(minute),
                 written((minute + 1) % 60))


_DAYS = st.tuples(st.integers(2000, 2030), st.integers(1, 12), st.integers(1, 28))


@st.composite
def timestamps(draw: st.DrawFn) -> Token:
    year, month, day = draw(_DAYS)
    hour, minute, second = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(
        st.integers(0, 59))
    form = draw(st.sampled_from(["T{}Z", "T{}+02:00", " {} UTC", "T{}"]))

    def written(minute_: int) -> str:
        return f"{year:04d}-{month:02d}-{day:02d}" + form.format(
            f"{hour:02d}:{minute_:02d}:{second:02d}")

    moment = datetime(year, month, day, hour, minute, second)
    if "+02:00" in form:
        moment -= timedelta(hours=2)
    value = moment.strftime("%Y-%m-%dT%H:%M:%S") + ("" if form == "T{}" else "Z")
    return Token(K.TIMESTAMP, written(minute), value, "ts", written(minute),
                 written((minute + 1) % 60))


@st.composite
def dates(draw: st.DrawFn) -> Token:
    year, month, day = draw(_DAYS)
    name = MONTH_NAMES[month - 1]
    form = draw(st.sampled_from(["iso", "month day, year", "day month year", "slash",
                                 "month day"]))

    def written(day_: int) -> str:
        return {"iso": f"{year:04d}-{month:02d}-{day_:02d}",
                "month day, year": f"{name} {day_}, {year}",
                "day month year": f"{day_} {name} {year}",
                "slash": f"{month:02d}/{day_:02d}/{year}",
                "month day": f"{name} {day_}"}[form]

    value = (f"--{month:02d}-{day:02d}" if form == "month day"
             else f"{year:04d}-{month:02d}-{day:02d}")
    return Token(K.DATE, written(day), value, "day", written(day), written(day % 28 + 1))


@st.composite
def durations(draw: st.DrawFn) -> Token:
    form = draw(st.sampled_from(["{}m{}s", "{} ms", "{}h", "{} seconds", "{}s", "{}-minute"]))
    if form == "{}m{}s":
        minutes, seconds = draw(st.integers(1, 59)), draw(st.integers(0, 58))
        return Token(K.DURATION, f"{minutes}m{seconds}s", float(minutes * 60 + seconds),
                     "took", f"{minutes}m{seconds}s", f"{minutes}m{seconds + 1}s")
    if form == "{} seconds":
        amount = draw(st.integers(1, 9999)) / 10
        text = f"{amount:.1f} seconds"
        return Token(K.DURATION, text, amount, "took", text, f"{amount + 0.2:.1f} seconds")
    amount = draw(st.integers(1, 998))  # 1000s would be a decade
    factor = {"{} ms": 0.001, "{}h": 3600, "{}s": 1, "{}-minute": 60}[form]
    value = float(Decimal(amount) * Decimal(str(factor)))
    return Token(K.DURATION, form.format(amount), value, "took", form.format(amount),
                 form.format(amount + 1))


@st.composite
def versions(draw: st.DrawFn) -> Token:
    major, minor, patch = draw(st.integers(0, 20)), draw(st.integers(0, 99)), draw(
        st.integers(0, 98))
    form = draw(st.sampled_from(["v{}", "{}", "{}-rc1"]))
    suffix = "rc1" if "rc1" in form else ""
    return Token(K.VERSION, form.format(f"{major}.{minor}.{patch}"),
                 (major, minor, patch, suffix), "version",
                 form.format(f"{major}.{minor}.{patch}"),
                 form.format(f"{major}.{minor}.{patch + 1}"))


@st.composite
def ipv4s(draw: st.DrawFn) -> Token:
    octets = draw(st.lists(st.integers(0, 255), min_size=4, max_size=4))
    text = ".".join(map(str, octets))
    changed = ".".join(map(str, [*octets[:3], (octets[3] + 1) % 256]))
    return Token(K.IPV4, text, text, "addr", text, changed)


@st.composite
def ipv6s(draw: st.DrawFn) -> Token:
    groups = draw(st.lists(st.integers(0, 0xFFFF) | st.just(0), min_size=8, max_size=8))
    groups[0] = groups[0] or 0x2001
    groups[-1] = groups[-1] or 1

    def written(last: int) -> str:
        address = ":".join(f"{g:x}" for g in [*groups[:-1], last])
        return ipaddress.IPv6Address(address).compressed

    text = written(groups[-1])
    return Token(K.IPV6, text, text, "addr", text, written(groups[-1] % 0xFFFF + 1))


@st.composite
def ports(draw: st.DrawFn) -> Token:
    port = draw(st.integers(1, 65534))
    form = draw(st.sampled_from(["port {}", "db-1:{}", "10.0.0.12:{}"]))
    alone = form == "port {}"
    return Token(K.PORT, form.format(port), str(port), "port",
                 str(port) if alone else form.format(port), form.format(port + 1), alone)


@st.composite
def http_statuses(draw: st.DrawFn) -> Token:
    status = draw(st.integers(100, 599))
    form = draw(st.sampled_from(["HTTP {}", "status {}", "{} errors", "error {}"]))
    other = status + 1 if status < 599 else status - 1
    return Token(K.HTTP_STATUS, form.format(status), str(status), "status", str(status),
                 form.format(other))


@st.composite
def http_classes(draw: st.DrawFn) -> Token:
    digit = draw(st.integers(1, 5))
    form = draw(st.sampled_from(["{}xx", "{}XX"]))
    return Token(K.HTTP_CLASS, form.format(digit), f"{digit}xx", "class", form.format(digit),
                 form.format(digit % 5 + 1))


@st.composite
def percentiles(draw: st.DrawFn) -> Token:
    rank = draw(st.sampled_from(["50", "90", "95", "99", "99.9", "75", "1"]))
    prefix = draw(st.sampled_from(["p", "P"]))
    other = "42" if rank != "42" else "43"
    return Token(K.PERCENTILE, prefix + rank, "p" + rank, "q", prefix + rank, prefix + other)


@st.composite
def identifiers(draw: st.DrawFn) -> Token:
    form = draw(st.sampled_from(["upper", "lower", "uuid", "hex"]))
    number = draw(st.integers(100, 99998))
    if form == "upper":
        prefix = draw(st.sampled_from(["A", "INC", "T", "CHG"]))
        text, changed = f"{prefix}-{number}", f"{prefix}-{number + 1}"
    elif form == "lower":
        prefix = draw(st.sampled_from(["cfg", "job", "chg", "tkt"]))
        text, changed = f"{prefix}-{number}", f"{prefix}-{number + 1}"
    else:
        bits = draw(st.integers(0, 2**128 - 1))
        hex_digits = f"{bits:032x}"
        if form == "uuid":
            text = "-".join((hex_digits[:8], hex_digits[8:12], hex_digits[12:16],
                             hex_digits[16:20], hex_digits[20:]))
        else:
            text = "a1" + hex_digits[:draw(st.integers(5, 20))]
        changed = text[:-1] + ("0" if text[-1] != "0" else "1")
    return Token(K.IDENTIFIER, text, text.lower(), "change_id", text, changed)


@st.composite
def hosts(draw: st.DrawFn) -> Token:
    word = st.sampled_from(["edge", "lb", "db", "prod", "api", "cache", "web", "eu", "core"])
    form = draw(st.sampled_from(["two", "host-n", "dotted"]))
    number = draw(st.integers(1, 98))
    if form == "two":
        first, second = draw(word), draw(word)
        text, changed = f"{first}-{second}-{number}", f"{first}-{second}-{number + 1}"
    elif form == "host-n":
        first = draw(st.sampled_from(["db", "web", "cache", "edge", "api", "node"]))
        text, changed = f"{first}-{number}", f"{first}-{number + 1}"
    else:
        first = draw(word)
        text = f"{first}-{number}.{draw(word)}.example.com"
        changed = f"{first}-{number + 1}" + text[text.index("."):]
    return Token(K.HOST, text, text, "host", text, changed)


ALL_KINDS = st.one_of(percents(), numbers_with_units(), clocks(), timestamps(), dates(),
                      durations(), versions(), ipv4s(), ipv6s(), ports(), http_statuses(),
                      http_classes(), percentiles(), identifiers(), hosts())
"""A written token of any kind."""

STRICT_CROSS_KINDS = {frozenset({K.CLOCK, K.TIMESTAMP}), frozenset({K.DATE, K.TIMESTAMP}),
                      frozenset({K.HTTP_CLASS, K.HTTP_STATUS})}
"""Different kinds that compare by design: a time with a timestamp's time, a date with its date,
a class with a status."""
LOOSE_CROSS_KINDS = {frozenset({K.NUMBER, other})
                     for other in (K.PERCENT, K.DURATION, K.HTTP_STATUS, K.PORT)} | {
    frozenset({K.HOST, K.IDENTIFIER})}
"""Different kinds that may MATCH (a bare ``97`` and ``97%``) but never CONFLICT."""
