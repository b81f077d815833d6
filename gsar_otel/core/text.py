"""Small, deterministic text tools shared by the integrity guard and the offline judge.

Sentences, content words with a light stemmer, and the offline judge's view of anchors:
numbers (with units and percentages), clock times and identifiers. These are read from the
typed anchors of :mod:`gsar_otel.core.anchors` (one reader of anchors, not two), so ``5xx``,
``p99`` or ``v2.3.1`` are never numbers. Numbers compare with rounding and formatting tolerance,
so "97%" matches ``cpu_pct=97.2`` and "12 RPS" matches ``rps=12.4``. Every helper here runs in
time linear in its input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, ROUND_DOWN, ROUND_HALF_UP, Context, Decimal
from functools import lru_cache
from typing import Final

from gsar_otel.core.anchor.scan import leading_number, read_clock
from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors, with_quoted_contents

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]`*]*\s+"
                           r"(?=[\"'(\[*]{0,3}(?:`|[A-Z0-9]|[a-z][a-z0-9]{0,30}[-_][a-z0-9]))")
"""A full stop and the space after it, before a capital, a digit, a name in backticks or a
lower-case name ("... 244 bytes behind. `10.20.1.15` is connected", "... on the port.
redis-exporter at 10.2.6.33 is ...")."""
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_WORD = re.compile(r"[^\W_](?:[\w.\-/%]*(?:[^\W_]|%))?")

STOPWORDS = frozenset(
    str.split("""
    a an the and or but if then than that this these those there here of in on at to for from
    by with without within into onto over under as is are was were be been being it its it's
    we our us you your they their them he she his her i me my not no nor so such also just only
    him hers ours yours theirs myself yourself yourselves himself herself itself ourselves
    themselves
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
    r"(?:^|[\s(])(?:(?-i:[A-Z])|b|c|ca|no|nos|st|dr|mr|mrs|(?-i:Ms)|jr|sr|vs|v|etc|e\.g|i\.e|inc|ltd|co|"
    r"corp|approx|fig|vol|pp|p|u\.s|u\.k|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.$",
    re.IGNORECASE,
)
"""A part ending in an abbreviation or an initial ("No.", "b.", "L.") does not end a sentence
(an initial and "Ms." only as written: "took 686 ms." and "after 1.87 s." end one)."""


_ABBREVIATION_TAIL: Final = 12
"""Characters at the end of a part that can hold an abbreviation and the space before it (the
longest, "approx.", has 7): checking only these keeps the merge linear. A longer part cut to
this tail cannot fake a start-of-text match, since no abbreviation fills the whole tail."""


_CONCLUSION_MARKER = re.compile(
    r"\b(?:caused|causes|causing|because|due\s+to|led\s+to|leads?\s+to|result(?:ed|s)?\s+in|"
    r"root\s+cause|therefore|thus|hence|which\s+means|explains?|(?:likely|probably|presumably)|"
    r"suggests?|indicates?|triggered|so\s+the)\b",
    re.IGNORECASE)


def states_conclusion(text: str) -> bool:
    """True when ``text`` uses the words of a cause or a conclusion ("caused by", "due to",
    "so the root cause", "probably"): the integrity guard marks such an uncovered sentence as a
    conclusion, so a judge that leaves a causal sentence out cannot slip past the conclusion
    policy."""
    return bool(_CONCLUSION_MARKER.search(text))


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
        merged: list[list[str]] = []
        for part in _SENTENCE_END.split(line):
            part = part.strip()
            if not part:
                continue
            if merged and _ABBREVIATION.search(merged[-1][-1][-_ABBREVIATION_TAIL:]):
                merged[-1].append(part)
            else:
                merged.append([part])
        sentences.extend(" ".join(parts) for parts in merged)
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
    """A clock time ``hh:mm[:ss]`` (the hour on a 24-hour clock)."""

    hour: int
    minute: int
    second: str | None
    raw: str


@dataclass(frozen=True, slots=True)
class Anchors:
    """The checkable specifics of a text, in the shape the offline judge reads: numbers, clock
    times and identifiers (tokens mixing letters and digits, and keys that do)."""

    numbers: tuple[Number, ...]
    times: tuple[ClockTime, ...]
    identifiers: frozenset[str]


def clock_times(text: str) -> list[ClockTime]:
    """Clock times in ``text`` (``14:02``, ``02:48:12``, the time of ``2024-05-01T10:15Z``)."""
    return list(anchors(text).times)


def numbers(text: str) -> list[Number]:
    """Numbers in ``text``, read by :func:`gsar_otel.core.anchors.extract_anchors`.

    Plain numbers, percentages, durations (``41.3 s`` is 41.3), HTTP statuses and ports count;
    ``5xx``, ``p99``, ``v2.3.1``, ``edge-lb-3``, ``10.0.0.12:8080`` and ``cfg-7781`` do not. A
    unit glued to the number stays in ``raw`` (``500ms``, ``3.45-mile``, ``21-year-old``); a
    date written with words or slashes gives its numbers (``17 March 2017`` gives 17 and
    2017); a currency sign is not part of ``raw``.
    """
    return list(anchors(text).numbers)


def identifiers(text: str) -> frozenset[str]:
    """Tokens mixing letters and digits (``db-prod-1``, ``A-9912``, ``5xx``, ``p99``), and keys
    that do (``http_5xx_rate``), lowercased. Numbers with a unit (``97%``, ``500ms``, ``2GB``,
    ``21-year-old``) are numbers, not identifiers."""
    return anchors(text).identifiers


def _rounds_to(candidate: Decimal, written: Number) -> bool:
    # Exact at any length: the default 28 digits made a 40-digit number raise InvalidOperation.
    context = Context(prec=max(28, candidate.adjusted() + written.decimals + 3),
                      Emax=MAX_EMAX, Emin=MIN_EMIN)
    quantum = Decimal(1).scaleb(-written.decimals, context)
    if candidate.quantize(quantum, ROUND_HALF_UP, context) == written.value:
        return True
    return candidate.quantize(quantum, ROUND_DOWN, context) == written.value


def number_matches(written: Number, evidence: Number) -> bool:
    """True when ``written`` is ``evidence`` as a person would round or format it."""
    if written.value == evidence.value:
        return True
    if not (written.value.is_finite() and evidence.value.is_finite()):
        return False
    try:
        if _rounds_to(evidence.value, written):
            return True
        # A ratio written as a percentage, or a percentage written as a ratio.
        if written.percent and not evidence.percent and abs(evidence.value) <= 1:
            return _rounds_to(evidence.value.scaleb(2), written)
    except ArithmeticError:  # a value beyond any exact context: only equality counts
        return False
    return False


def time_matches(written: ClockTime, evidence: ClockTime) -> bool:
    """True when ``written`` names the same clock time (to its precision) as ``evidence``."""
    if (written.hour, written.minute) != (evidence.hour, evidence.minute):
        return False
    if written.second is None or evidence.second is None:
        return True
    return Decimal(written.second) == Decimal(evidence.second)


ANCHOR_CACHE_CHARS = 2000
"""Texts up to this long have their anchors remembered: claims and evidence rows recur."""


def anchors(text: str) -> Anchors:
    """Numbers, clock times and identifiers of ``text``."""
    if len(text) <= ANCHOR_CACHE_CHARS:
        return _remembered_anchors(text)
    return _find_anchors(text)


_NO_ANCHORS: Final = Anchors((), (), frozenset())
_NUMBER_KINDS: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION,
                                  AnchorKind.HTTP_STATUS, AnchorKind.PORT})
_NAMED_KINDS: Final = frozenset({AnchorKind.IDENTIFIER, AnchorKind.HOST, AnchorKind.VERSION,
                                 AnchorKind.HTTP_CLASS, AnchorKind.PERCENTILE})
_DIGIT_RUN: Final = re.compile(r"\d++")
_DIGIT: Final = re.compile(r"\d")


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
    return legacy_anchors(with_quoted_contents(extract_anchors(text)))


def legacy_anchors(typed: Iterable[Anchor]) -> Anchors:
    """Typed anchors in the shape of :class:`Anchors`."""
    found_numbers: list[Number] = []
    found_times: list[ClockTime] = []
    found_identifiers: set[str] = set()
    for anchor in typed:
        kind = anchor.kind
        if kind in _NUMBER_KINDS:
            number = _as_number(anchor)
            if number is not None:
                found_numbers.append(number)
            elif kind is AnchorKind.DURATION:  # written in parts (3m20s)
                found_identifiers.add(anchor.text.lower())
        elif kind is AnchorKind.DATE and anchor.text[4:5] != "-":
            found_numbers += [Number(Decimal(run), 0, False, run)
                              for run in _DIGIT_RUN.findall(anchor.text)]
        elif kind in (AnchorKind.CLOCK, AnchorKind.TIMESTAMP):
            clock = _as_clock(anchor)
            if clock is not None:
                found_times.append(clock)
        elif kind in _NAMED_KINDS and _mixed(anchor.text):
            found_identifiers.add(anchor.text.lower())
        if anchor.key is not None and _mixed(anchor.key):
            found_identifiers.add(anchor.key)
    return Anchors(tuple(found_numbers), tuple(found_times), frozenset(found_identifiers))


def _mixed(token: str) -> bool:
    return any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token)


def _as_number(anchor: Anchor) -> Number | None:
    if anchor.kind is AnchorKind.PORT and anchor.text.startswith(":"):
        return None  # the port of an address was never a number of its own
    raw = anchor.text.split()[0].lstrip("~≈≥≤$€£¥")
    written = leading_number(raw)
    if written is None:
        return None
    value, decimals, length = written
    rest = raw[length:]
    if anchor.kind is AnchorKind.DURATION and any(ch.isdigit() for ch in rest):
        return None
    return Number(value, decimals, anchor.kind is AnchorKind.PERCENT, raw)


def _as_clock(anchor: Anchor) -> ClockTime | None:
    timestamp = anchor.kind is AnchorKind.TIMESTAMP
    text = anchor.text[11:] if timestamp else anchor.text
    read = read_clock(text.split()[0] if text.split() else "", offsets=True)
    if read is None:
        return None
    # A clock anchor's value is on the 24-hour clock already ("10:15 pm" is 22:15).
    seconds = int(read[0].seconds if timestamp or not isinstance(anchor.value, float)
                  else anchor.value)
    digits = read[0].digits
    parts = digits.split(":")
    return ClockTime(seconds // 3600, seconds // 60 % 60, parts[2] if len(parts) > 2 else None,
                     digits)


@lru_cache(maxsize=8192)
def _remembered_anchors(text: str) -> Anchors:
    return _find_anchors(text)


def number_supported(written: Number, evidence: Anchors) -> bool:
    """True when some number of the evidence matches ``written``."""
    return any(number_matches(written, candidate) for candidate in evidence.numbers)


def time_supported(written: ClockTime, evidence: Anchors) -> bool:
    """True when some clock time of the evidence matches ``written``."""
    return any(time_matches(written, candidate) for candidate in evidence.times)
