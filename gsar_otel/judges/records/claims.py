"""An answer read into claims: sentences, each with its typed values, the records it names,
the states and levels it states (and whether it negates them), and its stance (a fact, a cause,
a recommendation)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors
from gsar_otel.core.text import STOPWORDS, split_sentences, stem
from gsar_otel.judges.records.counts import NUMBER_WORDS, Predicate, counted_class, word_counts
from gsar_otel.judges.records.forms import (
    ADVICE,
    CAUSE,
    COPULAS,
    DETERMINERS,
    FUTURE,
    LEVELS,
    MODAL_REACH,
    MODALS,
    NEGATION_REACH,
    NEGATIONS,
    PHRASES,
    PLURAL_PRONOUNS,
    SELECTORS,
    STATE_TABLES,
    STATE_WORDS,
    UNIVERSALS,
    State,
)
from gsar_otel.judges.records.record import NAME_TOKEN
from gsar_otel.judges.records.units import reread

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
_COMPOUND: Final = re.compile(r"[/_.@:]|\d")
_ANSWER: Final = re.compile(r"\s*[,.:;!\u2014\u2013-]")
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]*(?:_[A-Za-z]+)*|\d[\w.]*")
"""A word; words joined by underscores are one (``past_due``, ``in_progress``: one state)."""
_CODE: Final = re.compile(r"`([^`\n]+)`")
_IN_NAME: Final = re.compile(r"[A-Za-z][-_@]?$")
"""What stands right before a number that is part of a name (``rabbit@mq-03``, ``p99``)."""
_SELECTED: Final = re.compile(r"\b(" + "|".join(sorted(SELECTORS)) + r")\s+$", re.IGNORECASE)
_UNSET: Final = re.compile(r"[`'\"]?\s*(?:(?:is|was|=|:)\s*)?[`'\"]?(?:false|none)\b")
"""A flag's value after it that says it is not set."""
_QUOTED: Final = re.compile(r'"[^"\n]{3,}"|\u201c[^\u201d\n]{3,}\u201d')
"""A message the claim quotes ("could not connect to server: Connection timed out")."""


@dataclass(frozen=True, slots=True)
class StatedState:
    """A state or a level a claim states, where, and whether it negates it."""

    position: int
    state: State | None
    level: str | None
    negated: bool
    hypothetical: bool = False
    """Stated after a modal or a condition ("can be picked up", "if it fails"): no fact."""
    attributive: bool = False
    """Said of a noun after a determiner ("after the successful one"), or an event with its
    agent ("was started by wei.chen"): it picks a thing out or tells what happened rather than
    stating the record's state."""


@dataclass(slots=True)
class ClaimText:
    """One claim of an answer, read."""

    text: str
    """As written in the answer."""
    clean: str
    """Without Markdown markup: what is read."""
    plain: str = ""
    """``clean`` with names and paths blanked out: its words are words of the sentence, not
    parts of ``/v1/orders/88412/pay``."""
    values: list[Anchor] = field(default_factory=list)
    tokens: list[tuple[int, str]] = field(default_factory=list)
    """Name-like tokens (lower-cased) with their positions."""
    stems: set[str] = field(default_factory=set)
    states: list[StatedState] = field(default_factory=list)
    advice: bool = False
    plural: bool = False
    """It speaks of several things it does not name ("they", "none of them")."""
    future: int = -1
    """Where it starts predicting ("will be exhausted", "is going to"), or -1: what it states
    after that is not on record."""
    universal: bool = False
    """It says something of every one of the things it names ("all", "every", "each")."""
    cause: re.Match[str] | None = None
    measures: set[tuple[int, int]] = field(default_factory=set)
    """Where the claim's anchors stand (a token inside one is no name)."""
    key_names: tuple[str, ...] = ()
    """Keys the claim writes as code (```rt```, ```worker_connections```): the attribute it
    speaks of, whose rows a derivation may be over."""
    counted: dict[int, tuple[str, Predicate]] = field(default_factory=dict)
    """The class of records a count at a position counts ("three 5xx responses")."""
    selections: set[int] = field(default_factory=set)
    """Where numbers stand that say how many things a selector picks ("the last two
    successful runs", "top 3"): no value of a record."""


_RANGE: Final = re.compile(r"\s*(?:-|\u2013|\u2014|to|and|or)\s*$")


def _ranges(values: list[Anchor], text: str) -> list[Anchor]:
    """Values with the unit of a range's last member given to the bare numbers before it
    ("41 and 44 minutes", "2-3 GiB")."""
    out = list(values)
    for i in range(len(out) - 2, -1, -1):
        bare, unit = out[i], out[i + 1]
        if (bare.kind is not AnchorKind.NUMBER or bare.unit or unit.unit is None
                or not _RANGE.match(text[bare.end:unit.start])):
            continue
        digits = re.match(r"[\d.,]+", unit.text)
        if digits is None:
            continue
        read = extract_anchors(bare.text + unit.text[digits.end():])
        if len(read) == 1 and read[0].kind is unit.kind:
            shift = bare.start - read[0].start
            out[i] = replace(read[0], start=read[0].start + shift, end=bare.end)
    return out


def _picks_out(words: list[tuple[int, str]], index: int) -> bool:
    """True when the state at ``index`` follows a determiner, over any selectors and counts
    between ("the failed job", "the last two successful runs"), and no copula before it ("is a
    critical-level alert" states it)."""
    at = index - 1
    while at > 0 and (words[at][1] in SELECTORS or words[at][1] in NUMBER_WORDS
                      or words[at][1].isdigit()):
        at -= 1
    return (at >= 0 and words[at][1] in DETERMINERS
            and (at < 1 or words[at - 1][1] not in COPULAS))


_CLAUSE_BREAK: Final = re.compile(r"\s[\u2014\u2013-]\s|;\s|:\s|,\s+(?:so|and|but)\s|\.\s")
"""Where one clause of a sentence ends and the next begins."""


def advice_clause(claim: ClaimText) -> int:
    """Where the clause holding the claim's recommendation begins (0 when that is the whole
    claim): what it states before ("... uses auto-ack with no prefetch limit — I'd switch it")
    is stated as fact."""
    advice = ADVICE.search(claim.clean)
    if advice is None:
        return 0
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(claim.clean, 0, advice.start())]
    return breaks[-1] if breaks else 0


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
    read = [reread(a, clean) for a in anchors if a.kind in VALUE_KINDS]
    taken = [(a.start, a.end) for a in read]
    read += [a for a in word_counts(clean)
             if not any(start < a.end and a.start < end for start, end in taken)]
    # a number joined to letters is part of a name, not a value ("rabbit@mq-03")
    read = [a for a in read if not (a.kind is AnchorKind.NUMBER and a.unit is None
                                    and not a.text.startswith("-")
                                    and _IN_NAME.search(clean, 0, a.start))]
    claim.values = _ranges(sorted(read, key=lambda a: a.start), clean)
    claim.selections = {a.start for a in claim.values
                        if a.kind is AnchorKind.NUMBER and a.unit is None
                        and _SELECTED.search(clean, max(0, a.start - 12), a.start)}
    for value in claim.values:
        if value.kind is AnchorKind.NUMBER and isinstance(value.value, float):
            counted = counted_class(clean, value.end)
            if counted is not None:
                claim.counted[value.start] = counted
    claim.measures = {(a.start, a.end) for a in anchors}
    claim.tokens = [(m.start(), m.group(0).lower().rstrip(".:/"))
                    for m in NAME_TOKEN.finditer(clean)]
    claim.plain = NAME_TOKEN.sub(
        lambda m: " " * len(m.group(0)) if _COMPOUND.search(m.group(0)) else m.group(0), clean)
    words = [(m.start(), m.group(0).lower()) for m in _WORD.finditer(lowered)]
    claim.stems = {stem(part) for _, w in words for part in w.split("_") if part}
    since_negation = NEGATION_REACH + 1
    modal_at = -MODAL_REACH - 1
    quoted = [m.span() for m in _QUOTED.finditer(lowered)]
    # a gerund's phrase that is the subject of a modal is a supposition: "Bringing
    # `mac-mini-01` back online would unblock the jobs" states no state of mac-mini-01
    supposed = (next((p for p, w in words if w in MODALS), -1)
                if words and words[0][1].endswith("ing") and words[0][1] not in STATE_WORDS
                else -1)
    for index, (position, word) in enumerate(words):
        if word in NEGATIONS or word.endswith("n't"):
            if not _ANSWER.match(lowered, position + len(word)):
                since_negation = 0  # "No —", "No," answer a question: they negate nothing
            continue
        if word in MODALS:
            modal_at = index
        elif word not in STOPWORDS and not word[0].isdigit():
            since_negation += 1  # only content words count: "none of the 12 failed"
        # a flag written with its value says whether it is set ("`OOMKilled` is false")
        negated = (since_negation <= NEGATION_REACH
                   or bool(_UNSET.match(lowered, position + len(word))))
        joined = word.replace("-", "").replace("_", "")
        head = word.split("-", 1)[0]  # "critical-level": the modifier states the state
        # the whole word before its head: "pending-upgrade" is a release's, not "pending"
        state = next((table[form] for form in (word, joined, head) for table in STATE_TABLES
                      if form in table), None)
        level = LEVELS.get(word)
        if any(start < position < end for start, end in quoted):
            continue  # a quoted message's words: the claim quotes it, it states no state
        if state is not None or level is not None:
            claim.states.append(StatedState(
                position, state, level, negated,
                index - modal_at <= MODAL_REACH or position < supposed,
                _picks_out(words, index)
                or (index + 1 < len(words) and words[index + 1][1] == "by")))
    claim.key_names = tuple(dict.fromkeys(
        m.group(1).lower().lstrip("$") for m in _CODE.finditer(text)
        if len(m.group(1)) <= 40 and " " not in m.group(1)))
    claim.advice = bool(ADVICE.search(clean))
    claim.plural = any(word in PLURAL_PRONOUNS for _, word in words[:6]) or any(
        word == "respectively" for _, word in words)
    claim.universal = any(word in UNIVERSALS for _, word in words)
    predicting = FUTURE.search(clean)
    claim.future = predicting.start() if predicting else -1
    claim.cause = CAUSE.search(clean)
    return claim

