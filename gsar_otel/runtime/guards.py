"""Every policy for a ``BaseException``, each stated once; no other module catches one.

Who owns a ``BaseException`` decides what becomes of it:

- **The caller's** (:func:`caller_owns`): ``KeyboardInterrupt`` and ``SystemExit`` always reach
  the caller (they may be its own: a signal, an exit), and so does a real cancellation of the
  running task (:func:`is_real_cancellation`), never a ``CancelledError`` some code raised by
  itself.
- **Absorbed** (:class:`absorb`): work that gsar-otel runs for the caller (a judge round, an
  extractor, judging a decorated call) turns anything else it raises, ``GeneratorExit`` and a
  stray ``CancelledError`` included, into a failure of that work: an abstain, a recorded error,
  a failed gate.
- **Recorded, then re-raised** (:class:`on_failure`): whatever ends a block abnormally is
  recorded (a span marked failed, a counter given back, a temporary file removed) and goes on
  unchanged.
- **Contained on a thread gsar-otel owns** (:class:`contain_exits`, :func:`contained`): a
  ``SystemExit`` or ``KeyboardInterrupt`` raised by a judge or an extractor on the background
  worker's loop, the sidecar's judge loop or its extraction pool would end that thread's loop;
  it becomes :class:`~gsar_otel.errors.EscapedBaseException`, an ordinary failure of that job,
  counted and logged under the original's name (:func:`failure_name`).
- **Handed over by a pool thread** (:func:`outcome_of`): work on a worker thread returns
  whatever it raised as its value, so no ``BaseException`` crosses into the thread that waits
  for it; the owner decides (:func:`is_base_only` tells the ones that are no ``Exception``).

``tests/layout/test_base_exceptions.py`` fails on an ``except`` naming ``BaseException``,
``SystemExit``, ``KeyboardInterrupt`` or ``GeneratorExit`` (or a bare ``except:``) anywhere else.
Importing this module loads nothing but the standard library's ``sys`` and ``types``.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Final, Literal, TypeVar

from gsar_otel.errors import EscapedBaseException

T = TypeVar("T")

PROPAGATE: Final = (KeyboardInterrupt, SystemExit)
"""BaseExceptions that always reach the caller: they may be the caller's own (a signal)."""


def really_cancelled() -> bool:
    """True when the running task has a pending cancellation request (a real cancellation, not
    a ``CancelledError`` some code raised by itself)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:  # no event loop ever ran: there is no task to cancel
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    return task is not None and task.cancelling() > 0


def is_real_cancellation(error: BaseException) -> bool:
    """True for a ``CancelledError`` that is a real cancellation of the running task."""
    asyncio = sys.modules.get("asyncio")
    return (asyncio is not None and isinstance(error, asyncio.CancelledError)
            and really_cancelled())


def caller_owns(error: BaseException, *, cancellation: bool = True) -> bool:
    """True for a ``BaseException`` that belongs to the caller: ``KeyboardInterrupt``,
    ``SystemExit`` and, with ``cancellation`` (async code, where there is a task to cancel), a
    real cancellation of the running task."""
    return isinstance(error, PROPAGATE) or (cancellation and is_real_cancellation(error))


class absorb:
    """Turn whatever the block raises into :attr:`error`, but what the caller owns
    (:func:`caller_owns`) and what ``keep`` says belongs to someone else, which propagate.

    After the block, :attr:`error` is None when it ended normally (or returned from the
    function), else what it raised; the block's own ``return`` skips the code after it::

        with absorb() as caught:
            return await work()
        return failure(caught.name)

    Args:
        cancellation: a real cancellation of the running task is the caller's (async code);
            False where there is no task of the caller's to cancel (sync code, a sync
            callback's ``CancelledError``).
        keep: errors that propagate unchanged as well (the user's own callback errors).
    """

    __slots__ = ("cancellation", "error", "keep")

    def __init__(self, *, cancellation: bool = True,
                 keep: Callable[[BaseException], bool] | None = None) -> None:
        self.cancellation = cancellation
        self.keep = keep
        self.error: BaseException | None = None

    @property
    def name(self) -> str:
        """The type name of :attr:`error` ('' when nothing was raised)."""
        return "" if self.error is None else type(self.error).__name__

    def __enter__(self) -> absorb:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> bool:
        if error is None or caller_owns(error, cancellation=self.cancellation) or (
                self.keep is not None and self.keep(error)):
            return False
        self.error = error
        return True


class on_failure:
    """Call ``callback(error)`` with whatever ends the block abnormally (an exception, a
    cancellation, an exit), then let it go on unchanged."""

    __slots__ = ("callback",)

    def __init__(self, callback: Callable[[BaseException], object]) -> None:
        self.callback = callback

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if error is not None:
            self.callback(error)
        return False


class contain_exits:
    """A ``SystemExit`` or ``KeyboardInterrupt`` raised in the block (by a judge or an extractor
    on a thread gsar-otel owns) becomes :class:`~gsar_otel.errors.EscapedBaseException`, so the
    thread's loop lives on and the job fails as with any other error."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if isinstance(error, PROPAGATE):
            raise EscapedBaseException(error) from error
        return False


def failure_name(error: BaseException) -> str:
    """The type name a failure is counted and logged under: an escaped exit's own
    (``SystemExit``, not ``EscapedBaseException``), else the error's."""
    return error.name if isinstance(error, EscapedBaseException) else type(error).__name__


async def contained(awaitable: Awaitable[T]) -> T:
    """``await awaitable`` under :class:`contain_exits` (a job on a loop gsar-otel owns)."""
    with contain_exits():
        return await awaitable


def outcome_of(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T | BaseException:
    """``fn(*args, **kwargs)`` on a worker thread; whatever it raises is returned, not raised (a
    ``BaseException`` from a worker is the work's, never the waiting caller's)."""
    try:
        return fn(*args, **kwargs)
    except BaseException as error:  # handed to the owner, who decides what it becomes
        return error


def is_base_only(outcome: object) -> bool:
    """True for a ``BaseException`` that is no ``Exception`` (an exit, an interrupt, a
    cancellation, ``GeneratorExit``)."""
    return isinstance(outcome, BaseException) and not isinstance(outcome, Exception)
