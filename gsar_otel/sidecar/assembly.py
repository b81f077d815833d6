"""Per-trace buffers that turn a stream of spans into finished agent runs.

A run is ready once its run span (the topmost agent-run span of any convention, else the trace
root) and every span above it have arrived, and a settle window (``decision_wait_s``) has passed
since; a quiet period alone never makes a run ready, because a child can arrive before its root.
A sub-agent's span whose parent has not arrived is not yet the run: its parent may be an agent
too (or the HTTP request that holds the run), so the run waits for it. A trace with no
settled run span is released at the hard cap (``max_age_s`` from its first span), flagged
incomplete. Memory is bounded: past ``max_traces`` the oldest trace is evicted and past
``max_spans_per_trace`` further spans are dropped, each counted with a reason. Spans of a trace
already released are counted as late and gathered for a flag in the trace (``late.py``).
Nothing here is thread-safe: one event loop owns it.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gsar_otel.sidecar.conventions import CONVENTION_ROOT, is_own, run_kind
from gsar_otel.sidecar.late import LateBatch, LateTracker
from gsar_otel.sidecar.spans import LogRecordData, SpanRecord

READY_SETTLED = "settled"
"""The run span arrived and the settle window passed."""
INCOMPLETE_HARD_CAP = "hard_cap"
INCOMPLETE_PARENT_MISSING = "parent_missing"
"""The run span's parent (or a span above it) never arrived before the hard cap."""
INCOMPLETE_NO_RUN_SPAN = "no_run_span"
INCOMPLETE_SPANS_DROPPED = "spans_dropped"
INCOMPLETE_SHUTDOWN = "shutdown"

DROP_EVICTED = "evicted"
"""A trace pushed out by ``max_traces`` before it was ready."""
SPAN_ACCEPTED = "accepted"
SPAN_LATE = "late"
SPAN_OWN = "own"
SPAN_OVER_TRACE_CAP = "over_trace_cap"
SPAN_DUPLICATE = "duplicate"
RUN_SPAN_ALLOWANCE = 16
"""Run-span candidates and roots still admitted past ``max_spans_per_trace`` (so a full trace
can settle), up to this many more."""
LOG_ACCEPTED = "log_accepted"
LOG_UNTRACED = "log_untraced"
LOG_LATE = "log_late"
LOG_OVER_TRACE_CAP = "log_over_trace_cap"


@dataclass(frozen=True, slots=True)
class AssemblyLimits:
    """How long to wait for a run and how much to hold.

    Args:
        decision_wait_s: settle window after the run span arrives (the SDK batch delay is 5 s).
        max_age_s: hard cap from a trace's first span; released then, flagged incomplete.
        max_traces: most traces buffered; the oldest is evicted (counted) past it.
        max_spans_per_trace / max_logs_per_trace: more are dropped (counted) and the run is
            flagged incomplete.
        remember_released: trace ids remembered after release, to count late spans.
    """

    decision_wait_s: float = 10.0
    max_age_s: float = 300.0
    max_traces: int = 10_000
    max_spans_per_trace: int = 5_000
    max_logs_per_trace: int = 5_000
    remember_released: int = 100_000

    def __post_init__(self) -> None:
        for name in ("decision_wait_s", "max_age_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.max_age_s < self.decision_wait_s:
            raise ValueError(f"max_age_s ({self.max_age_s}) must be >= decision_wait_s "
                             f"({self.decision_wait_s})")
        for name in ("max_traces", "max_spans_per_trace", "max_logs_per_trace",
                     "remember_released"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class ReadyRun:
    """A trace released for judging: its spans, logs, the run span and why it was released."""

    trace_id: str
    spans: tuple[SpanRecord, ...]
    logs: tuple[LogRecordData, ...]
    run_span: SpanRecord | None
    convention: str
    reason: str
    """``settled``, or the reason the run is incomplete (``hard_cap``, ``shutdown`` ...)."""
    spans_dropped: int = 0
    first_seen: float = 0.0

    @property
    def incomplete(self) -> bool:
        return self.reason != READY_SETTLED or self.spans_dropped > 0

    @property
    def incomplete_reason(self) -> str:
        if self.reason != READY_SETTLED:
            return self.reason
        return INCOMPLETE_SPANS_DROPPED if self.spans_dropped else ""


@dataclass(slots=True)
class _Trace:
    first_seen: float
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    logs: list[LogRecordData] = field(default_factory=list)
    run_span: SpanRecord | None = None
    convention: str = CONVENTION_ROOT
    run_seen: float | None = None
    settle_from: float | None = None
    """When the run span and every span above it were present (the settle window's start)."""
    missing: str = ""
    """The span id above the run span the chain waits for (a cycle leaves it set for good)."""
    spans_dropped: int = 0

    def depth(self, span: SpanRecord) -> int:
        """Ancestors of ``span`` present in the buffer (bounded: ids may form a cycle)."""
        depth, parent, seen = 0, span.parent_span_id, {span.span_id}
        while parent and parent in self.spans and parent not in seen:
            seen.add(parent)
            depth += 1
            parent = self.spans[parent].parent_span_id
        return depth

    def consider(self, span: SpanRecord, now: float) -> None:
        """Make ``span`` the run span when it outranks the current one; restart the window."""
        kind = run_kind(span)
        current = self.run_span
        if kind is None:
            if span.parent_span_id or (current is not None
                                       and self.convention != CONVENTION_ROOT):
                return
            kind = CONVENTION_ROOT
        elif (current is not None and self.convention != CONVENTION_ROOT
              and not (self._is_ancestor(span, current) or _contains(span, current))):
            return  # topmost wins: a candidate replaces the current one only above it
        self.run_span, self.convention, self.run_seen = span, kind, now
        self.settle_from, self.missing = None, ""
        self._climb(span, now)

    def arrived(self, span: SpanRecord, now: float) -> None:
        """``span`` is in the buffer: if the run span's chain waited for it, climb on."""
        if self.settle_from is None and self.missing and span.span_id == self.missing:
            self._climb(span, now)

    def _climb(self, span: SpanRecord, now: float) -> None:
        """Walk up from ``span``: a root completes the chain, an absent parent is waited for."""
        seen = {span.span_id}
        node = span
        while node.parent_span_id:
            parent = node.parent_span_id
            if parent in seen:  # a cycle never completes; the hard cap releases it
                self.missing = parent
                return
            following = self.spans.get(parent)
            if following is None:
                self.missing = parent
                return
            seen.add(parent)
            node = following
        self.settle_from, self.missing = now, ""

    def _is_ancestor(self, candidate: SpanRecord, span: SpanRecord) -> bool:
        parent, seen = span.parent_span_id, {span.span_id}
        while parent and parent not in seen:
            if parent == candidate.span_id:
                return True
            seen.add(parent)
            node = self.spans.get(parent)
            if node is None:
                return False
            parent = node.parent_span_id
        return False


def _contains(outer: SpanRecord, inner: SpanRecord) -> bool:
    """``outer`` spans ``inner`` in time (their link may not have arrived yet) and is not the
    later-starting one."""
    return (outer.start_ns < inner.start_ns and outer.end_ns >= inner.end_ns > 0
            and outer.parent_span_id != inner.span_id)


class TraceAssembler:
    """Buffers spans and logs per trace and releases finished runs (see the module docstring).

    Args:
        limits: the windows and caps.
        clock: monotonic seconds (injectable so tests step time instead of sleeping).
    """

    def __init__(self, limits: AssemblyLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or AssemblyLimits()
        self.clock = clock
        self._traces: OrderedDict[str, _Trace] = OrderedDict()
        self._released: OrderedDict[str, str] = OrderedDict()
        """Released trace ids (the latest ``remember_released``) and their run span ids ("":
        evicted, or no span to flag under)."""
        self.late = LateTracker(wait_s=self.limits.decision_wait_s,
                                max_batches=self.limits.max_traces,
                                remember=self.limits.remember_released)
        self.counts: dict[str, int] = {}
        """Spans and logs by outcome, and ``evicted`` traces: every item lands in one bucket."""

    def _count(self, key: str, n: int = 1) -> None:
        if n:
            self.counts[key] = self.counts.get(key, 0) + n

    @property
    def pending(self) -> int:
        """Traces buffered now."""
        return len(self._traces)

    def add_spans(self, spans: Iterable[SpanRecord]) -> list[ReadyRun]:
        """Buffer spans; returns runs evicted to stay within ``max_traces`` (already counted,
        for the caller to report; they are not judged)."""
        now = self.clock()
        evicted: list[ReadyRun] = []
        limits = self.limits
        for span in spans:
            if is_own(span):
                self._count(SPAN_OWN)
                continue
            if span.trace_id in self._released:
                self._count(SPAN_LATE)
                if run_span_id := self._released[span.trace_id]:
                    self.late.add_span(span.trace_id, run_span_id, span, now)
                continue
            entry = self._traces.get(span.trace_id)
            if entry is None:
                if len(self._traces) >= limits.max_traces:
                    evicted.append(self._evict_oldest())
                entry = self._traces[span.trace_id] = _Trace(first_seen=now)
            if span.span_id in entry.spans:
                self._count(SPAN_DUPLICATE)
                continue
            allowance = RUN_SPAN_ALLOWANCE if (run_kind(span) or not span.parent_span_id) else 0
            if len(entry.spans) >= limits.max_spans_per_trace + allowance:
                entry.spans_dropped += 1
                self._count(SPAN_OVER_TRACE_CAP)
                continue
            entry.spans[span.span_id] = span
            entry.consider(span, now)
            entry.arrived(span, now)
            self._count(SPAN_ACCEPTED)
        return evicted

    def add_logs(self, logs: Iterable[LogRecordData]) -> list[ReadyRun]:
        """Buffer log records by trace id; records without one join no run (counted)."""
        now = self.clock()
        evicted: list[ReadyRun] = []
        for record in logs:
            if not record.trace_id:
                self._count(LOG_UNTRACED)
                continue
            if record.trace_id in self._released:
                self._count(LOG_LATE)
                if run_span_id := self._released[record.trace_id]:
                    self.late.add_log(record.trace_id, run_span_id, record, now)
                continue
            entry = self._traces.get(record.trace_id)
            if entry is None:
                if len(self._traces) >= self.limits.max_traces:
                    evicted.append(self._evict_oldest())
                entry = self._traces[record.trace_id] = _Trace(first_seen=now)
            if len(entry.logs) >= self.limits.max_logs_per_trace:
                entry.spans_dropped += 1
                self._count(LOG_OVER_TRACE_CAP)
                continue
            entry.logs.append(record)
            self._count(LOG_ACCEPTED)
        return evicted

    def due(self) -> list[ReadyRun]:
        """Release every run that is ready now: settled, or past the hard cap."""
        now = self.clock()
        limits = self.limits
        ready: list[str] = []
        for trace_id, entry in self._traces.items():
            settled = (entry.settle_from is not None
                       and now - entry.settle_from >= limits.decision_wait_s)
            if settled or now - entry.first_seen >= limits.max_age_s:
                ready.append(trace_id)
        return [self._release(trace_id, now) for trace_id in ready]

    def late_due(self, *, everything: bool = False) -> list[LateBatch]:
        """Late items to flag now: each trace's, once its window passed (all at shutdown)."""
        return self.late.due(self.clock(), everything=everything)

    def drain(self) -> list[ReadyRun]:
        """Release every buffered trace (at shutdown); unsettled runs are flagged."""
        now = self.clock()
        return [self._release(trace_id, now, shutdown=True) for trace_id in list(self._traces)]

    def _release(self, trace_id: str, now: float, *, shutdown: bool = False) -> ReadyRun:
        entry = self._traces.pop(trace_id)
        settled = (entry.settle_from is not None
                   and now - entry.settle_from >= self.limits.decision_wait_s)
        if settled:
            reason = READY_SETTLED
        elif shutdown:
            reason = INCOMPLETE_SHUTDOWN
        elif entry.run_span is None:
            reason = INCOMPLETE_NO_RUN_SPAN
        elif entry.settle_from is None:
            reason = INCOMPLETE_PARENT_MISSING
        else:
            reason = INCOMPLETE_HARD_CAP
        run_span = entry.run_span
        if run_span is None and entry.spans:
            # No root and no agent span: the shallowest span present stands in for the run.
            run_span = min(entry.spans.values(), key=lambda s: (entry.depth(s), s.start_ns))
        self._remember(trace_id, run_span.span_id if run_span is not None else "")
        return ReadyRun(trace_id=trace_id, spans=tuple(entry.spans.values()),
                        logs=tuple(entry.logs), run_span=run_span, convention=entry.convention,
                        reason=reason, spans_dropped=entry.spans_dropped,
                        first_seen=entry.first_seen)

    def _evict_oldest(self) -> ReadyRun:
        trace_id = next(iter(self._traces))
        run = self._release(trace_id, self.clock())
        self._released[trace_id] = ""  # never judged: its late items are only counted
        self._count(DROP_EVICTED)
        return run

    def _remember(self, trace_id: str, run_span_id: str) -> None:
        self._released[trace_id] = run_span_id
        while len(self._released) > self.limits.remember_released:
            self._released.popitem(last=False)
