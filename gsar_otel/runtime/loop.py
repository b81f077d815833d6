"""Event loops for code that is not on one: running a coroutine from synchronous code, the
event loop each thread keeps for that, and an event loop in a thread of its own.

:func:`run_sync` runs a coroutine to completion from synchronous code, on a thread of its own
when the caller is itself inside a running loop. :func:`run_on_thread_loop` does the same on one
event loop per thread, kept from call to call (a judge's per-loop HTTP client and its connections
are reused); ``@grounded`` judges a sync function's calls with it.

:class:`LoopThread` is an event loop in a thread of its own, which other event loops hand
coroutines to. The sidecar judges on two of them (its judging queue's and ``/v1/judge``'s), so a
judge that blocks or runs long never holds the loop that receives spans. A coroutine handed over
with :meth:`LoopThread.run` runs under :class:`~gsar_otel.runtime.guards.contain_exits`: a
``SystemExit`` or ``KeyboardInterrupt`` it raises fails that coroutine (as
:class:`~gsar_otel.errors.EscapedBaseException`), never the loop.

Importing this module loads only the standard library's threading; asyncio loads on first use
(the decorator imports it, and importing ``@grounded`` stays cheap).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from gsar_otel.runtime.guards import contained

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, inside a running loop or not."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import concurrent.futures
    import contextvars

    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coro).result()


_thread_state = threading.local()


def _forget_thread_loops() -> None:
    global _thread_state
    _thread_state = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_thread_loops)


def run_on_thread_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` for a sync caller.

    Each thread keeps one event loop for this (closed when the thread object goes away), so a
    judge's per-loop HTTP client and its connections are reused from call to call. A caller
    that is itself inside a running loop gets a worker thread instead (:func:`run_sync`).
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        inside_loop = False
    else:
        inside_loop = True
    if inside_loop:
        return run_sync(coro)
    # Run outside the ``except`` block: an exception raised by the coroutine (a GroundingError,
    # the user's own) must not carry "RuntimeError: no running event loop" as its context.
    loop: asyncio.AbstractEventLoop | None = getattr(_thread_state, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _thread_state.loop = loop
        weakref.finalize(threading.current_thread(), loop.close)
    return loop.run_until_complete(coro)


class LoopThread:
    """An event loop running in a daemon thread named ``name``, started at once."""

    def __init__(self, name: str) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this thread's loop and await it from the caller's loop."""
        import asyncio

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(contained(coro),
                                                                          self.loop))

    def cancel_all(self, timeout_s: float) -> bool:
        """Cancel every task on the loop and wait up to ``timeout_s`` (plus a second) for them
        to end; False when they did not (a task stuck in blocking code)."""
        import asyncio

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=timeout_s)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout_s + 1)
        except Exception:
            return False
        return True

    def halt(self, join_s: float = 10.0) -> None:
        """Stop the loop and wait up to ``join_s`` for the thread; the loop is closed when the
        thread ended."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=join_s)
        if not self._thread.is_alive():
            self.loop.close()
