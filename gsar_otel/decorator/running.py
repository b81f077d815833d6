"""Running judging for the decorator: a per-thread event loop for sync callers, watching the
user's callbacks so their exceptions can be told from ours, and merging captured evidence."""

from __future__ import annotations

import inspect
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from gsar_otel.core.evidence import Evidence, EvidenceSet

T = TypeVar("T")

_thread_state = threading.local()


def _forget_thread_loops() -> None:
    global _thread_state
    _thread_state = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_thread_loops)


def _run_on_thread_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` for a sync caller.

    Each thread keeps one event loop for this (closed when the thread object goes away), so a
    judge's per-loop HTTP client and its connections are reused from call to call. A caller
    that is itself inside a running loop gets a worker thread instead (``run_sync``).
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        inside_loop = False
    else:
        inside_loop = True
    if inside_loop:
        from gsar_otel.core.evaluator import run_sync

        return run_sync(coro)
    # Run outside the ``except`` block: an exception raised by the coroutine (a GroundingError,
    # the user's own) must not carry "RuntimeError: no running event loop" as its context.
    loop: asyncio.AbstractEventLoop | None = getattr(_thread_state, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _thread_state.loop = loop
        weakref.finalize(threading.current_thread(), loop.close)
    return loop.run_until_complete(coro)


def _watch(fn: Callable[..., Any] | None, errors: list[BaseException]
           ) -> Callable[..., Any] | None:
    """Wrap a user callback so that its own exceptions can be told apart from ours."""
    if fn is None:
        return None

    def call(*args: Any) -> Any:
        try:
            value = fn(*args)
        except Exception as error:
            errors.append(error)
            raise
        if inspect.isawaitable(value):
            return _watch_awaitable(value, errors)
        return value

    return call


async def _watch_awaitable(value: Awaitable[Any], errors: list[BaseException]) -> Any:
    try:
        return await value
    except Exception as error:
        errors.append(error)
        raise


def merge_evidence(collected: Sequence[Evidence], extra: EvidenceSet | None) -> EvidenceSet:
    """Collected evidence followed by an extractor's, with colliding ids renumbered (``E<n>``)."""
    from gsar_otel.core.evidence import EvidenceSet

    items = [*collected, *(extra.items if extra is not None else ())]
    reserved = {item.id for item in items}
    used: set[str] = set()
    merged: list[Evidence] = []
    next_number = 1
    for item in items:
        if item.id in used:
            while f"E{next_number}" in reserved or f"E{next_number}" in used:
                next_number += 1
            item = item.model_copy(update={"id": f"E{next_number}"})
        used.add(item.id)
        merged.append(item)
    merged_set = EvidenceSet.coerce(merged)
    if extra is not None and extra.truncations:
        merged_set = merged_set.model_copy(
            update={"truncations": (*extra.truncations, *merged_set.truncations)})
    return merged_set
