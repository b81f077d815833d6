"""A range the claim states ("between 80 and 90%", "80-90%", "between 1 and 2 seconds"; read by
:func:`gsar_otel.core.anchor_ranges.stated_ranges`) against the value of the key it names.

Its two ends are no values of their own: the range holds where the value of that key lies
within it, and is contradicted where it lies outside. The evidence's durations are compared in
seconds, and a fraction (``cpu=0.85``) is a share of a percentage range. A change "from A to B"
is read in its order against one the evidence writes so (:func:`check_order`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from gsar_otel.core.anchor_differences import magnitude
from gsar_otel.core.anchor_ranges import Range, stated_ranges
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots, Value
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.keyed import keyed_fields
from gsar_otel.judges.staged.roots import root

_PERCENT_KEYS: Final = frozenset(root(w) for w in ("pct", "percent"))
"""Key words saying a field already holds a percentage (``cpu_pct=85``, never a fraction)."""


def ranges_of(slots: ClaimSlots) -> dict[int, tuple[int, Range]]:
    """The place of each of the claim's values that starts a range, to the place of its other
    end and the range."""
    ranges = stated_ranges(slots.text, [v.spec.raw for v in slots.values])
    place = {v.spec.raw.start: at for at, v in enumerate(slots.values)}
    found: dict[int, tuple[int, Range]] = {}
    for stated in ranges.values():
        first, second = stated.ends
        if first in place and second in place:
            found[place[first]] = (place[second], stated)
    return found


def check_range(stated: Range, low: Value, high: Value,
                focus: Sequence[Fact]) -> tuple[Check, ...] | None:
    """The range ``low``-``high`` against the field of the key the claim names in the ``focus``
    facts: MATCH where its value lies within, CONFLICT where outside; None where no field of
    that key holds a number (the ends are then checked as values)."""
    outside: tuple[Fact, str] | None = None
    named = Value(high.spec, high.key_stems | low.key_stems)
    for fact, field, spec in keyed_fields(named, focus):
        number = magnitude(spec.raw, stated.seconds)
        if number is None:
            continue
        held = [number]
        if high.spec.kind == "PERCENT" and abs(number) <= 1 \
                and not field.key_stems & _PERCENT_KEYS:
            held.append(number * 100)  # cpu=0.85 is 85%
        if any(stated.holds(n) for n in held):
            reason = f"{low.spec.text}-{high.spec.text} holds {fact.ref} {field.shown}"
            return (Check("value", "MATCH", reason, fact.ref, fact.position),)
        outside = outside or (fact, field.shown)
    if outside is None:
        return None
    fact, shown = outside
    return (Check("value", "CONFLICT", f"says between {low.spec.text} and {high.spec.text}; "
                  f"{fact.ref} has {shown}", fact.ref, fact.position),)


_FROM_TO: Final = re.compile(r"\bfrom\s+([\w./:-]*\w)\s+to\s+([\w./:-]*\w)", re.IGNORECASE)
"""A change written as from one value to another ("upgraded from v1.4.2 to v1.4.3")."""


def check_order(slots: ClaimSlots, focus: Sequence[Fact]) -> Check | None:
    """"from A to B" against a fact stating "from B to A": the same two values, the other way
    round (an upgrade reported as a downgrade, a scale-up as a scale-down)."""
    said = _FROM_TO.search(slots.text)
    if said is None:
        return None
    first, second = (w.lower().strip(".,") for w in said.groups())
    for fact in focus:
        for held in _FROM_TO.finditer(fact.text):
            one, other = (w.lower().strip(".,") for w in held.groups())
            if (one, other) == (second, first) and one != other:
                return Check("value", "CONFLICT", f"says from {first} to {second}; {fact.ref} "
                             f"has from {one} to {other}", fact.ref, fact.position)
            if (one, other) == (first, second):
                return Check("value", "MATCH", f"from {first} to {second} matches {fact.ref}",
                             fact.ref, fact.position)
    return None
