"""A claim of every record of a kind, or of none: "all pods were Running", "both hosts were
up", "no pod restarted", "none of the hosts were down".

"All X were V" is read against the facts about its subject, or, with no subject named, against
every record of the kind it names (a row keyed ``pod``, ``host``, ``service`` ...): one of them
with another value under the key that holds V elsewhere contradicts it. "No X V" / "none of the
X were V" is contradicted by a record of that kind that is V (a category of V, or a count of V
above zero: ``restarts=7`` for "no pod restarted"). One record agreeing is never the claim.
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import number_of
from gsar_otel.judges.staged.categories import category_of, negate
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import PREDICATES as PREDICATE_ROOTS
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import STATE_KEYS, Fact
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS
from gsar_otel.judges.staged.roots import root

_NONE: Final = re.compile(r"^\s*(?:no|none\s+of\s+the|not\s+(?:one|a\s+single)(?:\s+of\s+the)?)"
                          r"\s+([a-z][\w-]*)", re.IGNORECASE)
"""A claim that no record of a kind is something ("No pod restarted")."""


def _records(kind: str, index: FactIndex) -> list[Fact]:
    """The records of a kind: facts with a name field keyed by it (``pod=api-1``,
    ``deploy_id=dep-5``)."""
    found = {root(kind), root(kind[:-1]) if kind.endswith("s") else root(kind)}
    return [f for f in index.facts if any(
        field.key_stems & found and not any(number_of(a) is not None for a in field.anchors)
        for field in f.fields)]


_ALL: Final = re.compile(r"\b(?:all|both|every|each)\s+(?:of\s+)?(?:the\s+)?([a-z][\w-]*)",
                         re.IGNORECASE)


def _kind_of(slots: ClaimSlots) -> str | None:
    """The kind of record a subject-less "all X" names: the word after its quantifier."""
    found = _ALL.search(slots.text)
    return found.group(1).lower() if found else None


def check_quantifier(slots: ClaimSlots, alignment: Alignment,
                     index: FactIndex) -> Check | None:
    """"All X were V" and "no X was V" against every record they speak of (see the module
    docstring)."""
    none = _NONE.match(slots.text)
    if none is not None:
        return _check_none(slots, _records(none.group(1), index))
    if not slots.facts.quant_both:
        return None
    if slots.subjects:
        about = [index.facts[p] for p in alignment.about]
    else:
        kind = _kind_of(slots)
        about = _records(kind, index) if kind else []
    for fact in about:  # "all hosts were up": a record of another pole on that axis
        other = next((c for c in fact.categories for axis, pole in slots.categories
                      if c[0] == axis and c[1] != pole), None)
        if other is not None:
            return Check("quantifier", "CONFLICT", f"says all; {fact.ref} is "
                         f"{other[1].replace('_', ' ')}", fact.ref, fact.position)
    said = set(slots.facts.stems)
    keys = {f.key for fact in about for f in fact.fields  # a value, not the subject itself
            if f.value.lower() not in slots.subjects and not f.key_stems & IDENTITY_KEYS
            and {root(w) for w in f.value.lower().split()} & said}
    if not keys:  # V held by none of them, while their state is recorded: another state
        unsaid = said - {s for fact in about for s in fact.stems} - PREDICATE_ROOTS
        keys = {f.key for fact in about for f in fact.fields
                if f.key_stems & STATE_KEYS} if unsaid else set()
    for fact in about:
        for field in fact.fields:
            if field.key in keys and not {root(w) for w in field.value.lower().split()} \
                    & said:
                return Check("quantifier", "CONFLICT", f"says all; {fact.ref} has "
                             f"{field.shown}", fact.ref, fact.position)
    return None


def _check_none(slots: ClaimSlots, records: list[Fact]) -> Check | None:
    """"No pod restarted": a record of the kind that did (a count above zero under the act's
    key, or the act's category) contradicts it."""
    acts = slots.stems | {root(w) for w in slots.text.lower().split()}
    poles = {c for w in slots.text.lower().split() if (c := category_of(w)) is not None}
    poles |= {c for p in slots.categories if (c := negate(p)) is not None}
    for fact in records:
        for field in fact.fields:
            numbers = [n for a in field.anchors if (n := number_of(a)) is not None]
            if field.key_stems & acts and not field.key_stems & IDENTITY_KEYS \
                    and numbers and any(n > 0 for n in numbers):
                return Check("quantifier", "CONFLICT", f"says none; {fact.ref} has "
                             f"{field.shown}", fact.ref, fact.position)
            if poles & set(field.categories):
                return Check("quantifier", "CONFLICT", f"says none; {fact.ref} has "
                             f"{field.shown}", fact.ref, fact.position)
    return None
