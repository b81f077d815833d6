"""GSAR's score and decision, as pure functions (no I/O, no telemetry).

Eq. (1)  W(P) = sum of w(type(c)) over the claims c of P
Eq. (2)  S = (W(G) + W(K)) / (W(G) + W(U) + rho * W(X) + W(K))
Eq. (3)  proceed if S >= tau_proceed, regenerate if S >= tau_regenerate, else replan
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from gsar_otel.core.model import (
    DEFAULT_UNKNOWN_WEIGHT,
    DEFAULT_WEIGHT_MAP,
    Claim,
    Decision,
    EvidenceType,
    GSARThresholds,
    Partition,
    check_unit_interval,
)

NEUTRAL_SCORE = 0.5
"""S of an empty partition, or of one whose claims all weigh nothing: epistemic indifference."""

BOUNDARY_TOLERANCE = 1e-9
"""Scores this close below a threshold count as reaching it (0.8 computed as 0.7999999999999999)."""

WeightMap = Mapping[EvidenceType, float]
WeightMapInput = (
    Mapping[EvidenceType, float] | Mapping[str, float] | Mapping[EvidenceType | str, float]
)
"""A weight map as callers give it: keys are EvidenceType members or their string values."""


def resolve_weight_map(weight_map: WeightMapInput | None) -> WeightMap:
    """Merge ``weight_map`` over DEFAULT_WEIGHT_MAP after validating every key and value.

    A partial map changes only the types it names.

    Raises:
        ValueError: a key is not an EvidenceType value, or a weight is not in [0, 1].
    """
    if weight_map is None:
        return DEFAULT_WEIGHT_MAP
    if not isinstance(weight_map, Mapping):
        raise ValueError(f"weight_map must be a mapping of evidence type to weight, got "
                         f"{type(weight_map).__name__}")
    merged = dict(DEFAULT_WEIGHT_MAP)
    for key, value in weight_map.items():
        try:
            evidence_type = EvidenceType(key)
        except ValueError:
            raise ValueError(
                f"weight_map key {key!r} is not an evidence type; allowed: "
                f"{[t.value for t in EvidenceType]}"
            ) from None
        merged[evidence_type] = check_unit_interval(f"weight_map[{evidence_type.value!r}]", value)
    return MappingProxyType(merged)


def claim_weight(
    claim: Claim, weights: WeightMap, default_unknown: float = DEFAULT_UNKNOWN_WEIGHT
) -> float:
    """The weight of one claim: its type's weight, or ``default_unknown`` for an unknown type."""
    if isinstance(claim.type, EvidenceType):
        return weights.get(claim.type, default_unknown)
    return default_unknown


def partition_weight(
    claims: Iterable[Claim],
    *,
    weight_map: WeightMapInput | None = None,
    default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
) -> float:
    """Eq. (1): the summed type weight of ``claims``.

    Raises:
        ValueError: an invalid weight map or ``default_unknown`` outside [0, 1].
    """
    weights = resolve_weight_map(weight_map)
    unknown = check_unit_interval("default_unknown", default_unknown)
    return math.fsum(claim_weight(claim, weights, unknown) for claim in claims)


def gsar_score(
    partition: Partition,
    *,
    weight_map: WeightMapInput | None = None,
    contradiction_penalty: float = 0.5,
    default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
) -> float:
    """Eq. (2): the grounding score S of a partition, in [0, 1].

    Args:
        partition: the judged claims.
        weight_map: weights for some or all evidence types, merged over the defaults.
        contradiction_penalty: rho in [0, 1], how much a contradicted claim counts against S.
        default_unknown: weight of a claim whose type the map does not know.

    Returns:
        S; 0.5 for an empty partition or one whose claims all weigh zero.

    Raises:
        ValueError: rho, a weight or ``default_unknown`` outside [0, 1].
    """
    rho = check_unit_interval("contradiction_penalty", contradiction_penalty)
    weights = resolve_weight_map(weight_map)
    unknown = check_unit_interval("default_unknown", default_unknown)

    def weights_of(claims: Iterable[Claim]) -> list[float]:
        return [claim_weight(claim, weights, unknown) for claim in claims]

    if partition.is_empty:
        return NEUTRAL_SCORE
    # One exact sum per side: G and K enter identically (P4), whatever bucket a claim sits in.
    support = math.fsum(weights_of((*partition.grounded, *partition.complementary)))
    penalty = math.fsum([*weights_of(partition.ungrounded),
                         *(rho * w for w in weights_of(partition.contradicted))])
    denominator = support + penalty
    if denominator == 0.0:
        return NEUTRAL_SCORE
    return min(1.0, max(0.0, support / denominator))


def decide(score: float, *, thresholds: GSARThresholds | None = None) -> Decision:
    """Eq. (3): proceed, regenerate or replan for a score (never abstain).

    Each band includes its lower edge, within BOUNDARY_TOLERANCE, so a score that is exactly a
    threshold in real arithmetic but a hair below it in floating point takes the higher band.

    Raises:
        ValueError: ``score`` is not a finite number in [0, 1].
    """
    value = check_unit_interval("score", score)
    limits = thresholds or GSARThresholds()
    if value + BOUNDARY_TOLERANCE >= limits.proceed:
        return Decision.PROCEED
    if value + BOUNDARY_TOLERANCE >= limits.regenerate:
        return Decision.REGENERATE
    return Decision.REPLAN
