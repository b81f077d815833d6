"""A range the claim states ("between 80 and 90%", "80-90%", "between 1 and 2 seconds"; read by
:func:`gsar_otel.core.anchor.derived.stated_ranges`) against the value of the key it names.

Its two ends are no values of their own: the range holds where the value of that key lies
within it, and is contradicted where it lies outside. The evidence's durations are compared in
seconds, and a fraction (``cpu=0.85``) is a share of a percentage range. A change "from A to B"
is read in its order against one the evidence writes so (:func:`check_order`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from gsar_otel.core.anchor.derived import Range, magnitude, stated_ranges
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


_VALUE_TEXT: Final = r"([\w./:-]{0,60}\w)(?:\s?[a-z%]{1,12})?"
"""A value as a change writes it, with its unit: bounded, so reading a text stays linear."""
_FROM_TO: Final = re.compile(rf"\bfrom\s+{_VALUE_TEXT}\s+to\s+([\w./:-]{{0,60}}\w)",
                           re.IGNORECASE)
_BEFORE_AFTER: Final = re.compile(rf"(?<![\w./:-]){_VALUE_TEXT}\s+before\s+and\s+{_VALUE_TEXT}"
                                  r"\s+after\b", re.IGNORECASE)
_NOW: Final = re.compile(r"\b(?:now|currently)\b", re.IGNORECASE)
"""A change written as from one value to another ("upgraded from v1.4.2 to v1.4.3")."""


_BEFORE: Final = ("old", "before", "prev", "previous", "from")
_AFTER: Final = ("new", "after", "current", "to")
_PART: Final = re.compile(r"[_.\-]")


def _before_after(fact: Fact) -> list[tuple[str, str, str]]:
    """(before, after, what) for each pair of fields of one key written before and after a
    change: ``replicas_old``/``replicas_new``, ``previous_version``/``current_version``."""
    sides: dict[str, dict[str, str]] = {}
    for field in fact.fields:
        parts = _PART.split(field.key.lower())
        for at, part in enumerate(parts):
            side = "before" if part in _BEFORE else "after" if part in _AFTER else None
            if side is not None and len(parts) > 1:
                base = "_".join(parts[:at] + parts[at + 1:])
                sides.setdefault(base, {})[side] = field.value.lower()
                break
    return [(pair["before"], pair["after"], base) for base, pair in sides.items()
            if "before" in pair and "after" in pair]


def _changes(fact: Fact) -> list[tuple[str, str, str]]:
    """(before, after, what changed and a space, or nothing) for each change a fact states: in
    its fields before and after (``replicas_old=8 replicas_new=1``), then in its words ("from 3
    to 5")."""
    said = [held.groups() for held in _FROM_TO.finditer(fact.text)]
    return [(one, other, f"{base} ") for one, other, base in _before_after(fact)] + [
        (one.lower().strip(".,"), other.lower().strip(".,"), "") for one, other in said]


_LEAD: Final = re.compile(r"-?\d{1,15}(?:\.\d{1,15})?")


def _among(written: str, said: set[str]) -> bool:
    """Whether a value a change writes ("10") is one the claim says ("10 seconds"): the same
    text, or a bare number equal to the number the claim's value starts with."""
    if written in said:
        return True
    if _LEAD.fullmatch(written) is None:
        return False
    return any((lead := _LEAD.match(s)) is not None and float(lead.group()) == float(written)
               for s in said)


def _check_now(slots: ClaimSlots, focus: Sequence[Fact]) -> Check | None:
    """"now has 3 replicas" or "scaled to 3 replicas" beside "scaled from 3 to 5": the value
    it was, not the value it came to."""
    # the values the claim says it came to: all of them after "now", else those after "to"
    now = _NOW.search(slots.text) is not None
    said = {v.spec.text.lower() for v in slots.values if now or slots.text[
        max(0, v.spec.raw.start - 8):v.spec.raw.start].rstrip().lower().endswith(" to")}
    if not said:
        return None
    for fact in focus:
        for one, other, _ in _changes(fact):
            if _among(one, said) and not _among(other, said) and one != other:
                return Check("value", "CONFLICT", f"says {one} now; {fact.ref} has it go from "
                             f"{one} to {other}", fact.ref, fact.position)
    return None


def check_order(slots: ClaimSlots, focus: Sequence[Fact]) -> Check | None:
    """"from A to B" against the changes the claim's facts state, in words or in a record's
    fields before and after: the same two values match; the other way round (an upgrade
    reported as a downgrade) or from A to another value (10 to 400 beside 10 to 30)
    contradicts it."""
    said = _FROM_TO.search(slots.text) or _BEFORE_AFTER.search(slots.text)
    if said is None:
        return _check_now(slots, focus)
    first, second = (w.lower().strip(".,") for w in said.groups())
    changes = [(fact, one, other, what) for fact in focus for one, other, what in _changes(fact)
               if one != other]
    for fact, one, other, _ in changes:
        if _among(one, {first}) and _among(other, {second}):
            return Check("value", "MATCH", f"from {first} to {second} matches {fact.ref}",
                         fact.ref, fact.position)
    for fact, one, other, what in changes:
        # from A to another value: where the change is a record's, or both ends are numbers
        # ("from 23 January to polling day" is no change to a value)
        other_end = _among(one, {first}) and (bool(what) or bool(
            _LEAD.match(other) and _LEAD.match(second)))
        if (_among(one, {second}) and _among(other, {first})) or other_end:
            return Check("value", "CONFLICT", f"says from {first} to {second}; {fact.ref} "
                         f"has {what}from {one} to {other}", fact.ref, fact.position)
    return None
