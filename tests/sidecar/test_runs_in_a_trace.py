"""Issue 24 C12 and C13: every top-level agent run of a trace is judged on its own (a workflow
trace wrapping several agents), and a new run span after a verdict in the same trace id is a
new run, judged, not a late span."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, TraceAssembler
from gsar_otel.sidecar.intake.spans import SpanRecord
from tests.sidecar.support import CPU_ROW, GROUNDED, Clock, RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import kv, otlp_json, post

TRACE = "7a1b2c3d4e5f60718293a4b5c6d7e8f9"
DISK_ROW = "host=db-prod-2 disk_pct=91 at=14:05:00"
DISK_ANSWER = "Disk on db-prod-2 is at 91%."
AGENT = {"gen_ai.operation.name": "invoke_agent"}



def record(span_id: int, parent: int = 0, *, start: int, end: int, name: str = "span",
           **attributes: Any) -> SpanRecord:
    return SpanRecord(trace_id=TRACE, span_id=f"{span_id:016x}",
                      parent_span_id=f"{parent:016x}" if parent else "", name=name,
                      start_ns=start, end_ns=end, attributes=attributes)


def test_two_agents_under_one_request_are_two_runs_each_with_its_own_spans() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    buffer.add_spans([
        record(3, 2, start=11, end=12, name="execute_tool a"),
        record(2, 1, start=10, end=40, name="invoke_agent a", **AGENT),
        record(5, 4, start=51, end=52, name="execute_tool b"),
        record(4, 1, start=50, end=90, name="invoke_agent b", **AGENT),
        record(1, start=0, end=100, name="POST /workflow"),
    ])
    clock.now += 5
    first, second = buffer.due()
    assert first.run_span is not None and first.run_span.name == "invoke_agent a"
    assert second.run_span is not None and second.run_span.name == "invoke_agent b"
    assert {s.name for s in first.spans} == {"POST /workflow", "invoke_agent a",
                                             "execute_tool a"}
    assert {s.name for s in second.spans} == {"POST /workflow", "invoke_agent b",
                                              "execute_tool b"}
    assert first.runs_in_trace == second.runs_in_trace == 2
    assert first.reason == second.reason == "settled"


def test_a_sub_agent_stays_part_of_its_run() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    buffer.add_spans([
        record(3, 2, start=11, end=20, name="invoke_agent sub", **AGENT),
        record(2, 1, start=10, end=40, name="invoke_agent top", **AGENT),
        record(1, start=0, end=100, name="POST /ask"),
    ])
    clock.now += 5
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.name == "invoke_agent top"


def test_a_new_run_after_a_verdict_in_the_same_trace_is_a_new_run() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    buffer.add_spans([record(1, start=0, end=100, name="invoke_agent first", **AGENT)])
    clock.now += 5
    assert len(buffer.due()) == 1
    # a straggler of the judged run is late; a new run span that starts after it is a run
    buffer.add_spans([record(9, 1, start=10, end=20, name="chat")])
    buffer.add_spans([record(11, 10, start=210, end=220, name="execute_tool"),
                      record(10, start=200, end=300, name="invoke_agent second", **AGENT)])
    assert buffer.counts["late"] == 1
    clock.now += 5
    (second,) = buffer.due()
    assert second.run_span is not None and second.run_span.name == "invoke_agent second"
    assert {s.name for s in second.spans} == {"invoke_agent second", "execute_tool"}
    # and a third, after that one
    buffer.add_spans([record(20, start=400, end=500, name="invoke_agent third", **AGENT)])
    clock.now += 5
    (third,) = buffer.due()
    assert third.run_span is not None and third.run_span.name == "invoke_agent third"
    assert buffer.counts["late"] == 1


def test_a_straggler_arriving_while_the_new_run_gathers_is_late_not_part_of_it() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    buffer.add_spans([record(1, start=0, end=100, name="invoke_agent first", **AGENT)])
    clock.now += 5
    buffer.due()
    buffer.add_spans([record(10, start=200, end=300, name="invoke_agent second", **AGENT),
                      record(9, 1, start=10, end=20, name="execute_tool old")])
    clock.now += 5
    (second,) = buffer.due()
    assert [s.name for s in second.spans] == ["invoke_agent second"]
    assert buffer.counts["late"] == 1


# --- end to end ----------------------------------------------------------------------------------


def json_span(span_id: int, parent: int, name: str, start: int, end: int,
              attributes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"traceId": TRACE, "spanId": f"{span_id:016x}",
            "parentSpanId": f"{parent:016x}" if parent else "", "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": attributes}


def agent(span_id: int, parent: int, start: int, answer: str, row: str) -> list[dict[str, Any]]:
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                         "finish_reason": "stop"}])
    return [
        json_span(span_id + 1, span_id, "execute_tool get_metrics", start + 1, start + 2, [
            kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_metrics"),
            kv("gen_ai.tool.call.result", row)]),
        json_span(span_id, parent, "invoke_agent bot", start, start + 30, [
            kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
            kv("gen_ai.output.messages", final)]),
    ]


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar(max_body_bytes=1024 * 1024, max_decompressed_bytes=4 * 1024 * 1024)
    yield running
    running.stop()


def judged_runs(running: RunningSidecar) -> dict[int, str]:
    """Run span id -> decision, from the evaluation spans (children of their run span)."""
    out = {}
    for evaluation in running.evaluations():
        assert evaluation.parent is not None and evaluation.attributes is not None
        out[evaluation.parent.span_id] = str(evaluation.attributes["gsar.decision"])
    return out


def test_a_workflow_trace_with_two_agents_gets_two_verdicts(sidecar: RunningSidecar) -> None:
    spans = [*agent(0x10, 1, 10, GROUNDED, CPU_ROW), *agent(0x20, 1, 50, DISK_ANSWER, DISK_ROW),
             json_span(1, 0, "POST /workflow", 0, 100, [])]
    assert post(sidecar, otlp_json(*spans))[0] == 200
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == 2, "two evaluations")
    assert set(judged_runs(sidecar)) == {0x10, 0x20}
    # a run is counted after its evaluation span ends: wait for the count, do not race it
    sidecar.wait_for(lambda: sidecar.sidecar.stats.get("runs_judged") == 2, "two runs counted")


def test_a_trace_id_reused_after_a_verdict_is_judged_again(sidecar: RunningSidecar) -> None:
    assert post(sidecar, otlp_json(*agent(0x10, 0, 10, GROUNDED, CPU_ROW)))[0] == 200
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == 1, "the first evaluation")
    for n in range(1, 5):  # more runs than the late flags' cap of 3
        assert post(sidecar, otlp_json(*agent(0x10 + 0x10 * n, 0, 100 * n, DISK_ANSWER,
                                              DISK_ROW)))[0] == 200
        sidecar.wait_for(lambda n=n: len(sidecar.evaluations()) == n + 1,  # type: ignore[misc]
                         f"evaluation {n + 1}")
    assert set(judged_runs(sidecar)) == {0x10, 0x20, 0x30, 0x40, 0x50}
    assert sidecar.sidecar.stats.get("spans", "late") == 0


def test_past_the_cap_of_runs_per_trace_further_candidates_are_counted() -> None:
    from gsar_otel.sidecar.assembly.trace_buffer import MAX_RUNS_PER_TRACE

    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    extra = 6
    buffer.add_spans([record(100 + n, 1, start=10 * n + 1, end=10 * n + 5, name=f"agent {n}",
                             **AGENT) for n in range(MAX_RUNS_PER_TRACE + extra)])
    buffer.add_spans([record(1, start=0, end=10_000, name="POST /batch")])
    clock.now += 5
    assert len(buffer.due()) == MAX_RUNS_PER_TRACE
    assert buffer.counts["runs_over_cap"] == extra


# --- runs past the cap lend nothing ----------------------------------------------------------


FALSE_ROW = "host=db-prod-1 cpu_pct=12.5 at=14:02:01"
FALSE_ANSWER = "CPU on db-prod-1 reached 12.5% at 14:02."


def test_a_span_belongs_to_at_most_one_run_and_runs_past_the_cap_lend_nothing() -> None:
    from gsar_otel.sidecar.assembly.trace_buffer import MAX_RUNS_PER_TRACE

    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60), clock=clock)
    runs = MAX_RUNS_PER_TRACE + 1
    spans = [record(1, start=0, end=1_000_000, name="POST /batch")]
    for n in range(runs):
        agent_id = 0x100 + 0x10 * n
        spans += [record(agent_id, 1, start=100 * n + 1, end=100 * n + 50,
                         name=f"invoke_agent {n}", **AGENT),
                  record(agent_id + 1, agent_id, start=100 * n + 2, end=100 * n + 3,
                         name=f"execute_tool {n}")]
    spans.append(record(2, 1, start=5, end=6, name="execute_tool under no agent"))
    buffer.add_spans(spans)
    clock.now += 5
    released = buffer.due()
    assert len(released) == MAX_RUNS_PER_TRACE
    holders: dict[str, int] = {}
    for run in released:
        for span in run.spans:
            holders[span.name] = holders.get(span.name, 0) + 1
    over = f"{runs - 1}"
    assert f"invoke_agent {over}" not in holders and f"execute_tool {over}" not in holders
    assert "execute_tool under no agent" not in holders  # whose run it is, nothing says
    assert holders.pop("POST /batch") == MAX_RUNS_PER_TRACE  # above every run: its context
    assert set(holders.values()) == {1}
    assert buffer.counts["runs_over_cap"] == 1
    assert buffer.counts["spans_withheld_over_cap"] == 2
    assert buffer.counts["spans_withheld_no_run"] == 1


def test_the_tool_span_of_a_run_past_the_cap_grounds_no_other_run(
        sidecar: RunningSidecar) -> None:
    spans = [json_span(1, 0, "POST /batch", 0, 10_000_000, [])]
    for n in range(65):
        answer = FALSE_ANSWER if n == 0 else GROUNDED  # the first against its own row of 97.2
        row = FALSE_ROW if n == 64 else CPU_ROW  # the 65th, past the cap, says 12.5
        spans += agent(0x100 + 0x10 * n, 1, 100 + 1_000 * n, answer, row)
    assert post(sidecar, otlp_json(*spans))[0] == 200
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == 64, "64 evaluations")
    assert judged_runs(sidecar)[0x100] == "replan"
    sidecar.wait_for(lambda: sidecar.sidecar.stats.get("spans_withheld", "over_cap") == 2,
                     "the withheld spans counted")
