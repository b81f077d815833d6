"""Reading a text's typed anchors left to right, in one pass: :func:`extract_anchors`.

The text is cut into tokens at delimiters (spaces, ``=``, quotes, brackets ...) and its quoted
spans are paired, each in one linear scan (:func:`token_spans`, :func:`quote_spans`). Each
token is read on its own (:func:`classify`); a few anchors span several tokens on one line
(``3.5 GB``, ``May 1, 2024``, ``10:15:32 UTC``, ``2024-05-01 10:15:32``, ``99th
percentile``), and the words around a number give it its kind (``HTTP 503``, ``port 5432``,
``status=503``), its key (``cpu_pct=97.2``) and its qualifier (``about 40%``).

Every pattern here is matched at the start of one token, and none nests unbounded repeats;
every token is looked at a bounded number of times, so reading a text costs time linear in its
length (see ``tests/core/test_linear_cost.py``). The cached reading, with durations in parts
joined and shares in words added, is :func:`gsar_otel.core.anchors.extract_anchors`."""

from __future__ import annotations

import ipaddress
import re
from bisect import bisect_right
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Final, NamedTuple

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.words import (
    AM_PM,
    FUNCTION_WORDS,
    HOST_KEYS,
    HTTP_AFTER,
    HTTP_BEFORE,
    MONTHS,
    PER_UNITS,
    PERCENT_WORDS,
    PRERELEASE,
    QUALIFIER_PAIRS,
    QUALIFIERS,
    SECONDS_PER_UNIT,
    TIME_UNIT_WORDS,
    ZONE_WORDS,
    canonical_unit,
    counts,
    event_count,
    is_spaced_unit,
    looks_like_host,
    object_name_at,
    zone_offset,
)

_ASSIGNS: Final = re.compile(r"[=:]")
_KEY: Final = re.compile(r"[A-Za-z_][\w.\-/]{0,99}")
_DAY: Final = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?")
_DAY_RANGE: Final = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?-(\d{1,2})(?:st|nd|rd|th)?")
_YEAR: Final = re.compile(r"[12]\d{3}")
_ORDINAL_NUMBER: Final = re.compile(r"(\d{1,2}(?:\.\d{1,3})?)(?:st|nd|rd|th)")
_MAGNITUDES: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
_SENTENCE_MARKS: Final = frozenset(".!?\n:")


def extract_anchors(text: str) -> tuple[Anchor, ...]:
    """The typed anchors of ``text``, left to right and non-overlapping, in linear time. The
    minus sign (U+2212) is read as a hyphen-minus (one character for one: offsets hold)."""
    return _Scanner(text.replace("\u2212", "-")).run()


class _Scanner:
    """One left-to-right reading of a text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans = token_spans(text)
        self.words = [text[s:e] for s, e in self.spans]
        self.found: list[Anchor] = []

    # -- neighbours ------------------------------------------------------------------------------

    def gap(self, index: int) -> str:
        """The text between token ``index - 1`` and token ``index``."""
        if index >= len(self.spans):
            return "\n"
        if index <= 0:
            return self.text[:self.spans[0][0]] if self.spans else ""
        return self.text[self.spans[index - 1][1]:self.spans[index][0]]

    def spaced(self, index: int) -> bool:
        """True when token ``index`` follows the one before it after plain spaces."""
        gap = self.gap(index)
        return bool(gap) and not gap.strip(" \t")

    def word(self, index: int) -> str:
        return self.words[index].lower() if 0 <= index < len(self.words) else ""

    def previous_word(self, index: int) -> str:
        return self.word(index - 1) if self.spaced(index) else ""

    def next_word(self, index: int) -> str:
        return self.word(index + 1) if self.spaced(index + 1) else ""

    def key(self, index: int, gap: str | None = None) -> str | None:
        """The key of ``key=value`` or ``key: value`` when token ``index`` is the value."""
        gap = self.gap(index) if gap is None else gap
        if "\n" in gap or index <= 0:
            return None
        core = gap.replace(" ", "").replace("\t", "").replace('"', "")
        if core not in ("=", ":"):
            return None
        candidate = self.words[index - 1]
        if not _KEY.fullmatch(candidate):
            return None
        if core == ":" and "_" not in candidate and classify(candidate, 0):
            return None  # "db-prod-1: 97%" names a host; "p99_latency_ms: 7085" is a key
        return candidate.lower()

    def _next_key(self, index: int) -> bool:
        """True when token ``index`` is the key of the next pair (``p50_ms=74 rps=2947``): a
        unit word followed by ``=`` (or by ``:`` in ``key: value`` text) on its line is a key."""
        after = self.gap(index + 1)  # a pair never spans lines (see key): "0 ms=" ends with ms
        after = "" if "\n" in after else after.strip(" \t")
        return after[:1] == "=" or (after[:1] == ":" and ":" in self.gap(index - 1))

    def qualifier(self, index: int, token: str) -> str | None:
        """How loosely the number at token ``index`` is meant, from the words or symbol before
        it (``about``, ``more than``, ``~``, ``>=``)."""
        if token[0] in "~≈≥≤":
            return QUALIFIERS[token[0]]
        gap = self.gap(index)
        if "\n" in gap:
            return None
        symbol = gap.strip(" \t")
        if symbol in QUALIFIERS:
            return QUALIFIERS[symbol]
        if not self.spaced(index):
            return None
        single = QUALIFIERS.get(self.word(index - 1).rstrip("."))
        if single is not None:  # "4 times over 10 minutes": the window counted in
            return None if single == "over" and counts(self.previous_word(index - 1)) else single
        if self.spaced(index - 1):
            return QUALIFIER_PAIRS.get((self.word(index - 2), self.word(index - 1)))
        return None

    # -- the pass --------------------------------------------------------------------------------

    def run(self) -> tuple[Anchor, ...]:
        quotes = quote_spans(self.text)
        quote_count = len(quotes)
        spans = self.spans
        keyed = keyed_tokens(self.text, spans)
        words = self.words
        next_quote = 0
        index = 0
        count = len(spans)
        while index < count:
            if quote_count:
                start = spans[index][0]
                while next_quote < quote_count and quotes[next_quote][1] <= start:
                    next_quote += 1
                if next_quote < quote_count and quotes[next_quote][0] < start:
                    index = self._quoted(index, quotes[next_quote])
                    next_quote += 1
                    continue
            token = words[index]
            if token.isalpha() and index not in keyed and not self._may_name(index, token):
                index += 1  # a word that is no value, month or name: _read finds nothing
                continue
            used, pieces = self._read(index)
            if pieces:
                self._emit(index, pieces)
            index += used
        return tuple(self.found)

    def _emit(self, index: int, pieces: list[Piece], key: str | None = None) -> None:
        if key is None:
            glued = self.words[index][0] == ":" and pieces[0].kind is not AnchorKind.PORT
            key = self.key(index, self.gap(index) + ":" if glued else None)
        qualifier = None
        if pieces[0].kind in _MAGNITUDES:
            qualifier = self.qualifier(index, self.words[index])
        for piece in pieces:
            kind = piece.kind
            value = piece.value
            if key is not None and key in HOST_KEYS and kind is AnchorKind.IDENTIFIER:
                kind = AnchorKind.HOST
            self.found.append(Anchor(kind, self.text[piece.start:piece.end], value, piece.unit,
                                     piece.start, piece.end, key,
                                     qualifier if kind in _MAGNITUDES else None))

    def _quoted(self, index: int, span: tuple[int, int]) -> int:
        open_at, close_at = span
        body = self.text[open_at + 1:close_at - 1]
        key = None
        if index > 0 and self.spans[index - 1][1] <= open_at:
            key = self.key(index, self.text[self.spans[index - 1][1]:open_at + 1])
        self.found.append(Anchor(AnchorKind.QUOTED, self.text[open_at:close_at],
                                 " ".join(body.lower().split()), None, open_at, close_at, key))
        while index < len(self.spans) and self.spans[index][0] < close_at:
            index += 1
        return index

    def _read(self, index: int) -> tuple[int, list[Piece]]:
        """How many tokens the anchors at token ``index`` use, and those anchors."""
        token = self.words[index]
        start = self.spans[index][0]
        if token.isalpha():  # most tokens: a word is an anchor only as a name, month or value
            if self._may_name(index, token):
                used, pieces = self._capitalised(index, token, start)
                if pieces:
                    return used, pieces
            return 1, self._named_by_key(index, token, start)
        first = token[0]
        if first.isdigit() or (first in "~≈≥≤+-" and token[1:2].isdigit()):
            combined = self._combined(index, token, start)
            if combined is not None:
                return combined
        elif first == ":" and len(token) > 1 and token[1] != ":":
            return 1, self._after_colon(index, token, start)
        elif first in "xX×" and (seen := event_count(token)) is not None and (
                self.next_word(index) == "over"):  # kubectl's "(x4 over 10m)": 4 times
            return 1, [Piece(AnchorKind.NUMBER, start + 1, start + len(token), float(seen), None)]
        pieces = classify(token, start)
        if len(pieces) == 1 and pieces[0].kind is AnchorKind.NUMBER and pieces[0].unit is None:
            return 1, [self._in_context(index, pieces[0])]
        if not pieces and first.isalpha():
            return 1, self._named_by_key(index, token, start)
        return 1, pieces

    def _named_by_key(self, index: int, token: str, start: int) -> list[Piece]:
        """A word that its key makes a host (``host=api``) or an identifier (``id=abc``)."""
        if not _ASSIGNS.search(self.gap(index)) or not _KEY.fullmatch(token):
            return []
        key = self.key(index) or ""
        if key in HOST_KEYS:
            return [Piece(AnchorKind.HOST, start, start + len(token), token.lower(), None)]
        if key == "id" or key.endswith(("_id", "-id", ".id", "uuid")):
            return [Piece(AnchorKind.IDENTIFIER, start, start + len(token), token.lower(), None)]
        return []

    def _in_context(self, index: int, piece: Piece) -> Piece:
        """A plain integer that the words around it make a port or an HTTP status."""
        value = piece.value
        if not isinstance(value, float) or not value.is_integer() or "." in self.words[index]:
            return piece
        number = int(value)
        key = self.key(index) or ""
        before = self.previous_word(index)
        if (before == "port" or key == "port" or key.endswith(("_port", ".port"))) and (
                0 < number < 65536):
            return piece._replace(kind=AnchorKind.PORT, value=str(number))
        if 100 <= number <= 599 and (  # "errors" as the next pair's key names nothing here
                before in HTTP_BEFORE or before.startswith("http/")
                or (self.next_word(index) in HTTP_AFTER and not self._next_key(index + 1))
                or (key.split("_")[-1] in ("status", "code", "statuscode") and "exit" not in key)):
            return piece._replace(kind=AnchorKind.HTTP_STATUS, value=str(number))
        return piece

    def _after_colon(self, index: int, token: str, start: int) -> list[Piece]:
        """``:8080`` right after a host or address is its port; otherwise the colon only
        separates (``"cpu_pct":97.2``)."""
        rest = token[1:]
        if (rest.isdigit() and len(rest) <= 5 and self.found and index > 0
                and self.found[-1].end == self.spans[index - 1][1]
                and self.found[-1].kind in (AnchorKind.HOST, AnchorKind.IPV4, AnchorKind.IPV6)
                and self.gap(index) in ("", "]")):
            return [Piece(AnchorKind.PORT, start, start + len(token), str(int(rest)), None)]
        return classify(rest, start + 1)

    def _capitalised(self, index: int, token: str, start: int) -> tuple[int, list[Piece]]:
        """A month that starts a date (``May 1, 2024``), or a run of capitalised words."""
        lowered = token.lower()
        month = MONTHS.get(lowered)
        if month is not None and self.spaced(index + 1):
            dated = self._month_first(index, month, start)
            if dated is not None:
                return dated
        if lowered in FUNCTION_WORDS:
            return 1, []  # "On May 11", "In Mexico City": the name starts after it
        last = index
        while last - index < 5 and name_continues(self.text, self.spans, self.words, last):
            last += 1
        if last == index or index == 0 or not _SENTENCE_MARKS.isdisjoint(self.gap(index)):
            return 1, []  # one word, or the first of a sentence
        end = self.spans[last][1]
        return last - index + 1, [Piece(AnchorKind.NAME, start, end,
                                        " ".join(self.text[start:end].lower().split()), None)]

    def _may_name(self, index: int, token: str) -> bool:
        """A month, a title word another follows, or in lowercase a month before a day."""
        if len(token) < 2 or not token[1:].islower():
            return False
        if not token[0].isupper():
            return token in MONTHS and _DAY.fullmatch(self.word(index + 1)) is not None
        return token.lower() in MONTHS or name_continues(self.text, self.spans, self.words, index)

    def _month_first(self, index: int, month: int, start: int) -> tuple[int, list[Piece]] | None:
        """``May 1, 2024``, ``March 5``, and the ranges ``March 13-14, 2018``, ``March 6–7``."""
        if index + 1 >= len(self.words):
            return None
        day_token = self.words[index + 1]
        day = _DAY.fullmatch(day_token)
        days: list[tuple[int, int, int]] = []  # (day, start, end) of each day written
        last = index + 1
        day_start = self.spans[last][0]
        if day:
            days.append((int(day.group(1)), start, self.spans[last][1]))
            if (last + 1 < len(self.words) and self.gap(last + 1) in ("–", "—")
                    and (second := _DAY.fullmatch(self.words[last + 1]))):
                last += 1
                days.append((int(second.group(1)), *self.spans[last]))
        elif (both := _DAY_RANGE.fullmatch(day_token)) is not None:
            days.append((int(both.group(1)), start, day_start + both.end(1)))
            days.append((int(both.group(2)), day_start + both.start(2), self.spans[last][1]))
        else:
            return None
        used, year = self._year_after(last)
        pieces = []
        for number, piece_start, piece_end in days:
            found = iso_date(year, month, number)
            if found is None:
                return None
            pieces.append(Piece(AnchorKind.DATE, piece_start, piece_end, found, None))
        if year is not None:
            year_end = self.spans[last + 1][1]
            last_piece = pieces[-1]
            pieces[-1] = last_piece._replace(end=year_end)
        return last - index + used, pieces

    def _year_after(self, index: int) -> tuple[int, int | None]:
        """(tokens used from ``index``, year) for the year that may follow a day, after spaces
        and at most one comma on the same line."""
        following = index + 1
        if following < len(self.words) and _YEAR.fullmatch(self.words[following]):
            gap = self.gap(following)
            if gap.strip(" \t,") == "" and gap.count(",") <= 1:
                return 2, int(self.words[following])
        return 1, None

    def _combined(self, index: int, token: str, start: int) -> tuple[int, list[Piece]] | None:
        """Anchors written over several tokens, starting with a digit."""
        if not self.spaced(index + 1):
            return None
        following = self.words[index + 1]
        lowered = following.lower()
        day = _DAY.fullmatch(token)
        if day and following[:1].isupper():
            month = MONTHS.get(lowered)
            if month is not None:
                used, year = self._year_after(index + 1)
                found = iso_date(year, month, int(day.group(1)))
                if found is not None:
                    end = self.spans[index + used][1]
                    return 1 + used, [Piece(AnchorKind.DATE, start, end, found, None)]
        value = bare_number(token.lstrip("~≈≥≤"))
        end = self.spans[index + 1][1]
        if value is not None and not self._next_key(index + 1):
            if lowered in PERCENT_WORDS:
                return 2, [Piece(AnchorKind.PERCENT, start, end, float(value), "%")]
            if lowered in SECONDS_PER_UNIT and lowered not in ("m", "d", "w"):
                return 2, [Piece(AnchorKind.DURATION, start, end,
                                 float(value * SECONDS_PER_UNIT[lowered]), lowered)]
            if is_spaced_unit(lowered):
                return 2, [Piece(AnchorKind.NUMBER, start, end, float(value),
                                 canonical_unit(lowered))]
            if lowered == "per" and self.spaced(index + 2) and self.word(index + 2) in PER_UNITS:
                end = self.spans[index + 2][1]
                return 3, [Piece(AnchorKind.NUMBER, start, end, float(value),
                                 PER_UNITS[self.word(index + 2)])]
        ordinal = _ORDINAL_NUMBER.fullmatch(token)
        if ordinal and lowered == "percentile":
            return 2, [Piece(AnchorKind.PERCENTILE, start, end, "p" + ordinal.group(1), None)]
        return self._timed(index, token, start)

    def _timed(self, index: int, token: str, start: int) -> tuple[int, list[Piece]] | None:
        """A clock time with a spaced zone or am/pm, or a date and a time (a timestamp)."""
        used = 0
        day = None
        if len(token) == 10 and token[4] == "-":
            pieces = classify(token, start)
            if pieces and pieces[0].kind is AnchorKind.DATE:
                day, used = pieces[0].value, 1
        clock_token = self.words[index + used] if index + used < len(self.words) else ""
        if used and not self.spaced(index + used):
            return None
        read = read_clock(clock_token, offsets=bool(day))
        if read is None or read[1] != len(clock_token):
            return None
        clock = read[0]
        hour_12 = clock.zone is None and self.spaced(index + used + 1) and (
            self.word(index + used + 1) in AM_PM)
        if hour_12:
            adjusted = read_clock(clock_token + self.word(index + used + 1).replace(".", ""))
            if adjusted is None:
                return None
            clock = adjusted[0]
            used += 1
        if clock.zone is None and self.spaced(index + used + 1):
            zone = self.words[index + used + 1]
            if zone in ZONE_WORDS or (zone[:1] in "+-" and zone_offset(zone) is not None):
                clock = Clock(clock.seconds, clock.digits, zone)
                used += 1
        if not used:
            return None
        end = self.spans[index + used][1]
        if isinstance(day, str):
            return used + 1, [timestamp_piece(day, clock, start, end)]
        return used + 1, [Piece(AnchorKind.CLOCK, start, end, float(clock.seconds), clock.zone)]


# -- where anchors can be: the tokens and quoted spans of a text --------------------------------

_DELIMITERS: Final = "\\s=;,()\\[\\]{}<>\"'`|“”‘’!?*–—…"
_TOKEN: Final = re.compile(
    rf"(?:[^{_DELIMITERS}:.]|:(?=[^{_DELIMITERS}])|\.(?=[^{_DELIMITERS}.])(?![A-Z][a-z])"
    rf"|(?<=\d),(?=\d))++")
"""A token: a run of non-delimiters. A colon or a full stop belongs to it only when more of the
token follows (``10:15``, ``2.5``, not ``Founded:`` or ``2017.``), a full stop never before a
glued sentence (``2017.It``), and a comma only between digits (``1,024``)."""
_QUOTE: Final = re.compile(r"[\"“”`\n]")
_MAX_QUOTE: Final = 300


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every token of ``text``, left to right."""
    return [match.span() for match in _TOKEN.finditer(text)]


def quote_spans(text: str) -> list[tuple[int, int]]:
    """Spans (open, close) of quoted text on one line: several words in double quotes, or
    anything in backticks. Quotes pair up in order, so the cost is linear."""
    spans: list[tuple[int, int]] = []
    if not any(mark in text for mark in "\"“`"):
        return spans
    opened: dict[str, int] = {}
    for match in _QUOTE.finditer(text):
        mark = match.group(0)
        if mark == "\n":
            opened.clear()
            continue
        kind = "“" if mark in "“”" else mark
        if mark == "“" or kind not in opened:
            if mark != "”":
                opened[kind] = match.start()
            continue
        start = opened.pop(kind)
        content = text[start + 1:match.start()]
        if 0 < len(content) <= _MAX_QUOTE and content.strip() and (
                kind == "`" or any(ch.isspace() for ch in content.strip())):
            spans.append((start, match.end()))
    spans.sort()
    return spans


def keyed_tokens(text: str, spans: list[tuple[int, int]]) -> set[int]:
    """Indexes of the tokens (of ``spans``) whose gap before them holds ``=`` or ``:``, from one
    scan for those marks: only such a plain word can be the value of a key (``host=api``)."""
    keyed: set[int] = set()
    if "=" not in text and ":" not in text:
        return keyed
    starts = [start for start, _ in spans]
    for mark in _ASSIGNS.finditer(text):
        at = mark.start()
        following = bisect_right(starts, at)
        if following and at < spans[following - 1][1]:
            continue  # inside a token (``10:15``)
        keyed.add(following)
    return keyed


def name_continues(text: str, spans: list[tuple[int, int]], words: list[str], last: int) -> bool:
    """True when token ``last + 1`` is a title word (``Acme``), not a month, one space after
    token ``last``: a name of capitalised words goes on."""
    if last + 1 >= len(words):
        return False
    following = words[last + 1]
    gap_at = spans[last][1]
    return (spans[last + 1][0] == gap_at + 1 and text[gap_at] == " " and len(following) > 1
            and following[0].isupper() and following[1:].islower() and following.isalpha()
            and following.lower() not in MONTHS)


# -- one token: the patterns, each matched at its start -----------------------------------------

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
