"""The seed's over-reach with the offline judge (``staged``, also the default without a key):
three tool-backed facts are true, the causal conclusion is not in the evidence. By default it
never proceeds; the paper's pure decision (``conclusion_policy="score"``) gives back
S = 3 / 3.6 exactly."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gsar_otel import EvidenceSet, GSAREvaluator
from gsar_otel.core.model import Claim, Decision, Partition
from gsar_otel.core.scoring import decide, gsar_score
from gsar_otel.judges.factory import make_judge

EVIDENCE = [
    "2024-05-01 10:14:30 UTC INFO deploy-bot: pushed config cfg-7781 to edge-lb-3",
    "2024-05-01 10:15:00 UTC ALERT outage: edge-lb-3 health checks failing",
    "host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z",
    "host=edge-lb-3 p99_ms=850",
]
FACTS = ("Config cfg-7781 was pushed to edge-lb-3 at 10:14:30 UTC. "
         "The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. "
         "The p99 latency on edge-lb-3 was 850 ms at the time. ")
CAUSE = "The outage was caused by a config push."


@pytest.fixture(params=["default", "staged"])
def judge_name(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("GSAR_JUDGE", raising=False)
    return None if request.param == "default" else str(request.param)


def test_the_default_judge_without_a_key_is_staged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("GSAR_JUDGE", raising=False)
    assert make_judge().name == "staged"


@pytest.fixture
def evaluate(judge_name: str | None) -> Callable[..., object]:
    def run(answer: str, policy: str = "cap") -> object:
        evaluator = GSAREvaluator(make_judge(judge_name),
                                  conclusion_policy=policy)  # type: ignore[arg-type]
        return evaluator.evaluate_sync(report_synthesis=answer, evidence_corpus=EVIDENCE)
    return run


def test_the_over_reach_alone_does_not_proceed(evaluate: Callable[..., object]) -> None:
    result = evaluate(CAUSE)
    assert result.final_decision is not Decision.PROCEED  # type: ignore[attr-defined]
    [cause] = result.final_partition.ungrounded  # type: ignore[attr-defined]
    assert cause.conclusion is True


def test_beside_three_grounded_facts_it_is_capped_at_regenerate(
        evaluate: Callable[..., object]) -> None:
    result = evaluate(FACTS + CAUSE)
    assert len(result.final_partition.grounded) == 3  # type: ignore[attr-defined]
    assert [c.conclusion for c in result.final_partition.grounded] == [False] * 3  # type: ignore[attr-defined]
    assert result.final_decision is Decision.REGENERATE  # type: ignore[attr-defined]
    assert result.conclusion_capped is True  # type: ignore[attr-defined]


def test_the_score_policy_gives_back_the_papers_numbers(evaluate: Callable[..., object]) -> None:
    result = evaluate(FACTS + CAUSE, policy="score")
    partition = result.final_partition  # type: ignore[attr-defined]
    weights = [1.0] * 3  # three tool_match facts
    expected = sum(weights) / (sum(weights) + 0.6)  # one ungrounded inference
    assert result.final_score == pytest.approx(expected)  # type: ignore[attr-defined]
    assert result.final_score == gsar_score(  # type: ignore[attr-defined]
        Partition(grounded=partition.grounded, ungrounded=partition.ungrounded))
    assert result.final_decision is decide(expected) is Decision.PROCEED  # type: ignore[attr-defined]
    assert result.conclusion_capped is False  # type: ignore[attr-defined]


def test_an_observation_is_not_marked_as_a_conclusion(judge_name: str | None) -> None:
    judge = make_judge(judge_name)
    output = judge.judge_now(synthesis=FACTS,  # type: ignore[attr-defined]
                             evidence=EvidenceSet.coerce(EVIDENCE))
    claims: list[Claim] = [*output.grounded_claims, *output.ungrounded_claims]
    assert claims and not any(c.conclusion for c in claims)
