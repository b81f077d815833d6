"""Worked examples, edge cases, boundaries and validation of the GSAR score and decision."""

from __future__ import annotations

import pytest

from gsar_otel.core.model import (
    DEFAULT_WEIGHT_MAP,
    Claim,
    Decision,
    EvidenceType,
    GSARThresholds,
    Partition,
)
from gsar_otel.core.scoring import decide, gsar_score, partition_weight, resolve_weight_map


def c(kind: str, text: str = "a claim") -> Claim:
    return Claim(text, kind)


def appendix_e() -> Partition:
    return Partition(
        grounded=[c("tool_match", "c1"), c("specific_data", "c2")],
        ungrounded=[c("inference", "c3")],
        complementary=[c("complementary_finding", "c4")],
        contradicted=[c("inference", "c5")],
    )


# --- Appendix E ----------------------------------------------------------------------------------


def test_appendix_e_scores_2_80_over_3_70_and_regenerates():
    s = gsar_score(appendix_e())
    assert s == pytest.approx(2.80 / 3.70)
    assert round(s, 6) == 0.756757
    assert decide(s) is Decision.REGENERATE


def test_appendix_e_with_thresholds_0_90_and_0_85_replans():
    s = gsar_score(appendix_e())
    assert decide(s, thresholds=GSARThresholds(proceed=0.90, regenerate=0.85)) is Decision.REPLAN


def test_appendix_e_bucket_weights_match_the_worked_example():
    p = appendix_e()
    assert partition_weight(p.grounded) == pytest.approx(1.95)
    assert partition_weight(p.ungrounded) == pytest.approx(0.60)
    assert partition_weight(p.contradicted) == pytest.approx(0.60)
    assert partition_weight(p.complementary) == pytest.approx(0.85)


# --- edge cases of GSAR-SPEC §2 ------------------------------------------------------------------


def test_an_empty_partition_scores_the_neutral_half():
    assert gsar_score(Partition()) == 0.5


def test_a_partition_whose_claims_all_weigh_zero_scores_the_neutral_half():
    zero = {t.value: 0.0 for t in EvidenceType}
    p = Partition(grounded=[c("tool_match")], ungrounded=[c("inference")])
    assert gsar_score(p, weight_map=zero, default_unknown=0.0) == 0.5


@pytest.mark.parametrize(
    ("bucket", "rho", "expected"),
    [
        ("grounded", 0.5, 1.0),
        ("ungrounded", 0.5, 0.0),
        ("contradicted", 0.5, 0.0),
        ("contradicted", 1.0, 0.0),
        ("contradicted", 0.0, 0.5),
        ("complementary", 0.5, 1.0),
    ],
)
def test_single_bucket_partitions_score_as_the_spec_says(bucket, rho, expected):
    claims = [c("tool_match", "one"), c("inference", "two"), c("domain", "three")]
    assert gsar_score(Partition(**{bucket: claims}), contradiction_penalty=rho) == expected


def test_rho_is_checked_even_for_an_empty_partition():
    with pytest.raises(ValueError, match="contradiction_penalty"):
        gsar_score(Partition(), contradiction_penalty=1.5)


# --- decision boundaries and the float hazard ----------------------------------------------------


@pytest.mark.parametrize("kind", ["specific_data", "complementary_finding", "neg_evidence",
                                  "inference", "tool_match", "signal_match"])
def test_four_grounded_and_one_ungrounded_claim_of_one_type_proceeds(kind):
    p = Partition(grounded=[c(kind, f"g{i}") for i in range(4)], ungrounded=[c(kind, "u")])
    s = gsar_score(p)
    assert s == pytest.approx(0.8)
    assert decide(s) is Decision.PROCEED


def test_the_float_hazard_value_itself_decides_proceed():
    hazard = 3.8 / 4.75
    assert hazard < 0.8  # the hazard is real in IEEE doubles
    assert decide(hazard) is Decision.PROCEED


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, Decision.PROCEED),
        (0.8, Decision.PROCEED),
        (0.7999999, Decision.REGENERATE),
        (0.65, Decision.REGENERATE),
        (0.6499999, Decision.REPLAN),
        (0.65 - 1e-6, Decision.REPLAN),
        (0.0, Decision.REPLAN),
    ],
)
def test_each_band_includes_its_lower_edge(score, expected):
    assert decide(score) is expected


def test_decide_never_returns_abstain():
    assert {decide(i / 1000) for i in range(1001)} == {
        Decision.PROCEED, Decision.REGENERATE, Decision.REPLAN}


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.01, 1.01, "0.5", None, True])
def test_decide_rejects_a_score_that_is_not_a_finite_unit_number(bad):
    with pytest.raises(ValueError, match="score"):
        decide(bad)


# --- thresholds ----------------------------------------------------------------------------------


def test_thresholds_with_regenerate_above_proceed_are_rejected_naming_both():
    with pytest.raises(ValueError, match=r"thresholds\.regenerate.*thresholds\.proceed"):
        GSARThresholds(proceed=0.6, regenerate=0.7)


def test_equal_thresholds_give_a_two_tier_decision():
    two_tier = GSARThresholds(proceed=0.7, regenerate=0.7)
    decisions = {decide(i / 100, thresholds=two_tier) for i in range(101)}
    assert decisions == {Decision.PROCEED, Decision.REPLAN}
    assert decide(0.7, thresholds=two_tier) is Decision.PROCEED
    assert decide(0.69, thresholds=two_tier) is Decision.REPLAN


@pytest.mark.parametrize(("field", "value"), [("proceed", 1.2), ("regenerate", -0.1),
                                              ("proceed", float("nan")), ("regenerate", "high")])
def test_a_threshold_outside_zero_to_one_is_rejected_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"thresholds\.{field}.*\[0, 1\]"):
        GSARThresholds(**{field: value})


def test_thresholds_are_frozen():
    with pytest.raises(ValueError):
        GSARThresholds().proceed = 0.5  # type: ignore[misc]


# --- weight maps ---------------------------------------------------------------------------------


def test_a_partial_weight_map_merges_over_the_defaults():
    merged = resolve_weight_map({"tool_match": 1.0})
    assert merged[EvidenceType.SPECIFIC_DATA] == 0.95
    p = Partition(grounded=[c("specific_data")], ungrounded=[c("inference")])
    # Replacing the defaults would send specific_data to 0.60 and S to 0.5.
    assert gsar_score(p, weight_map={"tool_match": 1.0}) == pytest.approx(0.95 / 1.55)


def test_a_weight_map_overrides_only_what_it_names_and_accepts_enum_keys():
    merged = resolve_weight_map({EvidenceType.INFERENCE: 0.1, "domain": 0.2})
    assert merged[EvidenceType.INFERENCE] == 0.1
    assert merged[EvidenceType.DOMAIN] == 0.2
    assert {t: merged[t] for t in EvidenceType if t not in ("inference", "domain")} == {
        t: DEFAULT_WEIGHT_MAP[t] for t in EvidenceType if t not in ("inference", "domain")}


def test_the_default_weight_map_cannot_be_mutated():
    with pytest.raises(TypeError):
        DEFAULT_WEIGHT_MAP[EvidenceType.INFERENCE] = 1.0  # type: ignore[index]


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), float("inf"), "0.5", None])
def test_a_weight_outside_zero_to_one_is_rejected_naming_the_type(bad):
    with pytest.raises(ValueError, match=r"weight_map\['synthesis'\].*\[0, 1\]"):
        gsar_score(Partition(), weight_map={"synthesis": bad})


def test_an_unknown_weight_map_key_is_rejected_listing_the_allowed_types():
    with pytest.raises(ValueError, match=r"weight_map key 'hunch'.*tool_match"):
        partition_weight([], weight_map={"hunch": 0.5})


def test_a_weight_map_that_is_not_a_mapping_is_rejected():
    with pytest.raises(ValueError, match="weight_map must be a mapping"):
        resolve_weight_map([("tool_match", 1.0)])  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1.1, -1.0, float("nan")])
def test_default_unknown_outside_zero_to_one_is_rejected(bad):
    with pytest.raises(ValueError, match="default_unknown"):
        gsar_score(Partition(grounded=[c("hunch")]), default_unknown=bad)


def test_an_unknown_claim_type_weighs_default_unknown():
    claims = [c("hunch"), c("tool_match")]
    assert partition_weight(claims) == pytest.approx(1.6)
    assert partition_weight(claims, default_unknown=0.2) == pytest.approx(1.2)


# --- offline numbers of GSAR-SPEC §6 and §8 ------------------------------------------------------


def test_a_shippable_mix_scores_3_75_over_4_35_and_proceeds():
    p = Partition(grounded=[c("tool_match"), c("tool_match", "b"), c("signal_match")],
                  complementary=[c("complementary_finding")], ungrounded=[c("inference")])
    s = gsar_score(p)
    assert s == pytest.approx(3.75 / 4.35)
    assert round(s, 3) == 0.862
    assert decide(s) is Decision.PROCEED


def test_only_ungrounded_inference_and_domain_claims_score_zero_and_replan():
    s = gsar_score(Partition(ungrounded=[c("inference"), c("domain")]))
    assert s == 0.0
    assert decide(s) is Decision.REPLAN


def test_one_tool_match_against_one_contradicted_specific_datum_depends_on_rho():
    p = Partition(grounded=[c("tool_match")], contradicted=[c("specific_data")])
    assert round(gsar_score(p, contradiction_penalty=0.5), 3) == 0.678
    assert decide(gsar_score(p)) is Decision.REGENERATE
    assert gsar_score(p, contradiction_penalty=0.0) == 1.0


@pytest.mark.parametrize(
    ("thresholds", "expected"),
    [((0.70, 0.50), Decision.PROCEED), ((0.80, 0.65), Decision.REGENERATE),
     ((0.95, 0.85), Decision.REPLAN)],
)
def test_two_grounded_and_one_ungrounded_inference_score_0_765(thresholds, expected):
    p = Partition(grounded=[c("tool_match"), c("specific_data")], ungrounded=[c("inference")])
    s = gsar_score(p)
    assert round(s, 3) == 0.765
    proceed, regenerate = thresholds
    assert decide(s, thresholds=GSARThresholds(proceed=proceed, regenerate=regenerate)) is expected


@pytest.mark.parametrize(
    ("thresholds", "expected"),
    [((0.95, 0.65), Decision.REGENERATE), ((0.60, 0.40), Decision.PROCEED)],
)
def test_two_tool_matches_and_one_ungrounded_inference_score_0_769(thresholds, expected):
    p = Partition(grounded=[c("tool_match"), c("tool_match", "b")], ungrounded=[c("inference")])
    s = gsar_score(p)
    assert round(s, 3) == 0.769
    proceed, regenerate = thresholds
    assert decide(s, thresholds=GSARThresholds(proceed=proceed, regenerate=regenerate)) is expected


def ablation_partition(g_second: str = "specific_data") -> Partition:
    return Partition(grounded=[c("tool_match"), c(g_second, "b")], ungrounded=[c("inference")],
                     contradicted=[c("specific_data")], complementary=[c("complementary_finding")])


def test_uniform_weights_cannot_tell_a_tool_match_from_an_inference_in_grounded():
    uniform = {t.value: 1.0 for t in EvidenceType}
    typed = gsar_score(ablation_partition("tool_match"), weight_map=uniform)
    untyped = gsar_score(ablation_partition("inference"), weight_map=uniform)
    assert typed == untyped
    assert gsar_score(ablation_partition("tool_match")) > gsar_score(
        ablation_partition("inference"))


def test_folding_complementary_into_ungrounded_strictly_lowers_the_score():
    p = ablation_partition()
    folded = Partition(grounded=p.grounded, ungrounded=(*p.ungrounded, *p.complementary),
                       contradicted=p.contradicted)
    assert gsar_score(folded) < gsar_score(p)


def test_rho_zero_strictly_raises_the_ablation_score():
    p = ablation_partition()
    assert gsar_score(p, contradiction_penalty=0.0) > gsar_score(p)
