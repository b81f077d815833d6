"""The contradiction policy: a decision-layer rule on top of the paper's exact score. A contradicted
or ungrounded claim of a tool-backed type (a misstated or a made-up tool observation) caps the
decision at regenerate under ``cap`` (the default); ``score`` gives back the paper's decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.config import SettingsError, load_settings
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import (
    TOOL_BACKED_TYPES,
    Claim,
    Decision,
    EvidenceType,
    JudgeOutput,
    Partition,
)
from gsar_otel.core.result import GSARResult
from gsar_otel.core.scoring import (
    apply_contradiction_policy,
    check_contradiction_policy,
    decide,
    gsar_score,
)
from tests.core.strategies import partitions

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
    Claim("The p99 latency on edge-lb-3 reached 850 ms", "tool_match", ["E4"]),
]
WRONG = Claim("The error rate on edge-lb-3 stayed under 2%", "tool_match", ["E3"])
"""A tool-backed claim the evidence refutes (E3 says 41.2%)."""
CAUSE = Claim("The outage was caused by the config push", "inference", conclusion=True)

# The paper's S for four grounded tool matches and one contradicted one: 4 / (4 + 0.5 * 1).
S_WITH_ONE_WRONG_FACT = 4.0 / 4.5


class FixedJudge:
    """Returns one verdict whatever it is asked."""

    name = "fixed"

    def __init__(self, output: JudgeOutput) -> None:
        self.output = output

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.output


def _verdict(grounded: list[Claim], contradicted: list[Claim],
             ungrounded: tuple[Claim, ...] = ()) -> JudgeOutput:
    return JudgeOutput(grounding_score=0.5, is_grounded=False, grounded_claims=grounded,
                       contradicted_claims=contradicted, ungrounded_claims=list(ungrounded))


def _evaluate(grounded: list[Claim], contradicted: list[Claim],
              ungrounded: tuple[Claim, ...] = (), **policies: Any) -> GSARResult:
    answer = ". ".join(c.text for c in [*grounded, *contradicted, *ungrounded]) + "."
    evaluator = GSAREvaluator(FixedJudge(_verdict(grounded, contradicted, ungrounded)),
                              settings=load_settings({}), **policies)
    return evaluator.evaluate_sync(report_synthesis=answer, evidence_corpus=EVIDENCE)


def test_the_tool_backed_types_are_tool_match_specific_data_and_signal_match() -> None:
    assert {t.value for t in TOOL_BACKED_TYPES} == {"tool_match", "specific_data",
                                                     "signal_match"}


def test_a_wrong_tool_fact_beside_four_grounded_ones_proceeds_under_score() -> None:
    result = _evaluate(FACTS, [WRONG], contradiction_policy="score")
    assert result.final_score == pytest.approx(S_WITH_ONE_WRONG_FACT)
    assert result.final_score >= 0.8
    assert result.final_decision is Decision.PROCEED
    assert result.contradiction_capped is False
    assert result.contradiction_policy == "score"


def test_a_wrong_tool_fact_beside_four_grounded_ones_regenerates_by_default() -> None:
    result = _evaluate(FACTS, [WRONG])
    assert result.final_score == pytest.approx(S_WITH_ONE_WRONG_FACT)
    assert result.final_decision is Decision.REGENERATE
    assert result.contradiction_capped is True
    assert result.contradiction_policy == "cap"
    assert result.conclusion_capped is False
    assert result.capped_by == ("contradiction",)
    assert result.trajectory[0].contradiction_capped is True


def test_the_cap_leaves_the_score_exactly_as_the_paper_computes_it() -> None:
    capped = _evaluate(FACTS, [WRONG], contradiction_policy="cap")
    pure = _evaluate(FACTS, [WRONG], contradiction_policy="score")
    expected = gsar_score(Partition(grounded=FACTS, contradicted=[WRONG]))
    assert capped.final_score == pure.final_score == expected


@pytest.mark.parametrize("kind", sorted(TOOL_BACKED_TYPES))
def test_every_tool_backed_type_caps(kind: EvidenceType) -> None:
    wrong = WRONG.model_copy(update={"type": kind})
    result = _evaluate(FACTS, [wrong])
    assert result.final_score >= 0.8
    assert result.final_decision is Decision.REGENERATE
    assert result.contradiction_capped is True


@pytest.mark.parametrize("kind", sorted(set(EvidenceType) - TOOL_BACKED_TYPES))
def test_a_contradicted_claim_that_is_not_tool_backed_is_left_to_the_score(
        kind: EvidenceType) -> None:
    wrong = WRONG.model_copy(update={"type": kind, "evidence_refs": ()})
    result = _evaluate(FACTS, [wrong])
    assert result.final_decision is Decision.PROCEED
    assert result.contradiction_capped is False


MADE_UP = Claim("Errors also spread to media-resizer", "tool_match")
"""A tool observation no evidence item holds (no service of that name in any item)."""


def test_a_made_up_tool_fact_beside_four_grounded_ones_regenerates_by_default() -> None:
    result = _evaluate(FACTS, [], (MADE_UP,))
    assert result.final_score == pytest.approx(4.0 / 5.0)
    assert result.final_decision is Decision.REGENERATE
    assert result.capped_by == ("contradiction",)
    pure = _evaluate(FACTS, [], (MADE_UP,), contradiction_policy="score")
    assert pure.final_score == result.final_score
    assert pure.final_decision is Decision.PROCEED
    assert pure.capped_by == ()


@pytest.mark.parametrize("kind", sorted(set(EvidenceType) - TOOL_BACKED_TYPES))
def test_an_ungrounded_claim_that_is_not_tool_backed_is_left_to_the_score(
        kind: EvidenceType) -> None:
    guess = MADE_UP.model_copy(update={"type": kind})
    decision, capped = apply_contradiction_policy(
        Decision.PROCEED, Partition(grounded=[*FACTS, *FACTS], ungrounded=[guess]))
    assert (decision, capped) == (Decision.PROCEED, False)


def test_a_contradicted_claim_of_an_unknown_type_is_left_to_the_score() -> None:
    wrong = WRONG.model_copy(update={"type": "hunch"})
    decision, capped = apply_contradiction_policy(
        Decision.PROCEED, Partition(grounded=FACTS, contradicted=[wrong]))
    assert (decision, capped) == (Decision.PROCEED, False)


def test_a_complementary_tool_finding_never_caps() -> None:
    extra = Claim("edge-lb-3 also logged 502s", "tool_match", ["E2"])
    partition = Partition(grounded=FACTS, complementary=[extra])
    assert apply_contradiction_policy(Decision.PROCEED, partition) == (Decision.PROCEED, False)


def test_a_decision_below_proceed_stays_as_it_is() -> None:
    partition = Partition(grounded=FACTS, contradicted=[WRONG])
    for decision in (Decision.REGENERATE, Decision.REPLAN, Decision.ABSTAIN):
        assert apply_contradiction_policy(decision, partition) == (decision, False)


def test_a_wrong_tool_fact_alone_replans_and_the_cap_did_not_fire() -> None:
    result = _evaluate([], [WRONG])
    assert result.final_decision is Decision.REPLAN
    assert result.contradiction_capped is False


def test_a_result_names_both_policies_when_both_cap() -> None:
    facts = [*FACTS, *(f.model_copy(update={"text": f.text.replace("edge-lb-3", "the balancer")})
                       for f in FACTS[2:])]
    result = _evaluate(facts, [WRONG], (CAUSE,))
    assert result.final_score >= 0.8
    assert result.final_decision is Decision.REGENERATE
    assert result.capped_by == ("conclusion", "contradiction")
    assert result.cap_note == (
        "S alone would proceed; capped at regenerate by an ungrounded or contradicted conclusion "
        "(conclusion_policy=cap) and by a contradicted or unsupported tool-backed claim "
        "(contradiction_policy=cap)")
    pure = _evaluate(facts, [WRONG], (CAUSE,), contradiction_policy="score",
                     conclusion_policy="score")
    assert pure.final_decision is Decision.PROCEED
    assert (pure.capped_by, pure.cap_note) == ((), "")


def test_an_unknown_policy_is_a_clear_error_naming_the_allowed_values() -> None:
    with pytest.raises(ValueError, match="contradiction_policy must be one of cap, score, "
                                         "got 'strict'"):
        GSAREvaluator(FixedJudge(_verdict(FACTS, [])), contradiction_policy="strict")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="contradiction_policy must be one of cap, score"):
        check_contradiction_policy(None)


# --- settings ----------------------------------------------------------------------------------


def test_the_environment_sets_the_policy_and_the_default_is_cap() -> None:
    assert load_settings({}).contradiction_policy == "cap"
    settings_ = load_settings({"GSAR_CONTRADICTION_POLICY": " Score "})
    assert settings_.contradiction_policy == "score"
    assert settings_.evaluator_options()["contradiction_policy"] == "score"
    evaluator = GSAREvaluator(FixedJudge(_verdict(FACTS, [])), settings=settings_)
    assert evaluator.contradiction_policy == "score"


def test_an_invalid_variable_names_itself_and_the_allowed_values() -> None:
    with pytest.raises(SettingsError,
                       match="GSAR_CONTRADICTION_POLICY must be one of cap, score, got 'never'"):
        load_settings({"GSAR_CONTRADICTION_POLICY": "never"})


def test_the_settings_file_sets_the_policy_and_the_variable_wins(tmp_path: Path) -> None:
    path = tmp_path / "gsar.json"
    path.write_text(json.dumps({"contradiction_policy": "score"}))
    assert load_settings({"GSAR_CONFIG": str(path)}).contradiction_policy == "score"
    assert load_settings({"GSAR_CONFIG": str(path),
                          "GSAR_CONTRADICTION_POLICY": "cap"}).contradiction_policy == "cap"
    toml = tmp_path / "gsar.toml"
    toml.write_text('contradiction_policy = "sometimes"\n')
    with pytest.raises(SettingsError, match=r"contradiction_policy must be one of cap, score, "
                                            r"got 'sometimes'"):
        load_settings({"GSAR_CONFIG": str(toml)})


def test_an_explicit_argument_beats_the_settings() -> None:
    evaluator = GSAREvaluator(FixedJudge(_verdict(FACTS, [])), contradiction_policy="cap",
                              settings=load_settings({"GSAR_CONTRADICTION_POLICY": "score"}))
    assert evaluator.contradiction_policy == "cap"


# --- properties --------------------------------------------------------------------------------

RANK = {Decision.PROCEED: 3, Decision.REGENERATE: 2, Decision.REPLAN: 1, Decision.ABSTAIN: 0}
"""How far a decision lets an answer go: a cap may only lower it."""

CAPPING = Partition(grounded=[Claim("claim 0", "tool_match")] * 4,
                    contradicted=[Claim("claim 1", "tool_match")])
"""A partition that proceeds on S and caps: the properties always see the cap fire."""


@settings(max_examples=200, deadline=None)
@example(CAPPING, Decision.PROCEED)
@example(CAPPING, Decision.REGENERATE)
@given(partitions(), st.sampled_from(list(Decision)))
def test_the_cap_never_raises_a_decision_and_score_changes_none(
        partition: Partition, decision: Decision) -> None:
    capped, fired = apply_contradiction_policy(decision, partition, "cap")
    assert RANK[capped] <= RANK[decision]
    tool_backed_miss = any(c.type in TOOL_BACKED_TYPES
                           for c in (*partition.contradicted, *partition.ungrounded))
    assert fired is (decision is Decision.PROCEED and tool_backed_miss)
    assert capped is (Decision.REGENERATE if fired else decision)
    assert apply_contradiction_policy(decision, partition, "score") == (decision, False)


NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]


def _named(index: int, claim: Claim) -> Claim:
    # Distinct sentences without numbers, so the guard keeps every claim in its sentence.
    return claim.model_copy(update={"text": f"Finding {NAMES[index]} holds"})


@st.composite
def verdicts(draw: st.DrawFn) -> tuple[JudgeOutput, str]:
    """A judge verdict over an answer made of exactly its claims."""
    partition = draw(partitions(min_claims=1))
    buckets: dict[str, list[Claim]] = {}
    index = 0
    for bucket, claims in partition.buckets():
        buckets[bucket] = []
        for claim in claims:
            buckets[bucket].append(_named(index, claim))
            index += 1
    answer = " ".join(f"{c.text}." for claims in buckets.values() for c in claims)
    output = JudgeOutput(grounding_score=0.5, is_grounded=False,
                         **{f"{name}_claims": claims for name, claims in buckets.items()})
    return output, answer


CAPPING_VERDICT = (
    JudgeOutput(grounding_score=0.5, is_grounded=False,
                complementary_claims=[_named(i, Claim("c", "tool_match")) for i in range(4)],
                contradicted_claims=[_named(4, Claim("c", "signal_match"))]),
    " ".join(f"Finding {NAMES[i]} holds." for i in range(5)))
"""S = 4 / (4 + 0.5 * 0.9) proceeds, and the contradicted signal match caps it."""
LOW_BARS = load_settings({"GSAR_PROCEED": "0.3", "GSAR_REGENERATE": "0.2"})
"""Claims without evidence ids become ungrounded in the guard: lower bars let more random verdicts
proceed on S, where a cap can fire."""


@settings(max_examples=60, deadline=None)
@example(CAPPING_VERDICT)
@given(verdicts())
def test_through_the_evaluator_the_caps_never_change_s_and_score_is_decide_s(
        case: tuple[JudgeOutput, str]) -> None:
    output, answer = case
    results: dict[tuple[str, str], GSARResult] = {}
    for conclusion in ("cap", "score"):
        for contradiction in ("cap", "score"):
            evaluator = GSAREvaluator(FixedJudge(output), settings=LOW_BARS,
                                      conclusion_policy=conclusion,  # type: ignore[arg-type]
                                      contradiction_policy=contradiction)  # type: ignore[arg-type]
            results[conclusion, contradiction] = evaluator.evaluate_sync(
                report_synthesis=answer, evidence_corpus=EVIDENCE)
    pure, both = results["score", "score"], results["cap", "cap"]
    assert {r.final_score for r in results.values()} == {pure.final_score}
    assert pure.final_decision is decide(pure.final_score, thresholds=LOW_BARS.thresholds_model())
    assert pure.capped_by == ()
    for (conclusion, contradiction), result in results.items():
        assert RANK[result.final_decision] <= RANK[pure.final_decision]
        assert result.conclusion_capped is (conclusion == "cap" and both.conclusion_capped)
        assert result.contradiction_capped is (contradiction == "cap"
                                               and both.contradiction_capped)
        capped = result.conclusion_capped or result.contradiction_capped
        assert result.final_decision is (Decision.REGENERATE if capped
                                         else pure.final_decision)
