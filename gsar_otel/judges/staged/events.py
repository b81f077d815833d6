"""Events and the states they leave: a time belongs to its own event, and a present state is the
record's latest event.

- **A time is its event's.** "Errors on checkout-api started at 10:15" beside the lines
  ``10:02 WARN checkout-api errors started`` and ``10:15 INFO checkout-api errors stopped``
  gives the start the stop's time: the time is in the evidence, but on a line of another event.
  The claim's event is the word it writes just before "at <time>" ("started at", "was opened
  on"). Where no tool line holding the time states that event and a tool line about the claim's
  subjects states it at another time, the claim is contradicted.
- **A duration is the span of its events.** "The checkout-api outage lasted 15 minutes" beside
  ``10:00 WARN checkout-api outage started`` and ``10:15 INFO checkout-api outage resolved`` is
  the time from the first line about the claim's subject naming what lasted to the last such
  line stating an end (resolved, recovered, ended, stopped ...), at the precision the duration
  is written; with only those two lines another duration is contradicted.
- **A state now is the latest event's.** "INC-12 is still open" beside a record with
  ``opened_at`` and a later ``closed_at`` states a state the record has left. A claim states a
  state now when it writes the category after a verb of being or "still" ("is open", "remains
  open", "still open"); an event in the past ("was opened at 10:02") is read as the event, which
  the record holds.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

from gsar_otel.core.anchor.model import Agreement, Anchor, AnchorKind
from gsar_otel.core.anchors import compare_anchors
from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import Spec, agree
from gsar_otel.judges.staged.categories import Category, category_of
from gsar_otel.judges.staged.check_model import Check, Status
from gsar_otel.judges.staged.claims import ClaimSlots, Value
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.roots import root

TIME_KINDS: Final = frozenset({"CLOCK", "TIMESTAMP"})
_EVENT_BEFORE: Final = re.compile(
    r"\b([a-z][a-z-]{2,30})\s+(?:at|around|by|on|@)\s+(?:about\s+|around\s+|approximately\s+"
    r"|roughly\s+)?$", re.IGNORECASE)
"""The word before "at <time>": the event the time is of ("started at 10:15")."""
EVENT_WINDOW: Final = 60
"""Characters before a time read for its event (a claim of many times costs each a few)."""
_NOT_EVENTS: Final = frozenset({"is", "was", "were", "are", "be", "been", "being", "it", "and",
                                "or", "but", "then", "up", "down", "time", "until", "logged"})
"""Words before "at" that name no event of their own ("was at 10:15", "logged at")."""
_NOW: Final = re.compile(r"\b(?:(?:is|are|remains?|stays?)\s+(?:still\s+|currently\s+|now\s+)?"
                         r"|still\s+)([a-z][\w-]*)", re.IGNORECASE)
"""A category stated as the present state: "is still open", "remains open", "still open"."""
TOOL_KINDS: Final = frozenset({"row", "signal", "log"})


def _times(fact: Fact) -> list[Spec]:
    return [s for s in fact.facts.anchors if s.kind in TIME_KINDS] + [
        s for field in fact.fields for s in field.anchors if s.kind in TIME_KINDS]


def check_event_time(slots: ClaimSlots, alignment: Alignment,
                     index: FactIndex) -> list[Check]:
    """Each time the claim gives an event, against the tool lines stating that event (see the
    module docstring)."""
    checks: list[Check] = []
    # a claim split off its subject ("... and stopped at 10:02") reads the lines it aligns with
    pool = alignment.focus if slots.subjects else alignment.support
    focus = [index.facts[p] for p in pool if index.facts[p].kind in TOOL_KINDS]
    for place, value in enumerate(slots.values):
        if value.spec.kind not in TIME_KINDS:
            continue
        start = value.spec.raw.start
        found = _EVENT_BEFORE.search(slots.text[max(0, start - EVENT_WINDOW):start])
        if found is None or found.group(1).lower() in _NOT_EVENTS | STOPWORDS:
            continue
        event = root(found.group(1).lower())
        holders = [index.facts[p] for p in alignment.value_facts.get(place, ())
                   if index.facts[p].kind in TOOL_KINDS and p in alignment.focus]
        if not holders or any(event in f.stems for f in holders):
            continue
        stating = next((f for f in focus if event in f.stems and f not in holders and any(
            agree(value.spec, t) == "conflict" for t in _times(f))), None)
        if stating is not None:
            shown = next(t.text for t in _times(stating) if agree(value.spec, t) == "conflict")
            checks.append(Check("value", "CONFLICT", f"says {found.group(1)} at "
                                f"{value.spec.text}; {stating.ref} has it at {shown}, and "
                                f"{holders[0].ref} at {value.spec.text} is another event",
                                stating.ref, stating.position))
    return checks


def _latest(fact: Fact, axis: str) -> tuple[str, Category] | None:
    """The latest time a field of ``fact`` keyed as an event of ``axis`` holds, with its
    category (``closed_at`` after ``opened_at``: closed)."""
    latest: tuple[str, Category] | None = None
    for field in fact.fields:
        for category in field.key_categories:
            if category[0] != axis:
                continue
            stamps = [s.value for s in field.anchors if s.kind == "TIMESTAMP"]
            if stamps and (latest is None or max(stamps) > latest[0]):
                latest = (max(stamps), category)
    return latest


def check_state_now(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> list[Check]:
    """A category stated as the present state, against the latest event of each focus record
    holding events of its axis (see the module docstring)."""
    checks: list[Check] = []
    said = {category_of(m.group(1).lower()) for m in _NOW.finditer(slots.text)}
    for category in said & set(slots.categories):
        if category is None:
            continue
        for position in alignment.focus:
            fact = index.facts[position]
            latest = _latest(fact, category[0])
            if latest is None or sum(category[0] == c[0] for field in fact.fields
                                     for c in field.key_categories) < 2:
                continue
            field = next(f for f in fact.fields if latest[1] in f.key_categories
                         and any(s.value == latest[0] for s in f.anchors))
            status: Status = "MATCH" if latest[1] == category else "CONFLICT"
            checks.append(Check("category", status, f"says {category[1].replace('_', ' ')} "
                                f"now; {fact.ref}'s latest event is {field.shown}",
                                fact.ref, fact.position))
            break
    return checks


_END_WORDS: Final = ("resolved recovered ended stopped closed restored finished completed "
                     "cleared mitigated healthy back")
END_STEMS: Final = frozenset(root(w) for w in _END_WORDS.split())
"""Words of a line that ends what lasted."""


def _moment(fact: Fact) -> datetime | None:
    stamp = next((s for s in _times(fact) if s.kind == "TIMESTAMP"), None)
    if stamp is None:
        return None
    try:
        moment = datetime.fromisoformat(str(stamp.value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def check_span(value: Value, slots: ClaimSlots, alignment: Alignment,
               index: FactIndex) -> Check | None:
    """A duration no fact holds, against the span of the lines about the claim's subjects that
    name what lasted: from the first to the last one ending it (see the module docstring)."""
    if not slots.subjects:
        return None
    named = slots.stems - END_STEMS
    lines = sorted(((moment, f) for p in alignment.about
                    if (f := index.facts[p]).kind in TOOL_KINDS and f.stems & named
                    and (moment := _moment(f)) is not None), key=lambda mf: mf[0])
    ends = [(m, f) for m, f in lines if f.stems & END_STEMS]
    if len(lines) < 2 or not ends or ends[-1][0] <= lines[0][0]:
        return None
    first, last = lines[0][1], ends[-1][1]
    seconds = (ends[-1][0] - lines[0][0]).total_seconds()
    span = Anchor(AnchorKind.DURATION, f"{seconds:g}s", seconds, "s", 0, 0, None)
    found = compare_anchors(value.spec.raw, span)
    if found is Agreement.MATCH:
        return Check("value", "MATCH", f"{value.spec.text} is the span from {first.ref} to "
                     f"{last.ref}", last.ref, last.position)
    if len(lines) == 2:
        return Check("value", "CONFLICT", f"says {value.spec.text}; {first.ref} to {last.ref} "
                     f"is {seconds:g} s", last.ref, last.position)
    return None
