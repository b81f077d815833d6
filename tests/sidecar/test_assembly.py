"""Run assembly with a stepped clock: run-span detection per convention, the settle window, the
hard cap, nested runs whose parent arrives late, bounded memory with counted evictions, late
spans."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, ReadyRun, TraceAssembler
from gsar_otel.sidecar.assembly.counts import ITEM_KEYS
from gsar_otel.sidecar.intake.spans import SpanRecord
from tests.sidecar.support import Clock

T1 = "0af7651916cd43dd8448eb211c80319c"



def make(span_id: str, parent: str = "", trace_id: str = T1, name: str = "span",
         start: int = 10, end: int = 20, scope: str = "agent", **attributes: Any) -> SpanRecord:
    return SpanRecord(trace_id=trace_id, span_id=span_id, parent_span_id=parent, name=name,
                      start_ns=start, end_ns=end, attributes=attributes, scope=scope)


def assembler(**limits: Any) -> tuple[TraceAssembler, Clock]:
    clock = Clock()
    values = {"decision_wait_s": 5.0, "max_age_s": 60.0, **limits}
    return TraceAssembler(AssemblyLimits(**values), clock=clock), clock


AGENT = {"gen_ai.operation.name": "invoke_agent"}


@pytest.mark.parametrize(("attributes", "convention"), [
    ({"gen_ai.operation.name": "invoke_agent"}, "genai"),
    ({"gen_ai.operation.name": "invoke_workflow"}, "genai"),
    ({"openinference.span.kind": "AGENT"}, "openinference"),
    ({"traceloop.span.kind": "workflow"}, "openllmetry"),
    ({"traceloop.span.kind": "agent"}, "openllmetry"),
    ({"ai.operationId": "ai.generateText"}, "vercel"),
])
def test_the_run_span_is_found_in_every_convention(attributes: dict[str, Any],
                                                   convention: str) -> None:
    buffer, clock = assembler()
    # A child arrives first, then the run span nested under an HTTP server root.
    buffer.add_spans([make("0000000000000003", "0000000000000002", name="tool")])
    buffer.add_spans([make("0000000000000002", "0000000000000001", name="run", **attributes)])
    buffer.add_spans([make("0000000000000001", name="GET /ask", start=0, end=30)])
    clock.now += 5
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "run"
    assert (run.convention, run.reason, run.incomplete) == (convention, "settled", False)
    assert len(run.spans) == 3


def test_a_chain_counts_only_as_the_root_and_the_root_is_the_fallback() -> None:
    buffer, clock = assembler()
    chain = {"openinference.span.kind": "CHAIN"}
    buffer.add_spans([make("0000000000000002", "0000000000000001", **chain)])
    clock.now += 10
    assert buffer.due() == []  # a nested chain is no run span, and quiet alone settles nothing
    buffer.add_spans([make("0000000000000001", name="root", start=0, end=30, **chain)])
    clock.now += 5
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "root"
    assert run.convention == "openinference"


def test_quiet_alone_never_releases_a_run() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000002", "0000000000000001")])
    clock.now += 59
    assert buffer.due() == []
    clock.now += 1
    (run,) = buffer.due()
    assert (run.reason, run.incomplete) == ("no_run_span", True)


def test_the_settle_window_starts_when_the_run_span_arrives() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000002", "0000000000000001")])
    clock.now += 30
    buffer.add_spans([make("0000000000000001", **AGENT)])
    clock.now += 4.9
    assert buffer.due() == []
    clock.now += 0.1
    assert [r.reason for r in buffer.due()] == ["settled"]


def test_a_higher_agent_span_takes_over_and_restarts_the_window() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000002", "0000000000000001", name="sub", **AGENT)])
    clock.now += 4
    buffer.add_spans([make("0000000000000001", name="top", start=0, end=30, **AGENT)])
    clock.now += 4
    assert buffer.due() == []
    clock.now += 1
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "top"


def test_a_sibling_agent_span_does_not_take_over_it_is_a_run_of_its_own() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000002", "0000000000000001", name="first", **AGENT)])
    buffer.add_spans([make("0000000000000003", "0000000000000001", name="second", start=25,
                           end=28, **AGENT)])
    buffer.add_spans([make("0000000000000001", name="GET /ask", start=0, end=30)])
    clock.now += 5
    first, second = buffer.due()
    assert first.run_span is not None and first.run_span.name == "first"
    assert second.run_span is not None and second.run_span.name == "second"


def test_a_run_span_without_a_settled_window_is_released_at_the_hard_cap() -> None:
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=6.0)
    buffer.add_spans([make("0000000000000002", "0000000000000001")])
    clock.now += 5.5
    buffer.add_spans([make("0000000000000001", **AGENT)])
    clock.now += 0.5
    (run,) = buffer.due()
    assert (run.reason, run.incomplete_reason) == ("hard_cap", "hard_cap")


def test_spans_of_a_released_trace_are_counted_late() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000001", **AGENT)])
    clock.now += 5
    assert len(buffer.due()) == 1
    buffer.add_spans([make("0000000000000009", "0000000000000001")])
    assert buffer.counts["late"] == 1
    assert buffer.pending == 0


def test_past_max_traces_the_oldest_is_evicted_and_counted() -> None:
    buffer, _ = assembler(max_traces=3)
    for n in range(5):
        evicted = buffer.add_spans([make("0000000000000001", trace_id=f"{n + 1:032x}",
                                         **AGENT)])
        assert len(evicted) == (1 if n >= 3 else 0)
    assert buffer.pending == 3
    assert buffer.counts["evicted"] == 2


def test_past_max_spans_per_trace_spans_are_dropped_and_the_run_flagged() -> None:
    buffer, clock = assembler(max_spans_per_trace=2)
    buffer.add_spans([make(f"{n + 2:016x}", "0000000000000001") for n in range(4)])
    buffer.add_spans([make("0000000000000001", **AGENT)])
    clock.now += 5
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.span_id == "0000000000000001"
    assert run.spans_dropped == 2 and run.incomplete
    assert run.incomplete_reason == "spans_dropped"
    assert buffer.counts["over_trace_cap"] == 2


def test_own_spans_and_duplicates_are_counted_not_buffered() -> None:
    from opentelemetry.trace import SpanContext

    buffer, _ = assembler()
    own = make("0000000000000001", scope="gsar_otel")
    buffer.written.note(SpanContext(int(own.trace_id, 16), 1, is_remote=False))
    buffer.add_spans([own, make("0000000000000002", **{"gsar.source": "sidecar"}),
                      make("0000000000000003"), make("0000000000000003")])
    # the look alone is not trusted: a span the sidecar did not write is forged
    assert buffer.counts == {"own": 1, "forged": 1, "accepted": 1, "duplicate": 1}
    assert buffer.forged == [(own.trace_id, "0000000000000002")]


def test_drain_releases_everything_flagged_shutdown() -> None:
    buffer, _ = assembler()
    buffer.add_spans([make("0000000000000001", **AGENT)])
    buffer.add_spans([make("0000000000000001", trace_id="1" * 32)])
    runs = buffer.drain()
    assert sorted(r.reason for r in runs) == ["shutdown", "shutdown"]
    assert buffer.pending == 0


def _run_id(run: ReadyRun) -> tuple[str, str]:
    return run.trace_id, run.run_span.span_id if run.run_span is not None else ""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6), st.booleans()),
                min_size=1, max_size=30),
       st.lists(st.floats(0, 20), min_size=1, max_size=10))
def test_every_span_lands_in_one_bucket_and_memory_stays_bounded(
        spans: list[tuple[int, int, bool]], steps: list[float]) -> None:
    """Any arrival order, parent graph (cycles included) and clock: every span is counted once,
    buffers stay within their caps and every run is eventually released exactly once (a trace
    id comes back only for a new agent-run span after a verdict)."""
    buffer, clock = assembler(max_traces=2, max_spans_per_trace=3, decision_wait_s=5.0,
                              max_age_s=10.0)
    released: list[tuple[str, str]] = []
    evicted: list[tuple[str, str]] = []
    evicted_runs = 0
    for index, (own, parent, agent) in enumerate(spans):
        trace_id = f"{index % 3 + 1:032x}"
        extra = AGENT if agent else {}
        runs = buffer.add_spans([make(
            f"{own:016x}", f"{parent:016x}" if parent else "", trace_id=trace_id, **extra)])
        evicted_runs += len(runs)
        evicted += sorted({_run_id(r) for r in runs})
        assert buffer.pending <= 2
        if index < len(steps):
            clock.now += steps[index]
            released += sorted({_run_id(r) for r in buffer.due()})
    released += sorted({_run_id(r) for r in buffer.drain()})
    counts = buffer.counts
    assert sum(v for k, v in counts.items() if k in ITEM_KEYS) == len(spans)
    assert counts.get("evicted", 0) == evicted_runs
    everything = released + evicted
    assert len(everything) == len(set(everything))  # each run released once
    assert buffer.held_bytes == 0


# --- nested runs: the parent of a sub-agent arrives after the settle window ----------------------

ROOT, SUB, TOOL = "0000000000000001", "0000000000000002", "0000000000000003"


def test_a_sub_agent_waits_for_a_parent_that_arrives_after_the_settle_window() -> None:
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=60.0)
    buffer.add_spans([make(TOOL, SUB, name="execute_tool")])
    buffer.add_spans([make(SUB, ROOT, name="invoke_agent researcher", **AGENT)])
    clock.now += 12  # well past --decision-wait: the sub-agent alone is not the run
    assert buffer.due() == []
    buffer.add_spans([make(ROOT, name="invoke_agent planner", start=0, end=30, **AGENT)])
    clock.now += 4.9
    assert buffer.due() == []
    clock.now += 0.1
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "invoke_agent planner"
    assert (run.reason, run.incomplete, len(run.spans)) == ("settled", False, 3)


def test_a_plain_parent_arriving_late_restarts_the_window_and_the_sub_agent_stays_the_run(
        ) -> None:
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=60.0)
    buffer.add_spans([make(SUB, ROOT, name="invoke_agent researcher", **AGENT)])
    clock.now += 20
    assert buffer.due() == []
    buffer.add_spans([make(ROOT, name="POST /ask", start=0, end=30)])
    clock.now += 4.9
    assert buffer.due() == []
    clock.now += 0.1
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "invoke_agent researcher"
    assert run.reason == "settled"


def test_a_parent_that_never_arrives_is_judged_at_the_hard_cap_flagged() -> None:
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=60.0)
    buffer.add_spans([make(SUB, ROOT, name="invoke_agent researcher", **AGENT)])
    clock.now += 59.9
    assert buffer.due() == []
    clock.now += 0.1
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "invoke_agent researcher"
    assert (run.reason, run.incomplete_reason) == ("parent_missing", "parent_missing")


def test_parent_ids_in_a_cycle_never_settle_and_are_released_at_the_hard_cap() -> None:
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=60.0)
    buffer.add_spans([make(SUB, ROOT, **AGENT), make(ROOT, SUB)])
    clock.now += 30
    assert buffer.due() == []
    clock.now += 30
    assert [r.reason for r in buffer.due()] == ["parent_missing"]


TREE = {  # span id -> (parent id, is an agent span)
    "0000000000000001": ("", False),                   # POST /ask
    "0000000000000002": ("0000000000000001", True),    # planner agent
    "0000000000000003": ("0000000000000002", True),    # researcher sub-agent
    "0000000000000004": ("0000000000000003", False),   # its tool
    "0000000000000005": ("0000000000000002", True),    # writer sub-agent
}


@settings(max_examples=150, deadline=None)
@given(st.permutations(sorted(TREE)), st.lists(st.floats(0, 12), min_size=5, max_size=5))
def test_any_arrival_order_settles_only_on_the_topmost_agent_with_its_chain(
        order: list[str], steps: list[float]) -> None:
    """Whatever order the spans of a nested run arrive in and however far apart, the trace is
    released once; released as settled, its run span has every span above it present and is the
    topmost agent span present (the root when none is); the rest of the spans count as late."""
    buffer, clock = assembler(decision_wait_s=5.0, max_age_s=600.0)
    released = []
    for span_id, step in zip(order, steps, strict=True):
        parent, agent = TREE[span_id]
        buffer.add_spans([make(span_id, parent, name=span_id, **(AGENT if agent else {}))])
        clock.now += step
        released += buffer.due()
    clock.now += 5.001  # the settle window, and a margin for the rounding of the summed steps
    released += buffer.due()
    (run,) = released
    assert run.reason == "settled" and run.run_span is not None
    present = {s.span_id for s in run.spans}
    node = run.run_span.span_id
    while TREE[node][0]:
        node = TREE[node][0]
        assert node in present
    agents = [i for i in present if TREE[i][1]]
    topmost = min(agents, key=lambda i: i) if agents else "0000000000000001"
    if "0000000000000002" in present or not agents:
        assert run.run_span.span_id == topmost
    assert len(run.spans) + buffer.counts.get("late", 0) == len(TREE)
