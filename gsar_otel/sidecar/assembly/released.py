"""Trace ids whose runs were released (judged, or evicted): what a later span of them is.

A span of a released trace is late (counted, and flagged under the judged run span,
:mod:`gsar_otel.sidecar.assembly.late`) whatever its timestamps: a remote clock may run ahead or
behind, so a span's start says nothing of which run it belongs to. Only a new agent-run span (a
run-kind span that is none of the released run spans nor a child of one) opens a new run in the same
trace id, with the spans of the same request below it; its other spans, sent before it in earlier
requests, were late already. No new run opens in a trace whose released run was its root standing in
for a run (everything of the trace was that run's), nor in an evicted one. A span of the released
runs that arrives while a new run gathers (a child of a released run span, or one that ended before
they did) is late too, never part of the new run.

Bounded: the latest ``remember`` trace ids, each with at most :data:`MAX_RUNS_PER_TRACE` run span
ids (the latest), as the late flags are (:class:`~gsar_otel.sidecar.assembly.late.LateTracker`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gsar_otel.sidecar.assembly.trace_buffer import MAX_RUNS_PER_TRACE
from gsar_otel.sidecar.conventions.registry import run_kind
from gsar_otel.sidecar.intake.spans import SpanRecord


@dataclass(frozen=True, slots=True)
class Released:
    """What is remembered of a released trace."""

    flag: str
    """The run span late items are flagged under ('': only counted, as after an eviction)."""
    runs: tuple[str, ...] = ()
    """The span ids of its released runs (the latest :data:`MAX_RUNS_PER_TRACE`)."""
    ended: int = 0
    """The latest end time of those runs (0: none known)."""
    whole: bool = False
    """A released run was the trace's root standing in (no agent-run span): it held the whole
    trace, so every later span is its."""

    def holds(self, span: SpanRecord) -> bool:
        """``span`` is one of the released run spans or a child of one."""
        return span.span_id in self.runs or span.parent_span_id in self.runs

    def starts_run(self, span: SpanRecord) -> bool:
        """``span`` is a new agent-run span (whatever its timestamps)."""
        return (bool(self.flag) and not self.whole and run_kind(span) is not None
                and not self.holds(span))


class ReleasedTraces:
    """The latest ``remember`` released trace ids, oldest first."""

    def __init__(self, remember: int) -> None:
        self.remember = remember
        self._ids: OrderedDict[str, Released] = OrderedDict()

    def __contains__(self, trace_id: object) -> bool:
        return trace_id in self._ids

    def get(self, trace_id: str) -> Released | None:
        return self._ids.get(trace_id)

    def add(self, trace_id: str, flag: str, runs: Iterable[str] = (), ended: int = 0, *,
            whole: bool = False) -> None:
        """Remember a release of ``trace_id`` (its runs added to those released before)."""
        before = self._ids.pop(trace_id, None) or Released("")
        ids = tuple(dict.fromkeys((*before.runs, *runs)))
        self._ids[trace_id] = Released(flag, ids[-MAX_RUNS_PER_TRACE:],
                                       max(ended, before.ended), whole or before.whole)
        while len(self._ids) > self.remember:
            self._ids.popitem(last=False)

    def unflag(self, trace_id: str) -> None:
        """Late items of ``trace_id`` are only counted from now on (it was evicted)."""
        before = self._ids[trace_id]
        self._ids[trace_id] = Released("", before.runs, before.ended, before.whole)

    def new_runs(self, spans: Iterable[SpanRecord], buffered: Mapping[str, object]
                 ) -> set[tuple[str, str]]:
        """The spans of one request that open a new run in a released trace with no buffer
        (``buffered``): new agent-run spans and the spans of the request below them, as
        (trace id, span id). Linear in the request's spans of released traces."""
        batch = {(s.trace_id, s.span_id): s for s in spans
                 if s.trace_id in self._ids and s.trace_id not in buffered}
        joining = {key for key, span in batch.items()
                   if self._ids[span.trace_id].starts_run(span)}
        if not joining:
            return joining
        outside: set[tuple[str, str]] = set()
        for key in batch:
            path, node = [], key
            while node in batch and node not in joining and node not in outside:
                path.append(node)
                outside.add(node)  # provisionally: also stops a loop
                node = (node[0], batch[node].parent_span_id)
            if node in joining:
                outside.difference_update(path)
                joining.update(path)
        return joining
