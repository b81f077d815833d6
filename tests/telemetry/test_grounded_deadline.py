"""@grounded has a default deadline, and a round cut off by it shows on the spans with its
reason while an async host's event loop keeps running."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.decorator import GroundingError, grounded
from gsar_otel.decorator.options import DEFAULT_DEADLINE_S
from gsar_otel.judges.anthropic.client import DEFAULT_DEADLINE_S as JUDGE_DEADLINE_S
from tests.telemetry.helpers import CPU_ROW, Otel, grounded_output

ANSWER = "CPU on db-prod-1 reached 97% at 14:02."


class BlockedSyncJudge:
    """Synchronous work (``judge_now``, like LexicalJudge) that blocks until released."""

    name = "blocked-sync"

    def __init__(self) -> None:
        self.release = threading.Event()

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.release.wait(30)
        return grounded_output()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.judge_now(synthesis=synthesis, evidence=evidence)


def test_grounded_has_a_default_deadline_above_the_anthropic_judges() -> None:
    @grounded
    def agent() -> str:
        return ANSWER

    core: Any = agent.__gsar_grounded__  # type: ignore[attr-defined]
    assert core.options.deadline_s == DEFAULT_DEADLINE_S == 120.0
    assert JUDGE_DEADLINE_S < DEFAULT_DEADLINE_S


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), "5", True])
def test_a_bad_deadline_is_rejected_at_decoration(bad: object) -> None:
    with pytest.raises(ValueError, match="deadline_s must be a positive number of seconds"):
        grounded(deadline_s=bad)  # type: ignore[call-overload]


def test_a_missed_deadline_is_a_degraded_abstain_on_the_span_and_the_loop_keeps_running(
        otel: Otel) -> None:
    judge = BlockedSyncJudge()
    ticks = 0

    @grounded(judge=judge, deadline_s=0.2, evidence=lambda call: [CPU_ROW])
    async def agent() -> str:
        return ANSWER

    async def main() -> str:
        nonlocal ticks

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.005)
                ticks += 1

        task = asyncio.create_task(ticker())
        try:
            return await agent()
        finally:
            task.cancel()

    try:
        assert asyncio.run(main()) == ANSWER
        assert not judge.release.is_set()
    finally:
        judge.release.set()
    assert ticks > 0
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert attributes["gsar.decision"] == "abstain"
    assert attributes["gsar.degraded"] is True
    assert attributes["gsar.degraded.reason"] == "deadline"
    [judge_span] = otel.spans("gsar.judge")
    assert dict(judge_span.attributes or {})["gsar.judge.error_type"] == "DeadlineExceeded"


def test_a_gate_raises_when_the_deadline_cuts_judging_off() -> None:
    judge = BlockedSyncJudge()

    @grounded(judge=judge, on_low="raise", deadline_s=0.2, evidence=lambda call: [CPU_ROW])
    def agent() -> str:
        return ANSWER

    try:
        with pytest.raises(GroundingError) as raised:
            agent()
    finally:
        judge.release.set()
    assert raised.value.result.judge_errors == ("DeadlineExceeded",)
    assert "did not finish before the deadline" in str(raised.value)
