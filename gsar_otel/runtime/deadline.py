"""Awaiting within a deadline, told apart from a ``TimeoutError`` of the work itself.

:func:`within` cuts an awaitable off at ``timeout_s`` and raises :class:`DeadlineReached` only
when its own deadline expired; a ``TimeoutError`` the work raises by itself propagates
unchanged. The evaluation loop cuts an async recovery callback off with it, and a judge round
(the judge, then the integrity guard) ends with it as an abstain naming the stage it reached.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from gsar_otel.errors import GSARError

T = TypeVar("T")


class DeadlineReached(GSARError):
    """The deadline of :func:`within` cut the work off."""


async def within(awaitable: Awaitable[T], timeout_s: float | None) -> T:
    """``await awaitable``, cut off after ``timeout_s`` seconds (None: no deadline; a deadline
    already past cuts it off at its first wait).

    Raises:
        DeadlineReached: the deadline cut it off (raised from None: the cancellation it took is
            no error of the work's).
        BaseException: whatever the work raises, a ``TimeoutError`` of its own included.
    """
    if timeout_s is None:
        return await awaitable
    scope = asyncio.timeout(max(timeout_s, 0.0))
    try:
        async with scope:
            return await awaitable
    except TimeoutError:
        if scope.expired():
            raise DeadlineReached from None
        raise
