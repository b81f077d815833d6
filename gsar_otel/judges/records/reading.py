"""Evidence read once into records.

Each evidence item is read by the first reader of :data:`READERS` that accepts it, and every
reader returns records (:mod:`.record`): JSON flattened with key paths (:mod:`.json_reader`),
text tables, ``key: value`` blocks, ``key=value`` and log lines, and prose
(:mod:`.text_reader`). Nothing is rendered to text to be read again. A new shape is one reader
in the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.records.json_reader import read_json
from gsar_otel.judges.records.record import Record
from gsar_otel.judges.records.text_reader import read_text

MAX_RECORDS: Final = 20_000
"""Most records read from one evidence set."""

Reader = Callable[[str, str], "list[Record] | None"]
"""Reads one item's text (with its id) into records, or returns None when it is not its shape."""

READERS: Final[tuple[Reader, ...]] = (read_json, read_text)
"""Readers in the order they are tried; the first that returns records wins."""


def read_evidence(evidence: EvidenceSet) -> list[Record]:
    """Every record of every item, in order, at most :data:`MAX_RECORDS`."""
    records: list[Record] = []
    for evidence_item in evidence:
        for reader in READERS:
            found = reader(evidence_item.id, evidence_item.content)
            if found:
                records.extend(found)
                break
        if len(records) >= MAX_RECORDS:
            return records[:MAX_RECORDS]
    return records
