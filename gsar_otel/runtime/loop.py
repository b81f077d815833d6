"""An event loop in a thread of its own, which other event loops hand coroutines to.

The sidecar judges on two of them (its judging queue's and ``/v1/judge``'s), so a judge that
blocks or runs long never holds the loop that receives spans. A coroutine handed over with
:meth:`LoopThread.run` runs under :class:`~gsar_otel.runtime.guards.contain_exits`: a
``SystemExit`` or ``KeyboardInterrupt`` it raises fails that coroutine (as
:class:`~gsar_otel.errors.EscapedBaseException`), never the loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from gsar_otel.runtime.guards import contained

T = TypeVar("T")


class LoopThread:
    """An event loop running in a daemon thread named ``name``, started at once."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this thread's loop and await it from the caller's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(contained(coro),
                                                                          self.loop))

    def cancel_all(self, timeout_s: float) -> bool:
        """Cancel every task on the loop and wait up to ``timeout_s`` (plus a second) for them
        to end; False when they did not (a task stuck in blocking code)."""

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
