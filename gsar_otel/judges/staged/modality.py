"""Modality: a prediction, a guess or a cause needs a fact that states it.

"The outage was caused by a config push" is grounded only when a fact states that cause: an
incident record's ``root_cause``, a sentence saying "because", or one tool line holding the event
with its condition. A push thirty seconds before the alert is no cause on record.
"""

from __future__ import annotations

from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import CAUSAL_STEMS, PREDICTION, ClaimSlots
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.polarity import POLARITY_COVERAGE
from gsar_otel.judges.staged.roots import root

CAUSE_COVERAGE: Final = 0.5
SPECULATION_COVERAGE: Final = 0.8
"""A hedged claim ("probably a memory leak") is grounded only when the evidence states nearly
all of it: a guess the evidence does not make is the judge's to flag."""
CAUSE_TALK: Final = CAUSAL_STEMS | {root(w) for w in ("root", "reason", "source", "origin")}
"""Words of causing, not of the cause: "root cause", "led to", "the reason"."""


def check_modality(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """A prediction or a cause needs a fact that states it."""
    support = [index.facts[p] for p in (*alignment.support, *alignment.related)]
    if slots.modality == "prediction":
        if any(PREDICTION.search(f.text) for f in support) and alignment.coverage >= 0.5:
            return Check("modality", "MATCH", "the prediction is stated")
        return Check("modality", "ABSENT", "prediction: nothing in the evidence states it")
    if slots.modality == "cause":
        cause = _cause_words(slots, alignment, index)
        stating = next((f for f in (index.facts[p] for p in (*alignment.support, *alignment.about,
                                                              *alignment.related))
                        if _causal(f) and len(cause & f.stems) >= CAUSE_COVERAGE * len(cause)),
                       None) if cause else None
        if stating is not None:
            return Check("modality", "MATCH", f"{stating.ref} states the cause", stating.ref,
                         stating.position)
        # every word of it in the facts the claim is about, one of which states a cause
        if not cause and any(_causal(f) and f.position in alignment.focus for f in support) \
                and alignment.coverage >= CAUSE_COVERAGE:
            return Check("modality", "MATCH", "the cause is stated")
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


def _cause_words(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> set[str]:
    """The words of a cause claim that no fact of its focus (the effect: the alert, the outage)
    holds, less the words of causing ("root cause", "led to"): what a fact stating the cause
    must hold, at least :data:`CAUSE_COVERAGE` of them. "The skipped logrotate run led to the
    DiskAlmostFull alert" beside ``root_cause="logrotate skipped on kafka-broker-6"``; a push
    thirty seconds before the alert states no cause, and "root cause: a bug in v3.9.11" is not
    the cause "enabling flag-7378"."""
    effect = {s for p in alignment.focus if not _causal(index.facts[p])
              for s in index.facts[p].stems}
    return {s for s in slots.stems if s not in effect and s not in CAUSE_TALK}
