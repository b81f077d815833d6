"""Junk root spans (traces that have a root span but no agent run) never cost a real run its
place: past ``max_held_bytes`` traces with no run span go first whatever their rootedness, then
runs with no evidence, and a run with its evidence last; junk traces evicted are counted apart
from runs (``traces_evicted``), and root-only runs take at most half the judging queue."""

from __future__ import annotations

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, ReadyRun, TraceAssembler
from gsar_otel.sidecar.intake.spans import SpanRecord, decode_traces
from tests.sidecar.support import CPU_ROW, Clock, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json

MiB = 1024 * 1024
AGENT = {"gen_ai.operation.name": "invoke_agent"}


def real_run(trace: int) -> list[SpanRecord]:
    """An agent run span and its tool span."""
    trace_id = f"{trace:032x}"
    return [SpanRecord(trace_id=trace_id, span_id="0000000000000002",
                       parent_span_id="0000000000000001", name="execute_tool get_metrics",
                       start_ns=1, end_ns=2, attributes={
                           "gen_ai.operation.name": "execute_tool",
                           "gen_ai.tool.call.result": CPU_ROW}),
            SpanRecord(trace_id=trace_id, span_id="0000000000000001", parent_span_id="",
                       name="invoke_agent bot", start_ns=1, end_ns=3, attributes=dict(AGENT))]


def junk_root(trace: int, size: int, **attributes: str) -> SpanRecord:
    """A root span that is no agent run (or, given AGENT, a run with no evidence)."""
    return SpanRecord(trace_id=f"{trace:032x}", span_id=f"{trace:016x}", parent_span_id="",
                      name="junk", start_ns=1, end_ns=2,
                      attributes={"payload": "j" * size, **attributes})


def flood(buffer: TraceAssembler, junk: list[SpanRecord]) -> tuple[list[ReadyRun], int]:
    evicted: list[ReadyRun] = []
    most = 0
    for span in junk:
        evicted += buffer.add_spans([span])
        most = max(most, buffer.held_bytes)
    return evicted, most


def test_junk_root_spans_are_evicted_before_real_runs_and_counted_apart() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60,
                                           max_held_bytes=2 * MiB), clock=clock)
    for n in range(1, 61):
        buffer.add_spans(real_run(n))
    # 400 junk root traces of 50 KB: 20 MB against a 2 MiB budget
    evicted, most = flood(buffer, [junk_root(n, 50_000) for n in range(1_000, 1_400)])
    assert most <= 2 * MiB
    assert evicted == [] and "evicted" not in buffer.counts
    assert buffer.counts["evicted_no_run_span"] > 350
    clock.now += 5
    released = buffer.due()
    assert {r.trace_id for r in released if r.run_span is not None
            and r.run_span.name == "invoke_agent bot"} == {f"{n:032x}" for n in range(1, 61)}


def test_run_spans_with_no_evidence_go_before_runs_with_evidence() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60,
                                           max_held_bytes=2 * MiB), clock=clock)
    for n in range(1, 61):
        buffer.add_spans(real_run(n))
    evicted, most = flood(buffer, [junk_root(n, 50_000, **AGENT) for n in range(1_000, 1_400)])
    assert most <= 2 * MiB
    assert len(evicted) == buffer.counts["evicted"] > 350  # runs: counted as runs
    assert {r.trace_id for r in evicted}.isdisjoint({f"{n:032x}" for n in range(1, 61)})
    clock.now += 5
    assert {f"{n:032x}" for n in range(1, 61)} <= {r.trace_id for r in buffer.due()}


def test_root_only_runs_take_at_most_half_the_judging_queue() -> None:
    running = start_sidecar(queue_size=10)
    stats = running.sidecar.stats
    junk = [ReadyRun(trace_id=f"{n + 1:032x}", spans=(root,), logs=(), run_span=root,
                     convention="root", reason="settled")
            for n in range(30) for root in [junk_root(n + 1, 10)]]
    (span,) = decode_traces(otlp_json(agent_spans()[1]), json_encoded=True).spans
    real = ReadyRun(trace_id=span.trace_id, spans=(span,), logs=(), run_span=span,
                    convention="genai", reason="settled")

    def enqueue_all() -> int:  # at once on the loop: no worker takes a run meanwhile
        for run in [*junk, real]:
            running.sidecar._enqueue(run)
        return running.sidecar._queue.qsize() if running.sidecar._queue else -1

    try:
        queued = running.call(enqueue_all)
        running.wait_for(lambda: len(running.evaluations()) == 1, "the real run's evaluation")
    finally:
        running.stop()
    assert queued == 6
    assert stats.get("runs_dropped", "queue_half_full_no_run_span") == 25
    assert stats.get("runs_dropped", "queue_full") == 0
