"""The conclusion policy and separate penalty weights: a decision-layer rule on top of the paper's
exact score, and GSAR-SPEC §11.7's penalty map (default: the support weights)."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gsar_otel.config import SettingsError, load_settings
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, Decision, EvidenceType, JudgeOutput, Partition
from gsar_otel.core.scoring import apply_conclusion_policy, decide, gsar_score

# The seed: three tool-backed facts are true, the causal conclusion over-reaches.
EVIDENCE = [
    "2024-05-01 10:14:30 UTC INFO deploy-bot: pushed cfg-7781 to edge-lb-3",
    "ALERT EdgeDown firing for edge-lb-3 since 10:15:00 UTC",
    "host=edge-lb-3 error_rate=41.2%",
    "host=edge-lb-3 p99_ms=850",
]
FACTS = [
    Claim("cfg-7781 was pushed to edge-lb-3 at 10:14:30 UTC", "tool_match", ["E1"]),
    Claim("The EdgeDown alert fired for edge-lb-3 at 10:15:00 UTC", "tool_match", ["E2"]),
    Claim("The error rate on edge-lb-3 reached 41.2%", "tool_match", ["E3"]),
]
CAUSE = Claim("The outage was caused by the config push", "inference", conclusion=True)
ANSWER = ". ".join(c.text for c in [*FACTS, CAUSE]) + "."


class FixedJudge:
    """Returns one verdict whatever it is asked."""

    name = "fixed"

    def __init__(self, output: JudgeOutput) -> None:
        self.output = output

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.output


def _verdict(grounded: list[Claim], ungrounded: list[Claim]) -> JudgeOutput:
    return JudgeOutput(grounding_score=0.5, is_grounded=False, grounded_claims=grounded,
                       ungrounded_claims=ungrounded)


def test_the_seed_over_reach_beside_three_facts_does_not_proceed_by_default() -> None:
    result = GSAREvaluator(FixedJudge(_verdict(FACTS, [CAUSE]))).evaluate_sync(
        report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert result.final_score == pytest.approx(3.0 / 3.6)
    assert result.final_decision is Decision.REGENERATE
    assert result.conclusion_capped is True
    assert result.conclusion_policy == "cap"


def test_the_seed_over_reach_alone_does_not_proceed() -> None:
    result = GSAREvaluator(FixedJudge(_verdict([], [CAUSE]))).evaluate_sync(
        report_synthesis=CAUSE.text + ".", evidence_corpus=EVIDENCE)
    assert result.final_decision is Decision.REPLAN
    assert result.conclusion_capped is False  # S already holds it back: the cap did not fire


def test_score_policy_gives_back_the_papers_numbers_exactly() -> None:
    evaluator = GSAREvaluator(FixedJudge(_verdict(FACTS, [CAUSE])), conclusion_policy="score")
    result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    partition = Partition(grounded=FACTS, ungrounded=[CAUSE])
    assert result.final_score == gsar_score(partition)
    assert result.final_decision is decide(gsar_score(partition)) is Decision.PROCEED
    assert result.conclusion_capped is False
    assert result.conclusion_policy == "score"


def test_a_grounded_conclusion_proceeds() -> None:
    stated = CAUSE.model_copy(update={"evidence_refs": ("E1",), "type": EvidenceType.SYNTHESIS})
    result = GSAREvaluator(FixedJudge(_verdict([*FACTS, stated], []))).evaluate_sync(
        report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert result.final_decision is Decision.PROCEED
    assert result.conclusion_capped is False


def test_an_ungrounded_fact_that_is_no_conclusion_is_left_to_the_score() -> None:
    fact = CAUSE.model_copy(update={"conclusion": False})
    result = GSAREvaluator(FixedJudge(_verdict(FACTS, [fact]))).evaluate_sync(
        report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert result.final_decision is Decision.PROCEED
    assert result.conclusion_capped is False


def test_an_unknown_policy_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="conclusion_policy must be one of cap, score"):
        GSAREvaluator(FixedJudge(_verdict(FACTS, [])), conclusion_policy="strict")  # type: ignore[arg-type]


CLAIMS = st.builds(
    Claim,
    text=st.text(min_size=1, max_size=8).filter(str.strip),
    type=st.sampled_from(list(EvidenceType)),
    conclusion=st.booleans(),
)
PARTITIONS = st.builds(Partition, grounded=st.lists(CLAIMS, max_size=4),
                       ungrounded=st.lists(CLAIMS, max_size=3),
                       contradicted=st.lists(CLAIMS, max_size=3),
                       complementary=st.lists(CLAIMS, max_size=2))


@example(Partition(grounded=FACTS, ungrounded=[CAUSE]))  # proceeds on S: the cap fires
@example(Partition(grounded=FACTS, ungrounded=[CAUSE.model_copy(update={"conclusion": False})]))
@given(PARTITIONS)
def test_the_cap_only_ever_lowers_proceed_to_regenerate(partition: Partition) -> None:
    plain = decide(gsar_score(partition))
    capped, fired = apply_conclusion_policy(plain, partition, "cap")
    over_reach = any(c.conclusion for c in (*partition.ungrounded, *partition.contradicted))
    if plain is Decision.PROCEED and over_reach:
        assert (capped, fired) == (Decision.REGENERATE, True)
    else:
        assert (capped, fired) == (plain, False)
    assert apply_conclusion_policy(plain, partition, "score") == (plain, False)


@given(PARTITIONS)
def test_the_default_penalty_map_is_the_support_map(partition: Partition) -> None:
    assert gsar_score(partition, penalty_weight_map=None) == gsar_score(partition)
    weights = {"inference": 0.3, "tool_match": 0.9}
    assert gsar_score(partition, weight_map=weights) == gsar_score(
        partition, weight_map=weights, penalty_weight_map={})


def test_a_penalty_map_keeps_inference_from_softening_a_penalty() -> None:
    partition = Partition(grounded=FACTS, ungrounded=[CAUSE])
    assert gsar_score(partition) == pytest.approx(3.0 / 3.6)
    assert gsar_score(partition, penalty_weight_map={"inference": 1.0}) == pytest.approx(0.75)
    evaluator = GSAREvaluator(FixedJudge(_verdict(FACTS, [CAUSE])), conclusion_policy="score",
                              penalty_weight_map={"inference": 1.0})
    result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert result.final_score == pytest.approx(0.75)
    assert result.final_decision is Decision.REGENERATE


def test_a_bad_penalty_map_names_itself() -> None:
    with pytest.raises(ValueError, match="penalty_weight_map key 'guess'"):
        gsar_score(Partition(grounded=FACTS), penalty_weight_map={"guess": 1.0})
    with pytest.raises(ValueError, match=r"penalty_weight_map\['inference'\]"):
        gsar_score(Partition(grounded=FACTS), penalty_weight_map={"inference": 2.0})


def test_settings_carry_the_policy_and_the_penalty_map(tmp_path: pytest.TempPathFactory) -> None:
    assert load_settings({}).conclusion_policy == "cap"
    assert load_settings({"GSAR_CONCLUSION_POLICY": "Score"}).conclusion_policy == "score"
    with pytest.raises(SettingsError, match="GSAR_CONCLUSION_POLICY must be one of cap, score"):
        load_settings({"GSAR_CONCLUSION_POLICY": "never"})
    path = tmp_path / "gsar.json"  # type: ignore[operator]
    path.write_text(json.dumps({"conclusion_policy": "score",
                                "penalty_weight_map": {"inference": 1.0}}))
    settings = load_settings({"GSAR_CONFIG": str(path)})
    options = settings.evaluator_options()
    assert options["conclusion_policy"] == "score"
    assert dict(options["penalty_weight_map"]) == {"inference": 1.0}


def test_a_judge_that_drops_the_causal_sentence_cannot_slip_past_the_cap() -> None:
    result = GSAREvaluator(FixedJudge(_verdict(FACTS, []))).evaluate_sync(
        report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    [added] = result.final_partition.ungrounded
    assert added.text.startswith("The outage was caused by the config push")
    assert added.conclusion is True
    assert "uncovered_sentence" in [a.kind for a in result.adjustments]
    assert result.final_decision is Decision.REGENERATE
    assert result.conclusion_capped is True


@pytest.mark.parametrize(("sentence", "concludes"), [
    ("The outage was caused by the config push.", True),
    ("So the root cause is the expired certificate.", True),
    ("Latency rose due to GC pauses.", True),
    ("This probably means the disk is failing.", True),
    ("CPU on db-prod-1 reached 97% at 14:02.", False),
    ("The config was pushed at 10:14:30 UTC.", False),
])
def test_the_guard_reads_conclusion_wording(sentence: str, concludes: bool) -> None:
    from gsar_otel.core.text import states_conclusion

    assert states_conclusion(sentence) is concludes
