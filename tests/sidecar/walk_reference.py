"""The run assembly of one trace as it was first written: every question about the chain above a
span answered by walking it link by link, again for each run (quadratic in a chain's length).
Kept as the reference the linear :class:`gsar_otel.sidecar.assembly.trace_buffer.TraceBuffer`
must agree with (``test_parent_links.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gsar_otel.sidecar.assembly import trace_buffer
from gsar_otel.sidecar.assembly.trace_buffer import RunState
from gsar_otel.sidecar.conventions.registry import CONVENTION_ROOT, run_kind
from gsar_otel.sidecar.intake.spans import LogRecordData, SpanRecord


@dataclass(slots=True)
class WalkingTraceBuffer:
    """The assembly of one trace as it was before :mod:`gsar_otel.sidecar.assembly.parent_links`."""

    first_seen: float
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    logs: list[LogRecordData] = field(default_factory=list)
    runs: dict[str, RunState] = field(default_factory=dict)
    spans_dropped: int = 0
    held: int = 0
    runs_over_cap: int = 0
    over_cap: dict[str, None] = field(default_factory=dict)
    not_before_ns: int = 0
    """Set when the trace id came back after a verdict: spans that ended before this (the end
    of the judged run) belong to the judged run and are late, not part of the new one."""

    # --- runs ---------------------------------------------------------------------------------

    @property
    def settle_from(self) -> float | None:
        """When the last run completed, or None while a run is incomplete (or there is none)."""
        if not self.runs:
            return None
        times = [run.settle_from for run in self.runs.values()]
        if any(t is None for t in times):
            return None
        return max(t for t in times if t is not None)

    def add(self, span: SpanRecord, now: float) -> None:
        self.spans[span.span_id] = span
        self.consider(span, now)
        self.arrived(span, now)

    def consider(self, span: SpanRecord, now: float) -> None:
        """Make ``span`` a run when it is a top-level run candidate; drop runs it is above."""
        kind = run_kind(span)
        if kind is None:
            if span.parent_span_id or any(r.convention != CONVENTION_ROOT
                                          for r in self.runs.values()):
                return
            kind = CONVENTION_ROOT
        else:
            for span_id in [s for s, r in self.runs.items() if r.convention == CONVENTION_ROOT]:
                del self.runs[span_id]
        for run in self.runs.values():
            if kind == CONVENTION_ROOT and run.convention == CONVENTION_ROOT:
                continue
            if self._above(run.span, span):
                return  # below a run: part of it
        for span_id in [s for s, r in self.runs.items() if self._above(span, r.span)]:
            del self.runs[span_id]
        if kind == CONVENTION_ROOT:  # one root stands in for the run: the latest
            self.runs.clear()
        if len(self.runs) >= trace_buffer.MAX_RUNS_PER_TRACE:
            self.runs_over_cap += 1
            self.over_cap[span.span_id] = None
            return
        state = self.runs[span.span_id] = RunState(span, kind)
        self._climb(state, span, now)

    def arrived(self, span: SpanRecord, now: float) -> None:
        """``span`` is in the buffer: a run whose chain waited for it climbs on; a run that
        turns out to be below another is dropped from the runs."""
        for state in [r for r in self.runs.values()
                      if r.settle_from is None and r.missing == span.span_id]:
            if state.span.span_id in self.runs:
                self._climb(state, span, now)

    def _climb(self, state: RunState, span: SpanRecord, now: float) -> None:
        """Walk up from ``span``: a root completes the chain, an absent parent is waited for,
        another run on the way makes this one part of it."""
        seen = {span.span_id}
        node = span
        own = state.span.span_id
        while node.parent_span_id:
            parent = node.parent_span_id
            if parent in seen:  # a cycle never completes; the hard cap releases it
                state.missing = parent
                return
            if parent in self.runs and parent != own:
                del self.runs[own]  # below another run
                return
            following = self.spans.get(parent)
            if following is None:
                state.missing = parent
                return
            seen.add(parent)
            node = following
        state.settle_from, state.missing = now, ""

    def _above(self, upper: SpanRecord, lower: SpanRecord) -> bool:
        """``upper`` is an ancestor of ``lower``, or (while the chain above ``lower`` is
        broken) spans it in time."""
        parent, seen = lower.parent_span_id, {lower.span_id}
        while parent and parent not in seen:
            if parent == upper.span_id:
                return True
            seen.add(parent)
            node = self.spans.get(parent)
            if node is None:
                return _contains(upper, lower)  # the link may not have arrived yet
            parent = node.parent_span_id
        return False

    def depth(self, span: SpanRecord) -> int:
        """Ancestors of ``span`` present in the buffer (bounded: ids may form a cycle)."""
        depth, parent, seen = 0, span.parent_span_id, {span.span_id}
        while parent and parent in self.spans and parent not in seen:
            seen.add(parent)
            depth += 1
            parent = self.spans[parent].parent_span_id
        return depth

    # --- splitting ----------------------------------------------------------------------------

    def split(self) -> list[tuple[SpanRecord, tuple[SpanRecord, ...], tuple[LogRecordData, ...]]]:
        """Each run's span, spans and logs: a span goes to the first run on the chain from it
        up, else to none when a candidate past the cap is on it, else to every run it is above (none
        when the chain above it ends in a loop), else (with several runs, or a candidate past
        the cap) to none."""
        runs = list(self.runs.values())
        if not runs or (len(runs) == 1 and not self.over_cap):
            return [(runs[0].span if runs else self._stand_in(), tuple(self.spans.values()),
                     tuple(self.logs))]

        def chain(span_id: str) -> list[str]:
            out, seen = [], set()
            while span_id in self.spans and span_id not in seen:
                seen.add(span_id)
                out.append(span_id)
                span_id = self.spans[span_id].parent_span_id
            return out

        def owners(span_id: str) -> set[str]:
            up = chain(span_id)
            for node in up:
                if node in self.runs:
                    return {node}
            if any(node in self.over_cap for node in up):
                return set()
            if up and self.spans[up[-1]].parent_span_id in self.spans:
                return set()  # the chain above it ends in a loop
            return {run.span.span_id for run in runs
                    if span_id in chain(run.span.span_id)[1:]}

        out = []
        for state in runs:
            own = state.span.span_id
            spans = tuple(s for s in self.spans.values() if own in owners(s.span_id))
            logs = tuple(r for r in self.logs if own in owners(r.span_id))
            out.append((state.span, spans, logs))
        return out

    def _stand_in(self) -> SpanRecord:
        """No root and no agent span: the shallowest span present stands in for the run."""
        return min(self.spans.values(), key=lambda s: (self.depth(s), s.start_ns))


def _contains(outer: SpanRecord, inner: SpanRecord) -> bool:
    """``outer`` spans ``inner`` in time (their link may not have arrived yet) and is not the
    later-starting one."""
    return (outer.start_ns < inner.start_ns and outer.end_ns >= inner.end_ns > 0
            and outer.parent_span_id != inner.span_id)
