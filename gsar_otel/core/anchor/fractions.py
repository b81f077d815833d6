"""Fractions written in words are percentages: "more than half" is over 50%, "about a third"
about 33.3%, "three quarters of the requests" 75%.

Read as words, "Crystal Head Vodka is more than half alcohol" would be grounded by
``Alcohol by volume: 40%`` (the words match; no value is checked); read as a PERCENT anchor with
its qualifier, it meets 40% and conflicts, as "more than 50%" does. A fraction word is read
only where it states a share: after a qualifier ("more than half", "nearly a third", "over two
thirds") or before "of" ("half of the pods", "a quarter of requests"). "half an hour" (a
duration), "the second half", "a third time" and "half-time" are left as words.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Final

from gsar_otel.core.anchor.model import Anchor, AnchorKind
from gsar_otel.core.anchor.words import QUALIFIER_PAIRS, QUALIFIERS

SHARES: Final[dict[str, float]] = {
    "half": 50.0, "third": 100 / 3, "quarter": 25.0, "fifth": 20.0, "tenth": 10.0,
    "thirds": 100 / 3, "quarters": 25.0, "fifths": 20.0, "tenths": 10.0,
}
"""Percent of one part; a plural is multiplied by the count before it ("two thirds")."""
_COUNTS: Final = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                  "seven": 7, "eight": 8, "nine": 9}
_PERIOD_BEFORE: Final = re.compile(
    r"\b(?:first|second|third|fourth|last|final|latter|former|other|next|previous|same|this|"
    r"that|each|every)\s+$", re.IGNORECASE)
"""An ordinal or a determiner before the word: a period ("the second half", "the first quarter
of 2024"), not a share."""
_PERIOD_AFTER: Final = re.compile(
    r"\s+(?:(?:an?|the|one)\s+)?(?:hour|minute|second|day|week|month|year|century|decade|"
    r"game|match|season|\d{4}\b)", re.IGNORECASE)
"""A time after "of": "a quarter of an hour", "half of 2023" name a span, not a share."""
_WORDS: Final = "|".join(sorted(SHARES, key=len, reverse=True))
_QUALIFIER: Final = "|".join(sorted(
    [re.escape(q) for q in QUALIFIERS if q.isalpha()]
    + [f"{a} {b}" for a, b in QUALIFIER_PAIRS], key=len, reverse=True))
_FRACTION: Final = re.compile(
    rf"\b(?:(?P<qualifier>{_QUALIFIER})\s+)?(?:(?P<count>{'|'.join(_COUNTS)})\s+)?"
    rf"(?P<share>{_WORDS})\b(?!-)(?P<of>\s+of\b)?", re.IGNORECASE)


def fraction_anchors(text: str) -> list[Anchor]:
    """The fractions of ``text`` that state a share, as PERCENT anchors, left to right."""
    out: list[Anchor] = []
    for match in _FRACTION.finditer(text):
        share = match.group("share").lower()
        count = (match.group("count") or "").lower()
        qualifier = (match.group("qualifier") or "").lower()
        if not (qualifier or match.group("of")):
            continue  # "the second half", "half an hour": no share stated
        if _PERIOD_BEFORE.search(text, max(0, match.start() - 12), match.start()) \
                or _PERIOD_AFTER.match(text, match.end()):
            continue
        if share == "half" and count not in ("", "a", "one"):
            continue
        if share != "half" and not count:
            continue  # "its third of five attempts", "the quarter of": an ordinal, not a share
        if share.endswith("s") and count in ("", "a", "one"):
            continue  # "over quarters" is no share
        value = SHARES[share] * _COUNTS.get(count, 1)
        words = qualifier.split()
        named = QUALIFIERS.get(qualifier) or (
            QUALIFIER_PAIRS.get((words[0], words[1])) if len(words) == 2 else None)
        start = match.start("count") if count else match.start("share")
        out.append(Anchor(AnchorKind.PERCENT, text[start:match.end("share")],
                          round(value, 1), "%", start, match.end("share"), None, named))
    return out


def with_fractions(text: str, anchors: tuple[Anchor, ...]) -> tuple[Anchor, ...]:
    """``anchors`` of ``text`` with its word fractions added in order, where no anchor is."""
    if not _FRACTION.search(text):
        return anchors
    starts = [a.start for a in anchors]  # in order and apart: one neighbour on each side
    extra = []
    for fraction in fraction_anchors(text):
        at = bisect_left(starts, fraction.start)
        if not any(a.start < fraction.end and fraction.start < a.end
                   for a in anchors[max(0, at - 1):at + 1]):
            extra.append(fraction)
    if not extra:
        return anchors
    return tuple(sorted((*anchors, *extra), key=lambda a: a.start))
