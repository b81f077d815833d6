"""Properties P1-P6 of the GSAR score (GSAR-SPEC §3), over random partitions, weights and rho."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.model import Claim, EvidenceType, Partition
from gsar_otel.core.scoring import claim_weight, gsar_score, partition_weight, resolve_weight_map
from tests.core.strategies import (
    PROPERTY_SETTINGS,
    claims,
    coarse_rhos,
    coarse_unit,
    evidence_types,
    partitions,
    rhos,
    unit_floats,
    weight_maps,
)

# Non-strict properties allow one rounding step of slack; strict ones use 0.01-grid weights.
SLACK = 1e-12


def score(p: Partition, wm: dict[str, float] | None, rho: float, du: float = 0.6) -> float:
    return gsar_score(p, weight_map=wm, contradiction_penalty=rho, default_unknown=du)


def support_and_penalty(
    p: Partition, wm: dict[str, float] | None, rho: float, du: float = 0.6
) -> tuple[float, float]:
    """N = W(G) + W(K) and M = W(U) + rho * W(X), as in the closed form S = N / (N + M)."""
    def w(claims_: tuple[Claim, ...]) -> float:
        return partition_weight(claims_, weight_map=wm, default_unknown=du)

    return w(p.grounded) + w(p.complementary), w(p.ungrounded) + rho * w(p.contradicted)


def weight_of(c: Claim, wm: dict[str, float] | None, du: float = 0.6) -> float:
    return claim_weight(c, resolve_weight_map(wm), du)


def add(p: Partition, bucket: str, c: Claim) -> Partition:
    return p.model_copy(update={bucket: (*getattr(p, bucket), c)})


# --- P1 boundedness ------------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), weight_maps(), rhos, unit_floats)
def test_p1_score_is_always_within_zero_and_one(p, wm, rho, du):
    assert 0.0 <= score(p, wm, rho, du) <= 1.0


@pytest.mark.parametrize("rho", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_p1_score_is_bounded_on_the_full_bucket_size_grid(rho):
    tm = Claim("row", EvidenceType.TOOL_MATCH)
    inf = Claim("guess", EvidenceType.INFERENCE)
    for g, u, x, k in itertools.product(range(4), repeat=4):
        p = Partition(grounded=[tm] * g, ungrounded=[inf] * u, contradicted=[tm] * x,
                      complementary=[inf] * k)
        s = gsar_score(p, contradiction_penalty=rho)
        assert 0.0 <= s <= 1.0, (g, u, x, k, rho, s)


@PROPERTY_SETTINGS
@given(partitions(min_claims=1), weight_maps(), rhos, unit_floats)
def test_p1_score_matches_the_closed_form_n_over_n_plus_m(p, wm, rho, du):
    n, m = support_and_penalty(p, wm, rho, du)
    expected = 0.5 if n + m == 0 else n / (n + m)
    assert score(p, wm, rho, du) == pytest.approx(expected, abs=1e-12)


# --- P2 grounded monotonicity --------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(), rhos)
def test_p2_moving_a_claim_from_ungrounded_to_grounded_never_lowers_the_score(p, c, wm, rho):
    before = score(add(p, "ungrounded", c), wm, rho)
    after = score(add(p, "grounded", c), wm, rho)
    assert after >= before - SLACK


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(coarse_unit), coarse_rhos)
def test_p2_the_move_raises_the_score_exactly_when_the_claim_has_weight(p, c, wm, rho):
    before = score(add(p, "ungrounded", c), wm, rho)
    after = score(add(p, "grounded", c), wm, rho)
    if weight_of(c, wm) > 0:
        assert after > before
    else:
        assert after == before


def test_p2_a_zero_weight_claim_moved_into_grounded_leaves_a_perfect_score_unchanged():
    wm = {"inference": 0.0}
    g = Claim("row", "tool_match")
    c = Claim("guess", "inference")
    before = gsar_score(Partition(grounded=[g], ungrounded=[c]), weight_map=wm)
    after = gsar_score(Partition(grounded=[g, c]), weight_map=wm)
    assert before == after == 1.0


# --- P3 contradiction monotonicity ---------------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(), rhos)
def test_p3_adding_a_contradicted_claim_never_raises_the_score(p, c, wm, rho):
    assert score(add(p, "contradicted", c), wm, rho) <= score(p, wm, rho) + SLACK


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(coarse_unit), st.sampled_from([0.25, 0.5, 0.75, 1.0]))
def test_p3_a_weighted_contradiction_strictly_lowers_a_supported_score(p, c, wm, rho):
    n, _ = support_and_penalty(p, wm, rho)
    if n > 0 and weight_of(c, wm) > 0:
        assert score(add(p, "contradicted", c), wm, rho) < score(p, wm, rho)


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps())
def test_p3_with_rho_zero_a_contradiction_changes_nothing(p, c, wm):
    assert score(add(p, "contradicted", c), wm, 0.0) == score(p, wm, 0.0)


@PROPERTY_SETTINGS
@given(partitions(), weight_maps(), rhos, rhos)
def test_p3_the_score_never_rises_as_rho_grows(p, wm, rho_a, rho_b):
    low, high = sorted((rho_a, rho_b))
    assert score(p, wm, high) <= score(p, wm, low) + SLACK


def test_p3_the_reference_rho_ladder_for_one_tool_match_each_side():
    p = Partition(grounded=[Claim("a", "tool_match")], contradicted=[Claim("b", "tool_match")])
    s0, s_half, s1 = (gsar_score(p, contradiction_penalty=r) for r in (0.0, 0.5, 1.0))
    assert (s0, round(s_half, 3), s1) == (1.0, 0.667, 0.5)


# --- P4 complementary value ----------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(), rhos)
def test_p4_adding_a_complementary_claim_never_lowers_the_score(p, c, wm, rho):
    assert score(add(p, "complementary", c), wm, rho) >= score(p, wm, rho) - SLACK


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(coarse_unit), coarse_rhos)
def test_p4_it_raises_the_score_exactly_when_the_score_is_below_one_and_it_has_weight(
        p, c, wm, rho):
    before = score(p, wm, rho)
    after = score(add(p, "complementary", c), wm, rho)
    if before < 1.0 and weight_of(c, wm) > 0:
        assert after > before
    else:
        assert after == before


@PROPERTY_SETTINGS
@given(partitions(), claims(), weight_maps(), rhos)
def test_p4_a_complementary_claim_counts_exactly_as_a_grounded_one_of_its_type(p, c, wm, rho):
    assert score(add(p, "complementary", c), wm, rho) == score(add(p, "grounded", c), wm, rho)


# --- P5 contradiction non-suppression ------------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), weight_maps(coarse_unit), coarse_rhos)
def test_p5_dropping_contradicted_claims_raises_the_score_when_they_weigh_and_support_exists(
        p, wm, rho):
    without_x = p.model_copy(update={"contradicted": ()})
    n, _ = support_and_penalty(p, wm, rho)
    x_weight = rho * partition_weight(p.contradicted, weight_map=wm)
    with_x, dropped = score(p, wm, rho), score(without_x, wm, rho)
    if x_weight > 0 and n > 0:
        assert with_x < dropped
    else:
        assert with_x <= dropped


@PROPERTY_SETTINGS
@given(partitions(), weight_maps())
def test_p5_with_rho_zero_dropping_contradicted_claims_is_score_neutral(p, wm):
    without_x = p.model_copy(update={"contradicted": ()})
    assert score(p, wm, 0.0) == score(without_x, wm, 0.0)


# --- P6 inference-observation asymmetry ----------------------------------------------------------


@PROPERTY_SETTINGS
@given(partitions(), st.text(alphabet="xyz", min_size=1, max_size=5), evidence_types,
       evidence_types, weight_maps(coarse_unit), coarse_rhos)
def test_p6_retyping_a_grounded_claim_to_a_lighter_type_lowers_the_score_iff_there_is_a_penalty(
        p, text, heavy, light, wm, rho):
    weights = resolve_weight_map(wm)
    if weights[light] >= weights[heavy]:
        heavy, light = light, heavy
    strong = score(add(p, "grounded", Claim(text, heavy)), wm, rho)
    weak = score(add(p, "grounded", Claim(text, light)), wm, rho)
    n_weak, m = support_and_penalty(add(p, "grounded", Claim(text, light)), wm, rho)
    if weights[light] < weights[heavy] and m > 0:
        assert weak < strong
    elif m == 0 and n_weak > 0:
        assert weak == strong == 1.0
    else:
        assert weak <= strong


@PROPERTY_SETTINGS
@given(st.lists(evidence_types, min_size=1, max_size=6), st.lists(evidence_types, max_size=4))
def test_p6_without_ungrounded_or_contradicted_claims_every_typing_scores_one(g_types, k_types):
    p = Partition(grounded=[Claim(f"g{i}", t) for i, t in enumerate(g_types)],
                  complementary=[Claim(f"k{i}", t) for i, t in enumerate(k_types)])
    assert gsar_score(p) == 1.0


def test_p6_tool_match_beats_inference_in_grounded_once_anything_is_ungrounded():
    u = [Claim("guess", "inference")]
    tm = gsar_score(Partition(grounded=[Claim("c", "tool_match")], ungrounded=u))
    inf = gsar_score(Partition(grounded=[Claim("c", "inference")], ungrounded=u))
    assert tm == pytest.approx(1.0 / 1.6)
    assert inf == 0.5
    assert tm > inf


def _merged(weight_map: dict[str, float] | None, base: dict[EvidenceType, float]
            ) -> dict[EvidenceType, float]:
    return {**base, **{EvidenceType(k): float(v) for k, v in (weight_map or {}).items()}}


@given(weight_maps(), weight_maps(), weight_maps())
@PROPERTY_SETTINGS
def test_resolving_a_resolved_map_again_gives_the_same_weights(wm, base_wm, other):
    """Scoring resolves the evaluator's (already resolved) maps again for every score; whether
    that is checked again or not, the weights are the plain merge of the maps."""
    base = resolve_weight_map(base_wm)
    resolved = resolve_weight_map(wm, base=base)
    expected = _merged(wm, _merged(base_wm, dict(resolve_weight_map(None))))
    assert dict(resolved) == expected
    assert dict(resolve_weight_map(resolved)) == expected
    assert dict(resolve_weight_map(resolved, base=resolve_weight_map(other))) == expected
    assert dict(resolve_weight_map(other, base=resolved)) == _merged(other, expected)


def test_a_resolved_map_is_not_checked_again_but_a_copy_of_one_is(monkeypatch):
    from gsar_otel.core import scoring

    resolved = resolve_weight_map({"tool_match": 0.5})
    checks: list[str] = []
    real = scoring.check_unit_interval
    monkeypatch.setattr(scoring, "check_unit_interval",
                        lambda name, value: checks.append(name) or real(name, value))
    for _ in range(3):
        gsar_score(Partition(grounded=[Claim("a", "tool_match")]), weight_map=resolved,
                   penalty_weight_map=resolved)
    assert [name for name in checks if name.startswith(("weight_map", "penalty"))] == []
    tampered = {**dict(resolved), EvidenceType.DOMAIN: 1.5}
    with pytest.raises(ValueError, match="weight_map"):
        resolve_weight_map(tampered)
