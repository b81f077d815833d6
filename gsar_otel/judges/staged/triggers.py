"""What started a run: "the deploy-prod run was triggered by a push to main" beside a CI
record's ``event: push``.

A run, job, workflow, build, pipeline or deployment "triggered / started / kicked off /
initiated / launched by" something names its trigger: the value of the record's trigger field
(GitHub Actions' ``event``, GitLab's ``source``, a deploy's ``triggered_by``), not a cause of
it and not an alert that fired. The claim holds the trigger when its words write the field's
value (``pull_request`` is "a pull request", ``schedule`` "the nightly schedule"); another value
is contradicted; a trigger no record of the run states, in a field or in its words, is not
grounded.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.roots import root

RUN_NOUNS: Final = frozenset(str.split(
    "run runs job jobs workflow workflows build builds pipeline pipelines deploy deploys "
    "deployment deployments rollout rollouts release releases"))
"""Nouns of a run of something, as written: the thing a trigger starts."""
TRIGGER_KEYS: Final = frozenset(root(w) for w in ("event", "trigger", "triggered", "source"))
"""Key words of a record's trigger field (``event``, ``trigger_type``, ``triggered_by``)."""
TRIGGER_VERBS: Final = frozenset({"triggered", "started", "kicked", "initiated", "launched"})
"""Verbs of starting a run, as written."""
_TRIGGERED: Final = re.compile(
    r"\b(?:triggered|started|kicked\s+off|initiated|launched)\s+(?:by|from|via)\s+"
    r"(?:(?:a|an|the)\s+)?([a-z][\w.\-]*(?:\s+[a-z][\w.\-]*)?)", re.IGNORECASE)
_VALUE: Final = re.compile(r"[a-z][\w./\-]{1,60}")
"""A field value that is one word (lowercased): ``push``, ``pull_request``, ``maria.lopez``."""


def trigger_of(text: str) -> tuple[str, ...]:
    """The words naming what triggered the run a claim speaks of (stopwords aside), or none:
    no "triggered by", or no run noun before it."""
    lowered = text.lower()
    found = _TRIGGERED.search(lowered)
    # the run is what was triggered: "the latency spike was triggered by the deploy" is a cause
    if found is None or RUN_NOUNS.isdisjoint(re.findall(r"[a-z]+", lowered[:found.start()])):
        return ()
    return tuple(w.rstrip(".") for w in found.group(1).split() if w not in STOPWORDS)


def as_trigger(slots: ClaimSlots) -> ClaimSlots:
    """``slots`` of a claim naming a run's trigger read as an observation of that field: no
    stated cause, and no alert that fired."""
    if slots.modality != "cause" and not any(c[0] == "alert_event" for c in slots.categories):
        return slots
    if not trigger_of(slots.text):
        return slots
    return dataclasses.replace(
        slots, modality="observation",
        categories=tuple(c for c in slots.categories if c[0] != "alert_event"))


def _normal(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


def check_trigger(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> list[Check]:
    """The trigger a claim names against the trigger field of the run's records (see the
    module docstring)."""
    said = trigger_of(slots.text)
    if not said:
        return []
    written = "".join(_normal(w) for w in said)
    for position in alignment.focus:
        fact = index.facts[position]
        field = next((f for f in fact.fields if f.key_stems & TRIGGER_KEYS and not f.anchors
                      and _VALUE.fullmatch(f.value.strip().lower())), None)
        if field is None:
            continue
        value = _normal(field.value)  # a letter first: never empty
        if value in written or written in value:
            return []
        return [Check("value", "CONFLICT", f"says triggered by {' '.join(said)}; {fact.ref} "
                      f"has {field.shown}", fact.ref, fact.position)]
    if all(root(w) not in alignment.missing for w in said):
        return []  # a record of the run states it in its words ("triggered by a push")
    return [Check("value", "ABSENT", f"says triggered by {' '.join(said)}; no evidence item "
                  "states what triggered the run")]
