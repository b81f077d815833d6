"""Per-trace buffers that turn a stream of spans into finished agent runs.

A trace's runs are its top-level agent-run spans of any convention (several in one trace are each
judged on their own), else the trace root (:mod:`gsar_otel.sidecar.assembly.trace_buffer`). A trace
is ready once every run span and every span above it have arrived, and a settle window
(``decision_wait_s``) has passed since; a quiet period alone never makes a run ready, because a
child can arrive before its root. A trace with no settled run is released at the hard cap
(``max_age_s`` from its first span), flagged incomplete.

Memory is bounded in bytes as well as in counts. Records hold plain values cut at intake
(:mod:`gsar_otel.sidecar.intake.spans`), each charged what it holds after decoding
(:mod:`gsar_otel.sidecar.intake.sizes`); a resource or scope name that spans share is charged once
while any buffered span holds it, and each trace buffer its own overhead. Past
``max_held_bytes`` (what is buffered here plus what the caller reports as queued for judging,
``outside_bytes``), or past ``max_traces``, a trace is evicted, in three tiers, oldest first
within each: traces with no agent-run span, rooted or not (junk and fragments), then traces
with a run span and no evidence yet (no tool span, model input history or log record), and
last traces with a run span and evidence, so a flood of junk, rooted or not, never evicts a run
with its evidence. Evicted runs (``evicted``) are counted apart from evicted traces with no
run span (``evicted_fragment`` with no root, ``evicted_no_run_span`` with one); past
``max_spans_per_trace`` further spans are dropped, each counted with a reason.

Spans of a trace already released are counted as late and gathered for a flag in the trace
(``late.py``) whatever their timestamps, except a new agent-run span and the spans of its request
below it: they open a new buffer for the same trace id, and its run is judged on its own
(:mod:`gsar_otel.sidecar.assembly.released`). Nothing here is thread-safe: one event loop owns it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gsar_otel.sidecar.assembly.counts import (
    DROP_EVICTED,
    DROP_EVICTED_FRAGMENT,
    DROP_EVICTED_NO_RUN_SPAN,
    LOG_ACCEPTED,
    LOG_LATE,
    LOG_OVER_TRACE_CAP,
    LOG_UNTRACED,
    RUNS_OVER_CAP,
    SPAN_ACCEPTED,
    SPAN_DUPLICATE,
    SPAN_DUPLICATE_CONFLICT,
    SPAN_FORGED,
    SPAN_LATE,
    SPAN_OVER_TRACE_CAP,
    SPAN_OWN,
    SPANS_WITHHELD_NO_RUN,
    SPANS_WITHHELD_OVER_CAP,
)
from gsar_otel.sidecar.assembly.late import LateBatch, LateTracker
from gsar_otel.sidecar.assembly.own_spans import WrittenSpans, is_own
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_CONFLICTING_SPANS as INCOMPLETE_CONFLICTING_SPANS,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_HARD_CAP as INCOMPLETE_HARD_CAP,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_NO_RUN_SPAN as INCOMPLETE_NO_RUN_SPAN,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_PARENT_MISSING as INCOMPLETE_PARENT_MISSING,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_SHUTDOWN as INCOMPLETE_SHUTDOWN,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_SPANS_DROPPED as INCOMPLETE_SPANS_DROPPED,
)
from gsar_otel.sidecar.assembly.ready import (
    INCOMPLETE_VALUES_TRUNCATED as INCOMPLETE_VALUES_TRUNCATED,
)
from gsar_otel.sidecar.assembly.ready import (
    READY_SETTLED as READY_SETTLED,
)
from gsar_otel.sidecar.assembly.ready import (
    ReadyRun as ReadyRun,
)
from gsar_otel.sidecar.assembly.released import ReleasedTraces
from gsar_otel.sidecar.assembly.trace_buffer import TraceBuffer
from gsar_otel.sidecar.conventions.registry import CONVENTION_ROOT, may_hold_evidence, run_kind
from gsar_otel.sidecar.intake.sizes import TRACE_OVERHEAD, SharedBytes
from gsar_otel.sidecar.intake.spans import (
    LogRecordData,
    SpanRecord,
    held_size,
    shared_parts,
    shared_size,
)

TIER_NO_RUN, TIER_NO_EVIDENCE, TIER_EVIDENCE = 0, 1, 2
"""Eviction tiers, evicted in this order."""
RUN_SPAN_ALLOWANCE = 16
"""Run-span candidates and roots still admitted past ``max_spans_per_trace`` (so a full trace
can settle), up to this many more."""
DEFAULT_MAX_HELD_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class AssemblyLimits:
    """How long to wait for a run and how much to hold.

    Args:
        decision_wait_s: settle window after the run span arrives (the SDK batch delay is 5 s).
        max_age_s: hard cap from a trace's first span; released then, flagged incomplete.
        max_traces: most traces buffered; one is evicted (counted) past it.
        max_spans_per_trace / max_logs_per_trace: more are dropped (counted) and the run is
            flagged incomplete.
        remember_released: trace ids remembered after release, to count late spans.
        max_held_bytes: most bytes held (after decoding, :mod:`.sizes`); traces are evicted past it.
    """

    decision_wait_s: float = 10.0
    max_age_s: float = 300.0
    max_traces: int = 10_000
    max_spans_per_trace: int = 5_000
    max_logs_per_trace: int = 5_000
    remember_released: int = 100_000
    max_held_bytes: int = DEFAULT_MAX_HELD_BYTES

    def __post_init__(self) -> None:
        for name in ("decision_wait_s", "max_age_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.max_age_s < self.decision_wait_s:
            raise ValueError(f"max_age_s ({self.max_age_s}) must be >= decision_wait_s "
                             f"({self.decision_wait_s})")
        for name in ("max_traces", "max_spans_per_trace", "max_logs_per_trace",
                     "remember_released", "max_held_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


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
        self._traces: OrderedDict[str, TraceBuffer] = OrderedDict()
        self._tiers: tuple[OrderedDict[str, None], ...] = (OrderedDict(), OrderedDict(),
                                                            OrderedDict())
        """Buffered traces by eviction tier (no run span; a run span without evidence; a run
        span with evidence), each oldest first: evicted in that order."""
        self._released = ReleasedTraces(self.limits.remember_released)
        """Released trace ids (the latest ``remember_released``): their run spans, and the one
        to flag late items under."""
        self.late = LateTracker(wait_s=self.limits.decision_wait_s,
                                max_batches=self.limits.max_traces,
                                remember=self.limits.remember_released,
                                max_bytes=max(1, self.limits.max_held_bytes // 16))
        self.counts: dict[str, int] = {}
        """Spans and logs by outcome (:data:`ITEM_KEYS`), traces evicted (``evicted``: runs,
        ``evicted_fragment`` / ``evicted_no_run_span``: traces with no run span) and
        ``runs_over_cap``."""
        self._held = 0
        self._shared = SharedBytes()
        self.written = WrittenSpans()
        """The spans the sidecar wrote (noted by its tracer): an own-looking span not among
        them is forged."""
        self.forged: list[tuple[str, str]] = []
        """(trace id, span id) of forged spans since the caller last took them."""
        self.outside_bytes = 0
        """Bytes of released runs still held by the caller (queued, being judged): set by the
        caller, counted against ``max_held_bytes``."""
        self._deadlines: list[tuple[float, int, str]] = []
        """(when, order, trace id): when a trace may be ready, the earliest first. Filed when a
        trace opens (its hard cap) and when its runs settle; a deadline whose trace is gone or
        not ready when it comes is dropped, so :meth:`due` costs what is due, not every trace
        held."""
        self._order = itertools.count()

    def _count(self, key: str, n: int = 1) -> None:
        if n:
            self.counts[key] = self.counts.get(key, 0) + n

    @property
    def held_bytes(self) -> int:
        """Bytes buffered now: records, trace buffers, and the resources and scope names their
        spans share (each once)."""
        return self._held + self._shared.total

    @property
    def pending(self) -> int:
        """Traces buffered now."""
        return len(self._traces)

    def add_spans(self, spans: Iterable[SpanRecord]) -> list[ReadyRun]:
        """Buffer spans; returns runs evicted to stay within ``max_traces`` and
        ``max_held_bytes`` (already counted, for the caller to report; they are not judged)."""
        now = self.clock()
        evicted: list[ReadyRun] = []
        limits = self.limits
        spans = tuple(spans)
        new_runs = self._released.new_runs(spans, self._traces)
        touched: set[str] = set()
        for span in spans:
            if is_own(span):
                if self.written.holds(span):
                    self._count(SPAN_OWN)
                else:
                    self._count(SPAN_FORGED)
                    self.forged.append((span.trace_id, span.span_id))
                continue
            entry = self._traces.get(span.trace_id)
            if entry is None and span.trace_id in self._released:
                if (span.trace_id, span.span_id) not in new_runs:
                    self._late_span(span, now)  # of a judged run, whatever its timestamps
                    continue
            elif entry is not None and entry.after is not None and (
                    entry.after.holds(span) or 0 < span.end_ns <= entry.after.ended):
                self._late_span(span, now)  # a straggler of the run judged before this one
                continue
            if entry is None:
                entry = self._open(span.trace_id, now, evicted)
            first = entry.spans.get(span.span_id)
            if first is not None and (span == first or span in entry.copies.get(span.span_id,
                                                                                   ())):
                self._count(SPAN_DUPLICATE)
                continue
            allowance = RUN_SPAN_ALLOWANCE if (run_kind(span) or not span.parent_span_id) else 0
            if len(entry.spans) + entry.extra >= limits.max_spans_per_trace + allowance:
                entry.spans_dropped += 1
                self._count(SPAN_OVER_TRACE_CAP)
                continue
            self._hold(entry, held_size(span))
            for part, size in shared_parts(span):
                self._shared.hold(part, size)
            if first is not None:  # the same id, other content: both kept, the run flagged
                entry.add_copy(span)
                self._count(SPAN_DUPLICATE_CONFLICT)
                self._fit(evicted)
                continue
            over_cap = entry.runs_over_cap
            entry.add(span, now)
            touched.add(span.trace_id)
            self._count(RUNS_OVER_CAP, entry.runs_over_cap - over_cap)
            entry.has_run_span = entry.has_run_span or run_kind(span) is not None
            entry.has_evidence = entry.has_evidence or may_hold_evidence(span)
            self._retier(span.trace_id, entry)
            self._count(SPAN_ACCEPTED)
            self._fit(evicted)
        for trace_id in touched:
            self._file_settled(trace_id)
        return evicted

    def _file(self, when: float, trace_id: str) -> None:
        heapq.heappush(self._deadlines, (when, next(self._order), trace_id))
        if len(self._deadlines) > 4 * len(self._traces) + 1024:  # churn: drop the stale
            self._deadlines = [d for d in self._deadlines if d[2] in self._traces]
            heapq.heapify(self._deadlines)

    def _file_settled(self, trace_id: str) -> None:
        """File the deadline of a trace whose runs settled (once per settle time)."""
        entry = self._traces.get(trace_id)
        if entry is None:
            return
        settle_from = entry.settle_from
        if settle_from != entry.deadline_settle:
            entry.deadline_settle = settle_from
            if settle_from is not None:
                self._file(settle_from + self.limits.decision_wait_s, trace_id)

    def add_logs(self, logs: Iterable[LogRecordData]) -> list[ReadyRun]:
        """Buffer log records by trace id; records without one join no run (counted)."""
        now = self.clock()
        evicted: list[ReadyRun] = []
        for record in logs:
            if not record.trace_id:
                self._count(LOG_UNTRACED)
                continue
            entry = self._traces.get(record.trace_id)
            released = self._released.get(record.trace_id)
            if entry is None and released is not None:
                self._count(LOG_LATE)
                if run_span_id := released.flag:
                    self.late.add_log(record.trace_id, run_span_id, record, now,
                                      held_size(record))
                continue
            if entry is None:
                entry = self._open(record.trace_id, now, evicted)
            if len(entry.logs) >= self.limits.max_logs_per_trace:
                entry.spans_dropped += 1
                self._count(LOG_OVER_TRACE_CAP)
                continue
            entry.logs.append(record)
            entry.has_evidence = True
            self._retier(record.trace_id, entry)
            self._hold(entry, held_size(record))
            self._count(LOG_ACCEPTED)
            self._fit(evicted)
        return evicted

    def _late_span(self, span: SpanRecord, now: float) -> None:
        self._count(SPAN_LATE)
        released = self._released.get(span.trace_id)
        if released is not None and released.flag:
            self.late.add_span(span.trace_id, released.flag, span, now, held_size(span)
                               + sum(size for _, size in shared_parts(span)))

    def _open(self, trace_id: str, now: float, evicted: list[ReadyRun]) -> TraceBuffer:
        while len(self._traces) >= self.limits.max_traces:
            evicted.extend(self._evict_one())
        entry = self._traces[trace_id] = TraceBuffer(first_seen=now)
        entry.opened = next(self._order)
        entry.after = self._released.get(trace_id)
        self._file(now + self.limits.max_age_s, trace_id)
        self._tiers[TIER_NO_RUN][trace_id] = None
        self._hold(entry, TRACE_OVERHEAD)
        return entry

    def _retier(self, trace_id: str, entry: TraceBuffer) -> None:
        tier = (TIER_NO_RUN if not entry.has_run_span
                else TIER_EVIDENCE if entry.has_evidence else TIER_NO_EVIDENCE)
        if tier != entry.tier:
            self._tiers[entry.tier].pop(trace_id, None)
            self._tiers[tier][trace_id] = None
            entry.tier = tier

    def _hold(self, entry: TraceBuffer, size: int) -> None:
        entry.held += size
        self._held += size

    def _fit(self, evicted: list[ReadyRun]) -> None:
        """Evict until what is held fits ``max_held_bytes``."""
        while self._traces and self.held_bytes + self.outside_bytes > self.limits.max_held_bytes:
            evicted.extend(self._evict_one())

    def due(self, limit: int | None = None) -> list[ReadyRun]:
        """Release the runs that are ready now: settled, or past the hard cap (of at most
        ``limit`` traces, oldest first; the rest at the next call)."""
        now = self.clock()
        limits = self.limits
        ready: dict[str, TraceBuffer] = {}
        deadlines = self._deadlines
        while deadlines and deadlines[0][0] <= now and (limit is None or len(ready) < limit):
            _, _, trace_id = heapq.heappop(deadlines)
            entry = self._traces.get(trace_id)
            if entry is None or trace_id in ready:
                continue  # released or evicted since, or due twice
            settle_from = entry.settle_from
            settled = settle_from is not None and now - settle_from >= limits.decision_wait_s
            if settled or now - entry.first_seen >= limits.max_age_s:
                ready[trace_id] = entry
            elif settle_from is None:
                entry.deadline_settle = None  # unsettled again: filed anew when it settles
        order = sorted(ready, key=lambda t: ready[t].opened)
        return [run for trace_id in order for run in self._release(trace_id, now)]

    def late_due(self, *, everything: bool = False) -> list[LateBatch]:
        """Late items to flag now: each trace's, once its window passed (all at shutdown)."""
        return self.late.due(self.clock(), everything=everything)

    def drain(self) -> list[ReadyRun]:
        """Release every buffered trace (at shutdown); unsettled runs are flagged. Oldest
        first, each trace's runs in the order they started."""
        now = self.clock()
        return [run for trace_id in list(self._traces)
                for run in self._release(trace_id, now, shutdown=True)]

    def _release(self, trace_id: str, now: float, *, shutdown: bool = False) -> list[ReadyRun]:
        entry = self._traces.pop(trace_id)
        self._tiers[entry.tier].pop(trace_id, None)
        self._held -= entry.held
        for span in entry.all_spans():
            for part, _ in shared_parts(span):
                self._shared.drop(part)
        if not entry.spans and not entry.logs:
            self._released.add(trace_id, "")
            return []
        runs: list[ReadyRun] = []
        parts = entry.split() if entry.spans else [(None, (), tuple(entry.logs))]
        self._count(SPANS_WITHHELD_OVER_CAP, entry.withheld_over_cap)
        self._count(SPANS_WITHHELD_NO_RUN, entry.withheld_no_run)
        for run_span, spans, logs in parts:
            state = entry.runs.get(run_span.span_id) if run_span is not None else None
            settled = (state is not None and state.settle_from is not None
                       and now - state.settle_from >= self.limits.decision_wait_s)
            if settled:
                reason = READY_SETTLED
            elif shutdown:
                reason = INCOMPLETE_SHUTDOWN
            elif state is None:
                reason = INCOMPLETE_NO_RUN_SPAN
            elif state.settle_from is None:
                reason = INCOMPLETE_PARENT_MISSING
            else:
                reason = INCOMPLETE_HARD_CAP
            size = (sum(held_size(s) for s in spans) + shared_size(spans)
                    + sum(held_size(r) for r in logs))
            runs.append(ReadyRun(
                trace_id=trace_id, spans=spans, logs=logs, run_span=run_span,
                convention=state.convention if state is not None else CONVENTION_ROOT,
                reason=reason, spans_dropped=entry.spans_dropped, first_seen=entry.first_seen,
                values_truncated=(sum(s.truncated for s in spans)
                                  + sum(r.truncated for r in logs)),
                runs_in_trace=len(parts), size=size,
                conflicting=len(spans) - len({s.span_id for s in spans})))
        runs.sort(key=lambda r: r.run_span.start_ns if r.run_span is not None else 0)
        last = runs[-1].run_span
        ended = max((r.run_span.end_ns for r in runs if r.run_span is not None), default=0)
        self._released.add(trace_id, last.span_id if last is not None else "",
                           (r.run_span.span_id for r in runs if r.run_span is not None), ended,
                           whole=any(r.convention == CONVENTION_ROOT for r in runs))
        return runs

    def _evict_one(self) -> list[ReadyRun]:
        """Evict the oldest trace of the lowest tier; count it (as runs when it has a run
        span, else as a trace)."""
        tier = next(t for t in self._tiers if t)
        trace_id = next(iter(tier))
        entry = self._traces[trace_id]
        runs = self._release(trace_id, self.clock())
        self._released.unflag(trace_id)  # late items only counted
        if entry.tier == TIER_NO_RUN:
            self._count(DROP_EVICTED_NO_RUN_SPAN if entry.runs else DROP_EVICTED_FRAGMENT)
            return []
        self._count(DROP_EVICTED, len(runs))
        return runs
