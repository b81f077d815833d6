"""Reading one token (a run of text between delimiters) as typed anchors: the bounded patterns
and parsers behind :func:`gsar_otel.core.anchors.extract_anchors`.

Every pattern here is matched at the start of one token, and none nests unbounded repeats, so
reading a text costs time linear in its length (see ``tests/core/test_linear_cost.py``).
"""

from __future__ import annotations

import ipaddress
import re
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Final, NamedTuple

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.words import (
    PERCENT_WORDS,
    PRERELEASE,
    SECONDS_PER_UNIT,
    TIME_UNIT_WORDS,
    canonical_unit,
    looks_like_host,
    object_name_at,
    zone_offset,
)

# -- patterns (each matched at the start of one token) ------------------------------------------

_NUMBER: Final = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})++(?!\d)|\d++)(?:\.\d++)?")
_ISO_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_LOG_STAMP: Final = re.compile(r"\[?(\d{1,2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}:\d{2}:\d{2})\]?")
"""The common log format's time (``07/Dec/2024:14:20:03``, as nginx and Apache write it)."""
_MONTHS: Final = {name: number for number, name in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_SLASH_DATE: Final = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})|(\d{4})/(\d{1,2})/(\d{1,2})")
_CLOCK: Final = re.compile(
    r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?|[aApP]\.?[mM]\.?)?")
_IPV4: Final = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?")
_HOST_PORT: Final = re.compile(r"([A-Za-z0-9][\w.\-]{0,252}):(\d{1,5})")
_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX: Final = re.compile(r"[0-9a-fA-F]{7,}+")
_HTTP_CLASS: Final = re.compile(r"[1-5][xX]{2}")
_PERCENTILE: Final = re.compile(r"[pP](\d{1,2}(?:\.\d{1,3})?|100)")
_IMAGE: Final = re.compile(r"([a-z0-9][\w./-]*[a-z][\w./-]*):(v?\d+(?:\.\d+){1,3}(?:-[\w.]+)?)",
                           re.IGNORECASE)
"""A container image and its tag (``registry.local/checkout-api:v1.4.2``)."""
_VERSION: Final = re.compile(
    r"[vV](\d{1,6}(?:\.\d{1,6}){0,3})(?:-([0-9A-Za-z][0-9A-Za-z.]{0,30}))?"
    r"|(\d{1,6}(?:\.\d{1,6}){1,3})(?:-([0-9A-Za-z][0-9A-Za-z.]{0,30}))?")
_COMPOUND_DURATION: Final = re.compile(
    r"(?>\d{1,6}(?:\.\d{1,6})?(?:ms|us|µs|ns|min|[wdhms]))++", re.IGNORECASE)
_DURATION_PART: Final = re.compile(r"(\d{1,6}(?:\.\d{1,6})?)(ms|us|µs|ns|min|[wdhms])",
                                   re.IGNORECASE)
_GLUED_UNIT: Final = re.compile(
    r"[A-Za-zµ°]{1,3}(?:/s|/sec|ps)?|/s|/sec|(?i:thousand|million|billion|trillion)")
"""A unit or a magnitude glued to a number: ``2GB``, ``12rps``, ``£10million``."""
_ORDINAL: Final = frozenset({"st", "nd", "rd", "th"})
_NAME_CHARS: Final = re.compile(r"[A-Za-z0-9][\w.\-]*+")
_DIGIT: Final = re.compile(r"\d")
_SPLIT: Final = re.compile(r"[/,\-+@#&\\^]++")


class Piece(NamedTuple):
    """One anchor read from a token: kind, span (absolute offsets), value and unit."""

    kind: AnchorKind
    start: int
    end: int
    value: object
    unit: str | None


def to_decimal(digits: str) -> Decimal | None:
    """The value of a number as written (``1,024`` -> 1024, ``+4`` -> 4)."""
    try:
        return Decimal(digits.replace(",", "").lstrip("+"))
    except InvalidOperation:
        return None


def leading_number(text: str) -> tuple[Decimal, int, int] | None:
    """The number at the start of ``text`` (after a sign): value, decimals and length."""
    match = _NUMBER.match(text)
    if not match:
        return None
    value = to_decimal(match.group(0))
    if value is None:
        return None
    raw = match.group(0)
    decimals = len(raw) - raw.index(".") - 1 if "." in raw else 0
    return value, decimals, match.end()


def number_text(anchor: Anchor) -> tuple[str, int] | None:
    """The number as written at the start of a numeric anchor's text and its decimals."""
    text = anchor.text.lstrip("~≈≥≤$€£¥")
    found = leading_number(text)
    if found is None and anchor.unit == "%" and text[:1].isalpha() \
            and isinstance(anchor.value, float):
        return f"{anchor.value:.0f}", 0  # a share in words ("a third"): to the whole percent
    return None if found is None else (text[:found[2]], found[1])


def bare_number(token: str) -> Decimal | None:
    """The value of ``token`` when it is a number and nothing else."""
    found = leading_number(token)
    return found[0] if found and found[2] == len(token) else None


def iso_date(year: int | None, month: int, day: int) -> str | None:
    """``YYYY-MM-DD`` (or ``--MM-DD`` without a year) when the date exists, else None."""
    try:
        date(2000 if year is None else year, month, day)  # 2000 is a leap year: Feb 29 passes
    except ValueError:
        return None
    return f"--{month:02d}-{day:02d}" if year is None else f"{year:04d}-{month:02d}-{day:02d}"


class Clock(NamedTuple):
    """A clock time as read: seconds since midnight, the written digits and the zone."""

    seconds: Decimal
    digits: str
    zone: str | None


def read_clock(token: str, *, offsets: bool = False) -> tuple[Clock, int] | None:
    """A clock time at the start of ``token`` and the length read, or None.

    A numeric zone offset glued to the time (``10:15:32+02:00``) is read only after seconds or
    when ``offsets`` is set (inside a timestamp): ``10:15-10:20`` is a range, not a zone.
    """
    match = _CLOCK.match(token)
    if not match:
        return None
    if match.group(5) and match.group(5)[0] in "+-" and not (offsets or match.group(3)):
        return read_clock(token[:match.start(5)])
    hour, minute = int(match.group(1)), int(match.group(2))
    second = Decimal(match.group(3) or 0)
    if match.group(4):
        second += Decimal("0." + match.group(4))
    suffix = match.group(5) or ""
    zone: str | None = suffix or None
    if suffix[:1] in "aApP" and suffix:
        zone = None
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if suffix[0] in "pP" else 0)
    if hour > 23 or minute > 59 or second >= 61:
        return None
    digits = token[match.start(1):match.end(4) if match.group(4) else
                   match.end(3) if match.group(3) else match.end(2)]
    return Clock(Decimal(hour * 3600 + minute * 60) + second, digits, zone), match.end()


def _compound_seconds(token: str) -> Decimal | None:
    """Seconds of a duration written in several glued parts (``3m20s``, ``1h30m``)."""
    if not _COMPOUND_DURATION.fullmatch(token):
        return None
    parts = _DURATION_PART.findall(token)
    if len(parts) < 2:
        return None
    return sum((Decimal(amount) * SECONDS_PER_UNIT[unit.lower()] for amount, unit in parts),
               Decimal(0))


def _host_or_identifier(token: str, start: int, kind: AnchorKind | None = None) -> Piece:
    lowered = token.lower()
    if kind is None:
        kind = AnchorKind.HOST if looks_like_host(token) else AnchorKind.IDENTIFIER
    return Piece(kind, start, start + len(token), lowered, None)


def _version(match: re.Match[str]) -> tuple[tuple[object, ...], bool]:
    numbers = match.group(1) or match.group(3)
    suffix = (match.group(2) or match.group(4) or "").lower()
    return (*(int(part) for part in numbers.split(".")), suffix), bool(match.group(1))


def _numeric(token: str, start: int) -> list[Piece] | None:
    """A number with whatever is glued to it: ``97%``, ``250ms``, ``3.45-mile``, ``2GB``."""
    if token[0] in "~≈≥≤":
        return _numeric(token[1:], start + 1) if len(token) > 1 else None
    currency = token[0] if token[0] in "$€£¥" else None
    body = token[1:] if currency else token
    offset = start + (1 if currency else 0)
    found = leading_number(body)
    if found is None:
        return None
    value, _, length = found
    rest = body[length:]
    end = start + len(token)
    if not rest:
        return [Piece(AnchorKind.NUMBER, start, end, float(value), currency)]
    if rest == "%":
        return [Piece(AnchorKind.PERCENT, offset, end, float(value), "%")]
    lowered = rest.lower()
    if lowered == "s" and value % 10 == 0 and 1000 <= value <= 2100:
        return [Piece(AnchorKind.NUMBER, offset, end, float(value), "s")]  # the 1990s
    if not currency and _time_unit(rest):
        factor = SECONDS_PER_UNIT[rest if rest in SECONDS_PER_UNIT else lowered]
        return [Piece(AnchorKind.DURATION, offset, end, float(value * factor), lowered)]
    seconds = _compound_seconds(body) if not currency else None
    if seconds is not None:
        return [Piece(AnchorKind.DURATION, offset, end, float(seconds), None)]
    if rest[0] == "-" and len(rest) > 1 and rest[1].isalpha():
        words = rest[1:].lower()
        if words in TIME_UNIT_WORDS and "-" not in words:
            return [Piece(AnchorKind.DURATION, offset, end,
                          float(value * SECONDS_PER_UNIT[words]), words)]
        if words in PERCENT_WORDS:
            return [Piece(AnchorKind.PERCENT, offset, end, float(value), "%")]
        if all(part.isalpha() for part in words.split("-")):
            return [Piece(AnchorKind.NUMBER, offset, end, float(value), words)]
        return None
    if lowered in _ORDINAL:
        return [Piece(AnchorKind.NUMBER, offset, end, float(value), None)]
    if _GLUED_UNIT.fullmatch(rest):
        return [Piece(AnchorKind.NUMBER, offset, end, float(value), currency or
                      canonical_unit(rest))]
    return None


def _time_unit(rest: str) -> bool:
    if rest in ("m", "d", "w"):
        return True
    return rest.lower() in TIME_UNIT_WORDS


def classify(token: str, start: int) -> list[Piece]:
    """The anchors of one token at offset ``start``; empty when it holds none."""
    if named := object_name_at(token):  # "pod/web-1", "svc/api": the name, read as if alone
        return _classify_whole(token[named:], start + named) or []
    if not _DIGIT.search(token):
        if "." in token and looks_like_host(token):
            return [Piece(AnchorKind.HOST, start, start + len(token), token.lower(), None)]
        if len(token) == 36 and _UUID.fullmatch(token):
            return [Piece(AnchorKind.IDENTIFIER, start, start + len(token), token.lower(), None)]
        return _ipv6(token, start) or []
    whole = _classify_whole(token, start)
    if whole is not None:
        return whole
    # Not one anchor: each part of a path read whole ("prod/web-7f9c6d-q8zt4"), else the
    # pieces between its separators ("6/6", "10-20", "x14:32y").
    pieces: list[Piece] = []
    position = 0
    for part in token.split("/") if "/" in token else (token,):
        core = part.strip(".")
        whole = (_classify_whole(core, start + position + part.index(core))
                 if core != token and _DIGIT.search(core) else None)
        pieces += whole if whole is not None else _pieces(part, start + position)
        position += len(part) + 1
    return pieces


def _pieces(token: str, start: int) -> list[Piece]:
    """The anchors between the separators of ``token`` (``6/6``, ``10-20``, ``x14:32y``)."""
    pieces: list[Piece] = []
    position = 0
    for separator in [*_SPLIT.finditer(token), None]:
        part_end = separator.start() if separator else len(token)
        part = token[position:part_end].strip(".")
        if part and _DIGIT.search(part):
            offset = start + token.index(part, position)
            pieces += _classify_whole(part, offset) or []
        position = separator.end() if separator else position
    return pieces


def _classify_whole(token: str, start: int) -> list[Piece] | None:
    end = start + len(token)
    first = token[0]
    if first.isdigit():
        if _NUMBER.fullmatch(token):  # the common case first: a plain number
            return [Piece(AnchorKind.NUMBER, start, end, float(to_decimal(token) or 0), None)]
        timed = _timestamp_or_date(token, start)
        if timed is not None:
            return timed
        clock = read_clock(token)
        if clock is not None and clock[1] == len(token):
            return [Piece(AnchorKind.CLOCK, start, end, float(clock[0].seconds), clock[0].zone)]
        if _IPV4.fullmatch(token) and all(int(p) < 256 for p in token.split("/")[0].split(".")):
            return [Piece(AnchorKind.IPV4, start, end, token, None)]
    ipv6 = _ipv6(token, start)
    if ipv6 is not None:
        return ipv6
    image = _IMAGE.fullmatch(token) if ":" in token else None
    if image is not None:  # registry/checkout-api:v1.4.2: an image and its tag, a version
        tag = _VERSION.fullmatch(image.group(2))
        if tag is not None:
            colon = start + len(image.group(1))
            return [_host_or_identifier(image.group(1).rsplit("/", 1)[-1],
                                        colon - len(image.group(1).rsplit("/", 1)[-1])),
                    Piece(AnchorKind.VERSION, colon + 1, end, _version(tag)[0], None)]
    host_port = _HOST_PORT.fullmatch(token) if ":" in token else None
    if host_port and (_IPV4.fullmatch(host_port.group(1))
                      or any(map(str.isalpha, host_port.group(1)))):
        address = host_port.group(1)
        colon = start + len(address)
        head = _classify_whole(address, start) if address[0].isdigit() else None
        if head is None or (head and head[0].kind is not AnchorKind.IPV4):
            head = [_host_or_identifier(address, start, AnchorKind.HOST)]
        return [*head, Piece(AnchorKind.PORT, colon, end, host_port.group(2), None)]
    if len(token) >= 7 and (_UUID.fullmatch(token) or (_HEX.fullmatch(token)
                                                        and not token.isdigit())):
        return [Piece(AnchorKind.IDENTIFIER, start, end, token.lower(), None)]
    if len(token) == 3 and _HTTP_CLASS.fullmatch(token):
        return [Piece(AnchorKind.HTTP_CLASS, start, end, token.lower(), None)]
    percentile = _PERCENTILE.fullmatch(token) if first in "pP" else None
    if percentile:
        return [Piece(AnchorKind.PERCENTILE, start, end, "p" + percentile.group(1), None)]
    version = _VERSION.fullmatch(token) if first in "vV" or first.isdigit() else None
    if version:
        value, prefixed = _version(version)
        suffix = version.group(2) or version.group(4)
        if prefixed or len(value) > 3 or (suffix and PRERELEASE.fullmatch(suffix)):
            return [Piece(AnchorKind.VERSION, start, end, value, None)]
    numeric = _numeric(token, start)
    if numeric is not None:
        return numeric
    if _NAME_CHARS.fullmatch(token) and any(map(str.isalpha, token)):
        compound = _compound_parts(token, start)
        return compound or [_host_or_identifier(token, start)]
    return None


def _ipv6(token: str, start: int) -> list[Piece] | None:
    if token.count(":") < 2 or len(token) > 45 or not token.strip(":"):
        return None
    try:
        address = ipaddress.IPv6Address(token)
    except ValueError:
        return None
    return [Piece(AnchorKind.IPV6, start, start + len(token), address.compressed, None)]


def _compound_parts(token: str, start: int) -> list[Piece]:
    """The ``5xx`` of ``http_5xx_rate`` and the ``p99`` of ``latency_p99_ms``."""
    if "_" not in token and "." not in token:
        return []
    pieces: list[Piece] = []
    position = 0
    for part in token.replace(".", "_").split("_"):
        if _HTTP_CLASS.fullmatch(part):
            pieces.append(Piece(AnchorKind.HTTP_CLASS, start + position,
                                start + position + len(part), part.lower(), None))
        elif (found := _PERCENTILE.fullmatch(part)) is not None:
            pieces.append(Piece(AnchorKind.PERCENTILE, start + position,
                                start + position + len(part), "p" + found.group(1), None))
        position += len(part) + 1
    return pieces


def _timestamp_or_date(token: str, start: int) -> list[Piece] | None:
    end = start + len(token)
    iso = _ISO_DATE.match(token)
    if iso:
        day = iso_date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        if day is None:
            return None
        rest = token[iso.end():]
        if not rest:
            return [Piece(AnchorKind.DATE, start, end, day, None)]
        if rest[0] in "Tt":
            clock = read_clock(rest[1:], offsets=True)
            if clock is not None and clock[1] == len(rest) - 1:
                return [timestamp_piece(day, clock[0], start, end)]
        return None
    logged = _LOG_STAMP.fullmatch(token)
    if logged and logged.group(2) in _MONTHS:
        day = iso_date(int(logged.group(3)), _MONTHS[logged.group(2)], int(logged.group(1)))
        clock = read_clock(logged.group(4))
        if day is not None and clock is not None:
            return [timestamp_piece(day, clock[0], start, end)]
        return None
    slash = _SLASH_DATE.fullmatch(token)
    if slash:
        if slash.group(3):
            first, second, year = int(slash.group(1)), int(slash.group(2)), int(slash.group(3))
            month, day_of_month = (second, first) if first > 12 else (first, second)
        else:
            year, month, day_of_month = (int(slash.group(4)), int(slash.group(5)),
                                         int(slash.group(6)))
        found = iso_date(year, month, day_of_month)
        return None if found is None else [Piece(AnchorKind.DATE, start, end, found, None)]
    return None


def timestamp_piece(day: str, clock: Clock, start: int, end: int) -> Piece:
    """A TIMESTAMP of a date and a clock time; in UTC (with ``Z``) when the zone is known."""
    whole = int(clock.seconds)
    fraction = clock.digits.split(".")[1] if "." in clock.digits else ""
    precise_to_seconds = clock.digits.count(":") == 2
    moment = datetime.fromisoformat(day) + timedelta(seconds=whole)
    offset = zone_offset(clock.zone) if clock.zone else None
    if offset is not None:
        moment -= timedelta(minutes=offset)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S" if precise_to_seconds else "%Y-%m-%dT%H:%M")
    if fraction:
        text += "." + fraction
    return Piece(AnchorKind.TIMESTAMP, start, end, text + ("Z" if offset is not None else ""),
                 clock.zone)
