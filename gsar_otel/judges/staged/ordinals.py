"""A place in a sequence a claim names with an ordinal: "the third attempt" beside a CI run's
``run_attempt: 2``, "the 5th run" beside ``run_number: 4``, "the second revision" beside a
Deployment's ``revision: 3``.

An ordinal ("first" to "tenth", "1st", "22nd") before a noun of a one-based sequence (attempt,
run, retry, try, build, iteration, round, generation, revision) is a value of the record's
field that numbers it: a field whose key's last part is that noun, singular (``run_attempt``,
``attempt``, ``revision``), or the part before a number's (``run_number``); ``attempts`` and
``retry_count`` count, and are no place. Another number there is contradicted. Zero-based
places (partitions, shards, replicas, indexes) are none of these nouns: "the first partition"
is partition 0.
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.lexicon import KEY_SPLIT

ORDINAL_WORDS: Final = {word: place for place, word in enumerate(str.split(
    "first second third fourth fifth sixth seventh eighth ninth tenth"), start=1)}
SEQUENCE_NOUNS: Final = frozenset(str.split(
    "attempt run retry try build iteration round generation revision"))
"""Nouns of a one-based sequence, singular as a key writes them."""
_ORDINAL: Final = re.compile(
    rf"\b(?:({'|'.join(ORDINAL_WORDS)})|([1-9][0-9]{{0,3}})(?:st|nd|rd|th))\s+"
    rf"({'|'.join(SEQUENCE_NOUNS)})\b", re.IGNORECASE)
_NUMBER: Final = re.compile(r"[0-9]{1,6}")
_NUMBERING: Final = frozenset({"number", "num", "no", "seq"})
"""A key's last part that says the part before it is numbered (``run_number``)."""


def _place_field_key(key: str) -> str:
    """The noun a key numbers: its last part, as written (``run_attempt``: attempt), or the
    part before a number's (``run_number``, ``build_no``: run, build)."""
    parts = [p for p in KEY_SPLIT.split(key.lower()) if p]
    if len(parts) > 1 and parts[-1] in _NUMBERING:
        return parts[-2]
    return parts[-1] if parts else ""


def check_ordinals(slots: ClaimSlots, alignment: Alignment, index: FactIndex,
                   named: bool = True) -> list[Check]:
    """Each ordinal place the claim names against the field numbering that sequence in its
    focus records (see the module docstring); of a record the claim does not name ("it was the
    third attempt"), another place is one no evidence item states (ABSENT), not a conflict."""
    checks: list[Check] = []
    for said in _ORDINAL.finditer(slots.text):
        word, digits, noun = said.group(1), said.group(2), said.group(3).lower()
        place = ORDINAL_WORDS[word.lower()] if word else int(digits)
        held = [(index.facts[p], f) for p in alignment.focus for f in index.facts[p].fields
                if _place_field_key(f.key) == noun and _NUMBER.fullmatch(f.value.strip())]
        if not held or any(int(f.value) == place for _, f in held):
            continue
        fact, field = held[0]
        checks.append(Check("value", "CONFLICT" if named else "ABSENT",
                            f"says {said.group(0)}; {fact.ref} has {field.shown}", fact.ref,
                            fact.position))
    return checks
