"""What one run may cost: at most ``max_bytes`` of its spans' and logs' values read by extraction,
and at most ``max_pairs`` claims times evidence rows brought to the judge.

Extraction parses message histories and tool results (JSON text), so its time and memory follow
what it reads. Before a run is extracted, its spans are taken in a stated order: the run span
first (it holds the answer), then the others smallest first (tool results are small, chat
spans repeating the whole history are large), logs last; a span or log record that no longer
fits keeps its ids, name and times but not its attribute values and events. The run is then
flagged (``extraction_capped``) with the number of items cut.

The judge's cost is bounded before it starts: a run whose answer and evidence would take the
offline judges more than ``--max-judge-pairs`` comparisons (:class:`JudgingCost`) is not judged
but skipped, with a ``gsar.sidecar.skipped`` span (reason ``judging_budget``, a hint with the
figures) and a count (``runs_skipped{judging_budget}``), so no judging thread is held by it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gsar_otel.core.evidence import DEFAULT_MAX_ITEM_CHARS, DEFAULT_MAX_ITEMS
from gsar_otel.core.text import split_sentences
from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.intake.spans import LogRecordData, SpanRecord, held_size

DEFAULT_MAX_EXTRACT_BYTES = 64 * 1024 * 1024
NOTE_EXTRACTION_CAPPED = "extraction_capped"
_EMPTY: Any = MappingProxyType({})


def cap_run(run: ReadyRun, max_bytes: int = DEFAULT_MAX_EXTRACT_BYTES) -> tuple[ReadyRun, int]:
    """``run`` with at most ``max_bytes`` of values to read, and how many items were cut."""
    if run.size and run.size <= max_bytes:
        return run, 0
    run_span_id = run.run_span.span_id if run.run_span is not None else ""
    order = sorted(range(len(run.spans)), key=lambda i: (
        run.spans[i].span_id != run_span_id, held_size(run.spans[i])))
    left = max_bytes
    kept: dict[int, SpanRecord] = {}  # by place: copies of one span id are kept apart
    cut = 0
    for index in order:
        span = run.spans[index]
        size = held_size(span)
        if size <= left:
            left -= size
            kept[index] = span
        else:
            kept[index] = dataclasses.replace(span, attributes=_EMPTY, events=(), size=0)
            cut += 1
    logs: list[LogRecordData] = []
    for record in run.logs:
        size = held_size(record)
        if size <= left:
            left -= size
            logs.append(record)
        else:
            logs.append(dataclasses.replace(record, attributes=_EMPTY, body=None, size=0))
            cut += 1
    if not cut:
        return run, 0
    spans = tuple(kept[index] for index in range(len(run.spans)))
    return dataclasses.replace(run, spans=spans, logs=tuple(logs),
                               size=max_bytes - left), cut


# --- what judging one run may cost -----------------------------------------------------------

DEFAULT_MAX_JUDGE_PAIRS = 250_000
"""Claims times evidence rows one run may bring to the judge (``--max-judge-pairs``): about 1 s
of the offline judge's time on a shared 2-core machine (500 claims against 500 rows); the
issue's 1,000 x 1,000 run (4 s there) and the limit case (8 s) are over it."""


@dataclass(frozen=True, slots=True)
class JudgingCost:
    """What one run brings to the judge: the answer's claims (its sentences) and the evidence's
    rows (each item's non-empty lines, or its JSON objects when it holds more of them).

    The offline judges compare claims with rows, so their time grows with :attr:`pairs`; both
    counts take one linear pass over text extraction has already bounded."""

    claims: int
    rows: int

    @property
    def pairs(self) -> int:
        return self.claims * self.rows

    def over(self, max_pairs: int) -> bool:
        """True when judging would cost more than ``max_pairs`` (0: no bound)."""
        return max_pairs > 0 and self.pairs > max_pairs

    def hint(self, max_pairs: int) -> str:
        return (f"{self.claims} claims x {self.rows} evidence rows = {self.pairs} pairs, over "
                f"the run budget of {max_pairs} (--max-judge-pairs, GSAR_SIDECAR_MAX_JUDGE_PAIRS;"
                f" 0 judges every run whatever it costs)")


def evidence_rows(text: str) -> int:
    """The rows one evidence item holds: its non-empty lines, or its JSON objects (``{``) when
    there are more of those; at least 1."""
    lines = sum(1 for line in text.splitlines() if line.strip())
    return max(1, lines, text.count("{"))


def judging_cost(answer: str | None, evidence: Iterable[str]) -> JudgingCost:
    """The claims and rows of one extracted run (no answer: 0 claims), reading the evidence
    within the evidence set's own limits (each item's first 20,000 characters, 2,000 items)."""
    claims = len(split_sentences(answer)) if answer else 0
    rows = sum(evidence_rows(text[:DEFAULT_MAX_ITEM_CHARS])
               for text in itertools.islice(evidence, DEFAULT_MAX_ITEMS))
    return JudgingCost(claims, rows)
