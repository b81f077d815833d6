"""Closers of per-event-loop resources: run once on their loop, bounded in time, never keeping
their owner alive."""

from __future__ import annotations

import asyncio
import gc

import pytest

from gsar_otel.runtime.loop_resources import (
    close_loop_resources,
    close_owned_loop,
    pending_closers,
    register_loop_closer,
)


class Pool:
    """Stands in for a judge's per-loop clients."""

    def __init__(self) -> None:
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def test_each_closer_runs_once_on_its_own_loop() -> None:
    pools = [Pool(), Pool()]
    other = asyncio.new_event_loop()

    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        for pool in pools:
            register_loop_closer(loop, pool.aclose)
        register_loop_closer(other, pools[0].aclose)
        return await close_loop_resources(), await close_loop_resources()

    assert asyncio.run(main()) == (2, 0)
    assert [pool.closed for pool in pools] == [1, 1]
    assert pending_closers(other) == 1
    other.close()


def test_a_registered_closer_does_not_keep_its_owner_alive() -> None:
    async def main() -> int:
        pool = Pool()
        register_loop_closer(asyncio.get_running_loop(), pool.aclose)
        del pool
        gc.collect()
        assert pending_closers(asyncio.get_running_loop()) == 0
        return await close_loop_resources()

    assert asyncio.run(main()) == 0


def test_a_hanging_or_failing_closer_is_cut_off_and_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []

    async def hangs() -> None:
        calls.append("hangs")
        await asyncio.sleep(3600)

    async def fails() -> None:
        calls.append("fails")
        raise OSError("connection reset")

    async def main() -> int:
        loop = asyncio.get_running_loop()
        register_loop_closer(loop, hangs)
        register_loop_closer(loop, fails)
        return await close_loop_resources(0.05)

    assert asyncio.run(main()) == 0
    assert sorted(calls) == ["fails", "hangs"]
    assert "1 connection pool(s) of this event loop did not close within 0.1 s" in caplog.text


def test_closing_an_owned_loop_closes_its_resources_on_it_first() -> None:
    pool, loop = Pool(), asyncio.new_event_loop()
    register_loop_closer(loop, pool.aclose)
    bare = asyncio.new_event_loop()

    close_owned_loop(loop)
    close_owned_loop(bare)
    close_owned_loop(loop)  # closing twice is harmless

    assert pool.closed == 1
    assert loop.is_closed() and bare.is_closed()
    assert pending_closers(loop) == 0


def test_the_plugin_session_closes_its_loops_resources_with_its_loop(
        pytestconfig: pytest.Config) -> None:
    from pytest_gsar.options import resolve_options
    from pytest_gsar.state import GSARSession

    pool = Pool()
    session = GSARSession(pytestconfig, resolve_options(pytestconfig))

    async def register() -> None:
        register_loop_closer(asyncio.get_running_loop(), pool.aclose)

    session.run(register())
    session.close()

    assert pool.closed == 1
