"""Small, deterministic text tools shared by the integrity guard and the offline judge.

Sentences, content words with a light stemmer, and anchors: numbers (with units and
percentages), clock times and identifiers. Numbers compare with rounding and formatting
tolerance, so "97%" matches ``cpu_pct=97.2`` and "12 RPS" matches ``rps=12.4``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Final

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_WORD = re.compile(r"[^\W_](?:[\w.\-/%]*(?:[^\W_]|%))?")
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?![\d:])")
_TOKEN_SPLIT = re.compile(
    r"[\s=;()\[\]{}\"'<>|`]+|,(?!\d{3}(?!\d))|\.(?=[A-Za-z]{2})|(?<=\d)/(?=\d)"
)
_NUMBER_STARTS = frozenset("0123456789+-$€£¥")
_NUMBER = re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_UNIT = re.compile(r"^(?:%|[a-zA-Z]{1,3}(?:/s)?|-[a-zA-Z]+(?:-[a-zA-Z]+)*)?$")

STOPWORDS = frozenset(
    str.split("""
    a an the and or but if then than that this these those there here of in on at to for from
    by with without within into onto over under as is are was were be been being it its it's
    we our us you your they their them he she his her i me my not no nor so such also just only
    very more most much many some any all each every both either neither other another same
    which who whom whose what when where why how do does did done has have had having can could
    should would may might must will shall about after before during while until up down out off
    again further once per via between among through across above below same own too s t
    """)
)

_SUFFIXES = ("ations", "ation", "ingly", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s")
_IRREGULAR: dict[str, str] = {
    "children": "child", "men": "man", "women": "woman", "people": "person", "feet": "foot",
    "teeth": "tooth", "mice": "mouse", "lives": "life", "wives": "wife", "knives": "knife",
    "gave": "give", "given": "give", "made": "make", "took": "take", "taken": "take",
    "won": "win", "began": "begin", "begun": "begin", "ran": "run", "held": "hold", "led": "lead",
    "wrote": "write", "written": "write", "told": "tell", "sold": "sell", "bought": "buy",
    "brought": "bring", "thought": "think", "left": "leave", "lost": "lose", "met": "meet",
    "paid": "pay", "sent": "send", "spent": "spend", "stood": "stand", "grew": "grow",
    "grown": "grow", "knew": "know", "known": "know", "rose": "rise", "risen": "rise",
    "fell": "fall", "fallen": "fall", "chose": "choose", "chosen": "choose", "drove": "drive",
    "driven": "drive", "flew": "fly", "flown": "fly", "broke": "break", "broken": "break",
    "spoke": "speak", "spoken": "speak", "became": "become", "came": "come", "went": "go",
    "gone": "go", "saw": "see", "seen": "see", "said": "say", "got": "get", "kept": "keep",
    "hit": "hit", "built": "build", "felt": "feel", "fought": "fight", "caught": "catch",
    "taught": "teach", "sang": "sing", "sung": "sing", "died": "die", "dying": "die",
}
"""Irregular forms mapped to their base word before stemming, so both meet at one stem."""
_VERB_SUFFIXES = frozenset({"ing", "ings", "ingly", "ed", "edly"})
_UNDOUBLED = frozenset("lsz")


_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:[A-Z]|b|c|ca|no|nos|st|dr|mr|mrs|ms|jr|sr|vs|v|etc|e\.g|i\.e|inc|ltd|co|"
    r"corp|approx|fig|vol|pp|p|u\.s|u\.k|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.$",
    re.IGNORECASE,
)
"""A part ending in an abbreviation or an initial ("No.", "b.", "L.") does not end a sentence."""


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; line breaks and bullets also end a sentence.

    A full stop after a common abbreviation or an initial ("Kai (b. 2001)", "L. M. Rendall")
    does not end one.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        parts = [part.strip() for part in _SENTENCE_END.split(line) if part.strip()]
        merged: list[str] = []
        for part in parts:
            if merged and _ABBREVIATION.search(merged[-1]):
                merged[-1] = f"{merged[-1]} {part}"
            else:
                merged.append(part)
        sentences.extend(merged)
    return sentences


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, deterministic stem: lowercase and strip one common English suffix.

    Inflections of one word meet at one stem: ``fire``/``fired``, ``drop``/``dropped``,
    ``query``/``queries``, ``utilisation``/``utilization``.
    """
    word = word.lower()
    if any(ch.isdigit() for ch in word):
        return word
    word = _IRREGULAR.get(word, word)
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix == "ies":
                word += "y"
            elif (suffix in _VERB_SUFFIXES and len(word) >= 4 and word[-1] == word[-2]
                  and word[-1] not in _UNDOUBLED and word[-1].isalpha()):
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if word.endswith("iz") and len(word) > 4:
        word = word[:-1] + "s"
    return word


def words(text: str) -> list[str]:
    """Lowercased word tokens, identifiers (``db-prod-1``) kept whole, trailing dots removed."""
    return [word.rstrip(".").lower() for word in _WORD.findall(text)]


def content_stems(text: str) -> set[str]:
    """Stems of the words of ``text`` that carry content (stopwords and 1-letter words dropped)."""
    return set(content_stem_set(text))


def content_stem_set(text: str) -> frozenset[str]:
    """:func:`content_stems` as a frozenset, remembered for texts up to ``ANCHOR_CACHE_CHARS``.

    The integrity guard asks for the stems of a claim and of the sentence it restates, which are
    often the same text.
    """
    if len(text) <= ANCHOR_CACHE_CHARS:
        return _remembered_stems(text)
    return _find_stems(text)


def _find_stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text)
                     if w not in STOPWORDS and (len(w) > 1 or w.isdigit()))


@lru_cache(maxsize=8192)
def _remembered_stems(text: str) -> frozenset[str]:
    return _find_stems(text)


@dataclass(frozen=True, slots=True)
class Number:
    """A number as written: its value, decimal places, and whether it was a percentage."""

    value: Decimal
    decimals: int
    percent: bool
    raw: str


@dataclass(frozen=True, slots=True)
class ClockTime:
    """A clock time ``hh:mm[:ss]``."""

    hour: int
    minute: int
    second: str | None
    raw: str


def clock_times(text: str) -> list[ClockTime]:
    """Clock times in ``text`` (``14:02``, ``02:48:12``)."""
    return _split_times(text)[0]


def _split_times(text: str) -> tuple[list[ClockTime], str]:
    """The clock times of ``text``, and ``text`` with every time-shaped span blanked to a space.

    One pass serves all three anchor kinds: numbers and identifiers are read from the blanked
    text, so the digits of ``14:02`` count as neither.
    """
    if ":" not in text:  # every time holds a colon
        return [], text
    found: list[ClockTime] = []
    pieces: list[str] = []
    last = 0
    for match in _TIME.finditer(text):
        start, end = match.span()
        pieces.append(text[last:start])
        last = end
        hour, minute = int(match.group(1)), int(match.group(2))
        if hour < 24 and minute < 60:
            found.append(ClockTime(hour, minute, match.group(3), match.group(0)))
    if not pieces:
        return found, text
    pieces.append(text[last:])
    return found, " ".join(pieces)


def numbers(text: str) -> list[Number]:
    """Numbers in ``text`` that stand on their own (not inside ids like ``db-prod-1``, not times).

    A unit of up to three letters (``ms``, ``GB``, ``rps`` ...) or ``%`` may follow directly, or
    a hyphenated word (``3.45-mile``, ``21-year-old``). A full stop glued to the next sentence
    (``in 2017.It was``) still ends the number, ``6/6`` is two numbers, and a currency sign
    (``$160``) is not part of the number.
    """
    return _numbers(_split_times(text)[1])


def _numbers(untimed: str) -> list[Number]:
    """:func:`numbers` of a text whose clock times are already blanked out."""
    found: list[Number] = []
    # Cheap test first: most tokens are words.
    for token in [t for t in _TOKEN_SPLIT.split(untimed) if t and t[0] in _NUMBER_STARTS]:
        token = token.rstrip(".:!?").lstrip("$€£¥")
        match = _NUMBER.match(token)
        if not match or not _UNIT.match(token[match.end():]):
            continue
        raw = match.group(0)
        digits = raw.replace(",", "").lstrip("+")
        try:
            value = Decimal(digits)
        except InvalidOperation:
            continue
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        found.append(Number(value, decimals, token.endswith("%"), token))
    return found


def _rounds_to(candidate: Decimal, written: Number) -> bool:
    quantum = Decimal(1).scaleb(-written.decimals)
    if candidate.quantize(quantum, rounding=ROUND_HALF_UP) == written.value:
        return True
    return candidate.quantize(quantum, rounding=ROUND_DOWN) == written.value


def number_matches(written: Number, evidence: Number) -> bool:
    """True when ``written`` is ``evidence`` as a person would round or format it."""
    if written.value == evidence.value:
        return True
    if _rounds_to(evidence.value, written):
        return True
    # A ratio written as a percentage, or a percentage written as a ratio.
    if written.percent and not evidence.percent and abs(evidence.value) <= 1:
        return _rounds_to(evidence.value * 100, written)
    return False


def time_matches(written: ClockTime, evidence: ClockTime) -> bool:
    """True when ``written`` names the same clock time (to its precision) as ``evidence``."""
    if (written.hour, written.minute) != (evidence.hour, evidence.minute):
        return False
    if written.second is None or evidence.second is None:
        return True
    return Decimal(written.second) == Decimal(evidence.second)


@dataclass(frozen=True, slots=True)
class Anchors:
    """The checkable specifics of a text: numbers, clock times and identifiers."""

    numbers: tuple[Number, ...]
    times: tuple[ClockTime, ...]
    identifiers: frozenset[str]


_IDENTIFIER = re.compile(
    r"\b(?=[A-Za-z0-9_.\-]*[A-Za-z])(?=[A-Za-z0-9_.\-]*\d)[A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9]\b"
)


_GLUED_SENTENCE = re.compile(r"(?<=[A-Za-z0-9])\.(?=[A-Z][a-z])")


def identifiers(text: str) -> frozenset[str]:
    """Tokens mixing letters and digits (``db-prod-1``, ``A-9912``, ``T-218``), lowercased.

    Numbers with a unit (``97%``, ``500ms``, ``2GB``, ``21-year-old``) are numbers, not
    identifiers.
    """
    return _identifiers(_split_times(text)[1])


def _identifiers(untimed: str) -> frozenset[str]:
    """:func:`identifiers` of a text whose clock times are already blanked out."""
    found = set()
    if "." in untimed:
        untimed = _GLUED_SENTENCE.sub(". ", untimed)
    for token in _IDENTIFIER.findall(untimed):
        token = token.lower()
        number = _NUMBER.match(token)
        if number and _UNIT.match(token[number.end():]):
            continue
        found.add(token)
    return frozenset(found)


ANCHOR_CACHE_CHARS = 2000
"""Texts up to this long have their anchors remembered: claims and evidence rows recur."""


def anchors(text: str) -> Anchors:
    """Numbers, clock times and identifiers of ``text``."""
    if len(text) <= ANCHOR_CACHE_CHARS:
        return _remembered_anchors(text)
    return _find_anchors(text)


_NO_ANCHORS: Final = Anchors((), (), frozenset())
_DIGIT = re.compile(r"\d")


def merge_anchors(parts: Iterable[Anchors]) -> Anchors:
    """The anchors of several texts together.

    Equal to ``anchors(" \n".join(texts))``: no anchor spans a line break, so the joined text
    holds exactly the anchors of its parts, in order.
    """
    parts = list(parts)
    if len(parts) == 1:
        return parts[0]
    return Anchors(tuple(n for part in parts for n in part.numbers),
                   tuple(t for part in parts for t in part.times),
                   frozenset().union(*(part.identifiers for part in parts)))


def _find_anchors(text: str) -> Anchors:
    if not _DIGIT.search(text):
        return _NO_ANCHORS  # every number, time and identifier holds a digit
    times, untimed = _split_times(text)
    return Anchors(tuple(_numbers(untimed)), tuple(times), _identifiers(untimed))


@lru_cache(maxsize=8192)
def _remembered_anchors(text: str) -> Anchors:
    return _find_anchors(text)


def number_supported(written: Number, evidence: Anchors) -> bool:
    """True when some number of the evidence matches ``written``."""
    return any(number_matches(written, candidate) for candidate in evidence.numbers)


def time_supported(written: ClockTime, evidence: Anchors) -> bool:
    """True when some clock time of the evidence matches ``written``."""
    return any(time_matches(written, candidate) for candidate in evidence.times)
