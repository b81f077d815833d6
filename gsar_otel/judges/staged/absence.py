"""Absence claims: "no errors were logged", "error-free", "zero 5xx responses", against the tool
facts that would state what the claim says there was none of."""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import number_of
from gsar_otel.judges.staged.check_model import Check, Status
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.keyed import expanded
from gsar_otel.judges.staged.polarity import EMPTY as _EMPTY
from gsar_otel.judges.staged.roots import root

_PROBLEM_WORDS: Final = (
    "error errors warning warnings failure failures exception exceptions fault faults problem "
    "problems issue issues crash crashes")
LEVEL_STEMS: Final = frozenset(root(w) for w in _PROBLEM_WORDS.split())
"""What a log line at a problem level is, whatever else it says: "no errors" against an ERROR
line is contradicted even when the line itself says "no route to host"."""


def check_absence(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> list[Check]:
    """"No X" / "X-free" / "zero X" against tool facts that state X.

    A field keyed X with a value above zero, a problem-level log line when X is a kind of
    problem, or any tool fact naming X plainly (an alert row is an alert) contradicts it; a
    field keyed X holding zero supports it. Prose is not read for absences: its negations are
    too often another clause's."""
    checks = []
    for absent in slots.absent:
        if slots.subjects:  # any fact about any of them: the host's log, not only its alert
            pool = [index.facts[p] for p in alignment.about]
        else:  # "no errors were logged" of nothing in particular: of any fact
            pool = [index.facts[p] for p in sorted(
                set(index.by_stem.get(absent, ())) | set(alignment.support))]
        wanted = expanded(frozenset({absent})) | {absent}
        found: Check | None = None
        for fact in pool:
            if fact.kind == "prose":
                continue
            for field in fact.fields:
                if field.key_stems & wanted and field.value.lower() not in _EMPTY:
                    # a count of X says how many; any other value (an id, a name) is one X
                    numeric = [a for a in field.anchors if number_of(a) is not None]
                    status: Status = "MATCH" if numeric and all(
                        number_of(a) == 0 for a in numeric) else "CONFLICT"
                    found = Check("absence", status, f"says no {absent}; {fact.ref} has "
                                  f"{field.shown}", fact.ref, fact.position)
                    break
            if found is None and _ZERO_FOUND.search(fact.text):
                found = Check("absence", "MATCH", f"{fact.ref} found none", fact.ref,
                              fact.position)
            if found is None and fact.problem_level and absent in LEVEL_STEMS:
                found = Check("absence", "CONFLICT", f"says no {absent}; {fact.ref} logs "
                              f"{fact.text[:80]!r}", fact.ref, fact.position)
            if found is None and absent in fact.stems and not fact.facts.negated and not any(
                    field.key_stems & wanted for field in fact.fields):
                found = Check("absence", "CONFLICT", f"says no {absent}; {fact.ref} states "
                              f"{fact.text[:80]!r}", fact.ref, fact.position)
            if found is not None:
                break
        checks.append(found or Check("absence", "MATCH", f"no {absent} in the evidence"))
    return checks


_ZERO_FOUND: Final = re.compile(
    r"(?:\b(?:0|zero|no)\s(?:results?|matches|hits|rows|entries|records|events|lines|items)\b"
    r"|\bnone found\b|\b(?:count|total|hits|matches)=0\b)", re.IGNORECASE)
"""A tool result that found nothing: it supports "there were no X" for the X it searched."""
