"""Resources bound to one event loop, closed by whoever owns the loop before it stops.

An SDK client's connection pool belongs to the event loop that opened it. A judge that builds a
client for a loop registers a closer for that loop here; the loop's owner (the background worker)
awaits :func:`close_loop_resources` on the loop before stopping it, so the connections are closed
then, not left to the garbage collector after the loop is gone.

Closers are held weakly when they are bound methods, so registering one does not keep a judge
alive; the registry forgets a loop when the loop itself is freed. asyncio is imported only by the
functions that run on a loop, so importing this module stays cheap.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import asyncio

logger = logging.getLogger(__name__)

Closer = Callable[[], Awaitable[None]]
"""Closes what its owner holds for the running loop; awaited on that loop."""

DEFAULT_CLOSE_TIMEOUT_S: Final = 2.0
"""Longest :func:`close_loop_resources` waits for all closers of a loop together."""

_lock = threading.Lock()
_closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                    list[Callable[[], Closer | None]]] = weakref.WeakKeyDictionary()


def register_loop_closer(loop: asyncio.AbstractEventLoop, closer: Closer) -> None:
    """Have ``closer`` awaited on ``loop`` when the loop's owner closes the loop's resources."""
    ref: Callable[[], Closer | None]
    if hasattr(closer, "__self__") and hasattr(closer, "__func__"):
        ref = weakref.WeakMethod(closer)
    else:
        def ref() -> Closer:
            return closer
    with _lock:
        _closers.setdefault(loop, []).append(ref)


def pending_closers(loop: asyncio.AbstractEventLoop) -> int:
    """Closers registered for ``loop`` whose owner is still alive."""
    with _lock:
        return sum(1 for ref in _closers.get(loop, ()) if ref() is not None)


async def close_loop_resources(timeout_s: float = DEFAULT_CLOSE_TIMEOUT_S) -> int:
    """Await every closer registered for the running loop (each at most once), within
    ``timeout_s`` in all. A closer that fails or runs out of time is logged, never raised.

    Returns:
        The closers that finished.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    with _lock:
        refs = _closers.pop(loop, [])
    closers = [closer for closer in (ref() for ref in refs) if closer is not None]
    if not closers:
        return 0
    tasks = [loop.create_task(_close_one(closer)) for closer in closers]
    done, pending = await asyncio.wait(tasks, timeout=max(0.0, timeout_s))
    for task in pending:
        task.cancel()
    if pending:
        logger.warning("gsar: %d connection pool(s) of this event loop did not close within "
                       "%.1f s", len(pending), timeout_s)
    return sum(1 for task in done if not task.cancelled() and task.result())


async def _close_one(closer: Closer) -> bool:
    try:
        await closer()
    except Exception:
        logger.debug("gsar: closing a loop's resources failed", exc_info=True)
        return False
    return True


def close_owned_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Close ``loop``, which the caller owns and which is not running: first its registered
    resources (so SDK clients are closed on their loop, not by the garbage collector after the
    loop is gone), then its async generators."""
    if loop.is_closed():
        return
    try:
        with _lock:
            registered = loop in _closers
        if registered:
            loop.run_until_complete(close_loop_resources())
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
