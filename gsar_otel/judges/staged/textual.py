"""What the stages read from any text (a claim or an evidence unit), computed once: content
stems (number words as digits), name tokens, anchors, and markers of negation, cause,
speculation and quantity. One tokenizer: :func:`gsar_otel.core.text.words`."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.anchor.words import is_spaced_unit
from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.anchoring import Spec, extract
from gsar_otel.judges.staged.lexicon import (
    ANAPHORIC,
    CAUSAL_NEEDS_IN,
    CAUSAL_NEEDS_TO,
    CAUSAL_PAIRS,
    CAUSAL_WORDS,
    COMPARATIVE,
    CONCLUSION_PHRASES,
    INDICATIVE,
    NEGATION_NEEDS_TO,
    NEGATIONS,
    NUMBER_WORDS,
    QUANT_BOTH,
    QUANT_ONLY,
    SPECULATIVE,
)
from gsar_otel.judges.staged.roots import root

_KEEP_SHORT = frozenset("0123456789")
_CONTRACTED = re.compile(r"\w(?:n['’]t|N['’]T)\b")


@dataclass(frozen=True, slots=True)
class TextFacts:
    """The facts of one text every stage needs."""

    text: str
    stems: tuple[str, ...]
    """Content stems in order of first appearance, number words as digits."""
    pairs: frozenset[tuple[str, str]]
    """Adjacent content stems, in text order: ("request", "rate"), ("rate", "drop")."""
    names: frozenset[str]
    """Lowercased whole tokens written with a capital and lowercase letters (not the first
    word; acronyms are content words, not names): names to match."""
    anchors: tuple[Spec, ...]
    negated: bool
    causal: bool
    speculative: bool
    concluding: bool
    anaphoric: bool
    quant_both: bool
    quant_only: bool
    comparative: bool
    word_count: int

    @property
    def conclusion(self) -> bool:
        """States a cause or draws a conclusion (the claim's ``conclusion`` flag)."""
        return self.causal or self.concluding or (self.speculative and self.anaphoric)


def _names(text: str) -> frozenset[str]:
    found: set[str] = set()
    first = True
    for token in text.split():
        bare = token.lstrip("\"'([“‘")
        if (bare[:1].isupper() and not first and any(ch.islower() for ch in bare)):
            head = words(bare)[:1]
            if head and head[0] not in STOPWORDS and not is_spaced_unit(head[0]):
                found.add(head[0])  # "4 GiB" writes a unit, no name
        first = token.endswith((".", "!", "?", ":", "]", ")"))
    return frozenset(found)


_RANKING: Final = frozenset({"world", "ranked", "former", "the", "seed", "seeded"})
"""Words before a rank written "No 1"."""


_AFFIRMING: Final = frozenset({"only", "just", "merely", "simply", "least"})
"""Words after "not" that make it no negation: "not only X but Y" states X."""


def negation_at(tokens: list[str], at: int) -> bool:
    """Whether ``tokens[at]`` negates: a negation word ("not", "never", "without"), or the "t"
    of a split contraction ("wasn", "t"); "No" before a number after a word of ranking is a rank
    ("World No 1", "the No 3 seed"), while "returned no 500 errors" negates; "not only" states
    what follows."""
    token = tokens[at].replace("’", "'")
    if token == "not" and at + 1 < len(tokens) and tokens[at + 1] in _AFFIRMING:
        return False  # "not only merged but backported" states both
    if token == "no" and 0 < at < len(tokens) - 1 and tokens[at + 1][:1].isdigit() \
            and tokens[at - 1] in _RANKING:
        return False
    return token in NEGATIONS or token.endswith("n't") or (
        token == "t" and at > 0 and tokens[at - 1].endswith("n"))


_BEFORE_MONTH: Final = frozenset({"in", "on", "of", "since", "until", "till", "from", "by",
                                  "early", "late", "mid", "during"})


def _month(tokens: list[str], at: int) -> bool:
    """Whether "may" at ``at`` is the month ("on May 1", "1 May", "in May"), not a hedge."""
    if tokens[at] != "may":
        return False
    after = tokens[at + 1] if at + 1 < len(tokens) else ""
    before = tokens[at - 1] if at > 0 else ""
    return after[:1].isdigit() or before[:1].isdigit() or before in _BEFORE_MONTH


def facts_of(text: str) -> TextFacts:
    """The facts of ``text``; linear in its length."""
    tokens = words(text)
    stems: dict[str, None] = {}
    sequence: list[str] = []
    negated = causal = speculative = both = only = comparative = False
    previous = ""
    for at, token in enumerate(tokens):
        bare = token.replace("’", "'")
        if (bare in NEGATIONS or bare.endswith("n't")) and negation_at(tokens, at):
            negated = True
        if previous in CAUSAL_NEEDS_IN and bare in ("in", "from"):
            causal = True
        if bare in CAUSAL_WORDS and bare not in CAUSAL_NEEDS_TO and bare not in CAUSAL_NEEDS_IN:
            causal = True
        if (previous in CAUSAL_NEEDS_TO and bare == "to") or (previous, bare) in CAUSAL_PAIRS:
            causal = True
        if previous in NEGATION_NEEDS_TO and bare == "to":
            negated = True
        speculative = speculative or (bare in SPECULATIVE and not _month(tokens, at))
        both = both or bare in QUANT_BOTH
        only = only or bare in QUANT_ONLY
        comparative = comparative or bare in COMPARATIVE
        previous = bare
        if bare in NUMBER_WORDS:
            sequence.append(NUMBER_WORDS[bare])
        elif bare not in STOPWORDS and (len(bare) > 1 or bare in _KEEP_SHORT):
            sequence.append(root(bare))
    for word in sequence:
        stems.setdefault(word, None)
    # the tokenizer splits "wasn't" at the apostrophe: read the contraction from the text
    negated = negated or _CONTRACTED.search(text) is not None
    lowered = f" {' '.join(tokens)} "
    concluding = any(f" {phrase} " in lowered for phrase in CONCLUSION_PHRASES)
    opener = tokens[0] if tokens else ""
    anaphoric = opener in ANAPHORIC and any(t in INDICATIVE for t in tokens[:6])
    return TextFacts(
        text=text, stems=tuple(stems), pairs=frozenset(itertools.pairwise(sequence)),
        names=_names(text), anchors=extract(text),
        negated=negated, causal=causal, speculative=speculative,
        concluding=concluding or anaphoric, anaphoric=anaphoric, quant_both=both,
        quant_only=only, comparative=comparative, word_count=len(tokens),
    )


LEVELS: Final = {"normal": "info", "error": "error", "err": "error", "fatal": "error",
                 "critical": "error", "crit": "error", "warn": "warning", "warning": "warning",
                 "info": "info", "notice": "info", "debug": "debug", "trace": "debug"}
"""A log level as written -> the level it is (``crit`` is an error)."""
_NAMES: Final = "error|err|fatal|critical|crit|warn|warning|info|notice|debug|trace"
_SAID: Final = re.compile(
    rf"\b(?:at|with|as)\s+(?:an?\s+)?({_NAMES})(?:[- ]level)?\b"
    rf"|\b({_NAMES})[- ](?:level|line|log|message|entry|event)\b"
    r"|\blogged\s+an?\s+(?:[\w-]+\s+){0,3}?(error|warning)s?\b", re.IGNORECASE)
"""A level a claim says in so many words."""
_HELD: Final = re.compile(rf"(?:^|[\s\[|])({_NAMES.upper()})(?=[\s\]:|])"
                          rf"|\b(?i:level)\"?\s*[=:]\s*\"?((?i:{_NAMES}|normal))\b"
                          r"|(?:^|\s)(Normal|Warning)(?=\s)")
"""A line's own level: its level token in capitals ("Error" in a sentence is a word), a
level field, or a Kubernetes event's type (Normal, Warning)."""


def said_level(text: str) -> str | None:
    """The level a claim says, or None."""
    found = _SAID.search(text)
    if found is None:
        return None
    return LEVELS[next(g for g in found.groups() if g).lower()]


def line_level(text: str) -> str | None:
    """A log line's own level, or None."""
    found = _HELD.search(text)
    if found is None:
        return None
    return LEVELS[next(g for g in found.groups() if g).lower()]


def is_path(text: str, start: int) -> bool:
    """Whether the token at ``start`` is a path (``/api/orders``, ``/login``, ``/var/log``): it
    follows a slash that begins a word, so it names what a request or a file is about."""
    return start > 0 and text[start - 1] == "/" and (start == 1 or text[start - 2] in " \t\"'(`[")
