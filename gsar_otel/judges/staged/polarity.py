"""Where a fact states a negation of a claim: the polarity the checks compare.

A short sentence of one clause states its polarity plainly ("Ticket 5 was not merged."); in a
longer one a negation counts only where it stands before one of the claim's own words ("...,
ticket 5 was never merged, and the channel was archived"), since another clause's "not" says
nothing of the claim. A field of the claim's key says it too: ``merged: false`` plainly,
``restarts=0`` as "no restart" (though "restarted 0 times" is no negation of it). Linear in
the fact's text.
"""

from __future__ import annotations

from typing import Final

from gsar_otel.core.text import words
from gsar_otel.judges.staged.anchoring import number_of
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.textual import negation_at

SHORT_PROSE: Final = 20
"""A prose sentence this short, of one clause, states its polarity plainly."""
REACH: Final = 3
"""How many words before a claim's word a negation of it may stand ("was not yet merged")."""
WEAK: Final = frozenset({"absent", "lacks", "lacked", "lacking", "missing", "zero", "insufficient",
                         "inadequate", "unable", "nothing", "nobody", "none"})
"""Negation words that say what is missing, not that an act did not happen: "went missing
after leaving her friends" negates no leaving."""
EMPTY: Final = frozenset({"", "none", "null", "false", "no", "n/a", "-", "[]", "{}"})
"""A field value holding nothing."""


def plain(fact: Fact) -> bool:
    """A fact whose polarity is the whole fact's: a row, log line or alert, or a short sentence
    of one clause."""
    return fact.kind != "prose" or (fact.facts.word_count <= SHORT_PROSE
                                    and "," not in fact.text and ";" not in fact.text)


def negates(fact: Fact, slots: ClaimSlots, strict: bool = False, anywhere: bool = False) -> bool:
    """The fact states a negation of the claim (see the module docstring); ``strict`` leaves
    out empty and zero fields, ``anywhere`` takes a negation in any clause."""
    if fact.facts.negated and (anywhere or plain(fact) or _negated_near(fact.text, slots.stems)):
        return True
    for field in fact.fields:
        if field.key_stems & slots.stems:
            value = field.value.lower()
            numbers = [number_of(a) for a in field.anchors]
            if value in ("false", "no") or (not strict and (
                    value in EMPTY or (numbers and all(n == 0 for n in numbers)))):
                return True
    return False


def _negated_near(text: str, stems: frozenset[str]) -> bool:
    tokens = words(text)
    last = -REACH - 1  # where the last negation stood
    for at, token in enumerate(tokens):
        if negation_at(tokens, at) and tokens[at] not in WEAK:
            last = at
        elif at - last <= REACH and root(token) in stems:
            return True
    return False
