"""A background job, the inbox the worker's feeder takes jobs from, and counting the jobs that
were dropped.

Every job submitted to the background worker ends exactly once, judged or dropped; a dropped one
is counted in ``gsar.background.dropped`` by ``gsar.function`` and ``gsar.drop.reason``.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import queue
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel import semconv as sc
from gsar_otel.errors import EscapedBaseException as EscapedBaseException
from gsar_otel.runtime.guards import contain_exits

logger = logging.getLogger("gsar_otel.otel.background")

Runner = Callable[[Any], Coroutine[Any, Any, None]]
"""Turns a job's payload into the coroutine that evaluates it; must not raise."""


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One submitted evaluation (compared by identity)."""

    runner: Runner
    payload: Any
    context: contextvars.Context
    name: str


async def guarded(job: Job) -> None:
    """Run ``job``; a ``SystemExit``/``KeyboardInterrupt`` from it would stop the loop thread
    (asyncio re-raises both out of ``run_forever``), so it becomes an ordinary failure."""
    with contain_exits():
        await job.runner(job.payload)


def report_ended(job: Job, error: BaseException | None, *, loud: bool = True) -> None:
    """Log a job that ended without a verdict: failed with ``error`` (WARNING when ``loud``,
    else DEBUG), or cancelled (``error`` None) by something other than the worker's stop."""
    if error is None:
        logger.warning("gsar: the background evaluation of %s was cancelled; counted in %s "
                       "(%s=%s)", job.name, sc.METRIC_BACKGROUND_DROPPED, sc.GSAR_DROP_REASON,
                       sc.DROP_REASON_CANCELLED)
        return
    name = type(error.error if isinstance(error, EscapedBaseException) else error).__name__
    (logger.warning if loud else logger.debug)(
        "gsar: the background evaluation of %s failed (%s); counted in %s (%s=%s)", job.name,
        name, sc.METRIC_BACKGROUND_DROPPED, sc.GSAR_DROP_REASON, sc.DROP_REASON_ERROR,
        exc_info=error)


class Barrier:
    """Passes through the queue; set once every job before it has ended."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


STOP: Final = object()

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


_pending: Counter[tuple[str, str]] = Counter()
"""Drops that could not be counted yet (the instruments module was being imported), by
(function, reason): added to the counter by the next count that can be made."""
_pending_lock = threading.Lock()


def _instruments_ready() -> Any:
    """The instruments module when it is fully imported, else None (never waits on an import:
    another thread, or after a fork the parent, may hold its lock)."""
    module = sys.modules.get("gsar_otel.otel.instruments")
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


def count_dropped(jobs: Iterable[Job], reason: str) -> int:
    """Add ``jobs`` to ``gsar.background.dropped`` by function and reason (never raises).

    While the instruments module is being imported (by another thread, at start-up) the counts
    are held and added by the next call that finds it imported, or by :func:`settle_pending`.
    """
    by_name = Counter(job.name for job in jobs)
    if not by_name:
        return 0
    with _pending_lock:
        for name, count in by_name.items():
            _pending[name, reason] += count
    settle_pending()
    return sum(by_name.values())


def settle_pending(*, wait: bool = False) -> int:
    """Add the held drop counts to ``gsar.background.dropped`` if the instruments can be had.

    Args:
        wait: import the instruments module if nobody has (at a flush or at exit); otherwise
            counts wait while it is absent or being imported.

    Returns:
        The drops still held (0 when everything was counted).
    """
    with _pending_lock:
        if not _pending:
            return 0
    module = _instruments_ready()
    if module is None and wait and "gsar_otel.otel.instruments" not in sys.modules:
        try:
            import gsar_otel.otel.instruments as module
        except Exception:
            module = None
    if module is None:
        with _pending_lock:
            return sum(_pending.values())
    with _pending_lock:
        held = dict(_pending)
        _pending.clear()
    try:
        counter = module.get_telemetry().instruments.background_dropped
        for (name, reason), count in held.items():
            counter.add(count, {sc.GSAR_FUNCTION: name, sc.GSAR_DROP_REASON: reason})
    except Exception:
        logger.warning("gsar: counting %d dropped background evaluation(s) failed",
                       sum(held.values()), exc_info=True)
    return 0


def forget_pending() -> None:
    """In a forked child: the held counts are the parent's to add (and its lock may be held)."""
    global _pending_lock
    _pending_lock = threading.Lock()
    _pending.clear()


def held_drops() -> int:
    """Drops waiting to be counted (see :func:`count_dropped`)."""
    with _pending_lock:
        return sum(_pending.values())
