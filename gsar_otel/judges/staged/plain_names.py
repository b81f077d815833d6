"""Names written as plain words: "the checkout service", "the orders table", "bob restarted the
pod", "approved by alice".

A hyphenated or dotted name (``checkout-api``, ``maria.lopez``) is a subject wherever it stands;
a plain word is a name only by where it stands:

- **before the noun of what it names**, where the evidence names such things under that key:
  "the checkout service" beside ``service=search``, "the orders table" beside
  ``table=payments``;
- **as the one who acted**, where the evidence records who acted (``user=``, ``actor=``,
  ``author=``, ``acknowledged_by=`` ...): the words after "by" ("merged by alice"), or the
  claim's first words before a verb of acting ("bob restarted the pod", "Alice Smith
  acknowledged the incident").

- **as the evidence's own subject**: a plain word a record is about (``service=checkout``)
  is the claim's subject where the claim writes it ("checkout served 2712 requests"), so the
  claim is read against that record, never another row's (:func:`with_named`).

Such a name that no evidence item writes, in full, shortened ("payment" for
``payments-api``) or as a part of a name, is a name found nowhere: ungrounded. A word that
describes rather than names ("the upstream service", "the failing job") is passed over.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Final

from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.alignment import FactIndex
from gsar_otel.judges.staged.categories import category_of
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS, NUMBER_WORDS
from gsar_otel.judges.staged.roots import root


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


NOUNS: Final = _set("service services svc table tables queue queues topic topics bucket buckets "
                    "job jobs repo repository team database db pod pods container containers "
                    "app apps deployment deployments")
"""Nouns a plain word before names one of (where the evidence keys records by the noun)."""
ACTOR_KEYS: Final = _set("user username actor author owner assignee by operator approver "
                         "requester initiator")
"""Last parts of keys naming who acted (``user``, ``merged_by``, ``acknowledged_by``)."""
ACT_WORDS: Final = _set(
    "restarted deployed rolled pushed approved acknowledged merged deleted created scaled ran "
    "triggered changed updated reverted disabled enabled paged escalated resolved closed opened "
    "assigned rebooted drained cordoned killed started stopped applied committed")
"""Verbs of someone acting: the words before one at the claim's start name who."""
ACTS: Final = frozenset(root(w) for w in ACT_WORDS)
DESCRIBING: Final = _set(
    "affected failing failed upstream downstream primary secondary main backend frontend "
    "internal external same other whole entire new old legacy critical slow healthy unhealthy "
    "degraded impacted dependent shared public private remote local core this that each every "
    "any its their our your his her my the a an one two three several many all both main "
    "target source central global regional production staging prod dev test first second "
    "third last previous next latest earliest only single")
"""Words before a noun that describe it rather than name it."""
_WORD: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
MAX_ACTOR_WORDS: Final = 2


def key_parts(index: FactIndex) -> frozenset[str]:
    """Every part of every field key of the evidence, lowercased (``kubernetes.pod.name``
    keys pods)."""
    held = index.memo.get("keys")
    if held is None:  # once per evidence set, not once per claim
        held = index.memo["keys"] = frozenset(part for fact in index.facts
                                              for field in fact.fields
                                              for part in re.split(r"[_.\-/]", field.key.lower()))
    return held  # type: ignore[return-value]


def written(word: str, index: FactIndex) -> bool:
    """Whether an evidence token, or a part of one, writes ``word`` in full or shortened."""
    if word in index.by_token or root(word) in index.by_stem:
        return True
    return any(part.startswith(word[:3]) and (part.startswith(word) or word.startswith(part))
               and min(len(part), len(word)) >= 3
               for token in index.by_token if word[:3] in token
               for part in re.split(r"[-_./]", token))


def _acted(index: FactIndex, act: str) -> bool:
    """Whether a record of who acted holds the act (``user=alice action=restart``)."""
    return any(act in fact.stems and any(
        re.split(r"[_.\-/]", field.key.lower())[-1] in ACTOR_KEYS for field in fact.fields)
        for fact in (index.facts[p] for p in index.by_stem.get(act, ())))


def _candidates(tokens: list[str], index: FactIndex) -> Iterable[tuple[str, str]]:
    """(word, what it names) for each plain word the claim writes as a name."""
    keys = key_parts(index)
    for at, token in enumerate(tokens[1:], start=1):
        # "the orders table", never "Table 5" (a reference) nor "shows (Table 2)"
        following = tokens[at + 1] if at + 1 < len(tokens) else ""
        if token in NOUNS and (token.rstrip("s") in keys or token in keys) \
                and not following[:1].isdigit():
            yield tokens[at - 1], token
    lowered = [t.lower() for t in tokens]
    for at, token in enumerate(lowered[:-1]):
        # "merged by alice": the one who did what a record of actors holds
        if token == "by" and at and root(lowered[at - 1]) in ACTS and _acted(
                index, root(lowered[at - 1])):
            yield tokens[at + 1], "actor"
    for at, token in enumerate(lowered[1:MAX_ACTOR_WORDS + 1], start=1):
        if root(token) in ACTS:  # "bob restarted the pod", "Alice Smith acknowledged ..."
            if _acted(index, root(token)):
                yield from ((t, "actor") for t in tokens[:at])
            break


def check_plain_names(slots: ClaimSlots, index: FactIndex) -> list[Check]:
    """Each plain word the claim writes as a name, against every evidence item (see the module
    docstring)."""
    tokens = [t.rstrip(".-") for t in _WORD.findall(slots.text)]  # "the billing database."
    checks: list[Check] = []
    for word, noun in _candidates(tokens, index):
        lowered = word.lower().rstrip(".")
        if (lowered in STOPWORDS or lowered in DESCRIBING or lowered in NOUNS
                or lowered in NUMBER_WORDS or lowered.endswith("ed")  # "the evicted pods"
                or not lowered.isalpha() or category_of(lowered) is not None
                or lowered in slots.subjects or written(lowered, index)):
            continue
        checks.append(Check("subject", "ABSENT", f"{word} ({noun}) appears in no evidence "
                            "item"))
    return checks


MIN_NAME: Final = 3


def _plain_subjects(index: FactIndex) -> frozenset[str]:
    """Every plain word a record is about under a key that tells two or more records apart
    (``service=checkout`` beside ``service=cart``: rows to confuse; one entity's own table has
    none), once per evidence set."""
    held = index.memo.get("plain subjects")
    if held is None:
        by_key: dict[str, set[str]] = {}  # every value of the key: ``model=GPT-2`` tells too
        for fact in index.facts:
            for field in fact.fields if fact.kind != "prose" else ():
                if field.key_stems & IDENTITY_KEYS:
                    by_key.setdefault(field.key.lower(), set()).add(field.value.lower())
        held = index.memo["plain subjects"] = frozenset(
            v for values in by_key.values() if len(values) > 1 for v in values
            if v.isalpha() and len(v) >= MIN_NAME and v not in STOPWORDS)
    return held  # type: ignore[return-value]


def with_named(slots: ClaimSlots, index: FactIndex) -> ClaimSlots:
    """``slots`` with the plain words it writes that records are about as subjects too."""
    known = _plain_subjects(index)
    if not known:
        return slots
    named = [w for w in dict.fromkeys(t.lower() for t in _WORD.findall(slots.text))
             if w in known and w not in slots.subjects and category_of(w) is None]
    if not named:
        return slots
    return dataclasses.replace(slots, subjects=(*slots.subjects, *named),
                               names=tuple(n for n in slots.names if n not in named))
