"""One buffered trace: its spans and logs, its top-level agent runs and when each is complete.

A trace can hold several agent runs (a workflow that calls agents one after another, a request
span wrapping two agents): every run-kind span with no run-kind span above it is a run of its
own, judged on its own. A run-kind span below another is part of that run (a sub-agent). Where
the link between two candidates has not arrived yet, a candidate that spans the other in time is
taken to be above it, until the chain says otherwise. With no run-kind span, the trace root is
the run (``root`` convention). At most :data:`MAX_RUNS_PER_TRACE` runs are tracked per trace;
further top-level candidates are not judged (counted ``runs_over_cap``, on ``/metrics`` as
``gsar_sidecar_runs_over_cap_total``), and their spans are held by no run.

A run is complete once its span and every span above it are present; the trace is settled once
every run is complete and the settle window has passed since the last of them completed.

Released, each run takes the spans below its run span and the spans above it (shared context
such as a request span's own attributes, held by every run below it); logs follow the span they
name. A span belongs to at most one run: with several runs (or a candidate past the cap), a
span below a run past the cap, or under no run and above none, goes to no run (counted
``withheld_over_cap`` / ``withheld_no_run``), so it never lends its evidence to a run it may not
belong to. With one run and no candidate past the cap, that run takes the whole trace.

The work is linear in the trace's spans: the chain above a span is walked once with shortcuts left
behind (:mod:`gsar_otel.sidecar.assembly.parent_links`); whether a new span is above a run is read
off the span the run waits for, without a walk; depths (for the stand-in of a trace with no run)
come from one pass, and the split from one pass over the spans.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gsar_otel.sidecar.assembly.parent_links import GAP, ROOT, STOP, ParentLinks
from gsar_otel.sidecar.conventions.registry import CONVENTION_ROOT, run_kind
from gsar_otel.sidecar.intake.spans import LogRecordData, SpanRecord

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.released import Released

MAX_RUNS_PER_TRACE = 64


@dataclass(slots=True)
class RunState:
    """One top-level run of a trace: its span and whether the chain above it is complete."""

    span: SpanRecord
    convention: str
    settle_from: float | None = None
    """When the run span and every span above it were present."""
    missing: str = ""
    """The span id above the run span the chain waits for (a cycle leaves it set for good)."""


@dataclass(slots=True)
class TraceBuffer:
    """The spans and logs of one trace, its runs and the bytes it holds."""

    first_seen: float
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    logs: list[LogRecordData] = field(default_factory=list)
    runs: dict[str, RunState] = field(default_factory=dict)
    spans_dropped: int = 0
    held: int = 0
    runs_over_cap: int = 0
    over_cap: dict[str, None] = field(default_factory=dict)
    """The span ids of top-level run candidates past :data:`MAX_RUNS_PER_TRACE`."""
    withheld_over_cap: int = 0
    """Spans and logs of the last :meth:`split` below a candidate past the cap (no run's)."""
    copies: dict[str, list[SpanRecord]] = field(default_factory=dict)
    """Span id -> later copies of it with other content (the first is in :attr:`spans`)."""
    extra: int = 0
    """How many copies :attr:`copies` holds."""
    withheld_no_run: int = 0
    """Spans and logs of the last :meth:`split` under no run and above none (no run's)."""
    has_run_span: bool = False
    """A span of the trace is an agent run of some convention (not only a root)."""
    has_evidence: bool = False
    """A span of the trace may carry a tool result, or a log record came for it."""
    tier: int = 0
    """Its eviction tier (:mod:`gsar_otel.sidecar.assembly.assembler`): 0 no run span, 1 a run span
    and no evidence yet, 2 a run span and evidence."""
    opened: int = 0
    """The order it was opened in (released oldest first)."""
    deadline_settle: float | None = None
    """The settle time its last deadline was filed for (:meth:`TraceAssembler.due`)."""
    after: Released | None = None
    """Set when the trace id came back after a verdict: a child of a judged run span, or a span
    that ended before the judged runs did, belongs to them and is late, not part of the new
    run (:mod:`gsar_otel.sidecar.assembly.released`)."""
    links: ParentLinks = field(init=False)
    """The parent links of :attr:`spans`, walked with shortcuts (:mod:`.parent_links`)."""
    _waiting: dict[str, list[str]] = field(default_factory=dict, init=False)
    """Absent span id -> the runs whose chain waits for it."""
    _candidate: str = field(default="", init=False)
    """The span being considered as a run (walks stop at it, never pass it)."""

    def __post_init__(self) -> None:
        self.links = ParentLinks(self.spans)

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
        """Hold ``span`` (its id not held yet): a run when it is a top-level run candidate,
        and the runs whose chain waited for it climb on."""
        self.spans[span.span_id] = span
        self._candidate = span.span_id
        try:
            self._consider(span, now)
        finally:
            self._candidate = ""
        for run_id in self._waiting.pop(span.span_id, ()):
            state = self.runs.get(run_id)
            if state is not None and state.settle_from is None and state.missing == span.span_id:
                self._climb(state, span.span_id, now)

    def add_copy(self, span: SpanRecord) -> None:
        """Hold another copy of a span id held, with other content: it goes where the first
        goes, and a run holds every copy in an order of their content, not of arrival."""
        self.copies.setdefault(span.span_id, []).append(span)
        self.extra += 1

    def all_spans(self) -> Iterator[SpanRecord]:
        """Every span held, copies too."""
        yield from self.spans.values()
        for copies in self.copies.values():
            yield from copies

    def _expand(self, spans: Iterable[SpanRecord]) -> tuple[SpanRecord, ...]:
        """``spans`` with the copies of each in their content's order (arrival aside)."""
        if not self.copies:
            return tuple(spans)
        out: list[SpanRecord] = []
        for span in spans:
            copies = self.copies.get(span.span_id)
            out.extend(sorted([span, *copies], key=_content) if copies else (span,))
        return tuple(out)

    def _consider(self, span: SpanRecord, now: float) -> None:
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
        if self._below_a_run(span):
            return  # below a run: part of it
        for span_id in [s for s, r in self.runs.items() if self._above(span, r)]:
            del self.runs[span_id]
        if kind == CONVENTION_ROOT:  # one root stands in for the run: the latest
            self.runs.clear()
        if len(self.runs) >= MAX_RUNS_PER_TRACE:
            self.runs_over_cap += 1
            self.over_cap[span.span_id] = None
            return
        state = self.runs[span.span_id] = RunState(span, kind)
        self._climb(state, span.span_id, now)

    def _stops(self) -> _Stops:
        return _Stops(self.runs, self._candidate)

    def _below_a_run(self, span: SpanRecord) -> bool:
        """A run is an ancestor of ``span``, or (while the chain above ``span`` is broken) a run
        spans it in time."""
        what, found = self.links.above(span.span_id, self._stops())
        if what == STOP:
            return found != span.span_id  # back at the span itself: a loop
        if what == GAP:
            return any(_contains(run.span, span) for run in self.runs.values())
        return False

    def _above(self, span: SpanRecord, run: RunState) -> bool:
        """``span`` (just arrived) is an ancestor of ``run``'s span, or (while the chain above
        the run is broken) spans it in time. No walk: a run's chain has been climbed up to the
        first span it lacks (``missing``), so it is below ``span`` exactly when it waits for it.
        A settled run's chain was complete before ``span`` arrived; a loop never reaches it."""
        if run.settle_from is not None:
            return False
        if run.missing == span.span_id:
            return True
        if run.missing in self.spans:
            return False  # a loop above the run
        return _contains(span, run.span)  # the link may not have arrived yet

    def _climb(self, state: RunState, start: str, now: float) -> None:
        """Walk up from ``start``: a root completes the chain, an absent parent is waited for,
        another run on the way makes this one part of it."""
        own = state.span.span_id
        node, passed, stops = start, {start}, self._stops()
        while True:
            what, found = self.links.above(node, stops)
            if what == STOP and found != own:
                del self.runs[own]  # below another run
                return
            if what == STOP and found not in passed:
                passed.add(found)
                node = found  # the run span itself on the way up: a loop, walked once round
                continue
            if what == ROOT:
                state.settle_from, state.missing = now, ""
                return
            state.missing = found  # a loop never completes; the hard cap releases it
            if what == GAP:
                self._waiting.setdefault(found, []).append(own)
            return

    # --- splitting ----------------------------------------------------------------------------

    def split(self) -> list[tuple[SpanRecord, tuple[SpanRecord, ...], tuple[LogRecordData, ...]]]:
        """Each run's span, spans and logs (see the module docstring); one entry per run. Each
        span goes to the run it is under, to the runs below it, or to none; logs follow their
        span. Linear in the spans, plus the chain above each run."""
        runs = list(self.runs.values())
        self.withheld_over_cap = self.withheld_no_run = 0
        if not runs or (len(runs) == 1 and not self.over_cap):
            return [(runs[0].span if runs else self._stand_in(),
                     self._expand(self.spans.values()), tuple(self.logs))]
        children: dict[str, list[str]] = defaultdict(list)
        for span in self.spans.values():
            if span.parent_span_id:
                children[span.parent_span_id].append(span.span_id)
        owners: dict[str, tuple[str, ...]] = {}
        """Span id -> the runs it goes to (none: below a candidate past the cap)."""
        for root, owner in [*((s.span.span_id, (s.span.span_id,)) for s in runs),
                            *((span_id, ()) for span_id in self.over_cap)]:
            stack = [root]
            while stack:
                span_id = stack.pop()
                if span_id in owners:
                    continue
                owners[span_id] = owner
                stack.extend(children.get(span_id, ()))
        owners.update(self._above_runs(runs, owners))
        spans: dict[str, list[SpanRecord]] = {state.span.span_id: [] for state in runs}
        logs: dict[str, list[LogRecordData]] = {state.span.span_id: [] for state in runs}
        for span in self.spans.values():
            for run_id in self._owners(owners, span.span_id):
                spans[run_id].append(span)
        for record in self.logs:
            for run_id in self._owners(owners, record.span_id):
                logs[run_id].append(record)
        return [(state.span, self._expand(spans[state.span.span_id]),
                 tuple(logs[state.span.span_id])) for state in runs]

    def _above_runs(self, runs: list[RunState], below: dict[str, tuple[str, ...]]
                    ) -> dict[str, tuple[str, ...]]:
        """The spans above runs (none below one) -> the runs below each: the chains above the
        runs walked once in all, then the runs gathered from the top down. A span whose chain
        up ends in a loop goes to no run. Linear in the spans walked."""
        parent: dict[str, str] = {}
        """Span above a run -> its parent when that is above a run too, else ''."""
        entries: dict[str, list[str]] = defaultdict(list)
        for state in runs:
            node = state.span.parent_span_id
            if node in self.spans and node not in below:
                entries[node].append(state.span.span_id)
            while node in self.spans and node not in below and node not in parent:
                up = self.spans[node].parent_span_id
                parent[node] = up if up in self.spans and up not in below else ""
                node = up
        children: dict[str, list[str]] = defaultdict(list)
        for node, up in parent.items():
            if up:
                children[up].append(node)
        found: dict[str, tuple[str, ...]] = {}
        for top in [node for node, up in parent.items() if not up]:
            order, stack = [], [top]  # a top's tree, parents before children
            while stack:
                node = stack.pop()
                order.append(node)
                stack.extend(children.get(node, ()))
            gathered: dict[str, list[str]] = {}
            for node in reversed(order):  # children first: a span gets the runs below it
                runs_below = list(entries.get(node, ()))
                for child in children.get(node, ()):
                    runs_below.extend(gathered.pop(child))
                gathered[node] = runs_below
                found[node] = tuple(dict.fromkeys(runs_below))
        return found

    def _owners(self, owners: dict[str, tuple[str, ...]], span_id: str) -> tuple[str, ...]:
        """The runs an item of ``span_id`` goes to; counts it when none."""
        owner = owners.get(span_id)
        if owner is None:
            self.withheld_no_run += 1
        elif not owner:
            self.withheld_over_cap += 1
        return owner or ()

    def _stand_in(self) -> SpanRecord:
        """No root and no agent span: the shallowest span present stands in for the run."""
        depth = self.links.depths()
        return min(self.spans.values(), key=lambda s: (depth[s.span_id], s.start_ns))


class _Stops:
    """Where a walk up stops: at a run, and at the span being considered (``candidate``)."""

    __slots__ = ("candidate", "runs")

    def __init__(self, runs: dict[str, RunState], candidate: str) -> None:
        self.runs, self.candidate = runs, candidate

    def __contains__(self, span_id: object) -> bool:
        return span_id in self.runs or (bool(self.candidate) and span_id == self.candidate)


def _content(span: SpanRecord) -> str:
    """A span's content as text: the order of copies of one span id."""
    return repr((span.name, span.parent_span_id, span.start_ns, span.end_ns, span.kind,
                 sorted(span.attributes.items(), key=lambda item: item[0]),
                 [(e.name, e.time_ns, sorted(e.attributes.items(), key=lambda i: i[0]))
                  for e in span.events]))


def _contains(outer: SpanRecord, inner: SpanRecord) -> bool:
    """``outer`` spans ``inner`` in time (their link may not have arrived yet) and is not the
    later-starting one."""
    return (outer.start_ns < inner.start_ns and outer.end_ns >= inner.end_ns > 0
            and outer.parent_span_id != inner.span_id)
