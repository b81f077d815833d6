"""Reading a text's typed anchors left to right, in one pass: :func:`extract_anchors`.

The text is cut into tokens at delimiters (spaces, ``=``, quotes, brackets ...) and its quoted
spans are paired, each in one linear scan (:mod:`gsar_otel.core.anchor.spans`). Each token is
read by :mod:`gsar_otel.core.anchor.tokens`; a few anchors span several tokens on one line
(``3.5 GB``, ``May 1, 2024``, ``10:15:32 UTC``, ``2024-05-01 10:15:32``, ``99th
percentile``), and the words around a number give it its kind (``HTTP 503``, ``port 5432``,
``status=503``), its key (``cpu_pct=97.2``) and its qualifier (``about 40%``). Every token is
looked at a bounded number of times, so the cost is linear in the text."""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.spans import keyed_tokens, name_continues, quote_spans, token_spans
from gsar_otel.core.anchor.tokens import (
    Clock,
    Piece,
    bare_number,
    classify,
    iso_date,
    read_clock,
    timestamp_piece,
)
from gsar_otel.core.anchor.words import (
    AM_PM,
    FUNCTION_WORDS,
    HOST_KEYS,
    HTTP_AFTER,
    HTTP_BEFORE,
    MONTHS,
    PER_UNITS,
    PERCENT_WORDS,
    QUALIFIER_PAIRS,
    QUALIFIERS,
    SECONDS_PER_UNIT,
    ZONE_WORDS,
    canonical_unit,
    counts,
    event_count,
    is_spaced_unit,
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
    """The typed anchors of ``text``, left to right and non-overlapping, in linear time."""
    return _Scanner(text).run()


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
