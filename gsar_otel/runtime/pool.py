"""The bounded worker pool that asyncio callers can stop waiting for.

Synchronous judges and the integrity guard run here, so ``asyncio`` can stop waiting for them at
a deadline and the host's event loop keeps running meanwhile. A thread cannot be killed: work
abandoned at its deadline finishes in the pool and its result is dropped. The pool has
:data:`DEFAULT_WORKERS` threads, so at most that many abandoned jobs run at once; work still
queued when its caller gives up is cancelled before it starts, and past
:data:`DEFAULT_MAX_PENDING` queued or running jobs new work is refused (:class:`PoolBusyError`).
:func:`pool_stats` counts all of it; :meth:`WorkerPool.run_here` runs (and counts) work too small
to be worth a thread switch on the calling thread.

A caller with work of its own to keep apart (the sidecar's ``/v1/judge``) runs it on a pool of
its own with :func:`pool_in_use`: every job started in that context goes there instead. A forked
child starts a pool of its own on first use (threads do not survive a fork).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from gsar_otel.errors import GSARError
from gsar_otel.runtime.guards import on_failure

T = TypeVar("T")

DEFAULT_WORKERS: Final = max(2, min(8, os.cpu_count() or 2))
"""Threads that run synchronous judges and the integrity guard."""
DEFAULT_MAX_PENDING: Final = 1024
"""Jobs queued or running on the pool at once; past it new work is refused."""


class PoolBusyError(RuntimeError, GSARError):
    """The worker pool holds :data:`DEFAULT_MAX_PENDING` jobs already; this one was refused."""


@dataclass(frozen=True, slots=True)
class PoolStats:
    """What the worker pool has done since the process (or fork) started."""

    submitted: int
    refused: int
    abandoned: int
    """Jobs whose caller stopped waiting (deadline or cancellation) while they ran."""
    pending: int
    """Jobs queued or running now."""
    inline: int = 0
    """Small jobs run on the calling thread instead (:meth:`WorkerPool.run_here`)."""


class WorkerPool:
    """A bounded thread pool that asyncio callers can stop waiting for."""

    def __init__(self, max_workers: int = DEFAULT_WORKERS,
                 max_pending: int = DEFAULT_MAX_PENDING) -> None:
        self.max_workers = max_workers
        self.max_pending = max_pending
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="gsar-judge")
        self._lock = threading.Lock()
        self._pending = 0
        self._submitted = 0
        self._refused = 0
        self._abandoned = 0
        self._inline = 0

    def stats(self) -> PoolStats:
        """The counters so far."""
        with self._lock:
            return PoolStats(self._submitted, self._refused, self._abandoned, self._pending,
                             self._inline)

    def _admit(self) -> None:
        with self._lock:
            if self._pending >= self.max_pending:
                self._refused += 1
                raise PoolBusyError(f"the judging pool holds {self._pending} jobs already")
            self._pending += 1
            self._submitted += 1

    def _done(self, _: object) -> None:
        with self._lock:
            self._pending -= 1

    def run_here(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the calling thread, counted in ``inline``: for work too
        small to be worth a thread switch.

        Raises:
            BaseException: whatever ``fn`` raises.
        """
        with self._lock:
            self._inline += 1
        return fn(*args, **kwargs)

    def close(self) -> None:
        """Stop taking work; jobs not started are cancelled, running ones finish."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on a worker thread, in a copy of the caller's context.

        Raises:
            PoolBusyError: the pool is full.
            BaseException: whatever ``fn`` raises.
        """
        self._admit()
        context = contextvars.copy_context()
        with on_failure(self._done):  # not submitted: the job's place is given back
            future = self._executor.submit(context.run, fn, *args, **kwargs)
        # Runs when the job ends, or when it is cancelled before it started.
        future.add_done_callback(self._done)
        waiting = asyncio.wrap_future(future)
        try:
            return await waiting
        except asyncio.CancelledError:
            # Cancelling `waiting` cancels a job that has not started; a running one finishes.
            if not future.cancel() and not future.done():
                with self._lock:
                    self._abandoned += 1
            raise


_pool_lock = threading.Lock()
_pool: WorkerPool | None = None
_pool_here: contextvars.ContextVar[WorkerPool | None] = contextvars.ContextVar(
    "gsar_worker_pool", default=None)


@contextlib.contextmanager
def pool_in_use(pool: WorkerPool) -> Iterator[WorkerPool]:
    """Within this block (and the tasks and threads started from it, which copy the context),
    :func:`get_pool` is ``pool``: judging started here cannot take the process pool's threads,
    nor wait behind its jobs."""
    token = _pool_here.set(pool)
    try:
        yield pool
    finally:
        _pool_here.reset(token)


def get_pool() -> WorkerPool:
    """The pool of :func:`pool_in_use` in this context, else the process's worker pool (a new
    one in a forked child: threads do not survive a fork)."""
    global _pool
    chosen = _pool_here.get()
    if chosen is not None:
        return chosen
    pool = _pool
    if pool is not None:
        return pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerPool()
        return _pool


def pool_stats() -> PoolStats:
    """Jobs submitted, refused, abandoned and pending on the worker pool."""
    return get_pool().stats()


def _forget_pool() -> None:
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


class ProcessPool:
    """A pool of ``workers`` processes started (``context``: ``spawn`` by default, no copy of
    the caller's threads or memory) at the first :meth:`executor` call, never before; started
    again after :meth:`restart`; never again after :meth:`close`."""

    def __init__(self, workers: int, context: str = "spawn") -> None:
        self.workers, self._context = workers, context
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.closed = False

    @property
    def started(self) -> bool:
        """Whether the processes exist."""
        return self._pool is not None

    def executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context(self._context))
        return self._pool

    def restart(self) -> None:
        """Stop the processes (:func:`stop_processes`); the next call starts new ones."""
        pool, self._pool = self._pool, None
        if pool is not None:
            stop_processes(pool)

    def close(self) -> None:
        """Stop the processes for good."""
        self.closed = True
        self.restart()


def stop_processes(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Shut a process pool down without waiting for the work in progress: its processes are
    terminated (a judgement or a parse in progress is given up), then joined."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)
