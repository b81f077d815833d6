"""Modality: a prediction, a guess or a cause needs a fact that states it.

"The outage was caused by a config push" is grounded only when a fact states that cause: an
incident record's ``root_cause``, a sentence saying "because", or one tool line holding the event
with its condition. A push thirty seconds before the alert is no cause on record.
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import CAUSAL_STEMS, PREDICTION, ClaimSlots, slots_of
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.lexicon import key_stems
from gsar_otel.judges.staged.polarity import POLARITY_COVERAGE
from gsar_otel.judges.staged.roots import root

CAUSE_COVERAGE: Final = 0.5
SPECULATION_COVERAGE: Final = 0.8
"""A hedged claim ("probably a memory leak") is grounded only when the evidence states nearly
all of it: a guess the evidence does not make is the judge's to flag."""
FUTURE_STEMS: Final = frozenset(root(w) for w in (
    "plan", "scheduled", "next", "expires", "expiry", "forecast", "predicted", "eta"))
"""A record of what will happen: a plan (``Plan: 1 to change``), a schedule (``next_run``), an
expiry (``not_after``), a forecast. Its values are the prediction's, compared as any value."""
CAUSE_TALK: Final = CAUSAL_STEMS | {root(w) for w in ("root", "reason", "source", "origin")}
"""Words of causing, not of the cause: "root cause", "led to", "the reason"."""


def check_modality(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """A prediction or a cause needs a fact that states it."""
    support = [index.facts[p] for p in (*alignment.support, *alignment.related)]
    if slots.modality == "prediction":
        # a record of what will happen states only the values it holds: "the TLS failure will
        # not happen again" is no certificate's expiry date
        stating = next((f for f in support if PREDICTION.search(f.text) or (
            f.kind != "prose" and slots.values and not FUTURE_STEMS.isdisjoint(f.stems))), None)
        if stating is not None and alignment.coverage >= 0.5:
            return Check("modality", "MATCH", f"{stating.ref} states what will happen",
                         stating.ref, stating.position)
        return Check("modality", "ABSENT", "prediction: nothing in the evidence states it")
    if slots.modality == "cause":
        stating = _stating_cause(slots, alignment, index)
        if stating is not None:
            return Check("modality", "MATCH", f"{stating.ref} states the cause", stating.ref,
                         stating.position)
        # one tool line holding the event and its condition is the system's own account
        # ("Evicted ... The node was low on resource: memory", "handshake failed: cert expired")
        lead = index.facts[alignment.support[0]] if alignment.support else None
        if lead is not None and lead.kind != "prose" and len(alignment.support) == 1 \
                and alignment.coverage >= POLARITY_COVERAGE:
            return Check("modality", "MATCH", f"{lead.ref} states the event with its reason",
                         lead.ref, lead.position)
        return Check("modality", "ABSENT", "cause: no evidence item states this cause")
    if slots.modality == "speculation" and alignment.coverage < SPECULATION_COVERAGE:
        shown = ", ".join(alignment.missing[:4])
        return Check("modality", "ABSENT", f"a guess: the evidence does not state {shown}")
    return None


def _causal(fact: Fact) -> bool:
    """A fact that states a cause: in words ("because", "root cause:") or under a cause key."""
    return fact.facts.causal or any("cause" in field.key for field in fact.fields)


def _stating_cause(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Fact | None:
    """A causal fact (a ``root_cause`` record, "root cause: ...", a sentence saying why) that
    holds at least :data:`CAUSE_COVERAGE` of the cause's words, one of them its own: not only
    the host or service the effect is about. The cause is the part of the claim
    :func:`cause_part` finds; when it finds none, or only a pronoun ("This resulted in ..."),
    the claim's words no fact of its effect holds (the focus facts that state no cause), or
    all its words when those facts hold every one. "The skipped logrotate run led to the
    DiskAlmostFull alert" beside ``root_cause="logrotate skipped on kafka-broker-6"``; "the
    driver upgrade on gpu-node-6" is no cause that record names, nor is "enabling flag-7378"
    the cause "root cause: a bug in v3.9.11" states."""
    effect = [index.facts[p] for p in alignment.focus if not _causal(index.facts[p])]
    held = {s for fact in effect for s in fact.stems}
    said = cause_part(slots.text)
    cause = slots_of(said) if said else slots
    names = {n.lower() for n in (*cause.subjects, *cause.names)}
    words = {s for s in cause.stems if s not in CAUSE_TALK} | names
    if said is None or not words - names:  # the cause not told apart from the effect
        words = ({s for s in slots.stems if s not in CAUSE_TALK} | names) - held or words
    shared = {n for n in names if n in held}  # the effect's host: a piece of every fact
    pieces = {p for n in shared for p in key_stems(n)}
    own = words - shared - pieces
    for position in (*alignment.support, *alignment.about, *alignment.related):
        fact = index.facts[position]
        if _causal(fact) and own & fact.stems \
                and len(words & fact.stems) >= CAUSE_COVERAGE * len(words):
            return fact
    return None


_CAUSED_BY: Final = re.compile(
    r"\b(?:(?:caused|triggered|induced|provoked|precipitated)\s+by|(?:due|owing|attributed|"
    r"attributable)\s+to|because(?:\s+of)?|result(?:ed|s|ing)?\s+from|blamed\s+on)\b",
    re.IGNORECASE)
_CAUSE_OF_WAS: Final = re.compile(
    r"\bcause\s+of(?:\s+\S+){1,12}?\s+(?:was|is|were|are)\b", re.IGNORECASE)
_CAUSING: Final = re.compile(
    r"\b(?:(?:was|is|were|are)\s+(?:the\s+|a\s+)?(?:root\s+)?cause\s+of|caused|causes|"
    r"led\s+to|leads\s+to|triggered|triggers|resulted\s+in|results\s+in|"
    r"(?:was|is|were|are)\s+responsible\s+for)\b", re.IGNORECASE)


def cause_part(text: str) -> str | None:
    """The words of a cause claim that name the cause: after "caused by", "due to",
    "because"; after "the root cause of Y was"; before "caused", "led to", "was the root cause
    of". None when the claim says no cause in one of these ways."""
    found = _CAUSED_BY.search(text) or _CAUSE_OF_WAS.search(text)
    if found is not None:
        return text[found.end():]
    found = _CAUSING.search(text)
    return text[:found.start()] if found is not None else None
