"""A claim of every record of a kind, or of none: "all pods were Running", "both hosts were
up", "no pod restarted", "none of the hosts were down".

"All X were V" is read against the facts about its subject, or, with no subject named, against
every record of the kind it names (a row keyed ``pod``, ``host``, ``service`` ...): one of them
with another value under the key that holds V elsewhere contradicts it. "No X V" / "none of the
X were V" is contradicted by a record of that kind that is V (a category of V, or a count of V
above zero: ``restarts=7`` for "no pod restarted"). "3 pods restarted" counts the records of the
kind that did (:func:`record_count`). One record agreeing is never the claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import number_of
from gsar_otel.judges.staged.categories import category_of, compatible, negate
from gsar_otel.judges.staged.check_model import Check, Status
from gsar_otel.judges.staged.claims import PREDICATES as PREDICATE_ROOTS
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import STATE_KEYS, Fact, Field
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS, NUMBER_WORDS
from gsar_otel.judges.staged.roots import root

_NONE: Final = re.compile(r"^\s*(?:no|none\s+of\s+the|not\s+(?:one|a\s+single)(?:\s+of\s+the)?)"
                          r"\s+([a-z][\w-]*)", re.IGNORECASE)
"""A claim that no record of a kind is something ("No pod restarted")."""


def _singular(noun: str) -> str:
    """The root of a kind's noun in the singular ("pods" is ``pod``)."""
    return root(noun[:-1] if noun.endswith("s") else noun)


def _records(kind: str, index: FactIndex, named_rows: bool = True) -> list[Fact]:
    """The records of a kind: facts with a name field keyed by it (``pod=api-1``,
    ``deploy_id=dep-5``); where no fact keys that kind, with ``named_rows``, the rows named by a
    ``NAME`` column (``kubectl get pods`` names its pods so; a row without the act's key
    decides nothing of "no pod restarted")."""
    found = {root(kind), _singular(kind)}
    keyed = [f for f in index.facts if any(
        field.key_stems & found and not any(number_of(a) is not None for a in field.anchors)
        for field in f.fields)]
    return keyed or [f for f in index.facts if named_rows and f.kind == "row" and any(
        field.key_stems == _NAME for field in f.fields)]


_NAME: Final = frozenset({root("name")})


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
                      if c[0] == axis and not compatible(c, (axis, pole))), None)
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
    for fact, field in records_that_did(slots, records, negated=True):
        return Check("quantifier", "CONFLICT", f"says none; {fact.ref} has {field.shown}",
                     fact.ref, fact.position)
    return None


def records_that_did(slots: ClaimSlots, records: Sequence[Fact],
                     negated: bool = False) -> Iterator[tuple[Fact, Field]]:
    """The records that did the claim's act, each with the field saying so: a count above zero
    under the act's key, or the act's category (the claim's categories, or, ``negated``, the
    opposites of the ones it states: "no pod was down" asks which were)."""
    acts = slots.stems | {root(w) for w in slots.text.lower().split()}
    poles = {c for w in slots.text.lower().split() if (c := category_of(w)) is not None}
    poles |= {c for p in slots.categories
              if (c := negate(p) if negated else p) is not None}
    for fact in records:
        for field in fact.fields:
            numbers = [n for a in field.anchors if (n := number_of(a)) is not None]
            if (field.key_stems & acts and not field.key_stems & IDENTITY_KEYS
                    and numbers and any(n > 0 for n in numbers)) or poles & set(field.categories):
                yield fact, field
                break


_COUNT: Final = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                           r"(?:of\s+the\s+)?([a-z][\w-]*)\b", re.IGNORECASE)
"""A count of records of a kind ("3 pods restarted", "two of the hosts were down")."""


def record_count(slots: ClaimSlots, index: FactIndex) -> tuple[Check, int] | None:
    """"3 pods restarted": how many records of the kind did the act (a count above zero under
    the act's key, or the act's category), against the number the claim gives; the check and
    where the number stands (it is no value of any one record). None where the kind has no
    records or none of them records the act."""
    said = _COUNT.search(slots.text)
    if said is None or len(slots.values) > 1:  # "3 hosts exceeded 90%": a threshold, not an act
        return None
    number = NUMBER_WORDS.get(said.group(1).lower(), said.group(1))
    noun = said.group(2).lower()
    records = _records(noun, index, named_rows=False)
    if len(records) < 2 or not number.isdigit():
        return None
    kind = _singular(noun)
    acts = {s for s in slots.stems if s != kind}
    did = []
    recorded = 0
    for fact in records:
        held = [n for field in fact.fields if field.key_stems & acts
                for a in field.anchors if (n := number_of(a)) is not None]
        states = {c for c in fact.categories if c[0] in {axis for axis, _ in slots.categories}}
        if held or states:
            recorded += 1
            if any(n > 0 for n in held) or states & set(slots.categories):
                did.append(fact)
    if recorded < 2:
        return None
    status: Status = "MATCH" if int(number) == len(did) else "CONFLICT"
    reason = (f"{len(did)} of {len(records)} {noun} in the evidence did"
              + ("" if status == "MATCH" else f", not {number}"))
    lead = did[0] if did else records[0]
    return Check("quantifier", status, reason, lead.ref, lead.position), said.start(1)
