"""GSAR-SPEC §8 acceptance scenarios, run through GSAREvaluator with the offline judge.

Scenario 7's "live" judge is the offline judge (StagedJudge) here; the agent scenarios need a
model and live in the Anthropic judge's tests.
"""

from __future__ import annotations

from typing import Any

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, EvidenceType, JudgeOutput
from gsar_otel.core.result import GSARResult
from gsar_otel.judges.staged.judge import StagedJudge
from tests.lexical.incident import (
    ALERT_ROW,
    CPU_ROW,
    EVIDENCE_A,
    OUTAGE_EVIDENCE,
    OUTAGE_REPORT,
    PUSH_EVIDENCE,
    RPS_ROW,
    SCENARIO_1,
    SCENARIO_4,
    SCENARIO_4_FIXED,
)

GROUNDED_TYPES = {EvidenceType.TOOL_MATCH, EvidenceType.SPECIFIC_DATA, EvidenceType.SIGNAL_MATCH}


class Calls:
    """Recovery callbacks that record every call and answer with fixed values."""

    def __init__(self, regenerate_to: str | None = None,
                 replan_to: tuple[str, Any] | None = None) -> None:
        self.regenerate_to = regenerate_to
        self.replan_to = replan_to
        self.regenerates: list[str] = []
        self.replans: list[str] = []

    def regenerate(self, synthesis: str, output: JudgeOutput) -> str:
        self.regenerates.append(synthesis)
        return synthesis if self.regenerate_to is None else self.regenerate_to

    def replan(self, synthesis: str, evidence: EvidenceSet,
               output: JudgeOutput) -> tuple[str, Any]:
        self.replans.append(synthesis)
        return (synthesis, evidence) if self.replan_to is None else self.replan_to

    @property
    def count(self) -> int:
        return len(self.regenerates) + len(self.replans)


def evaluate(synthesis: str, evidence: Any, calls: Calls | None = None,
             **settings: Any) -> GSARResult:
    calls = calls or Calls()
    evaluator = GSAREvaluator(StagedJudge(), calls.regenerate, calls.replan, **settings)
    return evaluator.evaluate_sync(report_synthesis=synthesis, evidence_corpus=evidence)


def test_scenario_1_a_grounded_cpu_spike_proceeds_on_iteration_0() -> None:
    calls = Calls()
    result = evaluate(SCENARIO_1, EVIDENCE_A, calls)
    assert result.final_decision is Decision.PROCEED
    assert result.final_iteration == 0
    assert result.final_score >= 0.80
    assert result.rounds == 1
    assert not result.degraded
    assert calls.count == 0


def test_scenario_2_an_unsupported_outage_story_does_not_proceed_and_recovery_runs() -> None:
    calls = Calls()
    result = evaluate(OUTAGE_REPORT, OUTAGE_EVIDENCE, calls, k_max=1)
    assert result.trajectory[0].decision is not Decision.PROCEED
    assert calls.count >= 1
    assert [entry.iteration for entry in result.trajectory] == list(range(result.rounds))
    assert result.final_decision is not Decision.PROCEED


def test_scenario_3_a_judged_report_has_typed_claims_and_a_grounded_tool_claim() -> None:
    output = StagedJudge().judge_now(
        synthesis="CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. This likely "
                  "indicates a runaway query.",
        evidence=EvidenceSet.coerce([CPU_ROW]))
    claims = output.to_partition().all_claims()
    assert not output.abstained
    assert claims
    assert all(claim.known_type for claim in claims)
    assert any(claim.type in GROUNDED_TYPES for claim in output.grounded_claims)
    assert [c.text for c in output.ungrounded_claims] == ["This likely indicates a runaway query."]


def test_scenario_4_a_contradicted_rate_is_regenerated_into_a_proceeding_report() -> None:
    calls = Calls(regenerate_to=SCENARIO_4_FIXED, replan_to=(SCENARIO_4_FIXED, EVIDENCE_A))
    result = evaluate(SCENARIO_4, EVIDENCE_A, calls)
    first, last = result.trajectory[0], result.trajectory[-1]
    assert first.decision is not Decision.PROCEED
    assert [c.text for c in first.judge_output.contradicted_claims] == [
        "Request rate held steady at 4500 RPS throughout the spike."]
    assert result.final_decision is Decision.PROCEED
    assert not result.degraded
    assert last.score >= first.score
    assert calls.count >= 1


def test_scenario_5_new_evidence_from_a_replan_lets_the_report_proceed() -> None:
    report = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. Request rate was 12 "
              "RPS at the same time.")
    calls = Calls(replan_to=(report, [ALERT_ROW, CPU_ROW, RPS_ROW]))
    result = evaluate(report, "(no evidence collected yet)", calls)
    assert result.trajectory[0].decision is Decision.REPLAN
    assert result.replans_used >= 1
    assert result.final_decision is Decision.PROCEED
    assert not result.degraded


def test_scenario_6_a_replan_budget_that_finds_nothing_ends_degraded_after_two_replans() -> None:
    report = ("The outage was caused by a failed power supply unit in rack 7B. The PSU was "
              "replaced at 03:15 UTC by technician T-218. Customer-facing latency returned to "
              "baseline within 8 minutes.")
    searches: list[int] = []

    def replan(synthesis: str, evidence: EvidenceSet, output: JudgeOutput) -> tuple[str, Any]:
        searches.append(len(searches) + 1)
        return synthesis, ["(no evidence available)", f"(search {len(searches)} found nothing)"]

    evaluator = GSAREvaluator(StagedJudge(), lambda text, output: text, replan, k_max=2)
    result = evaluator.evaluate_sync(report_synthesis=report,
                                     evidence_corpus="(no evidence available)")
    assert result.degraded
    assert result.replans_used == 2
    assert result.rounds == 3
    assert result.final_decision is not Decision.PROCEED


def test_scenario_7_a_contradiction_costs_less_when_rho_is_zero() -> None:
    scores = {}
    for rho in (0.0, 0.5):
        result = GSAREvaluator(StagedJudge(), contradiction_penalty=rho).evaluate_sync(
            report_synthesis=SCENARIO_4, evidence_corpus=EVIDENCE_A)
        partition = result.final_partition
        assert partition.contradicted
        assert partition.grounded or partition.complementary
        scores[rho] = result.final_score
    assert scores[0.0] > scores[0.5]


def test_scenario_8_a_grounded_pair_scores_above_an_ungrounded_pair() -> None:
    judge = GSAREvaluator(StagedJudge())
    grounded = judge.evaluate_sync(
        report_synthesis="CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. Request "
                         "rate was 12 RPS at the same time.",
        evidence_corpus=[CPU_ROW, RPS_ROW])
    ungrounded = judge.evaluate_sync(
        report_synthesis="The outage was caused by a failed power supply at 03:15 UTC.",
        evidence_corpus=["[signal] alert_id=A-1042 fired_at=02:48:12 metric=availability"])
    assert grounded.final_score > ungrounded.final_score
    assert max(grounded.final_score, ungrounded.final_score) >= 0.65


def test_a_config_push_thirty_seconds_before_does_not_make_it_the_cause() -> None:
    report = ("A config push was applied to db-prod-1 at 14:01:30. The outage was caused by the "
              "config push.")
    result = GSAREvaluator(StagedJudge()).evaluate_sync(report_synthesis=report,
                                                         evidence_corpus=PUSH_EVIDENCE)
    partition = result.final_partition
    causal = "The outage was caused by the config push."
    assert result.final_decision is not Decision.PROCEED
    assert causal not in [c.text for c in partition.grounded]
    assert causal in [c.text for c in partition.ungrounded]
    assert [c.text for c in partition.grounded] == [
        "A config push was applied to db-prod-1 at 14:01:30."]
