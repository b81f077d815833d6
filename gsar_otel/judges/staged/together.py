"""Values a claim states together are of one record: "CPU on db-1 was 97% at 14:01" beside
``ts=14:01 host=db-1 cpu_pct=50`` and ``ts=14:02 host=db-1 cpu_pct=97``.

Each value is found in the evidence on its own (97% in the 14:02 row, 14:01 in the first), so
each value check matches; but the claim says both of one moment. Where a claim's time and one
of its measures match two records about the same subject, and the record holding the time has
the key the measure was found under with another value, the claim is contradicted by that
record: at 14:01 the CPU was 50%. A record at that time without that key (an alert fired at
14:01) decides nothing: "CPU hit 97% after the 14:01 alert" reads two records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from gsar_otel.judges.staged.aggregates import TIME_KINDS
from gsar_otel.judges.staged.alignment import FactIndex
from gsar_otel.judges.staged.anchoring import NAMING_KINDS
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.keyed import agreement

_NAMING: Final = NAMING_KINDS | {"VERSION"}
"""Kinds of value that name a thing rather than measure it at a time."""


def _matched(checks: Sequence[Check]) -> int | None:
    """The record a value's checks matched it in, when they all match one."""
    places = {c.position for c in checks if c.status == "MATCH"}
    if len(places) != 1 or any(c.status != "MATCH" for c in checks):
        return None
    return places.pop()


def check_together(slots: ClaimSlots, found: Mapping[int, Sequence[Check]],
                   index: FactIndex) -> Check | None:
    """A CONFLICT where the claim's time and a measure of it match two records of one subject
    and the time's record holds that measure otherwise (see the module docstring), else None.
    ``found``: each value's checks, by its place in ``slots.values``."""
    values = slots.values
    for when_at, when_checks in found.items():
        when = _matched(when_checks)
        if when is None or values[when_at].spec.kind not in TIME_KINDS:
            continue
        moment = index.facts[when]
        if moment.kind == "prose":
            continue
        for what_at, what_checks in found.items():
            there = _matched(what_checks)
            value = values[what_at]
            if there is None or there == when or value.spec.kind in TIME_KINDS | _NAMING:
                continue
            if index.facts[there].kind == "prose" or not (
                    moment.subjects & index.facts[there].subjects):
                continue
            # the key the measure was found under, as the time's record holds it
            key = next((f.key for f in index.facts[there].fields if any(
                agreement(value.spec, a) == "match" for a in f.anchors)), None)
            clash = next((f for f in moment.fields if f.key == key and any(
                agreement(value.spec, a) == "conflict" for a in f.anchors)), None)
            if clash is not None:
                return Check("value", "CONFLICT", f"says {value.spec.text} at "
                             f"{values[when_at].spec.text}; {moment.ref} at that time has "
                             f"{clash.shown}", moment.ref, moment.position)
    return None
