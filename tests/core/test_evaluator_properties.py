"""Loop invariants over random judge scripts, callbacks and budgets."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, JudgeOutput
from tests.core.scripted import ABSTAIN, PROCEED, REGENERATE, REPLAN, ScriptedJudge
from tests.core.strategies import PROPERTY_SETTINGS

VERDICTS = [PROCEED, REGENERATE, REPLAN, ABSTAIN, RuntimeError("judge down")]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def fresh_texts():
    for n in itertools.count():
        yield f"Answer {WORDS[n % 8]} {WORDS[n // 8 % 8]}."


@PROPERTY_SETTINGS
@given(
    script=st.lists(st.sampled_from(VERDICTS), min_size=1, max_size=8),
    has_regenerate=st.booleans(),
    has_replan=st.booleans(),
    k_max=st.integers(min_value=0, max_value=3),
    max_regenerations=st.integers(min_value=0, max_value=3),
    max_rounds=st.one_of(st.none(), st.integers(min_value=1, max_value=6)),
    unchanged=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_the_loop_always_ends_within_budget_and_reports_honestly(
        script, has_regenerate, has_replan, k_max, max_regenerations, max_rounds, unchanged):
    texts = fresh_texts()
    # Some recoveries return the answer unchanged, so stalls and escalations happen too.
    stalls = iter(unchanged + [False] * 100)

    def regenerate(synthesis: str, judge_output: JudgeOutput) -> str:
        return synthesis if next(stalls) else next(texts)

    def replan(synthesis: str, evidence: EvidenceSet, judge_output: JudgeOutput):
        return (synthesis if next(stalls) else next(texts)), evidence

    judge = ScriptedJudge(*script)
    evaluator = GSAREvaluator(judge, regenerate if has_regenerate else None,
                              replan if has_replan else None, k_max=k_max,
                              max_regenerations=max_regenerations, max_rounds=max_rounds)
    result = evaluator.evaluate_sync(report_synthesis="First answer.",
                                     evidence_corpus="[tool=x] first answer")
    trajectory = result.trajectory
    last = trajectory[-1]

    assert 1 <= result.rounds == len(judge.calls) <= evaluator.max_rounds
    assert [e.iteration for e in trajectory] == list(range(len(trajectory)))
    assert result.replans_used <= k_max
    assert result.regenerations_used <= max_regenerations
    assert not (result.degraded and result.final_decision is Decision.PROCEED)
    assert result.degraded == (result.degraded_reason is not None)
    if has_regenerate or has_replan:
        # With any recovery, the loop ends on proceed or says why it could not get there.
        assert result.degraded == (last.decision is not Decision.PROCEED)
    else:
        assert result.rounds == 1
        assert not result.degraded
    if Decision.PROCEED in [e.decision for e in trajectory]:
        assert last.decision is Decision.PROCEED
    chosen = trajectory[result.final_iteration]
    assert (result.final_report, result.final_score, result.final_decision) == (
        chosen.report_synthesis, chosen.score, chosen.decision)
    if result.degraded:
        judged = [e for e in trajectory if e.decision is not Decision.ABSTAIN]
        if judged:
            assert chosen.score == max(e.score for e in judged)
    else:
        assert result.final_iteration == len(trajectory) - 1
