"""A count of a total written as one value: ``READY 1/3`` (kubectl), "1 of 3 replicas", "2/2
nodes ready".

A cell holding two numbers split by a slash is one value, the part and the whole. A claim's
"3/3" or "3 of 3" is compared as the pair with the pair fields of the records it is about
(those whose key the claim names first, else all of them): the same pair matches, another
contradicts, never each number on its own against any number of the row (``UP-TO-DATE=3``).
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact, Field

_SAID: Final = re.compile(r"(?<![\w./:-])(\d{1,6})\s{0,2}(?:/|\s(?:out\s{1,3})?of\s)\s{0,2}"
                          r"(\d{1,6})(?![\w/:-]|\.\d)")
"""A part and a whole a claim writes ("3/3", "1 of 3", "2 out of 5")."""
_HELD: Final = re.compile(r"\s{0,2}(\d{1,6})\s{0,2}/\s{0,2}(\d{1,6})\s{0,2}")
"""A cell that is a part and a whole (``1/3``)."""


def _pair(field: Field) -> tuple[int, int] | None:
    held = _HELD.fullmatch(field.value)
    return (int(held.group(1)), int(held.group(2))) if held else None


def _pair_fields(facts: list[Fact], stems: frozenset[str]) -> list[tuple[Fact, Field]]:
    """The pair fields of the facts: those whose key the claim names, else all."""
    held = [(f, field) for f in facts for field in f.fields if _HELD.fullmatch(field.value)]
    named = [(f, field) for f, field in held if field.key_stems & stems]
    return named or held


def check_pairs(slots: ClaimSlots, alignment: Alignment,
                index: FactIndex) -> tuple[list[Check], set[int]]:
    """Each part-and-whole the claim states against the pair fields of the records it is
    about; the checks, and the places of the claim's values they read (checked no further)."""
    about = [index.facts[p] for p in alignment.about]
    checks: list[Check] = []
    done: set[int] = set()
    for said in _SAID.finditer(slots.text):
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", slots.text[said.end():][:40])}
        fields = _pair_fields(about, frozenset(w.rstrip("s") for w in words) | slots.stems)
        if not fields:
            continue
        pair = (int(said.group(1)), int(said.group(2)))
        for place, value in enumerate(slots.values):
            if said.start() <= value.spec.raw.start < said.end():
                done.add(place)
        same = next(((f, field) for f, field in fields if _pair(field) == pair), None)
        fact, field = same or fields[0]
        checks.append(Check("value", "MATCH" if same else "CONFLICT",
                            f"says {said.group(0).strip()}; {fact.ref} has {field.shown}",
                            fact.ref, fact.position))
    return checks, done
