"""Running judging for the decorator: watching the user's callbacks so their exceptions can be
told from ours, and merging captured evidence (a sync caller's per-thread event loop is
:func:`gsar_otel.runtime.loop.run_on_thread_loop`)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gsar_otel.core.evidence import Evidence, EvidenceSet


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
