"""Assembly is linear in a trace's spans: the chain above a span is resolved once per trace (walks
leave shortcuts; depths in one pass), never again for each agent span or run. The work is
counted as lookups of spans by id in the trace's buffer (an instrumented mapping), so these
tests bound operations, not wall time; the seconds are in RELIABILITY.md."""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from gsar_otel.sidecar.assembly import assembler, trace_buffer
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, TraceAssembler
from gsar_otel.sidecar.assembly.parent_links import CYCLE, GAP, ROOT, STOP, ParentLinks
from gsar_otel.sidecar.assembly.trace_buffer import TraceBuffer
from gsar_otel.sidecar.intake.spans import SpanRecord
from tests.sidecar.support import Clock, start_sidecar
from tests.sidecar.test_receiver_http import post
from tests.sidecar.walk_reference import WalkingTraceBuffer

T1 = "0af7651916cd43dd8448eb211c80319c"
AGENT = {"gen_ai.operation.name": "invoke_agent"}
LOOKUPS_PER_SPAN = 100
"""Most lookups per span held: the runs of a trace are capped (64), each checked in O(1)."""


class CountingSpans(dict[str, SpanRecord]):
    """A trace's span mapping that counts every lookup by id (``get``, ``[]``, ``in``)."""

    def __init__(self, counter: list[int]) -> None:
        super().__init__()
        self.counter = counter

    def __getitem__(self, key: str) -> SpanRecord:
        self.counter[0] += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.counter[0] += 1
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.counter[0] += 1
        return super().__contains__(key)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every trace buffer the assembler opens counts its lookups into the returned cell."""
    counter = [0]
    monkeypatch.setattr(assembler, "TraceBuffer", lambda first_seen: TraceBuffer(
        first_seen=first_seen, spans=CountingSpans(counter)))
    return counter


def span(n: int, parent: int | None, *, agent: bool = False, start: int = 10, end: int = 20,
         trace_id: str = T1) -> SpanRecord:
    return SpanRecord(trace_id=trace_id, span_id=f"{n:016x}",
                      parent_span_id=f"{parent:016x}" if parent else "", name=f"s{n}",
                      start_ns=start, end_ns=end, attributes=AGENT if agent else {})


def chain(n: int, top_parent: int, *, agent: bool) -> list[SpanRecord]:
    """``n`` spans, each the child of the one before; the first under ``top_parent``."""
    return [span(10_000 + i, 10_000 + i - 1 if i else top_parent, agent=agent)
            for i in range(n)]


def siblings_then_chain(n: int) -> list[SpanRecord]:
    """A request root, 64 sibling agent spans under it, then a chain of agent spans, top first
    (the shape that held the event loop for seconds)."""
    return [span(1, None, start=0, end=100),
            *(span(100 + i, 1, agent=True) for i in range(64)),
            *chain(n, 1, agent=True)]


SHAPES: dict[str, Callable[[int], list[SpanRecord]]] = {
    "agent chain under 64 agent siblings, top first": siblings_then_chain,
    "the same, children first": lambda n: [*siblings_then_chain(n)[:65],
                                           *reversed(siblings_then_chain(n)[65:])],
    "the same, shuffled": lambda n: random.Random(n).sample(siblings_then_chain(n), n + 65),
    "plain chain under a root": lambda n: [span(1, None), *chain(n, 1, agent=False)],
    "root-less plain chain": lambda n: chain(n, 0xFFFF, agent=False),
    "a loop of plain spans with 64 agent spans below it": lambda n: [
        *(span(10_000 + i, 10_000 + (i - 1) % n) for i in range(n)),
        *(span(50_000 + i, 10_000 + i, agent=True) for i in range(64))],
}


@pytest.mark.parametrize("n", [200, 400, 800, 1_600])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_assembly_work_grows_linearly_with_the_chain(lookups: list[int], shape: str,
                                                     n: int) -> None:
    """Buffering the spans and releasing them at the hard cap (the root-less chain's stand-in
    is the shallowest span) takes a bounded number of lookups per span at every length."""
    spans = SHAPES[shape](n)
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=1, max_age_s=2,
                                           max_spans_per_trace=10_000), clock=clock)
    assert buffer.add_spans(spans) == []
    clock.now += 2
    runs = buffer.due()
    # every span is in a run, or counted as given to none (below a candidate past the cap)
    withheld = buffer.counts.get("spans_withheld_over_cap", 0) + buffer.counts.get(
        "spans_withheld_no_run", 0)
    assert runs and len({s.span_id for r in runs for s in r.spans}) + withheld == len(spans)
    assert lookups[0] <= LOOKUPS_PER_SPAN * len(spans), (lookups[0], len(spans))


@pytest.mark.parametrize("n", [400, 1_600])
def test_evicting_a_root_less_chain_is_linear(lookups: list[int], n: int) -> None:
    buffer = TraceAssembler(AssemblyLimits(max_traces=1, max_spans_per_trace=10_000),
                            clock=Clock())
    buffer.add_spans(chain(n, 0xFFFF, agent=False))
    (evicted,) = (buffer.add_spans([span(1, None, agent=True, trace_id="1" * 32)])
                  or [None])  # a fragment's eviction returns no run; it is counted
    assert evicted is None and buffer.counts["evicted_fragment"] == 1
    assert lookups[0] <= LOOKUPS_PER_SPAN * (n + 1)


def test_the_stand_in_of_a_root_less_chain_is_its_top() -> None:
    clock = Clock()
    buffer = TraceAssembler(AssemblyLimits(decision_wait_s=1, max_age_s=2), clock=clock)
    buffer.add_spans(list(reversed(chain(50, 0xFFFF, agent=False))))
    clock.now += 2
    (run,) = buffer.due()
    assert run.run_span is not None and run.run_span.span_id == f"{10_000:016x}"
    assert run.reason == "no_run_span"


# --- the walks themselves -------------------------------------------------------------------------


def test_a_walk_reports_the_root_a_gap_a_stop_or_a_loop() -> None:
    spans = {s.span_id: s for s in [span(1, None), span(2, 1), span(3, 2), span(5, 4),
                                    span(7, 8), span(8, 7)]}
    links = ParentLinks(spans)
    assert links.above(f"{3:016x}", {f"{2:016x}"}) == (STOP, f"{2:016x}")
    # once 2 is no stop any more (a run dropped), walks pass it, and then by a shortcut
    assert links.above(f"{3:016x}", ()) == (ROOT, f"{1:016x}")
    assert links.above(f"{3:016x}", ()) == (ROOT, f"{1:016x}")
    assert links.above(f"{5:016x}", ()) == (GAP, f"{4:016x}")
    assert links.above(f"{7:016x}", ())[0] == CYCLE
    assert links.depths() == {f"{1:016x}": 0, f"{2:016x}": 1, f"{3:016x}": 2, f"{5:016x}": 0,
                              f"{7:016x}": 1, f"{8:016x}": 1}


# --- the same runs as walking every chain each time ---------------------------------------------

SPANS = st.lists(st.tuples(st.integers(1, 9), st.integers(0, 10), st.booleans(),
                           st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=40)


@settings(max_examples=400, deadline=None)
@given(SPANS, st.integers(2, 64))
def test_runs_are_those_of_walking_every_chain_each_time(
        drawn: list[tuple[int, int, bool, int, int]], cap: int) -> None:
    """Any arrival order, parent graph (loops and gaps included), times and run cap: after every
    span the runs, their completeness and the split are those of the reference, which walked
    the chain above a span again for every run (``walk_reference.py``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trace_buffer, "MAX_RUNS_PER_TRACE", cap)
        linear, walking = TraceBuffer(first_seen=0.0), WalkingTraceBuffer(first_seen=0.0)
        for now, (own, parent, agent, start, length) in enumerate(drawn):
            item = span(own, parent or None, agent=agent, start=start, end=start + length)
            if item.span_id in linear.spans:
                continue
            linear.add(item, float(now))
            walking.add(item, float(now))
            assert list(linear.runs) == list(walking.runs)
            assert linear.runs_over_cap == walking.runs_over_cap
            for mine, theirs in zip(linear.runs.values(), walking.runs.values(), strict=True):
                assert mine.settle_from == theirs.settle_from
                waits = mine.missing not in linear.spans  # a gap; on a loop any id of it
                assert waits == (theirs.missing not in walking.spans)
                assert not waits or mine.missing == theirs.missing
        assert [(run.span_id, [s.span_id for s in spans])
                for run, spans, _ in linear.split()] == \
            [(run.span_id, [s.span_id for s in spans]) for run, spans, _ in walking.split()]


# --- end to end ---------------------------------------------------------------------------------


def otlp_chain_body(chain_length: int) -> bytes:
    """OTLP/protobuf of a request root, 64 sibling agent spans and an agent chain of
    ``chain_length`` (top first): about 200 KB at 1,500."""
    request = trace_service_pb2.ExportTraceServiceRequest()
    out = request.resource_spans.add().scope_spans.add().spans
    agent = [common_pb2.KeyValue(key="gen_ai.operation.name",
                                 value=common_pb2.AnyValue(string_value="invoke_agent"))]
    for item in siblings_then_chain(chain_length):
        out.append(trace_pb2.Span(
            trace_id=bytes.fromhex(item.trace_id), span_id=bytes.fromhex(item.span_id),
            parent_span_id=bytes.fromhex(item.parent_span_id), name=item.name,
            start_time_unix_nano=item.start_ns, end_time_unix_nano=item.end_ns,
            attributes=agent if item.attributes else []))
    return request.SerializeToString()


@pytest.fixture
def counted_sidecar(lookups: list[int]) -> Iterator[Any]:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=60, max_age_s=120))
    yield running
    running.stop()


def test_a_200_kb_chain_of_agent_spans_leaves_healthz_answering(
        counted_sidecar: Any, lookups: list[int]) -> None:
    body = otlp_chain_body(1_500)
    assert 150_000 < len(body) < 250_000
    assert post(counted_sidecar, body, "application/x-protobuf")[0] == 200
    with urllib.request.urlopen(f"{counted_sidecar.http}/healthz", timeout=30) as answer:
        health = json.loads(answer.read())
    assert answer.status == 200 and health["traces_buffered"] == 1
    # the chain's top came past the 64 siblings (the run cap), so no chain span is a run
    assert health["counts"]["runs_over_cap"] == {"max_runs_per_trace": 1_500}
    assert lookups[0] <= LOOKUPS_PER_SPAN * (1_500 + 65)


def test_a_root_less_chain_of_5000_spans_at_the_hard_cap_leaves_healthz_answering(
        lookups: list[int]) -> None:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=0.05, max_age_s=0.2))
    try:
        request = trace_service_pb2.ExportTraceServiceRequest()
        out = request.resource_spans.add().scope_spans.add().spans
        for item in chain(5_000, 0xFFFF, agent=False):
            out.append(trace_pb2.Span(
                trace_id=bytes.fromhex(item.trace_id), span_id=bytes.fromhex(item.span_id),
                parent_span_id=bytes.fromhex(item.parent_span_id), name=item.name))
        assert post(running, request.SerializeToString(), "application/x-protobuf")[0] == 200
        running.wait_for(lambda: running.call(lambda: running.sidecar.assembler.pending) == 0,
                         "the release at the hard cap")
        with urllib.request.urlopen(f"{running.http}/healthz", timeout=30) as answer:
            assert answer.status == 200
    finally:
        running.stop()
    assert lookups[0] <= LOOKUPS_PER_SPAN * 5_000
