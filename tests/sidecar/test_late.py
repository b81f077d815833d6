"""Spans that arrive after their run was judged: counted ``late`` and flagged once per window
with a ``gsar.sidecar.late_spans`` span in the same trace, within bounds."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel import semconv as sc
from gsar_otel.sidecar.assembly.assembler import TraceAssembler
from gsar_otel.sidecar.assembly.late import MAX_FLAGS_PER_TRACE, MAX_ITEMS
from gsar_otel.sidecar.intake.spans import LogRecordData
from tests.sidecar.support import start_sidecar
from tests.sidecar.test_assembly import AGENT, Clock, assembler, make
from tests.sidecar.test_receiver_http import (
    ROOT,
    TRACE,
    agent_spans,
    kv,
    otlp_json,
    post,
    span,
)

RUN = "0000000000000001"


def _released(buffer: TraceAssembler, clock: Clock, trace_id: str) -> None:
    buffer.add_spans([make(RUN, trace_id=trace_id, **AGENT)])
    clock.now += 5
    assert len(buffer.due()) == 1


def test_late_spans_and_logs_gather_for_one_window_then_make_one_batch() -> None:
    buffer, clock = assembler()
    trace_id = f"{7:032x}"
    _released(buffer, clock, trace_id)
    buffer.add_spans([make("0000000000000009", RUN, trace_id=trace_id)])
    buffer.add_logs([LogRecordData(trace_id=trace_id, span_id="0000000000000009", body="x",
                                   attributes={}, event_name="", time_ns=0)])
    clock.now += 4
    assert buffer.late_due() == []  # still in its window
    buffer.add_spans([make("000000000000000a", RUN, trace_id=trace_id)])
    clock.now += 1
    (batch,) = buffer.late_due()
    assert (batch.trace_id, batch.run_span_id, batch.count) == (trace_id, RUN, 3)
    assert (len(batch.spans), len(batch.logs)) == (2, 1)
    assert buffer.counts["late"] == 2 and buffer.counts["log_late"] == 1


def test_a_trace_is_flagged_at_most_a_few_times_and_its_later_spans_only_counted() -> None:
    buffer, clock = assembler()
    _released(buffer, clock, T := f"{8:032x}")
    flagged = 0
    for n in range(MAX_FLAGS_PER_TRACE + 3):
        buffer.add_spans([make(f"{n + 16:016x}", RUN, trace_id=T)])
        clock.now += 5
        flagged += len(buffer.late_due())
    assert flagged == MAX_FLAGS_PER_TRACE
    assert buffer.counts["late"] == MAX_FLAGS_PER_TRACE + 3


def test_an_evicted_trace_is_never_flagged_late() -> None:
    buffer, clock = assembler(max_traces=1)
    buffer.add_spans([make(RUN, trace_id=f"{1:032x}", **AGENT)])
    buffer.add_spans([make(RUN, trace_id=f"{2:032x}", **AGENT)])  # evicts trace 1
    buffer.add_spans([make("0000000000000009", RUN, trace_id=f"{1:032x}")])
    clock.now += 60
    assert buffer.counts["late"] == 1
    assert buffer.late_due(everything=True) == []


@settings(max_examples=60, deadline=None)
@given(arrivals=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 600), st.floats(0, 7)),
                         max_size=200),
       max_traces=st.integers(1, 4))
def test_any_late_arrivals_stay_bounded_and_every_one_is_counted(
        arrivals: list[tuple[int, int, float]], max_traces: int) -> None:
    buffer, clock = assembler(max_traces=max_traces)
    traces = [f"{n + 1:032x}" for n in range(6)]
    for trace_id in traces:
        _released(buffer, clock, trace_id)
    gathered = 0
    batches = []
    for trace, count, step in arrivals:
        spans = [make(f"{n + 16:016x}", RUN, trace_id=traces[trace]) for n in range(count)]
        buffer.add_spans(spans)
        clock.now += step
        batches += buffer.late_due()
        assert buffer.late.pending <= max_traces
        gathered += count
    batches += buffer.late_due(everything=True)
    assert buffer.counts.get("late", 0) == gathered
    assert sum(b.count for b in batches) <= gathered
    for batch in batches:
        assert len(batch.spans) + len(batch.logs) <= MAX_ITEMS
    per_trace = [sum(b.trace_id == t for b in batches) for t in traces]
    assert max(per_trace) <= MAX_FLAGS_PER_TRACE


def test_a_late_tool_result_is_flagged_in_the_trace_with_its_evidence() -> None:
    running = start_sidecar()
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the verdict")
        late_tool = span("eee19b7ec3c1b1ff", ROOT, "execute_tool get_logs", [
            kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_logs"),
            kv("gen_ai.tool.call.id", "call_9"),
            kv("gen_ai.tool.call.result", json.dumps({"log": "OOM killer at 14:01"}))])
        assert post(running, otlp_json(late_tool))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("late_flags", "flagged") == 1,
                         "the late flag")
        (flag,) = [s for s in running.exporter.get_finished_spans()
                   if s.name == sc.SPAN_SIDECAR_LATE]
    finally:
        running.stop()
    assert running.sidecar.stats.get("spans", "late") == 1
    assert flag.context.trace_id == int(TRACE, 16)
    assert flag.parent is not None and flag.parent.span_id == int(ROOT, 16)
    assert [link.context.span_id for link in flag.links] == [int(ROOT, 16)]
    attributes = dict(flag.attributes or {})
    assert attributes[sc.GSAR_SIDECAR_LATE_ITEMS] == 1
    assert attributes[sc.GSAR_SIDECAR_LATE_EVIDENCE] == 1
    assert attributes[sc.GSAR_SIDECAR_LATE_EVIDENCE_SOURCES] == ("get_logs@eee19b7ec3c1b1ff",)
    assert attributes[sc.GSAR_SOURCE] == sc.GSAR_SOURCE_SIDECAR


def test_late_spans_still_gathering_at_shutdown_are_flagged() -> None:
    running = start_sidecar(decision_wait_s=0.05)
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the verdict")
        running.call(lambda: setattr(running.sidecar.assembler.late, "wait_s", 3600.0))
        assert post(running, otlp_json(span("eee19b7ec3c1b1fe", ROOT, "step", [])))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("spans", "late") == 1, "late span")
    finally:
        running.stop()
    assert running.sidecar.stats.get("late_flags", "flagged") == 1
    names = [s.name for s in running.exporter.get_finished_spans()]
    assert names.count(sc.SPAN_SIDECAR_LATE) == 1


def test_a_late_span_from_a_clock_running_ahead_is_late_never_a_new_run() -> None:
    from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
    from gsar_otel.sidecar.intake.spans import SpanRecord

    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    trace_id = f"{9:032x}"
    buffer.add_spans([SpanRecord(trace_id, RUN, "", "invoke_agent bot", start_ns=1_000,
                                 end_ns=2_000, attributes=AGENT)])
    clock.now += 5
    assert len(buffer.due()) == 1
    ahead = 2_000 + 2_000_000_000  # both start 2 s after the run's end: a remote clock ahead
    buffer.add_spans([
        SpanRecord(trace_id, "0000000000000021", RUN, "execute_tool get_metrics",
                   start_ns=ahead, end_ns=ahead + 1, attributes={
                       "gen_ai.operation.name": "execute_tool",
                       "gen_ai.tool.call.result": "cpu_pct=12.5"}),
        SpanRecord(trace_id, "0000000000000022", "0000000000000020", "chat gpt-4o",
                   start_ns=ahead + 2, end_ns=ahead + 3,
                   attributes={"gen_ai.operation.name": "chat"})])
    assert buffer.counts["late"] == 2 and buffer.pending == 0
    clock.now += 60
    assert buffer.due() == []  # nothing left to judge at the hard cap: no phantom run
    (batch,) = buffer.late_due()
    assert (batch.run_span_id, batch.count) == (RUN, 2)


def test_a_straggler_of_the_judged_run_is_late_while_a_new_run_gathers() -> None:
    from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
    from gsar_otel.sidecar.intake.spans import SpanRecord

    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    trace_id = f"{10:032x}"
    buffer.add_spans([SpanRecord(trace_id, RUN, "", "invoke_agent first", start_ns=1_000,
                                 end_ns=2_000, attributes=AGENT)])
    clock.now += 5
    buffer.due()
    buffer.add_spans([SpanRecord(trace_id, "0000000000000030", "", "invoke_agent second",
                                 start_ns=5_000, end_ns=9_000, attributes=AGENT)])
    # the judged run's child, its clock ahead: ends after the judged run did
    buffer.add_spans([SpanRecord(trace_id, "0000000000000031", RUN, "execute_tool old",
                                 start_ns=6_000, end_ns=7_000)])
    assert buffer.counts["late"] == 1
    clock.now += 5
    (second,) = buffer.due()
    assert [s.name for s in second.spans] == ["invoke_agent second"]
