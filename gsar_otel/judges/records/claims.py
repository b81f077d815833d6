"""An answer read into claims: sentences, each with its typed values, the records it names,
the states and levels it states (and whether it negates them), and its stance (a fact, a cause,
a recommendation)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors
from gsar_otel.core.text import split_sentences, stem
from gsar_otel.judges.records.forms import (
    ADVICE,
    CAUSE,
    LEVELS,
    NEGATION_REACH,
    NEGATIONS,
    PHRASES,
    STATE_TABLES,
    State,
)
from gsar_otel.judges.records.record import NAME_TOKEN

VALUE_KINDS: Final = frozenset({
    AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION, AnchorKind.CLOCK,
    AnchorKind.TIMESTAMP, AnchorKind.DATE, AnchorKind.VERSION, AnchorKind.IPV4,
    AnchorKind.IPV6, AnchorKind.PORT, AnchorKind.HTTP_STATUS, AnchorKind.IDENTIFIER,
    AnchorKind.HOST})
"""The typed values a claim states that must be found on its records or derived from them."""
NAMED_KINDS: Final = frozenset({AnchorKind.IDENTIFIER, AnchorKind.HOST, AnchorKind.VERSION,
                                AnchorKind.IPV4, AnchorKind.IPV6})
"""Typed values that name something: found as written or not at all (never derived)."""
_MARKUP: Final = re.compile(r"\*\*|__|`|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)|^#+\s*|^>\s*",
                            re.MULTILINE)
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\w.]*")


@dataclass(frozen=True, slots=True)
class StatedState:
    """A state or a level a claim states, where, and whether it negates it."""

    position: int
    state: State | None
    level: str | None
    negated: bool


@dataclass(slots=True)
class ClaimText:
    """One claim of an answer, read."""

    text: str
    """As written in the answer."""
    clean: str
    """Without Markdown markup: what is read."""
    values: list[Anchor] = field(default_factory=list)
    tokens: list[tuple[int, str]] = field(default_factory=list)
    """Name-like tokens (lower-cased) with their positions."""
    stems: set[str] = field(default_factory=set)
    states: list[StatedState] = field(default_factory=list)
    advice: bool = False
    cause: re.Match[str] | None = None
    measures: set[tuple[int, int]] = field(default_factory=set)
    """Where the claim's anchors stand (a token inside one is no name)."""


_SHORT: Final = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}
"""Multipliers of a number written short (``14.8k``, ``3.2M``)."""


def _scaled(anchor: Anchor) -> Anchor:
    """A number written short (``14.8k``) as the number it stands for, about."""
    if anchor.kind is not AnchorKind.NUMBER or not isinstance(anchor.value, float):
        return anchor
    text = anchor.text.rstrip()
    suffix = next((s for s in ("bn", "k", "K", "M", "B") if text.endswith(s)), None)
    if suffix is None:
        return anchor
    value = anchor.value * _SHORT[suffix]
    return Anchor(AnchorKind.NUMBER, f"{value:.0f}", value, None, anchor.start, anchor.end,
                  anchor.key, "about")


def split_claims(answer: str) -> list[str]:
    """The answer's claims: its sentences (a list item is a sentence of its own)."""
    return [s for s in split_sentences(answer) if any(ch.isalnum() for ch in s)]


def read_claim(text: str) -> ClaimText:
    """Read one claim."""
    clean = _MARKUP.sub("", text)
    lowered = clean.lower()
    for phrase, form in PHRASES.items():
        if phrase in lowered:
            lowered = re.sub(rf"\b{re.escape(phrase)}\b", form, lowered)
    claim = ClaimText(text=text, clean=clean)
    anchors = extract_anchors(clean)
    claim.values = [_scaled(a) for a in anchors if a.kind in VALUE_KINDS]
    claim.measures = {(a.start, a.end) for a in anchors}
    claim.tokens = [(m.start(), m.group(0).lower().rstrip(".:/"))
                    for m in NAME_TOKEN.finditer(clean)]
    words = [(m.start(), m.group(0).lower()) for m in _WORD.finditer(lowered)]
    claim.stems = {stem(w) for _, w in words}
    negated_until = -1
    for index, (position, word) in enumerate(words):
        if word in NEGATIONS or word.endswith("n't"):
            negated_until = index + NEGATION_REACH
            continue
        negated = index <= negated_until
        joined = word.replace("-", "").replace("_", "")
        state = next((table.get(word) or table.get(joined) for table in STATE_TABLES
                      if table.get(word) or table.get(joined)), None)
        level = LEVELS.get(word)
        if state is not None or level is not None:
            claim.states.append(StatedState(position, state, level, negated))
    claim.advice = bool(ADVICE.search(clean))
    claim.cause = CAUSE.search(clean)
    return claim

