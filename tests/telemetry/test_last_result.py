"""``last_result()``: the verdict of the last inline ``@grounded`` call of this thread or task,
in every mode that judges before returning, and nothing from a background call."""

from __future__ import annotations

import asyncio
import threading

import pytest

from gsar_otel import GroundingError, flush, grounded, last_result, record_evidence
from tests.telemetry.helpers import ANSWER, CPU_ROW, ScriptedJudge


def test_an_observe_call_returns_its_result_and_exposes_the_verdict() -> None:
    @grounded(judge=ScriptedJudge(), name="observed")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == ANSWER
    result = last_result()
    assert result is not None
    assert (str(result.final_decision), round(result.final_score, 3)) == ("replan", 0.625)


def test_each_thread_and_task_sees_its_own_calls() -> None:
    @grounded(judge=ScriptedJudge())
    def with_evidence() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=ScriptedJudge())
    def without() -> str:
        return ANSWER

    seen: dict[str, str] = {}

    def run(name: str, fn: object) -> None:
        fn()  # type: ignore[operator]
        result = last_result()
        seen[name] = "none" if result is None else str(result.degraded_reason)

    threads = [threading.Thread(target=run, args=("evidence", with_evidence)),
               threading.Thread(target=run, args=("none", without))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"evidence": "None", "none": "no_evidence"}

    @grounded(judge=ScriptedJudge())
    async def async_agent(evidence: bool) -> str:
        if evidence:
            record_evidence(CPU_ROW)
        return ANSWER

    async def one(evidence: bool) -> str | None:
        await async_agent(evidence)
        result = last_result()
        return None if result is None else result.degraded_reason

    async def both() -> list[str | None]:
        return list(await asyncio.gather(one(True), one(False)))

    assert asyncio.run(both()) == [None, "no_evidence"]


def test_a_raise_gate_exposes_the_result_it_raised_with() -> None:
    @grounded(judge=ScriptedJudge(), on_low="raise")
    def gate() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        gate()
    assert last_result() is raised.value.result


def test_a_background_call_sets_nothing() -> None:
    @grounded(judge=ScriptedJudge())
    def first() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=ScriptedJudge(), mode="background")
    def later() -> str:
        record_evidence("other")
        return "other"

    def run() -> object:
        first()
        before = last_result()
        later()
        flush(10)
        return before is last_result()

    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(run()))
    thread.start()
    thread.join()
    assert results == [True]
