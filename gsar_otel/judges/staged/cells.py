"""A word a claim gives one row that another row of its table holds in the same column: "the
nginx worker process runs as root" beside a ``ps`` listing whose nginx row runs as
``www-data`` and whose ``/sbin/init`` row as ``root``.

The claim's words name one row (its only focus fact). A plain word the claim states that is,
in one column, another row's cell and not this row's is that column's value said of the wrong
row: contradicted. The claim's key need not be named ("runs as root" names no ``USER``): the
word is a cell of that column and of no other. A claim that also writes the row's own cell
("CNN beat LSTM") compares rows and is left to the other checks; so is a word that is a cell of
the row itself in another column.
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.alignment import Alignment, FactIndex, memo_table
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact

_CELL: Final = re.compile(r"[a-z][a-z_-]{2,39}")
"""A cell that is one plain word of three letters or more (``www-data``, ``root``)."""
_TOKEN: Final = re.compile(r"[a-z][a-z_-]*[a-z]")


def _columns(index: FactIndex, lead: Fact) -> dict[str, dict[str, int]]:
    """The plain-word cells of ``lead``'s table by column: key -> cell -> the first row holding
    it; every table of the evidence read once."""
    tables = memo_table(index, "table columns")
    if not tables:
        tables[None] = {}  # built, even for evidence with no table
        for fact in index.facts:
            if fact.kind != "row" or not fact.fields:
                continue
            columns = tables.setdefault((fact.ref, tuple(f.key for f in fact.fields)), {})
            for field in fact.fields:
                cell = field.value.strip().lower()
                if not field.anchors and _CELL.fullmatch(cell) and cell not in STOPWORDS:
                    columns.setdefault(field.key, {}).setdefault(cell, fact.position)
    found: dict[str, dict[str, int]] = tables.get(
        (lead.ref, tuple(f.key for f in lead.fields)), {})
    return found


def check_cells(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> list[Check]:
    """A CONFLICT where the claim gives its one row another row's cell (see the module
    docstring), else nothing."""
    if len(alignment.focus) != 1:
        return []
    lead = index.facts[alignment.focus[0]]
    if lead.kind != "row" or not lead.fields:
        return []
    columns = _columns(index, lead)
    tokens = set(_TOKEN.findall(slots.text.lower()))
    cells = {f.value.strip().lower() for f in lead.fields}
    for field in lead.fields:
        own = field.value.strip().lower()
        column = columns.get(field.key, {})
        if own in tokens or own not in column:
            continue  # the row's own cell is written, or is no plain word
        others = sorted(tokens & column.keys() - cells)
        if others:
            return [Check("value", "CONFLICT", f"says {others[0]} for {field.key}; {lead.ref} "
                          f"has {field.shown} ({others[0]} is another row's)", lead.ref,
                          lead.position)]
    return []
