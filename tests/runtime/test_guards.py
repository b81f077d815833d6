"""The BaseException policies of gsar_otel.runtime.guards, each on its own."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from gsar_otel.errors import EscapedBaseException
from gsar_otel.runtime.guards import (
    absorb,
    caller_owns,
    contain_exits,
    contained,
    failure_name,
    is_base_only,
    is_real_cancellation,
    on_failure,
    outcome_of,
)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(2)])
def test_an_exit_or_an_interrupt_always_reaches_the_caller(error: BaseException) -> None:
    assert caller_owns(error) and caller_owns(error, cancellation=False)
    with pytest.raises(type(error)), absorb():
        raise error


@pytest.mark.parametrize("error", [GeneratorExit(), asyncio.CancelledError(), ValueError("x")])
def test_anything_else_is_absorbed(error: BaseException) -> None:
    with absorb() as caught:
        raise error
    assert caught.error is error and caught.name == type(error).__name__


def test_a_block_that_ends_normally_absorbs_nothing() -> None:
    with absorb() as caught:
        pass
    assert caught.error is None and caught.name == ""


def test_what_keep_names_propagates() -> None:
    mine = ValueError("the user's")
    with pytest.raises(ValueError), absorb(keep=lambda error: error is mine):
        raise mine
    with absorb(keep=lambda error: error is mine) as caught:
        raise ValueError("ours")
    assert caught.name == "ValueError"


def test_a_real_cancellation_is_the_callers_but_a_raised_one_is_not() -> None:
    async def raised() -> str:
        with absorb() as caught:
            raise asyncio.CancelledError
        return caught.name

    assert asyncio.run(raised()) == "CancelledError"

    async def cancelled() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        with absorb():
            await asyncio.sleep(1)

    async def outer() -> bool:
        task = asyncio.ensure_future(cancelled())
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(outer())
    assert not is_real_cancellation(asyncio.CancelledError())  # no task here


def test_sync_code_has_no_cancellation_of_the_callers() -> None:
    async def check() -> tuple[bool, bool]:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        error = asyncio.CancelledError()
        owned = caller_owns(error), caller_owns(error, cancellation=False)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0)
        return owned

    assert asyncio.run(check()) == (True, False)


def test_on_failure_records_and_re_raises_unchanged() -> None:
    seen: list[BaseException] = []
    error = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt) as raised, on_failure(seen.append):
        raise error
    assert raised.value is error and seen == [error]
    with on_failure(seen.append):
        pass
    assert seen == [error]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)])
def test_an_exit_on_an_owned_thread_becomes_an_escaped_error(error: BaseException) -> None:
    with pytest.raises(EscapedBaseException) as raised, contain_exits():
        raise error
    assert raised.value.error is error and raised.value.__cause__ is error

    async def job() -> None:
        raise error

    with pytest.raises(EscapedBaseException):
        asyncio.run(contained(job()))


def test_contain_exits_lets_other_errors_through() -> None:
    with pytest.raises(ValueError), contain_exits():
        raise ValueError


def test_a_worker_hands_what_it_raised_back_as_its_outcome() -> None:
    def fails(kind: type[BaseException]) -> None:
        raise kind

    assert outcome_of(lambda: 1) == 1
    exit_outcome = outcome_of(fails, SystemExit)
    assert isinstance(exit_outcome, SystemExit) and is_base_only(exit_outcome)
    value_outcome = outcome_of(fails, ValueError)
    assert isinstance(value_outcome, ValueError) and not is_base_only(value_outcome)


def test_an_escaped_exit_is_named_as_itself() -> None:
    assert failure_name(EscapedBaseException(SystemExit(1))) == "SystemExit"
    assert failure_name(ValueError()) == "ValueError"
