"""The inbox the job worker's feeder thread takes jobs from, which a caller wakes only when it
sleeps, and the items that pass through it besides jobs (a barrier, the stop mark)."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import deque
from typing import Any, Final


class Barrier:
    """Passes through the queue; set once every job before it has ended."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


STOP: Final = object()
"""Put last: the feeder thread ends when it takes it."""

POLL_S: Final = 0.01
"""Longest a queued job waits for the feeder to take it while the feeder is awake."""
LINGER_S: Final = 2.0
"""The feeder stays awake (looking every :data:`POLL_S`) this long after its last item, then
sleeps until woken: an idle process has no thread waking up."""


class Inbox:
    """Items waiting for the feeder thread, which a caller wakes only when it sleeps.

    Waking a thread costs the caller a system call and often its CPU (the woken thread is
    scheduled in its place), so :meth:`put` does not wake an awake feeder: while items keep
    coming the feeder looks every :data:`POLL_S` seconds, and a job waits at most that long to
    start. After :data:`LINGER_S` seconds without an item the feeder sleeps without a timeout,
    and the next item wakes it at once. :meth:`put` and :meth:`take`'s check before sleeping hold
    the same lock (the worker's), so no item is left behind by a sleeping feeder.
    """

    __slots__ = ("_asleep", "_items", "_wake")

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._asleep = False

    def put(self, item: Any) -> bool:
        """Queue ``item`` (the caller holds the worker's lock).

        Returns:
            True when the feeder sleeps: the caller then calls :meth:`wake` (after the lock).
        """
        self._items.append(item)
        asleep, self._asleep = self._asleep, False
        return asleep

    @property
    def asleep(self) -> bool:
        """True while the feeder waits for a wake-up (the next :meth:`put` then wakes it)."""
        return self._asleep

    def wake(self) -> None:
        """Wake the feeder now (for an item that must not wait, or a sleeping feeder)."""
        self._wake.put(None)

    def take(self, lock: threading.Lock) -> Any:
        """The next item, for the feeder: waits as long as it takes (see the class)."""
        idle_since = time.monotonic()
        while True:
            try:
                return self._items.popleft()
            except IndexError:
                pass
            if time.monotonic() - idle_since < LINGER_S:
                with contextlib.suppress(queue.Empty):
                    self._wake.get(timeout=POLL_S)
                continue
            with lock:  # a put after this sees the feeder asleep and wakes it
                asleep = self._asleep = not self._items
            if asleep:
                self._wake.get()
                idle_since = time.monotonic()

    def clear(self) -> None:
        """Forget every item (in a forked child, whose feeder thread does not exist)."""
        self._items.clear()
        self._wake = queue.SimpleQueue()
        self._asleep = False
