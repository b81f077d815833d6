"""Algorithm 1 as GSAREvaluator runs it: GSAR-SPEC §4 semantics, with the fixes of §11."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, GSARThresholds, JudgeOutput
from gsar_otel.core.result import GSARResult
from tests.core.scripted import ABSTAIN, PROCEED, REGENERATE, REPLAN, Recorder, ScriptedJudge

ANSWER = "Disk usage is high on the web tier."
REWRITE = "Disk usage is high on the web tier, per the df output."
EVIDENCE = "[tool=df] disk usage high on web tier"
NEW_EVIDENCE = "[tool=df] disk usage high on web tier\n[tool=du] logs fill the disk"


def evaluate(evaluator: GSAREvaluator, answer: str = ANSWER,
             evidence: object = EVIDENCE) -> GSARResult:
    return asyncio.run(evaluator.evaluate(report_synthesis=answer, evidence_corpus=evidence))


def decisions(result: GSARResult) -> list[Decision]:
    return [entry.decision for entry in result.trajectory]


def test_a_grounded_answer_proceeds_in_one_round_without_callbacks():
    calls = Recorder()
    judge = ScriptedJudge(PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert result.final_decision is Decision.PROCEED
    assert result.final_score == 1.0
    assert result.rounds == 1
    assert (result.replans_used, result.regenerations_used) == (0, 0)
    assert calls.regenerate_calls == calls.replan_calls == []
    assert not result.degraded
    assert result.degraded_reason is None
    assert result.final_report == ANSWER
    assert result.final_iteration == 0
    assert len(judge.calls) == 1


def test_the_judge_receives_the_answer_and_the_coerced_evidence():
    judge = ScriptedJudge(PROCEED)
    evaluate(GSAREvaluator(judge))
    ((synthesis, evidence),) = judge.calls
    assert synthesis == ANSWER
    assert isinstance(evidence, EvidenceSet)
    assert evidence.ids == ("E1",)


def test_a_regenerate_band_answer_is_rewritten_once_and_then_proceeds():
    calls = Recorder(regenerate_returns=[REWRITE])
    judge = ScriptedJudge(REGENERATE, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert decisions(result) == [Decision.REGENERATE, Decision.PROCEED]
    assert round(result.trajectory[0].score, 3) == 0.769
    assert (result.regenerations_used, result.replans_used) == (1, 0)
    assert result.final_report == REWRITE
    assert [e.action for e in result.trajectory] == ["initial", "regenerate"]
    ((synthesis, judge_output),) = calls.regenerate_calls
    assert synthesis == ANSWER
    assert judge_output == result.trajectory[0].judge_output
    # Regenerating keeps the evidence.
    assert judge.calls[1][1] == judge.calls[0][1]
    assert not result.degraded


def test_a_replan_band_answer_gets_new_evidence_once_and_then_proceeds():
    calls = Recorder(replan_returns=[(REWRITE, NEW_EVIDENCE)])
    judge = ScriptedJudge(REPLAN, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert decisions(result) == [Decision.REPLAN, Decision.PROCEED]
    assert (result.replans_used, result.regenerations_used) == (1, 0)
    ((synthesis, evidence, judge_output),) = calls.replan_calls
    assert synthesis == ANSWER
    assert isinstance(evidence, EvidenceSet)
    assert evidence.ids == ("E1",)
    assert judge_output.abstained is False
    assert judge.calls[1][1].ids == ("E1", "E2")
    assert result.final_evidence == EvidenceSet.coerce(NEW_EVIDENCE)
    assert result.trajectory[1].action == "replan"
    assert result.final_report == REWRITE


def test_an_abstain_triggers_one_replan_and_keeps_its_label():
    calls = Recorder(replan_returns=[(ANSWER, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(ABSTAIN, PROCEED), calls.regenerate,
                                    calls.replan))
    assert decisions(result) == [Decision.ABSTAIN, Decision.PROCEED]
    assert result.trajectory[0].score == 0.5
    assert len(calls.replan_calls) == 1
    assert result.replans_used == 1
    assert result.final_decision is Decision.PROCEED


def test_an_always_replan_judge_stops_after_k_max_replans_degraded():
    calls = Recorder(replan_returns=[("Attempt one.", "row one"), ("Attempt two.", "row two")])
    judge = ScriptedJudge(REPLAN)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan, k_max=2))
    assert decisions(result) == [Decision.REPLAN] * 3
    assert result.replans_used == 2
    assert result.rounds == 3
    assert len(judge.calls) == 3
    assert result.degraded
    assert result.degraded_reason == "replan_budget"
    assert result.final_decision is Decision.REPLAN


def test_replan_regenerate_proceed_runs_three_sequential_rounds():
    calls = Recorder(regenerate_returns=[REWRITE], replan_returns=[(ANSWER, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, REGENERATE, PROCEED), calls.regenerate,
                                    calls.replan, k_max=3))
    assert [e.iteration for e in result.trajectory] == [0, 1, 2]
    assert decisions(result) == [Decision.REPLAN, Decision.REGENERATE, Decision.PROCEED]
    assert (result.replans_used, result.regenerations_used) == (1, 1)
    assert not result.degraded
    assert result.final_iteration == 2


def test_stricter_thresholds_turn_a_regenerate_band_score_into_a_replan():
    calls = Recorder(replan_returns=[(ANSWER, NEW_EVIDENCE)])
    strict = GSARThresholds(proceed=0.90, regenerate=0.85)
    result = evaluate(GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate,
                                    calls.replan, thresholds=strict))
    assert decisions(result) == [Decision.REPLAN, Decision.PROCEED]
    assert calls.regenerate_calls == []


def test_k_max_zero_degrades_at_the_first_replan_without_calling_replan():
    calls = Recorder(replan_returns=[(REWRITE, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN), calls.regenerate, calls.replan,
                                    k_max=0))
    assert result.rounds == 1
    assert calls.replan_calls == []
    assert result.degraded
    assert result.degraded_reason == "replan_budget"


def test_k_max_zero_still_allows_regeneration():
    calls = Recorder(regenerate_returns=[REWRITE])
    result = evaluate(GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate,
                                    calls.replan, k_max=0))
    assert decisions(result) == [Decision.REGENERATE, Decision.PROCEED]
    assert not result.degraded


def test_past_the_regeneration_budget_a_regenerate_escalates_to_replan():
    calls = Recorder(regenerate_returns=["First rewrite.", "Second rewrite."],
                     replan_returns=[("Replanned answer.", NEW_EVIDENCE)])
    judge = ScriptedJudge(REGENERATE, REGENERATE, REGENERATE, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan, max_regenerations=2))
    assert [e.action for e in result.trajectory] == ["initial", "regenerate", "regenerate",
                                                     "replan"]
    assert (result.regenerations_used, result.replans_used) == (2, 1)
    assert result.final_decision is Decision.PROCEED
    assert result.final_report == "Replanned answer."


def test_a_regenerate_that_returns_the_same_text_escalates_to_replan_at_once():
    calls = Recorder(regenerate_returns=["  Disk usage is high   on the web tier. "],
                     replan_returns=[(REWRITE, NEW_EVIDENCE)])
    judge = ScriptedJudge(REGENERATE, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert len(calls.regenerate_calls) == 1
    assert len(calls.replan_calls) == 1
    assert [e.action for e in result.trajectory] == ["initial", "replan"]
    assert len(judge.calls) == 2  # the unchanged text was not judged again
    assert result.final_decision is Decision.PROCEED


def test_a_regenerate_that_returns_the_same_text_with_no_replan_ends_stalled():
    calls = Recorder(regenerate_returns=[ANSWER])
    judge = ScriptedJudge(REGENERATE)
    result = evaluate(GSAREvaluator(judge, calls.regenerate))
    assert result.rounds == 1
    assert result.degraded
    assert result.degraded_reason == "stalled"


def test_a_replan_that_changes_nothing_ends_stalled_without_judging_again():
    calls = Recorder(replan_returns=[(ANSWER, EVIDENCE)])
    judge = ScriptedJudge(REPLAN)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert len(calls.replan_calls) == 1
    assert len(judge.calls) == 1
    assert result.rounds == 1
    assert result.replans_used == 1
    assert result.degraded
    assert result.degraded_reason == "stalled"


def test_a_replan_with_the_same_text_but_new_evidence_is_judged_again():
    calls = Recorder(replan_returns=[(ANSWER, NEW_EVIDENCE)])
    judge = ScriptedJudge(REPLAN, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan))
    assert len(judge.calls) == 2
    assert result.final_decision is Decision.PROCEED


def test_proceeding_on_the_last_allowed_round_is_not_degraded():
    # The reference flagged degraded=True with final_decision=proceed when the cap was hit by a
    # proceeding round.
    calls = Recorder(regenerate_returns=["First rewrite.", "Second rewrite."])
    judge = ScriptedJudge(REGENERATE, REGENERATE, PROCEED)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, calls.replan, max_rounds=3,
                                    max_regenerations=5))
    assert result.rounds == 3
    assert result.final_decision is Decision.PROCEED
    assert not result.degraded
    assert result.degraded_reason is None


def test_a_degraded_result_keeps_the_best_scoring_round_and_says_which():
    calls = Recorder(replan_returns=[("Worse answer.", "row two"), ("Worst answer.", "row three")])
    judge = ScriptedJudge(REGENERATE, REPLAN, REPLAN)
    result = evaluate(GSAREvaluator(judge, None, calls.replan, k_max=2))
    assert result.degraded
    assert result.rounds == 3
    assert result.final_iteration == 0
    best = result.trajectory[0]
    assert result.final_report == ANSWER == best.report_synthesis
    assert result.final_score == best.score
    assert result.final_decision is Decision.REGENERATE
    assert result.final_judge_output == best.judge_output
    assert result.final_partition == best.judge_output.to_partition()
    assert result.final_evidence == best.evidence_corpus


def test_a_degraded_result_prefers_a_judged_round_over_an_abstained_one():
    calls = Recorder(replan_returns=[("Second.", "row two"), ("Third.", "row three")])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, ABSTAIN, ABSTAIN), None, calls.replan))
    assert result.degraded
    assert result.final_iteration == 0
    assert result.final_decision is Decision.REPLAN


def test_max_rounds_bounds_the_number_of_judge_rounds():
    rewrites = [f"Rewrite number {word}." for word in ("one", "two", "three", "four", "five")]
    calls = Recorder(regenerate_returns=rewrites)
    judge = ScriptedJudge(REGENERATE)
    result = evaluate(GSAREvaluator(judge, calls.regenerate, max_rounds=3, max_regenerations=10))
    assert result.rounds == len(judge.calls) == 3
    assert result.degraded
    assert result.degraded_reason == "max_rounds"


def test_the_default_round_cap_is_one_plus_both_budgets():
    evaluator = GSAREvaluator(ScriptedJudge(PROCEED), k_max=3, max_regenerations=4)
    assert evaluator.max_rounds == 8


def test_without_callbacks_the_evaluator_judges_once_and_reports_the_decision():
    judge = ScriptedJudge(REPLAN)
    result = evaluate(GSAREvaluator(judge))
    assert result.rounds == 1
    assert result.final_decision is Decision.REPLAN
    assert result.final_score == 0.0
    assert not result.degraded


def test_with_only_regenerate_a_replan_decision_escalates_to_regeneration():
    calls = Recorder(regenerate_returns=[REWRITE])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, PROCEED), regenerate_fn=calls.regenerate))
    assert decisions(result) == [Decision.REPLAN, Decision.PROCEED]
    assert result.trajectory[1].action == "regenerate"
    assert result.regenerations_used == 1


def test_with_only_regenerate_the_loop_ends_degraded_when_its_budget_is_spent():
    calls = Recorder(regenerate_returns=["First rewrite.", "Second rewrite."])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN), regenerate_fn=calls.regenerate,
                                    max_regenerations=2))
    assert result.regenerations_used == 2
    assert result.rounds == 3
    assert result.degraded
    assert result.degraded_reason == "regenerate_budget"


def test_with_only_replan_a_regenerate_decision_escalates_to_replan():
    calls = Recorder(replan_returns=[(REWRITE, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), replan_fn=calls.replan))
    assert decisions(result) == [Decision.REGENERATE, Decision.PROCEED]
    assert result.trajectory[1].action == "replan"
    assert result.replans_used == 1


def test_an_abstain_with_only_regenerate_is_rewritten():
    calls = Recorder(regenerate_returns=[REWRITE])
    result = evaluate(GSAREvaluator(ScriptedJudge(ABSTAIN, PROCEED),
                                    regenerate_fn=calls.regenerate))
    assert decisions(result) == [Decision.ABSTAIN, Decision.PROCEED]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_sync_and_async_callbacks_both_drive_the_loop(mode):
    calls = Recorder(regenerate_returns=["Another rewrite."],
                     replan_returns=[(REWRITE, NEW_EVIDENCE)])
    regenerate = calls.regenerate if mode == "sync" else calls.regenerate_async
    replan = calls.replan if mode == "sync" else calls.replan_async
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, REGENERATE, PROCEED), regenerate, replan))
    assert decisions(result) == [Decision.REPLAN, Decision.REGENERATE, Decision.PROCEED]
    assert len(calls.replan_calls) == len(calls.regenerate_calls) == 1


def test_replan_may_return_evidence_in_any_shape_coerce_accepts():
    calls = Recorder(replan_returns=[(REWRITE, [{"id": "df", "content": "disk usage high"}])])
    judge = ScriptedJudge(REPLAN, PROCEED)
    result = evaluate(GSAREvaluator(judge, None, calls.replan))
    assert result.final_evidence.ids == ("df",)
    assert result.final_partition.grounded[0].evidence_refs == ("df",)


def test_each_round_records_what_was_judged_and_the_judge_details():
    calls = Recorder(regenerate_returns=[REWRITE])
    result = evaluate(GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate))
    first, second = result.trajectory
    assert (first.report_synthesis, second.report_synthesis) == (ANSWER, REWRITE)
    assert first.evidence_corpus == second.evidence_corpus
    assert all(e.judge_duration_s >= 0 for e in result.trajectory)
    assert result.judge_name == "scripted"
    assert result.judge_errors == ()


def test_concurrent_evaluations_on_one_evaluator_keep_their_own_state():
    class EchoJudge:
        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            await asyncio.sleep(0)
            return (REPLAN if "draft" in synthesis else PROCEED)(synthesis, evidence)

    def replan(synthesis: str, evidence: EvidenceSet, _: JudgeOutput) -> tuple[str, str]:
        return synthesis.replace("draft", "final"), EVIDENCE + "\n" + synthesis

    evaluator = GSAREvaluator(EchoJudge(), None, replan)

    async def main() -> list[GSARResult]:
        return await asyncio.gather(*(evaluator.evaluate(
            report_synthesis=f"Answer {word} draft.", evidence_corpus=EVIDENCE)
            for word in ("alpha", "bravo", "charlie", "delta")))

    for word, result in zip(("alpha", "bravo", "charlie", "delta"), asyncio.run(main()),
                            strict=True):
        assert result.final_report == f"Answer {word} final."
        assert result.replans_used == 1
        assert result.rounds == 2


def test_a_result_round_trips_through_json():
    calls = Recorder(replan_returns=[(REWRITE, NEW_EVIDENCE)])
    result = evaluate(GSAREvaluator(ScriptedJudge(REPLAN, PROCEED), None, calls.replan))
    assert GSARResult.model_validate_json(result.model_dump_json()) == result
