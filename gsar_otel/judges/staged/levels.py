"""The level a claim says a log line was logged at, against the line's own level.

"checkout-api logged a slow query at ERROR level" beside ``WARN checkout-api slow query took
2300ms`` misstates the line: a warning reported as an error (or an error as a warning) is a
value the line holds, so it is checked like one. A claim says a level only in so many words
("at ERROR level", "an ERROR line", "logged an error", "logged a warning", "as INFO"); a line
states it as its level token (``ERROR``, ``WARN``), a ``level=`` field or a JSON ``"level"``.
Levels of one severity are one level: ERROR, ERR, FATAL and CRITICAL are errors; WARN and
WARNING warnings; DEBUG and TRACE debugging.
"""

from __future__ import annotations

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check, Status
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.textual import line_level, said_level


def check_level(slots: ClaimSlots, alignment: Alignment, index: FactIndex,
                text: str | None = None) -> Check | None:
    """The level the claim says (in ``text``, its lead included, else its own text) against
    the level of the line it is aligned with."""
    said = said_level(text if text is not None else slots.text)
    if said is None:
        return None
    for position in (*alignment.support, *alignment.focus):
        fact = index.facts[position]
        if fact.kind not in ("log", "signal", "row"):
            continue
        held = line_level(fact.text)
        if held is not None:
            status: Status = "MATCH" if held == said else "CONFLICT"
            return Check("level", status, f"says {said}; {fact.ref} is logged at {held}",
                         fact.ref, fact.position)
    return None
