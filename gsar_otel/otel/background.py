"""Background judging: a bounded queue and a worker of gsar-otel's own.

``@grounded(mode="background")`` returns the function's result at once and hands the evaluation
to this worker: a feeder thread takes jobs off a bounded queue and starts them, up to a fixed
number at a time, on an event loop running in a second thread. It works the same whether or not
the host has an event loop. Each job runs in a copy of the caller's ``contextvars`` context taken
at call time, so its ``gsar.evaluate`` span is a child of the caller's span.

When the queue is full the job is dropped (and counted as ``gsar.background.dropped`` by the
decorator). :func:`flush` waits for queued jobs; it also runs at interpreter exit, with a time
limit. After ``os.fork()`` the child starts a fresh worker on first use.

asyncio is imported when the worker starts, so importing this module (and :func:`flush`) is cheap.
"""

from __future__ import annotations

import atexit
import contextvars
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import asyncio

logger = logging.getLogger(__name__)

DEFAULT_CONCURRENCY: Final = 8
"""Evaluations the worker runs at the same time."""
EXIT_FLUSH_TIMEOUT_S: Final = 5.0
"""Longest the interpreter waits at exit for queued background evaluations."""

Runner = Callable[[Any], Coroutine[Any, Any, None]]
"""Turns a job's payload into the coroutine that evaluates it; must not raise."""


class _Barrier:
    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


class BackgroundWorker:
    """A bounded job queue drained by an event loop in a thread of its own.

    Args:
        maxsize: most jobs waiting; :meth:`submit` refuses more.
        concurrency: most jobs running at once.
    """

    def __init__(self, maxsize: int, *, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be an integer >= 1, got {maxsize!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
        self.maxsize = maxsize
        self.concurrency = concurrency
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._slots = threading.Semaphore(concurrency)
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._lock = threading.Lock()

    def submit(self, runner: Runner, payload: Any, context: contextvars.Context) -> bool:
        """Queue one job (the caller's hot path: no validation, no allocation beyond a tuple).

        Returns:
            False when the queue is full and the job was dropped.
        """
        if self._queue.qsize() >= self.maxsize:
            return False
        self._queue.put((runner, payload, context))
        if not self._started:
            self._start()
        return True

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            import asyncio

            loop = asyncio.new_event_loop()
            ready = threading.Event()
            threading.Thread(target=self._run_loop, args=(loop, ready), daemon=True,
                             name="gsar-background-loop").start()
            ready.wait()
            self._loop = loop
            threading.Thread(target=self._feed, args=(loop,), daemon=True,
                             name="gsar-background-feeder").start()
            self._started = True
        register_exit_flush()

    @staticmethod
    def _run_loop(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        import asyncio

        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()

    def _feed(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            item = self._queue.get()
            try:
                if isinstance(item, _Barrier):
                    loop.call_soon_threadsafe(self._start_barrier, item)
                    continue
                self._slots.acquire()
                loop.call_soon_threadsafe(self._spawn, item)
            except RuntimeError:  # the loop is closed: the interpreter is going away
                return

    def _spawn(self, item: tuple[Runner, Any, contextvars.Context]) -> None:
        import asyncio

        runner, payload, context = item
        try:
            task = asyncio.get_running_loop().create_task(runner(payload), context=context)
        except Exception:  # a bad job must not stop the worker
            self._slots.release()
            logger.debug("gsar background: could not start a job", exc_info=True)
            return
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._slots.release()
        if not task.cancelled() and task.exception() is not None:
            logger.debug("gsar background: a job failed", exc_info=task.exception())

    def _start_barrier(self, barrier: _Barrier) -> None:
        import asyncio

        pending = set(self._tasks)
        if not pending:
            barrier.done.set()
            return

        async def wait() -> None:
            await asyncio.wait(pending)
            barrier.done.set()

        asyncio.get_running_loop().create_task(wait())

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every job queued before this call has finished.

        Returns:
            True when they all finished within ``timeout_s`` seconds.
        """
        if not self._started:
            return True
        barrier = _Barrier()
        self._queue.put(barrier)
        return barrier.done.wait(max(0.0, timeout_s))

    @property
    def pending(self) -> int:
        """Jobs waiting in the queue (not yet started)."""
        return self._queue.qsize()


_worker: BackgroundWorker | None = None
_worker_lock = threading.Lock()


def get_worker(maxsize: int) -> BackgroundWorker:
    """The process's worker, created on first use with room for ``maxsize`` waiting jobs."""
    global _worker
    worker = _worker
    if worker is not None:
        return worker
    with _worker_lock:
        if _worker is None:
            _worker = BackgroundWorker(maxsize)
        return _worker


def current_worker() -> BackgroundWorker | None:
    """The process's worker if one was created."""
    return _worker


def reset_worker() -> None:
    """Forget the worker (tests; after fork). Jobs still queued in the old one run on there."""
    global _worker
    _worker = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=reset_worker)


def flush(timeout: float = 5.0) -> bool:
    """Wait for background evaluations, then export buffered telemetry.

    Args:
        timeout: the most seconds to wait in all.

    Returns:
        True when every queued evaluation finished and the providers flushed within ``timeout``.
    """
    deadline = time.monotonic() + max(0.0, timeout)
    ok = True
    worker = _worker
    if worker is not None:
        ok = worker.wait_idle(timeout)
    return _flush_providers(max(0.0, deadline - time.monotonic())) and ok


def _flush_providers(timeout_s: float) -> bool:
    from gsar_otel.otel.instruments import current_providers

    ok = True
    for provider in current_providers():
        force_flush = getattr(provider, "force_flush", None)
        if not callable(force_flush):
            continue
        try:
            ok = force_flush(int(timeout_s * 1000)) is not False and ok
        except Exception:  # flushing never breaks the host
            logger.debug("gsar: flushing a provider failed", exc_info=True)
            ok = False
    return ok


def _flush_at_exit() -> None:
    if _worker is None:
        # No background evaluation ever ran: nothing of ours is pending, and the providers
        # flush in their own exit shutdown (flushing here could hit one already shut down).
        return
    try:
        if not flush(EXIT_FLUSH_TIMEOUT_S):
            logger.debug("gsar: background evaluations did not finish before exit")
    except Exception:
        logger.debug("gsar: flush at exit failed", exc_info=True)


def register_exit_flush() -> None:
    """(Re-)register the exit flush so it runs before exit handlers registered earlier (such as
    an SDK provider's own shutdown)."""
    atexit.unregister(_flush_at_exit)
    atexit.register(_flush_at_exit)
