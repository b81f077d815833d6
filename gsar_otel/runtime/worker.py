"""The job worker: a bounded job queue drained by an event loop in a thread of its own.

A caller's :meth:`JobWorker.submit` is the hot path: one lock held for a counter check and an
append to the :class:`~gsar_otel.runtime.inbox.Inbox`, so the bound on waiting jobs is exact
under any number of threads. A feeder thread takes jobs off the inbox and starts them, at most
``concurrency`` at a time, on the loop. The caller does not wake the feeder while it is awake:
a job then waits at most :data:`~gsar_otel.runtime.inbox.POLL_S` (10 ms) to start.

Every job submitted ends exactly once: finished (its runner returned) or dropped, and every drop
is handed to :meth:`JobWorker.count_dropped` with its reason (``gsar.drop.reason``); a job that
failed or was cancelled goes to :meth:`JobWorker.report_ended` as well. The background worker of
``@grounded`` (:class:`gsar_otel.otel.background.BackgroundWorker`) counts them in
``gsar.background.dropped``. A ``SystemExit`` or ``KeyboardInterrupt`` from a job fails that job
(:class:`~gsar_otel.runtime.guards.contain_exits`), never the loop. :meth:`JobWorker.stop` drops
what is still waiting or running at its deadline, closes the loop's SDK clients
(:mod:`gsar_otel.runtime.loop_resources`) and stops the threads, each step bounded in time.

Importing this module loads only the standard library; asyncio loads when the worker starts.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import semconv as sc
from gsar_otel.runtime.guards import contain_exits
from gsar_otel.runtime.inbox import STOP, Barrier, Inbox

if TYPE_CHECKING:
    import asyncio

# Logged under the background module's name: where a user of @grounded looks for (and
# configures) what happens to background evaluations.
logger = logging.getLogger("gsar_otel.otel.background")

Runner = Callable[[Any], Coroutine[Any, Any, None]]
"""Turns a job's payload into the coroutine that evaluates it; must not raise."""

DEFAULT_CONCURRENCY: Final = 8
"""Evaluations the worker runs at the same time."""
START_TIMEOUT_S: Final = 5.0
"""Longest :meth:`JobWorker.submit` waits for the worker's loop thread to come up."""
CLOSE_GRACE_S: Final = 0.5
"""Longest :meth:`JobWorker.stop` spends on cancelling jobs and closing connections."""


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One submitted job (compared by identity)."""

    runner: Runner
    payload: Any
    context: contextvars.Context
    name: str


async def guarded(job: Job) -> None:
    """Run ``job``; a ``SystemExit``/``KeyboardInterrupt`` from it would stop the loop thread
    (asyncio re-raises both out of ``run_forever``), so it becomes an ordinary failure."""
    with contain_exits():
        await job.runner(job.payload)


class JobWorker:
    """A bounded job queue drained by an event loop in a thread of its own.

    Args:
        maxsize: most jobs waiting to start; :meth:`submit` refuses more (exactly).
        concurrency: most jobs running at once.
        warm_modules: modules the loop thread imports before its first job (a fork waits for
            them: :meth:`wait_warm`).
        on_start: called once the threads run (the process's worker registers its exit flush).
    """

    def __init__(self, maxsize: int, *, concurrency: int = DEFAULT_CONCURRENCY,
                 warm_modules: tuple[str, ...] = (),
                 on_start: Callable[[], None] | None = None) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be an integer >= 1, got {maxsize!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
        self.maxsize = maxsize
        self.concurrency = concurrency
        self.warm_modules = warm_modules
        self._on_start = on_start
        self._inbox = Inbox()
        self._slots = threading.Semaphore(concurrency)
        self._lock = threading.Lock()
        self._waiting = 0
        self._live: set[Job] = set()
        self._dropped: Counter[str] = Counter()
        self._closed_reason: str | None = None
        self._stop_reason = sc.DROP_REASON_STOPPED
        self._started = False
        self._stopped = False
        self._warned_full = False
        self._warned_error = False
        self._warm = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._threads: tuple[threading.Thread, ...] = ()
        self._tasks: dict[asyncio.Task[None], Job] = {}  # the loop thread's alone
        self._stopping = False  # set on the loop thread

    # -- what becomes of a job that ends without finishing -----------------------------------

    def count_dropped(self, jobs: Iterable[Job], reason: str) -> None:
        """Count ``jobs`` as dropped for ``reason`` (never raises); nothing here."""

    def report_ended(self, job: Job, error: BaseException | None, *, loud: bool = True) -> None:
        """Report a job that failed with ``error`` (or was cancelled: ``error`` None) by
        something other than the worker's stop; nothing here."""

    # -- the caller's side ---------------------------------------------------------------------

    def submit(self, runner: Runner, payload: Any, context: contextvars.Context,
               name: str = "") -> bool:
        """Queue one job; never raises. A refused job is counted as dropped.

        Returns:
            False when the job was dropped (queue full, or the worker stopped).
        """
        job = Job(runner, payload, context, name)
        wake = False
        with self._lock:
            if self._closed_reason is not None:
                reason: str | None = self._closed_reason
            elif self._waiting >= self.maxsize:
                reason = sc.DROP_REASON_QUEUE_FULL
            else:
                self._waiting += 1
                self._live.add(job)
                wake = self._inbox.put(job)
                reason = None
        if wake:
            self._inbox.wake()
        if reason is not None:
            self._drop([job], reason)
            return False
        if not self._started:
            self._start()
        return self._started

    def _start(self) -> None:
        with self._lock:
            if self._started or self._closed_reason is not None:
                return
            try:
                import asyncio

                loop = asyncio.new_event_loop()
                ready = threading.Event()
                runner = threading.Thread(target=self._run_loop, args=(loop, ready),
                                          daemon=True, name="gsar-background-loop")
                runner.start()
                if not ready.wait(START_TIMEOUT_S):
                    raise RuntimeError("the worker's event loop did not start")
                feeder = threading.Thread(target=self._feed, args=(loop,), daemon=True,
                                          name="gsar-background-feeder")
                feeder.start()
            except Exception:  # e.g. no new threads at interpreter shutdown
                logger.warning("gsar: the background worker could not start", exc_info=True)
                self._closed_reason = sc.DROP_REASON_STOPPED
                stranded = list(self._live)
                self._live.clear()
                self._waiting = 0
            else:
                self._loop = loop
                self._threads = (runner, feeder)
                self._started = True
                stranded = []
        self._drop(stranded, sc.DROP_REASON_STOPPED)
        if self._started and self._on_start is not None:
            try:
                self._on_start()
            except Exception:
                logger.debug("gsar: the background worker's start hook failed", exc_info=True)

    def _drop(self, jobs: list[Job], reason: str) -> None:
        if not jobs:
            return
        with self._lock:
            self._dropped[reason] += len(jobs)
            warn = reason == sc.DROP_REASON_QUEUE_FULL and not self._warned_full
            self._warned_full = self._warned_full or warn
        self.count_dropped(jobs, reason)
        if warn:
            logger.warning("gsar: the background queue is full (%d waiting); evaluations are "
                           "dropped and counted in %s (%s=%s)", self.maxsize,
                           sc.METRIC_BACKGROUND_DROPPED, sc.GSAR_DROP_REASON, reason)

    def _settle(self, job: Job) -> bool:
        """Mark ``job`` ended; True only the first time (so it is counted once)."""
        with self._lock:
            if job in self._live:
                self._live.remove(job)
                return True
            return False

    # -- the worker's threads ----------------------------------------------------------------

    def _run_loop(self, loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        import asyncio

        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.call_soon(self._warm_up)
        loop.run_forever()

    def _warm_up(self) -> None:
        try:
            for name in self.warm_modules:
                importlib.import_module(name)
        except Exception:
            logger.debug("gsar: warming up the background worker failed", exc_info=True)
        finally:
            self._warm.set()

    def wait_warm(self, timeout_s: float) -> bool:
        """Wait until the loop thread has imported ``warm_modules`` (True if not started)."""
        return not self._started or self._warm.wait(max(0.0, timeout_s))

    def _feed(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            item = self._inbox.take(self._lock)
            if item is STOP:
                return
            try:
                if isinstance(item, Barrier):
                    loop.call_soon_threadsafe(self._start_barrier, item)
                    continue
                self._slots.acquire()
                with self._lock:
                    self._waiting = max(0, self._waiting - 1)
                loop.call_soon_threadsafe(self._spawn, item)
            except RuntimeError:  # the loop is closed: the worker stopped
                if isinstance(item, Job) and self._settle(item):
                    self._drop([item], self._stop_reason)
                return

    def _spawn(self, job: Job) -> None:
        import asyncio

        if self._stopping:
            self._slots.release()
            if self._settle(job):
                self._drop([job], self._stop_reason)
            return
        try:
            task = asyncio.get_running_loop().create_task(guarded(job), context=job.context)
        except Exception:  # a bad job must not stop the worker
            self._slots.release()
            logger.warning("gsar: could not start a background evaluation of %s", job.name,
                           exc_info=True)
            if self._settle(job):
                self._drop([job], sc.DROP_REASON_ERROR)
            return
        self._tasks[task] = job
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        job = self._tasks.pop(task, None)
        self._slots.release()
        if task.cancelled():
            # stop() settles and counts the jobs it cancels first; any other cancellation (a
            # runner cancelling itself, a stray task.cancel()) is counted here.
            if job is not None and self._settle(job):
                self.report_ended(job, None)
                self._drop([job], sc.DROP_REASON_CANCELLED)
            return
        error = task.exception()
        if job is None or not self._settle(job) or error is None:
            return
        with self._lock:
            first, self._warned_error = not self._warned_error, True
        self.report_ended(job, error, loud=first)
        self._drop([job], sc.DROP_REASON_ERROR)

    def _put_now(self, item: object) -> None:
        with self._lock:
            self._inbox.put(item)
        self._inbox.wake()

    def _start_barrier(self, barrier: Barrier) -> None:
        import asyncio

        pending = set(self._tasks)
        if not pending:
            barrier.done.set()
            return

        async def wait() -> None:
            await asyncio.wait(pending)
            barrier.done.set()

        asyncio.get_running_loop().create_task(wait())

    # -- waiting and stopping ------------------------------------------------------------------

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every job queued before this call has ended.

        Returns:
            True when they all ended within ``timeout_s`` seconds.
        """
        if not self._started or self._stopped:
            return not self._live
        barrier = Barrier()
        self._put_now(barrier)
        return barrier.done.wait(max(0.0, timeout_s))

    def stop(self, timeout_s: float, *, reason: str = sc.DROP_REASON_EXIT_TIMEOUT) -> int:
        """Refuse new jobs, drop (and count, as ``reason``) every job still waiting or running,
        close the loop's SDK clients and stop the threads: all within ``timeout_s`` plus
        :data:`CLOSE_GRACE_S`. Idempotent.

        Returns:
            The jobs this call dropped.
        """
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._lock:
            if self._stopped:
                return 0
            self._stopped = True
            self._closed_reason = sc.DROP_REASON_STOPPED
            self._stop_reason = reason
        before = sum(self._dropped.values())
        loop = self._loop
        if loop is not None:
            self._stop_loop(loop, reason, deadline)
        with self._lock:
            stranded = list(self._live)
            self._live.clear()
            self._waiting = 0
        self._drop(stranded, reason)
        for _ in range(self.concurrency):  # a feeder still waiting for a slot moves on and ends
            self._slots.release()
        return sum(self._dropped.values()) - before

    def _stop_loop(self, loop: asyncio.AbstractEventLoop, reason: str, deadline: float) -> None:
        import asyncio

        grace = deadline + CLOSE_GRACE_S
        try:
            shutdown = asyncio.run_coroutine_threadsafe(self._shutdown_on_loop(reason), loop)
            shutdown.result(max(0.0, grace - time.monotonic()))
        except Exception:  # the loop is busy or gone: what is left is dropped below
            logger.debug("gsar: the background loop did not shut down in time", exc_info=True)
        self._put_now(STOP)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(loop.stop)
        for thread in self._threads:
            thread.join(max(0.0, grace - time.monotonic()))
        if not self._threads[0].is_alive() and not loop.is_closed():
            loop.close()

    async def _shutdown_on_loop(self, reason: str) -> None:
        import asyncio

        from gsar_otel.runtime.loop_resources import close_loop_resources

        self._stopping = True
        self._drop([job for task, job in list(self._tasks.items())
                    if not task.done() and self._settle(job)], reason)
        current = asyncio.current_task()
        others = [task for task in asyncio.all_tasks() if task is not current]
        for task in others:
            task.cancel()
        if others:
            await asyncio.wait(others, timeout=CLOSE_GRACE_S / 2)
        await close_loop_resources(CLOSE_GRACE_S / 2)
        await asyncio.get_running_loop().shutdown_asyncgens()

    # -- after fork ----------------------------------------------------------------------------

    def abandon(self) -> None:
        """In a forked child: forget the parent's jobs (the parent judges them) and free them."""
        self._closed_reason = sc.DROP_REASON_STOPPED
        self._stopped = True
        self._lock = threading.Lock()
        self._live.clear()
        for task in self._tasks:
            # the task is the parent's: no "destroyed but pending" report in the child
            with contextlib.suppress(AttributeError):
                setattr(task, "_log_destroy_pending", False)  # noqa: B010
        self._tasks.clear()
        self._inbox.clear()

    # -- state -------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Jobs waiting to start (at most ``maxsize``)."""
        return self._waiting

    @property
    def unfinished(self) -> int:
        """Jobs submitted that have neither finished nor been dropped."""
        return len(self._live)

    @property
    def asleep(self) -> bool:
        """True while the feeder thread sleeps: the next :meth:`submit` wakes it."""
        return self._inbox.asleep

    @property
    def stopped(self) -> bool:
        """True once :meth:`stop` ran."""
        return self._stopped

    def dropped(self) -> Mapping[str, int]:
        """Jobs this worker dropped, by reason."""
        with self._lock:
            return dict(self._dropped)
