"""``--model-token-budget``: a model judge in the sidecar may use so many tokens in any 60 s;
past it runs are judged offline only (tiered: the model tier skipped; anthropic: the staged
judge), the evaluate span says ``gsar.judge.budget_exhausted=true`` and ``/metrics`` counts it.
The real anthropic SDK over HTTP against the local fake Messages API (each reply reports 1,200
input and 180 output tokens), judged by the real sidecar."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import anthropic
import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.protocol import JudgeUsage
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.judges.tiered.judge import TieredJudge
from gsar_otel.sidecar.model_budget import ModelTokenBudget, offline_form, usage_tokens
from tests.anthropic.conftest import API_KEY, sdk_client
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import kv, otlp_json, post, span
from tests.support.fake_anthropic import FakeMessagesServer, fake_anthropic

__all__ = ["fake_anthropic"]

ROOT, TOOL_A, TOOL_B = "b" * 16, "c" * 16, "d" * 16
ROWS = ("host=api-1 cpu_pct=95 p99_ms=420",
        "deploy=checkout version=v2.3.1 status=succeeded note=rollout of the checkout release")
ANSWER = "api-1 ran at 95% CPU. The team seems worried about the rollout."
"""One claim the records engine settles, one it cannot check (the model tier's)."""
TOKENS_PER_CALL = 1_200 + 180


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GSAR_JUDGE", "GSAR_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def run_body(n: int) -> bytes:
    trace_id = f"{n:032x}"
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}],
                         "finish_reason": "stop"}])
    return otlp_json(
        span(ROOT, "", "invoke_agent bot", [
            kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
            kv("gen_ai.output.messages", final)], trace_id),
        *(span(tool, ROOT, "execute_tool get_status", [
            kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_status"),
            kv("gen_ai.tool.call.id", f"call_{tool}"), kv("gen_ai.tool.call.result", row)],
            trace_id) for tool, row in ((TOOL_A, ROWS[0]), (TOOL_B, ROWS[1]))))


def judge_run(running: RunningSidecar, n: int) -> dict[str, Any]:
    """Send run ``n``, wait for its count; the attributes of its evaluate span."""
    assert post(running, run_body(n))[0] == 200
    running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == n, f"run {n} judged")
    [evaluation] = [s for s in running.evaluations() if s.context.trace_id == n]
    assert evaluation.attributes is not None
    return dict(evaluation.attributes)


def metrics(running: RunningSidecar) -> str:
    with urllib.request.urlopen(f"{running.http}/metrics", timeout=30) as response:
        return str(response.read().decode())


def offline_client_judge() -> AnthropicJudge:
    """An AnthropicJudge that is never called (its client points nowhere)."""
    return AnthropicJudge(client=anthropic.AsyncAnthropic(api_key=API_KEY,
                                                          base_url="http://127.0.0.1:9"))


def with_budget(running: RunningSidecar, tokens: int, clock: Clock) -> None:
    """The sidecar's budget on a clock the test moves."""
    running.sidecar.model_budget = ModelTokenBudget(tokens, running.sidecar.judge, clock=clock)


def test_past_the_budget_the_tiered_judge_skips_its_model_tier_until_the_minute_has_passed(
        fake_anthropic: FakeMessagesServer) -> None:
    judge = TieredJudge(AnthropicJudge(client=sdk_client(fake_anthropic)))
    running = start_sidecar(judge=judge, model_token_budget=2 * TOKENS_PER_CALL - 1)
    clock = Clock()
    with_budget(running, 2 * TOKENS_PER_CALL - 1, clock)
    try:
        first = judge_run(running, 1)
        second = judge_run(running, 2)
        assert len(fake_anthropic.message_requests) == 2  # one model call per run
        for attributes in (first, second):
            assert attributes["gsar.judge.escalated_claims"] == 1
            assert "gsar.judge.budget_exhausted" not in attributes

        third = judge_run(running, 3)  # 2,760 tokens in the minute: spent
        assert len(fake_anthropic.message_requests) == 2  # no call
        assert third["gsar.judge.budget_exhausted"] is True
        assert third["gsar.judge.model_tier.skipped"] == "budget_exhausted"
        assert third["gsar.judge.escalated_claims"] == 0
        assert third["gsar.judge.name"] == "tiered"
        page = metrics(running)
        assert 'gsar_sidecar_model_budget_total{gsar_sidecar_reason="budget_exhausted"} 1' in page
        assert (f'gsar_sidecar_model_tokens_total{{gsar_sidecar_reason="spent"}} '
                f'{2 * TOKENS_PER_CALL}') in page

        clock.now += 60.5  # the minute has passed: the model tier is back
        fourth = judge_run(running, 4)
        assert len(fake_anthropic.message_requests) == 3
        assert "gsar.judge.budget_exhausted" not in fourth
        assert running.sidecar.stats.get("model_budget", "budget_exhausted") == 1
        assert API_KEY not in page
    finally:
        running.stop()


def test_past_the_budget_the_anthropic_judge_gives_way_to_the_staged_judge(
        fake_anthropic: FakeMessagesServer) -> None:
    judge = AnthropicJudge(client=sdk_client(fake_anthropic))
    running = start_sidecar(judge=judge, model_token_budget=1_000)
    try:
        first = judge_run(running, 1)  # 1,380 tokens: the budget spent by this run
        assert len(fake_anthropic.message_requests) == 1
        assert first["gsar.judge.name"] == "anthropic"
        assert "gsar.judge.budget_exhausted" not in first

        second = judge_run(running, 2)
        assert len(fake_anthropic.message_requests) == 1
        assert second["gsar.judge.budget_exhausted"] is True
        assert second["gsar.judge.name"] == "staged"
        assert running.sidecar.stats.get("model_budget", "budget_exhausted") == 1
        assert running.sidecar.stats.get("model_tokens", "spent") == TOKENS_PER_CALL
    finally:
        running.stop()


def test_without_a_budget_every_run_calls_the_model(fake_anthropic: FakeMessagesServer) -> None:
    judge = TieredJudge(AnthropicJudge(client=sdk_client(fake_anthropic)))
    running = start_sidecar(judge=judge)
    try:
        for n in (1, 2, 3):
            assert "gsar.judge.budget_exhausted" not in judge_run(running, n)
        assert len(fake_anthropic.message_requests) == 3
        assert running.sidecar.stats.get("model_budget") == 0
    finally:
        running.stop()


def test_the_window_slides_and_counts_every_token() -> None:
    clock = Clock()
    budget = ModelTokenBudget(100, offline_client_judge(), clock=clock)
    assert not budget.exhausted()
    assert budget.spend(JudgeUsage(input_tokens=30, output_tokens=10,
                                   cache_read_input_tokens=15, cache_creation_input_tokens=5)) == 60
    clock.now += 30
    budget.spend(JudgeUsage(input_tokens=40))
    assert budget.used() == 100 and budget.exhausted()
    clock.now += 30  # the first judgement is a minute old
    assert budget.used() == 40 and not budget.exhausted()
    assert budget.spend(None) == 0 and usage_tokens(None) == 0


def test_judges_without_a_model_have_no_offline_form() -> None:
    evidence = EvidenceSet.coerce(list(ROWS))
    assert offline_form(StagedJudge()) is None
    assert offline_form(TieredJudge(use_model=False)) is None
    budget = ModelTokenBudget(1, StagedJudge())
    budget.spend(JudgeUsage(input_tokens=5))
    assert not budget.exhausted()  # the budget never applies to an offline judge
    offline = offline_form(TieredJudge(offline_client_judge()))
    assert isinstance(offline, TieredJudge) and offline.model_tier is None
    verdict = asyncio.run(offline.judge_verdict(synthesis=ANSWER, evidence=evidence))
    assert verdict.tiers is not None and verdict.tiers.model_tier == "budget_exhausted"
    assert "budget_exhausted" in verdict.output.explanation
    assert "ANTHROPIC_API_KEY" not in verdict.output.explanation
