"""The background worker's inbox: a caller wakes the feeder thread only when it sleeps, and no item
is ever left behind by a feeder going to sleep while callers put items."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gsar_otel.otel.background import BackgroundWorker
from gsar_otel.runtime import inbox as inbox_module
from gsar_otel.runtime.inbox import Inbox
from tests.telemetry.helpers import Otel


@pytest.fixture
def wakes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every wake-up of a feeder (one entry per call of Inbox.wake)."""
    calls: list[int] = []
    wake = Inbox.wake

    def counting(self: Inbox) -> None:
        calls.append(1)
        wake(self)

    monkeypatch.setattr(Inbox, "wake", counting)
    return calls


class Gate:
    """A runner that holds every job until released, counting starts."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Semaphore(0)

    async def __call__(self, payload: object) -> None:
        self.started.release()
        while not self.release.is_set():
            await asyncio.sleep(0.002)


def test_submitting_to_an_awake_feeder_wakes_no_thread(otel: Otel, wakes: list[int]) -> None:
    worker = BackgroundWorker(100, concurrency=1)
    gate = Gate()
    assert worker.submit(gate, None, contextvars.copy_context(), "first")
    assert gate.started.acquire(timeout=10.0)
    # The feeder now waits for the running job's slot: awake, so no submit wakes it.
    before = len(wakes)
    accepted = sum(worker.submit(gate, None, contextvars.copy_context(), "more")
                   for _ in range(50))
    assert (accepted, len(wakes) - before) == (50, 0)
    gate.release.set()
    assert worker.wait_idle(10.0)  # a barrier always wakes the feeder: it must not wait
    assert worker.unfinished == 0
    worker.stop(1.0)


def test_a_sleeping_feeder_is_woken_by_the_next_submit(
        otel: Otel, wakes: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox_module, "LINGER_S", 0.0)  # asleep as soon as the inbox is empty
    worker = BackgroundWorker(100, concurrency=4)
    ran = threading.Semaphore(0)

    async def job(payload: object) -> None:
        ran.release()

    for round_number in range(20):
        assert worker.submit(job, round_number, contextvars.copy_context(), "sleepy")
        # Without the wake-up the feeder would sleep for ever and this would fail.
        assert ran.acquire(timeout=10.0), f"job {round_number} never started"
    assert len(wakes) >= 1
    worker.stop(1.0)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(producers=st.integers(1, 8), items=st.integers(1, 60), linger=st.sampled_from([0.0, 0.001]))
def test_no_item_is_left_behind_by_a_feeder_going_to_sleep(
        racy: None, monkeypatch: pytest.MonkeyPatch, producers: int, items: int,
        linger: float) -> None:
    monkeypatch.setattr(inbox_module, "LINGER_S", linger)
    monkeypatch.setattr(inbox_module, "POLL_S", 0.0005)
    inbox, lock = Inbox(), threading.Lock()
    taken: list[tuple[int, int]] = []
    total = producers * items

    def feeder() -> None:
        for _ in range(total):
            taken.append(inbox.take(lock))

    def producer(number: int) -> None:
        for index in range(items):
            with lock:
                wake = inbox.put((number, index))
            if wake:
                inbox.wake()

    consumer = threading.Thread(target=feeder, daemon=True)
    consumer.start()
    pool = [threading.Thread(target=producer, args=(n,)) for n in range(producers)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    consumer.join(30.0)
    assert not consumer.is_alive(), f"the feeder sleeps with {total - len(taken)} item(s) left"
    assert sorted(taken) == [(n, i) for n in range(producers) for i in range(items)]
    for number in range(producers):  # each producer's items in the order it put them
        assert [i for n, i in taken if n == number] == list(range(items))
