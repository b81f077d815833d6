"""``TraceAssembler.due`` reads what is due, not every trace held: deadlines are filed when a
trace opens (its hard cap) and when its runs settle, and a deadline whose trace is gone or not
ready when it comes is dropped. Counted by how often a trace's settle time is read, so the test
does not depend on the machine's speed."""

from __future__ import annotations

from typing import Any

import pytest

from gsar_otel.sidecar.assembly import trace_buffer
from tests.sidecar.test_assembly import AGENT, T1, assembler, make


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a trace buffer's settle time was read."""
    counter = [0]
    original = trace_buffer.TraceBuffer.settle_from

    def counted(self: Any) -> float | None:
        counter[0] += 1
        return original.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(trace_buffer.TraceBuffer, "settle_from", property(counted))
    return counter


def trace(n: int) -> str:
    return f"{n:032x}"


def test_nothing_due_reads_no_trace(reads: list[int]) -> None:
    buffer, clock = assembler()
    for n in range(1, 2001):  # fragments: no run span, waiting for their hard cap
        buffer.add_spans([make("0000000000000002", "0000000000000001", trace_id=trace(n))])
    reads[0] = 0
    for _ in range(100):
        clock.now += 0.5
        assert buffer.due() == []
    assert reads[0] == 0


def test_the_hard_cap_releases_each_trace_once_oldest_first(reads: list[int]) -> None:
    buffer, clock = assembler()
    for n in range(1, 51):
        buffer.add_spans([make("0000000000000001", trace_id=trace(n), name="run", **AGENT)])
        buffer.add_spans([make("0000000000000003", "0000000000000002", trace_id=trace(n))])
        clock.now += 0.01
    reads[0] = 0
    clock.now += 60
    released = buffer.due(limit=20)
    assert [r.trace_id for r in released] == [trace(n) for n in range(1, 21)]
    assert {r.trace_id for r in buffer.due()} == {trace(n) for n in range(21, 51)}
    assert buffer.due() == [] and buffer.pending == 0
    assert reads[0] <= 2 * 50 + 10


def test_a_run_that_settles_is_due_after_the_wait_and_not_before() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000001", name="run", **AGENT)])
    clock.now += 4.9
    assert buffer.due() == []
    clock.now += 0.2
    (run,) = buffer.due()
    assert (run.trace_id, run.reason) == (T1, "settled")


def test_a_trace_unsettled_again_waits_for_its_new_settle_time() -> None:
    buffer, clock = assembler()
    buffer.add_spans([make("0000000000000001", name="run", **AGENT)])
    clock.now += 3
    # a second run whose parent is missing: the trace is unsettled again
    buffer.add_spans([make("0000000000000005", "0000000000000004", name="run2", start=30,
                           end=40, **AGENT)])
    clock.now += 3
    assert buffer.due() == []  # the first deadline came and was dropped
    buffer.add_spans([make("0000000000000004", name="GET", start=25, end=45)])
    clock.now += 4.9
    assert buffer.due() == []
    clock.now += 0.2
    assert {r.run_span.name for r in buffer.due() if r.run_span} == {"run", "run2"}
