"""Issue 24 A1, A4 and C15: what the sidecar holds is bounded in bytes (``max_held_bytes``,
counted on what is held after decoding, values cut at intake), traces with no run span are
evicted before real runs and counted apart, and extraction reads a bounded share of a run, off
the judging loop and within the run's deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.plugins import hookimpl, register, unregister
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, ReadyRun, TraceAssembler
from gsar_otel.sidecar.conventions.extract import ExtractedRun
from gsar_otel.sidecar.intake.spans import MAX_VALUE_BYTES, SpanRecord, decode_traces
from gsar_otel.sidecar.run_budget import cap_run
from tests.sidecar.support import CPU_ROW, GROUNDED, Clock, RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

MiB = 1024 * 1024
AGENT = {"gen_ai.operation.name": "invoke_agent"}



def body_of(spans: list[tuple[int, int, int, str]]) -> bytes:
    """Protobuf of ``(trace, span, parent, payload)`` spans (payload as one attribute)."""
    request = trace_service_pb2.ExportTraceServiceRequest()
    out = request.resource_spans.add().scope_spans.add().spans
    for trace_id, span_id, parent, payload in spans:
        out.append(trace_pb2.Span(
            trace_id=trace_id.to_bytes(16, "big"), span_id=span_id.to_bytes(8, "big"),
            parent_span_id=parent.to_bytes(8, "big") if parent else b"", name="step",
            attributes=[common_pb2.KeyValue(key="payload", value=common_pb2.AnyValue(
                string_value=payload))]))
    return request.SerializeToString()


# --- intake ---------------------------------------------------------------------------------------


def test_an_oversized_value_is_cut_at_intake_counted_and_the_record_sized() -> None:
    decoded = decode_traces(body_of([(1, 2, 1, "x" * (19 * MiB))]), json_encoded=False)
    (span,) = decoded.spans
    assert len(span.attributes["payload"]) == MAX_VALUE_BYTES
    assert decoded.truncated == 1 and span.truncated == 1
    assert MAX_VALUE_BYTES < span.size < 2 * MAX_VALUE_BYTES


def test_in_json_too_an_oversized_value_is_cut_before_it_is_parsed_and_counted_on_its_span(
        ) -> None:
    body = otlp_json({"traceId": "1" * 32, "spanId": "2" * 16, "name": "huge", "attributes": [
        {"key": "payload", "value": {"arrayValue": {"values": [
            {"stringValue": "u" * (3 * MiB)}, {"stringValue": "small"}]}}}]})
    decoded = decode_traces(body, json_encoded=True)
    (span,) = decoded.spans
    big, small = span.attributes["payload"]
    assert (len(big), small) == (MAX_VALUE_BYTES, "small")
    assert decoded.truncated == span.truncated == 1


def test_past_the_item_budget_further_values_are_dropped_and_counted() -> None:
    request = trace_service_pb2.ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=(1).to_bytes(16, "big"), span_id=(2).to_bytes(8, "big"), name="wide")
    for n in range(40):
        span.attributes.add(key=f"k{n}", value=common_pb2.AnyValue(string_value="v" * 1000))
    decoded = decode_traces(request.SerializeToString(), json_encoded=False,
                            max_item_bytes=10_000)
    (record,) = decoded.spans
    kept = [v for v in record.attributes.values() if v is not None]
    assert 5 <= len(kept) <= 10 and decoded.truncated == 40 - len(kept)


def test_a_run_with_values_cut_is_flagged() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=1, max_age_s=10), clock=clock)
    (span,) = decode_traces(body_of([(1, 2, 0, "x" * (2 * MiB))]), json_encoded=False).spans
    buffer.add_spans([span])
    clock.now += 1
    (run,) = buffer.due()
    assert (run.incomplete, run.incomplete_reason) == (True, "values_truncated")


# --- the byte budget ------------------------------------------------------------------------------


def fragment(trace: int, size: int) -> SpanRecord:
    """A span whose parent never comes: no run span, a fragment."""
    return SpanRecord(trace_id=f"{trace:032x}", span_id=f"{trace:016x}",
                      parent_span_id="00000000000000ff", name="junk",
                      attributes={"payload": "j" * size})


def real_run(trace: int) -> SpanRecord:
    return SpanRecord(trace_id=f"{trace:032x}", span_id="0000000000000001", parent_span_id="",
                      name="invoke_agent", start_ns=1, end_ns=2, attributes=dict(AGENT))


def test_junk_traces_are_evicted_before_real_runs_and_counted_apart() -> None:
    clock = Clock()
    budget = 2 * MiB
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=5, max_age_s=60,
                                           max_held_bytes=budget), clock=clock)
    buffer.add_spans([real_run(n) for n in range(1, 61)])
    most = 0
    evicted: list[ReadyRun] = []
    for n in range(1_000, 1_400):  # 400 junk traces of 50 KB: 20 MB against a 2 MiB budget
        evicted += buffer.add_spans([fragment(n, 50_000)])
        most = max(most, buffer.held_bytes)
    assert most <= budget
    assert evicted == [] and "evicted" not in buffer.counts
    assert buffer.counts["evicted_fragment"] > 350
    clock.now += 5
    assert len(buffer.due()) == 60  # every real run is still there to judge


def test_past_the_budget_with_only_runs_the_oldest_run_goes_and_is_counted_as_a_run() -> None:
    buffer = TraceAssembler(AssemblyLimits(max_held_bytes=300_000), clock=Clock())
    evicted: list[ReadyRun] = []
    for n in range(1, 11):
        span = real_run(n)
        evicted += buffer.add_spans([SpanRecord(
            trace_id=span.trace_id, span_id=span.span_id, parent_span_id="", name=span.name,
            attributes={**AGENT, "payload": "p" * 50_000})])
    assert buffer.held_bytes <= 300_000
    assert [r.trace_id for r in evicted] == [f"{n:032x}" for n in range(1, len(evicted) + 1)]
    assert buffer.counts["evicted"] == len(evicted) >= 4
    assert "evicted_fragment" not in buffer.counts


@pytest.fixture
def small_budget() -> Iterator[RunningSidecar]:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=0.05, max_age_s=600,
                                                  max_held_bytes=8 * MiB),
                            max_body_bytes=24 * MiB, max_decompressed_bytes=24 * MiB)
    yield running
    running.stop()


def test_a_stream_of_huge_unrooted_spans_in_one_trace_stays_within_the_budget(
        small_budget: RunningSidecar) -> None:
    stats = small_budget.sidecar.stats
    big = "u" * (19 * MiB)
    most = 0
    for n in range(12):
        assert post(small_budget, body_of([(7, 100 + n, 1, big)]), "application/x-protobuf")[0] \
            == 200
        most = max(most, small_budget.call(lambda: small_budget.sidecar.assembler.held_bytes))
    assert most <= 8 * MiB
    assert stats.get("values", "truncated") == 12
    assert stats.get("traces_evicted", "fragment") >= 1
    assert stats.get("spans", "accepted") + stats.get("spans", "late") == 12
    # a well-behaved run sent meanwhile is judged
    assert post(small_budget, otlp_json(*agent_spans()))[0] == 200
    small_budget.wait_for(lambda: len(small_budget.evaluations()) == 1, "the evaluation")
    metrics = stats.prometheus_text()
    assert 'gsar_sidecar_values_total{gsar_sidecar_reason="truncated"} 12' in metrics
    assert "gsar_sidecar_held_bytes " in metrics


# --- extraction: bounded, off the judging loop, within the deadline ---------------------------


def test_extraction_reads_at_most_its_budget_run_span_first_then_smallest() -> None:
    chat = SpanRecord(trace_id="1" * 32, span_id="0000000000000003", parent_span_id="1" * 16,
                      name="chat", attributes={"gen_ai.input.messages": "m" * (3 * MiB)})
    tool = SpanRecord(trace_id="1" * 32, span_id="0000000000000002", parent_span_id="1" * 16,
                      name="execute_tool", attributes={"gen_ai.tool.call.result": CPU_ROW})
    root = SpanRecord(trace_id="1" * 32, span_id="1" * 16, parent_span_id="",
                      name="invoke_agent", attributes={**AGENT, "answer": GROUNDED})
    run = ReadyRun(trace_id="1" * 32, spans=(chat, tool, root), logs=(), run_span=root,
                   convention="genai", reason="settled")
    capped, cut = cap_run(run, max_bytes=MiB)
    assert cut == 1
    by_name = {s.name: s for s in capped.spans}
    assert dict(by_name["chat"].attributes) == {}
    assert by_name["execute_tool"].attributes == tool.attributes
    assert by_name["invoke_agent"].attributes == root.attributes
    assert cap_run(run, max_bytes=8 * MiB) == (run, 0)


class BlockingExtractor:
    """Blocks the extraction of run spans named ``slow`` (bounded wait), raises ``error`` for
    ``exits``; steps aside otherwise."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.blocked = threading.Event()
        self.error: type[BaseException] = SystemExit

    @hookimpl
    def gsar_sidecar_extract(self, run: ReadyRun) -> ExtractedRun | None:
        name = run.run_span.name if run.run_span is not None else ""
        if name == "slow":
            self.blocked.set()
            self.release.wait(20)
        if name == "exits":
            raise self.error()
        return None


@pytest.fixture
def extractor() -> Iterator[BlockingExtractor]:
    instance = BlockingExtractor()
    register(instance, name="test-blocking-extractor")
    yield instance
    instance.release.set()
    unregister(instance)


def named_run(trace: str, name: str) -> bytes:
    tool, root = agent_spans(trace)
    return otlp_json(tool, {**root, "name": name})


def test_a_slow_extraction_does_not_hold_up_other_runs(extractor: BlockingExtractor) -> None:
    running = start_sidecar(concurrency=2, run_deadline_s=60)
    try:
        assert post(running, named_run("a" * 32, "slow"))[0] == 200
        assert extractor.blocked.wait(20)
        assert post(running, named_run("b" * 32, "invoke_agent bot"))[0] == 200
        end = time.monotonic() + 15
        while not running.evaluations() and time.monotonic() < end:
            time.sleep(0.01)
        judged_while_blocked = len(running.evaluations())
        extractor.release.set()
        running.wait_for(lambda: len(running.evaluations()) == 2, "both evaluations")
    finally:
        extractor.release.set()
        running.stop()
    assert judged_while_blocked == 1


def test_an_extraction_past_the_deadline_is_counted(extractor: BlockingExtractor) -> None:
    running = start_sidecar(run_deadline_s=0.3)
    try:
        assert post(running, named_run("a" * 32, "slow"))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_failed") == 1, "the failure")
        extractor.release.set()
        assert post(running, named_run("b" * 32, "invoke_agent bot"))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 1, "the next evaluation")
    finally:
        running.stop()
    assert running.sidecar.stats.get("runs_failed", "extraction_deadline") == 1


@pytest.mark.parametrize("error", [SystemExit, KeyboardInterrupt])
def test_system_exit_from_an_extractor_fails_that_run_only(
        extractor: BlockingExtractor, error: type[BaseException]) -> None:
    extractor.error = error
    running = start_sidecar()
    try:
        assert post(running, named_run("a" * 32, "exits"))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_failed") == 1, "the failure")
        assert post(running, named_run("b" * 32, "invoke_agent bot"))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 1, "the next evaluation")
    finally:
        running.stop()
    assert running.sidecar.stats.get("runs_failed", error.__name__) == 1


def test_runs_with_no_run_span_take_at_most_half_the_judging_queue() -> None:
    running = start_sidecar(queue_size=10)
    stats = running.sidecar.stats
    junk = [ReadyRun(trace_id=f"{n + 1:032x}", spans=(fragment(n + 1, 10),), logs=(),
                     run_span=fragment(n + 1, 10), convention="root", reason="no_run_span")
            for n in range(30)]
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


def test_a_wave_at_the_hard_cap_is_released_a_bounded_number_at_a_time() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=1, max_age_s=10), clock=clock)
    buffer.add_spans([fragment(n, 10) for n in range(1, 26)])
    clock.now += 10
    assert [len(buffer.due(limit=10)) for _ in range(4)] == [10, 10, 5, 0]


def test_max_held_bytes_is_a_flag_a_variable_and_a_file_key(tmp_path: Any) -> None:
    from gsar_otel import semconv as sc
    from gsar_otel.cli.common import BadInput
    from tests.sidecar.test_settings import _config, _file

    assert _config().limits.max_held_bytes == 512 * MiB
    file = _file(tmp_path, "[sidecar]\nmax_held_bytes = 1000\n")
    assert _config(file=file).limits.max_held_bytes == 1000
    env = {sc.ENV_SIDECAR_MAX_HELD_BYTES: "2000"}
    assert _config(env=env, file=file).limits.max_held_bytes == 2000
    assert _config("--max-held-bytes", "3000", env=env).limits.max_held_bytes == 3000
    with pytest.raises(BadInput, match="GSAR_SIDECAR_MAX_HELD_BYTES"):
        _config(env={sc.ENV_SIDECAR_MAX_HELD_BYTES: "0"})
