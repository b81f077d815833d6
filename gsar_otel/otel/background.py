"""Background judging for the whole process: its one worker, :func:`flush`, exit and fork.

``@grounded(mode="background")`` returns the function's result at once and hands the evaluation
to the process's :class:`BackgroundWorker` (a :class:`~gsar_otel.runtime.worker.JobWorker` whose
drops are counted and whose failures are logged). Each job runs in a copy of the
caller's ``contextvars`` context taken at call time, so its ``gsar.evaluate`` span is a child of
the caller's span. Nothing submitted is lost without a count: a full queue, the exit budget
running out and a stopped worker each add to ``gsar.background.dropped`` with
``gsar.drop.reason``. A call does not wake the worker's feeder thread while it is awake
(waking a thread costs the caller a system call and often its CPU): the feeder looks for new
jobs every :data:`~gsar_otel.runtime.inbox.POLL_S` (10 ms), so a job waits at most that much more
to start; after :data:`~gsar_otel.runtime.inbox.LINGER_S` (2 s) without a job it sleeps, and the
next call wakes it.

At interpreter exit the worker gets ``GSAR_EXIT_FLUSH_S`` seconds (default 5, or
:func:`set_exit_flush_timeout`) to finish; what is left is dropped, counted and logged at
WARNING. The flush runs when the interpreter starts shutting down threads, before the standard
library's thread pools stop taking work (judges run on one) and before the SDK providers' own
exit shutdown. A child of ``multiprocessing`` (fork or forkserver) leaves through ``os._exit``,
which skips exit handlers: the worker then flushes from a ``multiprocessing`` finalizer, and a
child that exits otherwise (a bare ``os._exit``, a pool terminated by signal) must call
:func:`flush` at the end of its work.

After ``os.fork()`` the child forgets the parent's worker and its queue (the parent judges those
jobs) and starts its own on first use. A fork waits (briefly) until the worker's loop thread has
imported what judging needs, so the child never inherits a half-imported module, and
:func:`flush` needs no import and no lock a parent's thread could hold: it honours its timeout.

Importing this module loads only the standard library.
"""

from __future__ import annotations

import atexit
import logging
import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from gsar_otel import environment
from gsar_otel import semconv as sc
from gsar_otel.config_values import SettingsError
from gsar_otel.otel.jobs import (
    count_dropped,
    forget_pending,
    held_drops,
    report_ended,
    settle_pending,
)
from gsar_otel.runtime.worker import DEFAULT_CONCURRENCY, Job, JobWorker, Runner

__all__ = [
    "DEFAULT_CONCURRENCY", "EXIT_FLUSH_TIMEOUT_S", "BackgroundWorker", "Runner",
    "current_worker", "exit_flush_timeout", "flush", "get_worker", "register_exit_flush",
    "reset_worker", "set_exit_flush_timeout",
]

logger = logging.getLogger(__name__)

EXIT_FLUSH_TIMEOUT_S: Final = 5.0
"""Default of ``GSAR_EXIT_FLUSH_S``: longest the interpreter waits at exit for background
evaluations (plus at most ``runtime.worker.CLOSE_GRACE_S`` to cancel the rest and close
connections)."""
FORK_WAIT_S: Final = 2.0
"""Longest a fork waits for a just-started worker to finish importing what judging needs."""

WARM_MODULES: Final = (
    "gsar_otel.otel.traced", "gsar_otel.otel.recording", "gsar_otel.otel.instruments",
    "gsar_otel.core.evaluator", "gsar_otel.judges.factory", "concurrent.futures.thread",
)
"""Imported by the loop thread before it starts its first job; a fork waits for this (see
below), so a child never inherits one of them half-imported."""


class BackgroundWorker(JobWorker):
    """The job worker of ``@grounded(mode="background")``: every job it drops is counted in
    ``gsar.background.dropped`` by ``gsar.function`` and ``gsar.drop.reason``, and every job that
    failed or was cancelled is logged (:mod:`gsar_otel.otel.jobs`).

    Args:
        maxsize: most jobs waiting to start; :meth:`submit` refuses more (exactly).
        concurrency: most jobs running at once.
        warm_modules: modules the loop thread imports before its first job.
        on_start: called once the threads run (the process's worker registers its exit flush).
    """

    def __init__(self, maxsize: int, *, concurrency: int = DEFAULT_CONCURRENCY,
                 warm_modules: tuple[str, ...] = WARM_MODULES,
                 on_start: Callable[[], None] | None = None) -> None:
        super().__init__(maxsize, concurrency=concurrency, warm_modules=warm_modules,
                         on_start=on_start)

    def count_dropped(self, jobs: Iterable[Job], reason: str) -> None:
        count_dropped(jobs, reason)

    def report_ended(self, job: Job, error: BaseException | None, *, loud: bool = True) -> None:
        report_ended(job, error, loud=loud)


_worker: BackgroundWorker | None = None
_worker_lock = threading.Lock()
_exit_flush_s: float | None = None


def get_worker(maxsize: int) -> BackgroundWorker:
    """The process's worker, created on first use with room for ``maxsize`` waiting jobs."""
    global _worker
    worker = _worker
    if worker is not None:
        return worker
    with _worker_lock:
        if _worker is None:
            _worker = BackgroundWorker(maxsize, on_start=register_exit_flush)
        return _worker


def current_worker() -> BackgroundWorker | None:
    """The process's worker if one was created."""
    return _worker


def reset_worker() -> None:
    """Forget the worker (tests). Jobs still queued in the old one run on there."""
    global _worker
    _worker = None


# -- the exit budget ---------------------------------------------------------------------------


def set_exit_flush_timeout(seconds: float | None) -> None:
    """Set the exit budget (seconds >= 0); None returns to ``GSAR_EXIT_FLUSH_S`` or the default.

    Raises:
        ValueError: ``seconds`` is not a finite number >= 0.
    """
    global _exit_flush_s
    if seconds is not None:
        seconds = _check_seconds(seconds, "exit_flush_s")
    _exit_flush_s = seconds


def exit_flush_timeout() -> float:
    """The exit budget in force: :func:`set_exit_flush_timeout`, else ``GSAR_EXIT_FLUSH_S``, else
    :data:`EXIT_FLUSH_TIMEOUT_S`. An invalid variable is reported at WARNING and the default
    applies (exit is no time to raise)."""
    if _exit_flush_s is not None:
        return _exit_flush_s
    try:
        seconds: float | None = environment.read(sc.ENV_EXIT_FLUSH_S)
    except SettingsError as error:
        logger.warning("gsar: %s; waiting the default %.1f s at exit", error,
                       EXIT_FLUSH_TIMEOUT_S)
        return EXIT_FLUSH_TIMEOUT_S
    return EXIT_FLUSH_TIMEOUT_S if seconds is None else seconds


def _check_seconds(value: Any, name: str) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or value < 0):
        raise ValueError(f"{name} must be a number of seconds >= 0, got {value!r}")
    return float(value)


# -- flushing ----------------------------------------------------------------------------------


def flush(timeout: float = 5.0) -> bool:
    """Wait for background evaluations, then export buffered telemetry.

    Needs no import and no lock that another thread (or, after a fork, the parent) could hold,
    so it returns within ``timeout`` in every case. Call it at the end of a child process's work
    when the child may leave through ``os._exit``.

    Args:
        timeout: the most seconds to wait in all.

    Returns:
        True when every queued evaluation ended and the providers flushed within ``timeout``.
    """
    try:
        timeout = float(timeout)
    except (TypeError, ValueError):
        timeout = 0.0
    timeout = timeout if math.isfinite(timeout) and timeout > 0 else 0.0
    deadline = time.monotonic() + timeout
    ok = True
    worker = _worker
    if worker is not None:
        ok = worker.wait_idle(timeout)
    settle_pending(wait=True)
    return _flush_providers(max(0.0, deadline - time.monotonic())) and ok


def _loaded(name: str) -> Any:
    """The module if it is fully imported, else None (never imports)."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    if module is None or getattr(spec, "_initializing", False):
        return None
    return module


class _Flusher:
    """A helper thread that force-flushes providers, so a caller can stop waiting at its timeout
    even when an exporter, or after a fork a lock the parent held, blocks the flush. One thread
    serves every flush (no thread per call); a forked child starts its own."""

    def __init__(self) -> None:
        self.requests: queue.SimpleQueue[tuple[Sequence[Any], float, threading.Event,
                                               list[bool]]] = queue.SimpleQueue()
        self.busy_since: float | None = None
        thread = threading.Thread(target=self._serve, daemon=True, name="gsar-flush")
        thread.start()

    def _serve(self) -> None:
        while True:
            providers, timeout_s, done, outcome = self.requests.get()
            self.busy_since = time.monotonic()
            ok = _force_flush(providers, timeout_s)
            self.busy_since = None
            outcome.append(ok)
            done.set()

    def flush(self, providers: Sequence[Any], timeout_s: float) -> bool:
        if self.busy_since is not None and time.monotonic() - self.busy_since > timeout_s:
            return False  # an earlier flush is stuck in an exporter: do not queue behind it
        done, outcome = threading.Event(), list[bool]()
        self.requests.put((providers, timeout_s, done, outcome))
        return done.wait(timeout_s) and outcome == [True]


_flusher: _Flusher | None = None


def _flush_providers(timeout_s: float) -> bool:
    """Force-flush gsar-otel's providers on the helper thread, waiting at most ``timeout_s``."""
    global _flusher
    instruments = _loaded("gsar_otel.otel.instruments")
    if instruments is None:  # nothing of ours was emitted in this process
        return True
    providers: Sequence[Any] = instruments.current_providers()
    flusher = _flusher
    if flusher is None:
        try:
            flusher = _flusher = _Flusher()
        except RuntimeError:  # no new threads (interpreter shutdown): flush on this one
            return _force_flush(providers, timeout_s)
    return flusher.flush(providers, timeout_s)


def _force_flush(providers: Sequence[Any], timeout_s: float) -> bool:
    ok = True
    for provider in providers:
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
    """Give the worker the exit budget, then drop, count and report what is left."""
    worker = _worker
    if worker is None or worker.stopped:
        # No background evaluation ever ran (or this ran already): nothing of ours is pending,
        # and the providers flush in their own exit shutdown.
        return
    try:
        budget = exit_flush_timeout()
        deadline = time.monotonic() + budget
        worker.wait_idle(budget)
        dropped = worker.stop(max(0.0, deadline - time.monotonic()),
                              reason=sc.DROP_REASON_EXIT_TIMEOUT)
        if dropped:
            logger.warning("gsar: %d background evaluation(s) not judged within the exit budget "
                           "of %.1f s (%s); counted in %s (%s=%s)", dropped, budget,
                           sc.ENV_EXIT_FLUSH_S, sc.METRIC_BACKGROUND_DROPPED,
                           sc.GSAR_DROP_REASON, sc.DROP_REASON_EXIT_TIMEOUT)
        if settle_pending(wait=True):
            logger.warning("gsar: %d dropped background evaluation(s) could not be counted",
                           held_drops())
        left = deadline - time.monotonic()
        if left > 0:
            _flush_providers(left)
    except Exception:
        logger.warning("gsar: flushing background evaluations at exit failed", exc_info=True)


_registered_threading_exit = False
_mp_finalizer_pid: int | None = None


def register_exit_flush() -> None:
    """Register the exit flush to run when the interpreter starts shutting down threads (before
    the thread pools judges run on stop), and as an ``atexit`` handler ahead of those registered
    earlier (such as an SDK provider's own shutdown). It runs once; later calls do nothing."""
    global _registered_threading_exit
    atexit.unregister(_flush_at_exit)
    atexit.register(_flush_at_exit)
    _register_mp_finalizer()
    if _registered_threading_exit:
        return
    register = getattr(threading, "_register_atexit", None)
    if register is None:
        return
    try:
        import concurrent.futures.thread  # noqa: F401  (its exit hook must run after ours)

        register(_flush_at_exit)
        _registered_threading_exit = True
    except RuntimeError:  # the interpreter is shutting down already
        pass


def _register_mp_finalizer() -> None:
    """In a ``multiprocessing`` child, flush from a finalizer: the child exits via ``os._exit``."""
    process = _loaded("multiprocessing.process")
    util = _loaded("multiprocessing.util")
    if process is None or util is None or process.parent_process() is None:
        return
    global _mp_finalizer_pid
    if _mp_finalizer_pid == os.getpid():
        return
    util.Finalize(None, _flush_at_exit, exitpriority=10)
    _mp_finalizer_pid = os.getpid()


# -- fork ----------------------------------------------------------------------------------------


def _before_fork() -> None:
    worker = _worker
    if worker is not None:
        worker.wait_warm(FORK_WAIT_S)


def _after_fork_in_child() -> None:
    global _worker, _worker_lock, _flusher
    inherited, _worker = _worker, None
    _worker_lock = threading.Lock()
    _flusher = None  # its thread is the parent's
    forget_pending()
    if inherited is not None:
        inherited.abandon()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
