"""Values a claim writes in another form than the evidence: the leading part of a value the
evidence writes whole (a commit id's short form, a version's release line), a number written
with a letter that a record keeps bare under a key ("v7" of ``Version 7``). Each form a row."""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind
from gsar_otel.judges.records.index import RecordIndex

LEADING_FORMS: Final = (
    # (a value written as, the rest of the evidence's word it begins, what it is)
    (re.compile(r"[0-9a-f]{7,12}"), re.compile(r"[0-9a-f]{8,40}\b"),
     "the short form of a commit id"),
    (re.compile(r"v?\d+\.\d+"), re.compile(r"(?:\.\d+[\w.+-]*|-[a-z][\w.]*)\b"),
     "the release line of a version"),
)
"""Values a claim writes as the leading part of one the evidence writes whole: a commit id's
short form, a version's release line ("3.6" of 3.6.1 or 3.6-IV2)."""
NUMBERED_FORMS: Final = (
    # (a value written as a letter and a number, words of a key keeping the number, what it is)
    (re.compile(r"[vV](\d{1,6})"), frozenset({"version", "revision", "generation"}), "version"),
)
"""Values a claim writes with a letter that a record keeps as a bare number under a key ("the
v7 allocations" beside Nomad's ``Version 7``)."""


def leading_form(anchor: Anchor, index: RecordIndex) -> tuple[tuple[str, ...], str] | None:
    """The items in whose text ``anchor`` begins a value written whole, as one of
    :data:`LEADING_FORMS`, and what it is; else None."""
    for written_as, rest, what in LEADING_FORMS:
        if written_as.fullmatch(anchor.text.lower()):
            leading = index.leading(anchor.text.lower(), rest)
            if leading:
                return leading, what
    return None


def numbered_form(anchor: Anchor) -> tuple[Anchor, frozenset[str], str] | None:
    """``anchor`` written as one of :data:`NUMBERED_FORMS`: the number it stands for, the words
    of the keys a record keeps it under, and what it is; else None."""
    for pattern, words, what in NUMBERED_FORMS:
        found = pattern.fullmatch(anchor.text)
        if found is not None:
            number = Anchor(AnchorKind.NUMBER, found.group(1), float(found.group(1)), None,
                            anchor.start, anchor.end, None)
            return number, words, f"{what} {found.group(1)}"
    return None
