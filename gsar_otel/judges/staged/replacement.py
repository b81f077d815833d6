"""A name in another name's place: "run by lucas.martin" where the deploy's ``actor`` is
john.smith, ``ALRT-20933`` for ``ALRT-20932``, ``DiskSpaceCritical`` for ``DiskSpaceWarning``.

A claimed name found nowhere is ungrounded; when the facts about the claim's other subjects hold a
name of the same kind where it stands, the claim is contradicted, and the reason names both.
"""

from __future__ import annotations

import re

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.claims import AGENT, CAMEL, ClaimSlots
from gsar_otel.judges.staged.facts import Fact


def _signature(token: str) -> str:
    """A name's shape: ``lucas.martin`` and ``john.smith`` are ``a.a``, ``ALRT-20933`` and
    ``ALRT-20932`` are ``alrt-9``: names of one kind, where one stands in for the other."""
    shape = re.sub(r"[0-9]+", "9", re.sub(r"[a-z]+", "a", token.lower()))
    head = token.lower().split("-")[0]
    return shape if not any(ch.isdigit() for ch in token) else f"{head}|{shape}"


def replaced(subject: str, slots: ClaimSlots, about: list[Fact], alignment: Alignment,
              index: FactIndex) -> tuple[Fact, str] | None:
    """The name of the same kind that the facts about the claim's other subjects hold in its
    place ("run by lucas.martin" where the deploy's ``actor`` is john.smith), or None. Plain
    words have no kind to compare: only names with punctuation, digits or inner capitals."""
    camel = {m.group().lower() for m in CAMEL.finditer(slots.text)}
    if any(m.group(1).lower().rstrip(".") == subject for m in AGENT.finditer(slots.text)):
        # "closed by netops" where the fact that states the rest says who closed it
        holders = sorted({p for found in alignment.value_facts.values() for p in found})
        for fact in about or [index.facts[p] for p in holders]:  # "Ticket 4837 ..."
            for match in AGENT.finditer(fact.text):
                if match.group(1).lower().rstrip(".") != subject:
                    return fact, match.group(1).rstrip(".")
    shape = _signature(subject)
    if subject not in camel and shape == "a":
        return None
    for fact in about:
        names = ({m.group() for m in CAMEL.finditer(fact.text)} if subject in camel
                 else fact.subjects | {f.value for f in fact.fields if f.value})
        for name in sorted(names):
            if (name.lower() != subject and name.lower() not in slots.subjects
                    and (subject in camel or _signature(name) == shape)):
                return fact, name
    return None
