"""Spans and log records that arrive after their run was judged: counted, and flagged in the trace.

A verdict is written once; late items are not judged again (a second verdict for the same run
would count the run twice in every decision metric). Instead the late items of a trace are
gathered for one settle window and then flagged with a ``gsar.sidecar.late_spans`` span in the
same trace, a child of and linked to the run span, saying how many arrived and how many tool
results (evidence) they carried, so a reader of the verdict sees that it was made without them.

Bounded: at most ``max_batches`` traces gather at once (past that the oldest is flagged
early), ``MAX_ITEMS`` items are kept per batch for reading and at most ``max_bytes`` in all
(the rest only counted), and a trace is flagged at most ``MAX_FLAGS_PER_TRACE`` times (later
items are only counted ``late``). A new run in a trace id already judged is not late: the
assembler opens a new buffer for it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from gsar_otel.sidecar.intake.spans import LogRecordData, SpanRecord

MAX_ITEMS = 256
MAX_FLAGS_PER_TRACE = 3


@dataclass(slots=True)
class LateBatch:
    """The late items of one released trace, gathered for one settle window."""

    trace_id: str
    run_span_id: str
    first_seen: float
    spans: list[SpanRecord] = field(default_factory=list)
    logs: list[LogRecordData] = field(default_factory=list)
    count: int = 0
    """Every late item of the window, including those not kept."""
    held: int = 0
    """Estimated bytes of the items kept."""


class LateTracker:
    """Gathers late items per trace and hands out batches to flag (see the module docstring)."""

    def __init__(self, *, wait_s: float, max_batches: int, remember: int,
                 max_bytes: int = 32 * 1024 * 1024) -> None:
        self.wait_s, self.max_batches, self.remember = wait_s, max_batches, remember
        self.max_bytes = max_bytes
        self.held_bytes = 0
        """Estimated bytes of the items kept in open batches."""
        self._batches: OrderedDict[str, LateBatch] = OrderedDict()
        self._flags: OrderedDict[str, int] = OrderedDict()
        self._early: list[LateBatch] = []

    @property
    def pending(self) -> int:
        """Traces gathering late items now."""
        return len(self._batches)

    def _batch(self, trace_id: str, run_span_id: str, now: float) -> LateBatch | None:
        batch = self._batches.get(trace_id)
        if batch is not None:
            return batch
        if self._flags.get(trace_id, 0) >= MAX_FLAGS_PER_TRACE:
            return None
        if len(self._batches) >= self.max_batches:
            self._early.append(self._close(next(iter(self._batches))))
        batch = self._batches[trace_id] = LateBatch(trace_id, run_span_id, now)
        return batch

    def _keeps(self, batch: LateBatch, size: int) -> bool:
        if (len(batch.spans) + len(batch.logs) >= MAX_ITEMS
                or self.held_bytes + size > self.max_bytes):
            return False
        batch.held += size
        self.held_bytes += size
        return True

    def add_span(self, trace_id: str, run_span_id: str, span: SpanRecord, now: float,
                 size: int = 0) -> None:
        """Note one late span (already counted ``late`` by the caller) of ``size`` bytes."""
        batch = self._batch(trace_id, run_span_id, now)
        if batch is not None:
            batch.count += 1
            if self._keeps(batch, size):
                batch.spans.append(span)

    def add_log(self, trace_id: str, run_span_id: str, record: LogRecordData,
                now: float, size: int = 0) -> None:
        """Note one late log record (already counted ``log_late`` by the caller)."""
        batch = self._batch(trace_id, run_span_id, now)
        if batch is not None:
            batch.count += 1
            if self._keeps(batch, size):
                batch.logs.append(record)

    def due(self, now: float, *, everything: bool = False) -> list[LateBatch]:
        """Batches whose window has passed (or all of them, at shutdown)."""
        ready = [trace_id for trace_id, batch in self._batches.items()
                 if everything or now - batch.first_seen >= self.wait_s]
        closed, self._early = [*self._early, *(self._close(t) for t in ready)], []
        return closed

    def _close(self, trace_id: str) -> LateBatch:
        batch = self._batches.pop(trace_id)
        self.held_bytes -= batch.held
        self._flags[trace_id] = self._flags.pop(trace_id, 0) + 1
        while len(self._flags) > self.remember:
            self._flags.popitem(last=False)
        return batch
