"""A claim about several subjects at once is the claim about each of them.

"api-1 and api-2 had 95% CPU", "Deploys dep-1 and dep-2 succeeded", "web-0, web-1 and web-2 were
down": each value and category the claim states must hold of every subject it lists, so the
claim is checked again with the list replaced by each subject in turn, and a value or category
another subject's facts contradict, or that none of them state, is the whole claim's. Only
subjects joined by nothing but commas, "and" or "&" are a list; claims that relate them rather
than say one thing of each ("between api-1 and api-2", "a combined 95%", "respectively", "differ
by 3") are left to the one check. Each listed subject costs one more alignment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots

_JOINT: Final = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|&\s*)\s*$", re.IGNORECASE)
"""What stands between two listed subjects: "a, b", "a and b", "a, and b", "a & b"."""
_RELATING: Final = re.compile(
    r"\b(?:between|among|combined|together|total|respectively|each other|one another|differ\w*"
    r"|versus|vs|compared)\b", re.IGNORECASE)
"""Words that make a list a relation of its subjects, not one thing said of each."""
_KINDS: Final = frozenset({"value", "category", "subject", "polarity"})
"""The checks that say what holds of a subject."""
MAX_LISTED: Final = 8
"""Listed subjects checked one by one; past this, the list is checked as a whole."""


def listed_subjects(slots: ClaimSlots) -> list[tuple[int, int, list[str]]] | None:
    """The claim's list of subjects as ``(start, end, subjects)`` in its text, or None when it
    names fewer than two, relates them, or lists more than :data:`MAX_LISTED`."""
    if len(slots.subjects) < 2 or _RELATING.search(slots.text):
        return None
    lowered = slots.text.lower()
    found: list[tuple[int, int, str]] = []
    for subject in dict.fromkeys(slots.subjects):
        match = re.search(rf"(?<![\w-]){re.escape(subject)}(?![\w-])", lowered)
        if match is not None:
            found.append((match.start(), match.end(), subject))
    found.sort()
    runs: list[list[tuple[int, int, str]]] = []
    for place in found:
        if runs and _JOINT.match(lowered[runs[-1][-1][1]:place[0]]):
            runs[-1].append(place)
        else:
            runs.append([place])
    lists = [run for run in runs if len(run) >= 2]
    if len(lists) != 1 or len(lists[0]) > MAX_LISTED:
        return None
    run = lists[0]
    return [(run[0][0], run[-1][1], [s for _, _, s in run])]


def each_subject(slots: ClaimSlots, judged: Callable[[str], list[Check]]) -> list[Check]:
    """The failed checks of the claim said of each listed subject alone (``judged`` checks a
    claim text), each reason naming the subject; none when the claim lists no subjects."""
    listed = listed_subjects(slots)
    if listed is None:
        return []
    start, end, subjects = listed[0]
    found: list[Check] = []
    for subject in subjects:
        alone = slots.text[:start] + subject + slots.text[end:]
        for check in judged(alone):
            if check.status != "MATCH" and check.kind in _KINDS:
                found.append(Check(check.kind, check.status, f"of {subject}: {check.reason}",
                                   check.ref, check.position, check.trend))
    return found
