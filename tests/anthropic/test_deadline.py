"""An AnthropicJudge round is bounded by its own deadline: a 429 asking to retry after an hour
ends in an abstain with the reason, on the wire, instead of an hour's sleep."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import Decision
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.judges.anthropic.client import DEFAULT_DEADLINE_S
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from tests.anthropic.conftest import API_KEY, INCIDENT_ANSWER, INCIDENT_EVIDENCE, JudgeFactory
from tests.support.fake_anthropic import FakeMessagesServer, ScriptedResponse, error_response

GUARD_S = 60.0
"""How long a test waits before calling the judge stuck (the bug slept 3600 s)."""


def hour_long_rate_limit() -> ScriptedResponse:
    # The API's own header: retry-after in seconds (no retry-after-ms to shorten it).
    body = error_response(429, retry_after_ms=None).body
    return ScriptedResponse(status=429, body=body, headers={"retry-after": "3600"})


def judge_bounded(judge: AnthropicJudge) -> JudgeVerdict:
    async def run() -> JudgeVerdict:
        return await asyncio.wait_for(
            judge.judge_verdict(synthesis=INCIDENT_ANSWER, evidence=INCIDENT_EVIDENCE), GUARD_S)

    return asyncio.run(run())


def test_a_429_with_retry_after_an_hour_abstains_at_the_judges_deadline(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(hour_long_rate_limit(), hour_long_rate_limit())
    judge = make_judge(client_options={"max_retries": 2}, deadline_s=0.5)

    verdict = judge_bounded(judge)

    assert verdict.error_type == "DeadlineExceeded"
    assert verdict.output.abstained
    reason = verdict.output.abstain_reason or ""
    assert "deadline of 0.5 s" in reason and "retry-after" in reason
    assert API_KEY not in reason
    # The SDK was waiting out the retry-after when the deadline stopped it: one request only.
    assert len(fake_anthropic.message_requests) == 1
    assert verdict.duration_s < GUARD_S


def test_the_deadline_shows_on_the_evaluation_as_a_degraded_abstain(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(hour_long_rate_limit())
    evaluator = GSAREvaluator(make_judge(client_options={"max_retries": 1}, deadline_s=0.3))

    async def run() -> object:
        return await asyncio.wait_for(evaluator.evaluate(
            report_synthesis=INCIDENT_ANSWER, evidence_corpus=INCIDENT_EVIDENCE), GUARD_S)

    result = asyncio.run(run())

    assert result.final_decision is Decision.ABSTAIN  # type: ignore[attr-defined]
    assert result.judge_errors == ("DeadlineExceeded",)  # type: ignore[attr-defined]


def test_a_judge_has_a_deadline_by_default_and_rejects_a_bad_one(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    assert make_judge().deadline_s == DEFAULT_DEADLINE_S
    assert make_judge(deadline_s=None).deadline_s is None
    for bad in (0, -1, float("nan"), "10", True):
        with pytest.raises(ValueError, match="deadline_s must be a positive number"):
            make_judge(deadline_s=bad)


def test_a_round_within_its_deadline_is_unchanged(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    verdict = judge_bounded(make_judge(deadline_s=30))
    assert verdict.error_type is None
    assert not verdict.output.abstained
