"""Stage 1: an answer as claim spans.

Sentences first (line breaks, bullets, ``. ! ?`` before a capital, a digit or a quote, and a full
stop glued to the next sentence as in ``co-founded.Jimmie``), then clauses where a sentence joins
independent facts (``CPU reached 97% and request rate dropped to 12 RPS``). A full stop after
any token that can close a statement ends it: a time with its zone (``14:02:01Z``, ``09:13
UTC``), a number with its unit (``250 ms``, ``97%``), a version, an id, a host or file name; one
after an abbreviation or an initial, or inside a decimal, a version or an address, ends nothing
(:func:`_full_stop_ends` decides by the kind of token before the stop). Framing
sentences ("Here is what I found:") are not claims: they lead the claim after them
(:attr:`ClaimSpan.lead_start`). One left-to-right pass; every scan is bounded, so the cost is
linear in the answer's length.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.lexicon import (
    ABBREVIATIONS,
    FRAMING_OPENERS,
    MONTH_ABBREVIATIONS,
    NUMBER_JOINERS,
    VERBS,
)

_ENDERS: Final = frozenset(".!?")
_CLOSERS: Final = frozenset("\"')]”’")
_OPENERS: Final = frozenset("\"'([“‘")
_BULLET: Final = re.compile(r"[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+")
_JOINER: Final = re.compile(r",? (?:and|but|while|whereas|so|which) |; ")
_BACK_SCAN: Final = 12
"""How far back a full stop looks for the abbreviation or initial it may end."""
_UNIT_GAP: Final = 3
"""How many spaces may stand between a number and its unit (``250 ms``)."""
_NAME_MARKS: Final = frozenset("-_/:@#")
"""Characters inside a name: a word glued after one ends a host or an id (``db-co.``)."""


@dataclass(frozen=True, slots=True)
class ClaimSpan:
    """One claim of an answer: its text and where it stands (``answer[start:end] == text``).

    ``lead_start`` is where a framing sentence before it begins (``start`` when there is none):
    the claim as reported is ``answer[lead_start:end]``.
    """

    text: str
    start: int
    end: int
    lead_start: int


def _word_start(text: str, dot: int, floor: int) -> int:
    """Where the word (letters and inner dots) that ends at ``text[dot]`` begins, looking back
    at most _BACK_SCAN characters and never before ``floor``."""
    begin = dot
    limit = max(floor, dot - _BACK_SCAN)
    while begin > limit and (text[begin - 1].isalpha() or text[begin - 1] == "."):
        begin -= 1
    return begin


def _after_number(text: str, begin: int, floor: int) -> bool:
    """True when the word at ``begin`` follows a number after a few spaces (``250 ms``)."""
    at = begin - 1
    limit = max(floor, begin - 1 - _UNIT_GAP)
    while at > limit and text[at] in " \t":
        at -= 1
    return at < begin - 1 and at >= floor and text[at].isdigit()


def _full_stop_ends(text: str, at: int, floor: int, follower: str) -> bool:
    """Whether the full stop at ``text[at]``, followed by a space and ``follower`` (the first
    character of what comes next), ends its sentence.

    What stands before the stop decides, by kind: a token that ends in a digit, ``%`` or a
    bracket (``97%``, ``v2.3.1``, ``dep-5521``), a unit or zone glued to a number or the end
    of a longer name (``14:02:01Z``, ``250ms``, ``ec2.internal``), a file or host name
    (``config.yaml``, ``db.py``), a unit after a number (``250 ms``, ``09:13 EST``) and an
    acronym (``UTC``) all end it; an initial (``J.``), letters with dots between them
    (``U.S.``, ``e.g.``) and a listed abbreviation (``Dr.``, ``approx.``, ``vs.``) do not.
    """
    begin = _word_start(text, at, floor)
    word = text[begin:at]
    if not word:
        return True
    if word[0] == "." or (begin > floor and (text[begin - 1].isalnum()
                                             or text[begin - 1] in _NAME_MARKS)):
        return True
    lowered = word.lower()
    if "." in word:
        return lowered not in ABBREVIATIONS and max(len(part) for part in word.split(".")) > 1
    if _after_number(text, begin, floor):
        if lowered in NUMBER_JOINERS:
            return False
        return not (lowered in MONTH_ABBREVIATIONS and follower.isdigit())
    if len(word) > 1 and word.isupper():
        return True
    if len(word) == 1 and word.isupper():
        return False
    return lowered not in ABBREVIATIONS


def _ends_sentence(text: str, at: int, floor: int, size: int) -> int | None:
    """Where the sentence ending with the mark at ``at`` stops (exclusive), or None; the line
    ends at ``size``."""
    end = at + 1
    while end < size and text[end] in _CLOSERS:
        end += 1
    if end >= size:
        return end
    nxt = text[end]
    if nxt.isspace():
        if text[at] != ".":
            return end
        follow = end
        while follow < size and text[follow] in " \t":
            follow += 1
        if follow >= size:
            return end
        start_char = text[follow]
        if not (start_char.isalnum() or start_char in _OPENERS):
            return None
        return end if _full_stop_ends(text, at, floor, start_char) else None
    if (text[at] == "." and nxt.isupper() and end + 1 < size and text[end + 1].islower()
            and at > floor and text[at - 1].islower()):
        word = text[_word_start(text, at, floor):at]
        if len(word) >= 2 and "." not in word and word.lower() not in ABBREVIATIONS:
            return end  # glued: "co-founded.Jimmie"
    return None


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every sentence of ``text``, whitespace and bullets trimmed."""
    spans: list[tuple[int, int]] = []
    position = 0
    for line in text.split("\n"):
        line_start = position
        position += len(line) + 1
        bullet = _BULLET.match(line)
        begin = line_start + (bullet.end() if bullet else 0)
        line_end = line_start + len(line)
        cursor = begin
        for index in range(begin, line_end):
            if text[index] in _ENDERS and index >= cursor:
                stop = _ends_sentence(text, index, cursor, line_end)
                if stop is not None:
                    spans.append((cursor, stop))
                    cursor = stop
        spans.append((cursor, line_end))
    return [trimmed for span in spans if (trimmed := _trim(text, *span))]


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _content(piece: str) -> list[str]:
    return [w for w in words(piece) if w not in STOPWORDS]


def _has_verb(piece: str) -> bool:
    return any(w in VERBS or (len(w) > 4 and w.endswith("ed")) for w in words(piece))


def is_framing(sentence: str) -> bool:
    """True for a sentence that only introduces what follows ("Here is what I found:")."""
    lowered = sentence.strip().lower()
    if any(ch.isdigit() for ch in lowered) or len(_content(lowered)) > 4:
        return False
    return lowered.endswith(":") or (lowered.startswith(FRAMING_OPENERS) and len(lowered) < 60)


def clause_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Clauses of the sentence ``text[start:end]``: split before a joiner when both sides have a
    verb and at least two content words of their own. Each piece is read once."""
    sentence = text[start:end]
    cuts = [(m.start(), m.end()) for m in _JOINER.finditer(sentence)]
    if not cuts:
        return [(start, end)]
    bounds = [0, *(cut_end for _, cut_end in cuts)]
    ends = [*(cut_start for cut_start, _ in cuts), len(sentence)]
    stats = [(_has_verb(sentence[b:e]), len(_content(sentence[b:e])))
             for b, e in zip(bounds, ends, strict=True)]
    clauses: list[tuple[int, int]] = []
    current_start, current_end = bounds[0], ends[0]
    verb, content = stats[0]
    for index in range(1, len(bounds)):
        piece_start, piece_end = bounds[index], ends[index]
        piece_verb, piece_content = stats[index]
        joiner_start = cuts[index - 1][0]
        if verb and piece_verb and content >= 2 and piece_content >= 2:
            clauses.append((current_start, current_end))
            keeps_joiner = sentence[joiner_start:piece_start].strip(",; ") not in ("and", "")
            current_start = joiner_start if keeps_joiner else piece_start
            verb, content = piece_verb, piece_content
        else:
            verb, content = verb or piece_verb, content + piece_content
        current_end = piece_end
    clauses.append((current_start, current_end))
    result: list[tuple[int, int]] = []
    for left_at, right_at in clauses:
        span = _trim(text, start + left_at, start + right_at)
        if span is not None:
            left_at, right_at = span
            while left_at < right_at and text[left_at] in ",; ":
                left_at += 1
            result.append((left_at, right_at))
    return result


def segment(answer: str) -> tuple[ClaimSpan, ...]:
    """The claims of ``answer``, in order; framing sentences lead the claim after them."""
    claims: list[ClaimSpan] = []
    lead: int | None = None
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        colon = sentence.find(": ")
        if 0 < colon < 80 and is_framing(sentence[:colon + 1]):
            lead = start if lead is None else lead
            start = start + colon + 2
            sentence = answer[start:end]
        if is_framing(sentence) or not _content(sentence):
            lead = start if lead is None else lead
            continue
        for clause_start, clause_end in clause_spans(answer, start, end):
            lead_start = clause_start if lead is None else lead
            claims.append(ClaimSpan(answer[clause_start:clause_end], clause_start, clause_end,
                                    lead_start))
            lead = None
    return tuple(claims)


def claim_sentences(answer: str, claims: tuple[ClaimSpan, ...] | list[ClaimSpan]) -> int:
    """How many of ``answer``'s sentences hold at least one of ``claims`` (its segments): one
    for a single sentence however many clauses it splits into."""
    return len(set(sentence_of(answer, claims)))


def sentence_of(answer: str, claims: Sequence[ClaimSpan]) -> list[int]:
    """Each claim's sentence of ``answer`` (its place among :func:`sentence_spans`)."""
    starts = [start for start, _ in sentence_spans(answer)]
    return [max(bisect_right(starts, claim.start) - 1, 0) for claim in claims]
