"""Capturing evidence inside an agent call.

Inside a function decorated with ``@grounded``, ``record_evidence(...)`` and functions decorated
with ``@tool_evidence`` add items to that call's evidence (a ``contextvars`` collector, so
concurrent calls never mix their evidence).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar, overload

from gsar_otel.core.evidence import (
    Evidence,
    _free_id,
    evidence_text,
    infer_evidence_type,
    normalize_ref,
)
from gsar_otel.core.model import EvidenceType

logger = logging.getLogger(__name__)


_COLLECTOR: ContextVar[list[Evidence] | None] = ContextVar("gsar_evidence_collector", default=None)


@contextmanager
def collect_evidence() -> Iterator[list[Evidence]]:
    """Collect everything recorded with ``record_evidence`` / ``@tool_evidence`` in this block.

    Child asyncio tasks started inside the block record into the same list; calls running
    concurrently in other contexts have their own.
    """
    collected: list[Evidence] = []
    token = _COLLECTOR.set(collected)
    try:
        yield collected
    finally:
        _COLLECTOR.reset(token)


def record_evidence(
    content: Any,
    *,
    id: str | None = None,
    type: EvidenceType | str | None = None,
    source: str | None = None,
) -> Evidence | None:
    """Add one evidence item to the current ``@grounded`` call; a no-op outside one.

    Non-string content (a dict, a list, a number) is kept as compact JSON
    (:func:`~gsar_otel.core.evidence.evidence_text`, as ``evidence=`` keeps such a list item).

    Returns:
        The recorded Evidence, or None when no call is collecting.
    """
    collected = _COLLECTOR.get()
    if collected is None:
        return None
    text = evidence_text(content)
    if collected or id is not None:
        taken = {normalize_ref(existing.id) for existing in collected}
        if id is not None and normalize_ref(id) in taken:
            raise ValueError(f"evidence id {id!r} was already recorded in this call; ids must "
                             "be unique")
        id = id or _free_id(len(collected) + 1, taken)
    else:  # the first item of a call, the common case: nothing taken yet
        id = "E1"
    item = Evidence(id=id, content=text, source=source,
                    type=infer_evidence_type(text) if type is None else type)
    collected.append(item)
    return item


P = ParamSpec("P")
R = TypeVar("R")


@overload
def tool_evidence(func: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def tool_evidence(
    *, type: EvidenceType | str | None = None, source: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def tool_evidence(
    func: Callable[P, R] | None = None,
    /,
    *,
    type: EvidenceType | str | None = None,
    source: str | None = None,
) -> Any:
    """Decorate a tool so that its return value is recorded as evidence of the current call.

    Works on sync and async functions, bare (``@tool_evidence``) or with options
    (``@tool_evidence(source="metrics")``). The tool's result is returned unchanged.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        name: str = source or str(getattr(fn, "__qualname__", getattr(fn, "__name__", "tool")))

        if inspect.iscoroutinefunction(fn):
            async_fn: Callable[P, Awaitable[Any]] = fn

            @functools.wraps(fn)
            async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
                result = await async_fn(*args, **kwargs)
                _record_quietly(result, type, name)
                return result

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            result = fn(*args, **kwargs)
            _record_quietly(result, type, name)
            return result

        return wrapper

    return decorate if func is None else decorate(func)


def _record_quietly(result: Any, kind: EvidenceType | str | None, source: str) -> None:
    # Recording must never break the tool: a result that cannot be turned into text is skipped.
    try:
        if result is not None:
            record_evidence(result, type=kind, source=source)
    except Exception:
        logger.debug("could not record tool result as evidence", exc_info=True)
