"""What extraction may read of one run: at most ``max_bytes`` of its spans' and logs' values.

Extraction parses message histories and tool results (JSON text), so its time and memory follow
what it reads. Before a run is extracted, its spans are taken in a stated order: the run span
first (it holds the answer), then the others smallest first (tool results are small, chat
spans repeating the whole history are large), logs last; a span or log record that no longer
fits keeps its ids, name and times but not its attribute values and events. The run is then
flagged (``extraction_capped``) with the number of items cut.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

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
