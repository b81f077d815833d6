"""GSAR's score and decision, as pure functions (no I/O, no telemetry).

Eq. (1)  W(P) = sum of w(type(c)) over the claims c of P
Eq. (2)  S = (W(G) + W(K)) / (W(G) + W(U) + rho * W(X) + W(K))
Eq. (3)  proceed if S >= tau_proceed, regenerate if S >= tau_regenerate, else replan

Three extensions, each off the paper's path only when asked for or documented:

- Separate penalty weights (GSAR-SPEC §11.7): U and X claims may be weighed with their own map,
  so labelling a weak claim ``inference`` need not soften its penalty. The default penalty map
  *is* the support map, so the default math is the paper's.
- The conclusion policy (a decision-layer rule, S untouched): an ungrounded or contradicted claim
  that states a cause or a conclusion caps the decision at regenerate, however high S is;
  ``conclusion_policy="score"`` restores the paper's pure decision.
- The contradiction policy (a decision-layer rule, S untouched): a contradicted or an
  ungrounded claim of a tool-backed type (``tool_match``, ``specific_data``, ``signal_match``),
  a misstated or a made-up tool observation, caps the decision at regenerate, however high S
  is; ``contradiction_policy="score"`` restores the paper's pure decision.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Literal

from gsar_otel.core.model import (
    DEFAULT_UNKNOWN_WEIGHT,
    DEFAULT_WEIGHT_MAP,
    TOOL_BACKED_TYPES,
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


Policy = Literal["cap", "score"]
"""A decision-layer policy: ``cap`` lets a rule cap the decision at regenerate, ``score`` leaves
the decision to S alone, as in the paper."""
POLICIES: Final = ("cap", "score")
"""The values of either policy."""
ConclusionPolicy = Policy
CONCLUSION_POLICIES: Final = POLICIES
"""``cap``: an ungrounded or contradicted conclusion caps the decision at regenerate (default);
``score``: the decision follows S alone, as in the paper."""
ContradictionPolicy = Policy
CONTRADICTION_POLICIES: Final = POLICIES
"""``cap``: a contradicted or ungrounded tool-backed claim caps the decision at regenerate
(default); ``score``: the decision follows S alone, as in the paper."""
DisputePolicy = Literal["flag", "cap"]
DISPUTE_POLICIES: Final = ("flag", "cap")
"""What a claim a model judge grounded but the offline engine contradicts (``Claim.disputed``)
does: ``flag`` (default) reports and counts it, the decision unchanged; ``cap`` caps the
decision at regenerate."""
DEFAULT_DISPUTE_POLICY: Final = "flag"
"""``flag``: the measured dispute precision on the realistic set is below the 98% a cap needs
(``benchmarks/results/tiered.md``)."""


def resolve_weight_map(weight_map: WeightMapInput | None, *, base: WeightMap | None = None,
                       name: str = "weight_map") -> WeightMap:
    """Merge ``weight_map`` over ``base`` (default: DEFAULT_WEIGHT_MAP) after validating every key
    and value.

    A partial map changes only the types it names.

    Raises:
        ValueError: a key is not an EvidenceType value, or a weight is not in [0, 1].
    """
    defaults = DEFAULT_WEIGHT_MAP if base is None else base
    if weight_map is None:
        return defaults
    known = _RESOLVED.get(id(weight_map))
    if known is weight_map and (base is None or _resolved(base)):
        # Already checked and complete (every type has a weight): merging it over a complete
        # map gives the same weights, so scoring with a resolved map does not check it again.
        return known
    if not isinstance(weight_map, Mapping):
        raise ValueError(f"{name} must be a mapping of evidence type to weight, got "
                         f"{type(weight_map).__name__}")
    merged = dict(defaults)
    for key, value in weight_map.items():
        try:
            evidence_type = EvidenceType(key)
        except ValueError:
            raise ValueError(
                f"{name} key {key!r} is not an evidence type; allowed: "
                f"{[t.value for t in EvidenceType]}"
            ) from None
        merged[evidence_type] = check_unit_interval(f"{name}[{evidence_type.value!r}]", value)
    resolved = MappingProxyType(merged)
    if len(merged) == len(EvidenceType) and _resolved(defaults):
        if len(_RESOLVED) >= _MAX_RESOLVED:
            _RESOLVED.clear()
            _RESOLVED[id(DEFAULT_WEIGHT_MAP)] = DEFAULT_WEIGHT_MAP
        _RESOLVED[id(resolved)] = resolved
    return resolved


_RESOLVED: dict[int, WeightMap] = {id(DEFAULT_WEIGHT_MAP): DEFAULT_WEIGHT_MAP}
"""Complete maps :func:`resolve_weight_map` returned, by id (kept alive, so an id is never
reused by another object while listed)."""
_MAX_RESOLVED: Final = 256


def _resolved(weight_map: object) -> bool:
    """True for DEFAULT_WEIGHT_MAP and the complete maps :func:`resolve_weight_map` made: read-only
    (MappingProxyType) and checked."""
    return _RESOLVED.get(id(weight_map)) is weight_map


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
    penalty_weight_map: WeightMapInput | None = None,
) -> float:
    """Eq. (2): the grounding score S of a partition, in [0, 1].

    Args:
        partition: the judged claims.
        weight_map: weights for some or all evidence types, merged over the defaults.
        contradiction_penalty: rho in [0, 1], how much a contradicted claim counts against S.
        default_unknown: weight of a claim whose type the map does not know.
        penalty_weight_map: weights of ungrounded and contradicted claims, merged over
            ``weight_map`` (GSAR-SPEC §11.7); None weighs them like support, as the paper does.

    Returns:
        S; 0.5 for an empty partition or one whose claims all weigh zero.

    Raises:
        ValueError: rho, a weight or ``default_unknown`` outside [0, 1].
    """
    rho = check_unit_interval("contradiction_penalty", contradiction_penalty)
    weights = resolve_weight_map(weight_map)
    penalties = resolve_weight_map(penalty_weight_map, base=weights, name="penalty_weight_map")
    unknown = check_unit_interval("default_unknown", default_unknown)

    def weights_of(claims: Iterable[Claim], table: WeightMap) -> list[float]:
        return [claim_weight(claim, table, unknown) for claim in claims]

    partition = checkable(partition)
    if partition.is_empty:
        return NEUTRAL_SCORE
    # One exact sum per side: G and K enter identically (P4), whatever bucket a claim sits in.
    support = math.fsum(weights_of((*partition.grounded, *partition.complementary), weights))
    # M = W(U) + rho * W(X) as written: rho scales the contradicted weight's sum, not each
    # weight (a tiny weight times rho alone may round to 0 where the sum does not)
    penalty = math.fsum(weights_of(partition.ungrounded, penalties)) + rho * math.fsum(
        weights_of(partition.contradicted, penalties))
    denominator = support + penalty
    if denominator == 0.0:
        return NEUTRAL_SCORE
    return min(1.0, max(0.0, support / denominator))


def checkable(partition: Partition) -> Partition:
    """``partition`` without the claims its judge could not check (``Claim.verifiable`` False):
    the claims S is computed over. The same partition when every claim is checkable."""
    if all(claim.verifiable for _, claims in partition.buckets() for claim in claims):
        return partition
    return Partition(**{name: tuple(c for c in claims if c.verifiable)
                        for name, claims in partition.buckets()})


def unverified_share(partition: Partition) -> float:
    """The share of an answer's claims its judge could not check (0.0 for no claim)."""
    total = partition.total_claims
    if not total:
        return 0.0
    return sum(not c.verifiable for _, claims in partition.buckets() for c in claims) / total


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


def _check_policy(name: str, allowed: tuple[str, ...], policy: object) -> Policy:
    if policy == "cap":
        return "cap"
    if policy == "score":
        return "score"
    raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {policy!r}")


def check_conclusion_policy(policy: object) -> ConclusionPolicy:
    """``policy`` if it is one of CONCLUSION_POLICIES.

    Raises:
        ValueError: any other value, naming the allowed ones.
    """
    return _check_policy("conclusion_policy", CONCLUSION_POLICIES, policy)


def check_contradiction_policy(policy: object) -> ContradictionPolicy:
    """``policy`` if it is one of CONTRADICTION_POLICIES.

    Raises:
        ValueError: any other value, naming the allowed ones.
    """
    return _check_policy("contradiction_policy", CONTRADICTION_POLICIES, policy)


def apply_conclusion_policy(
    decision: Decision, partition: Partition, policy: ConclusionPolicy = "cap"
) -> tuple[Decision, bool]:
    """The decision after the conclusion policy, and whether the cap fired.

    Under ``cap`` a ``proceed`` becomes ``regenerate`` when an ungrounded or contradicted claim
    states a cause or a conclusion (``Claim.conclusion``): an answer whose facts all hold but
    whose conclusion over-reaches is rewritten, not shipped. Other decisions are unchanged (the
    cap never raises a decision), and ``score`` leaves every decision to S.

    Raises:
        ValueError: ``policy`` is not one of CONCLUSION_POLICIES.
    """
    if check_conclusion_policy(policy) == "score" or decision is not Decision.PROCEED:
        return decision, False
    if any(claim.conclusion for claim in (*partition.ungrounded, *partition.contradicted)):
        return Decision.REGENERATE, True
    return decision, False


def apply_contradiction_policy(
    decision: Decision, partition: Partition, policy: ContradictionPolicy = "cap"
) -> tuple[Decision, bool]:
    """The decision after the contradiction policy, and whether the cap fired.

    Under ``cap`` a ``proceed`` becomes ``regenerate`` when a contradicted or an ungrounded
    claim is of a tool-backed type (TOOL_BACKED_TYPES): the answer misstates what a tool
    returned, or states a tool observation (a host, a service, an id, a value) that no tool
    returned, and the weight of its other claims must not carry that fact out (one made-up
    service beside four true rows is S = 0.80, a proceed by S alone). An ungrounded or
    contradicted inference or synthesis is left to S, and complementary claims never cap.
    Other decisions are unchanged (the cap never raises a decision), and ``score`` leaves every
    decision to S.

    Raises:
        ValueError: ``policy`` is not one of CONTRADICTION_POLICIES.
    """
    if check_contradiction_policy(policy) == "score" or decision is not Decision.PROCEED:
        return decision, False
    if any(claim.type in TOOL_BACKED_TYPES and claim.verifiable
           for claim in (*partition.contradicted, *partition.ungrounded)):
        return Decision.REGENERATE, True
    return decision, False


def check_dispute_policy(policy: object) -> DisputePolicy:
    """``policy`` if it is one of DISPUTE_POLICIES.

    Raises:
        ValueError: any other value, naming the allowed ones.
    """
    if policy == "flag":
        return "flag"
    if policy == "cap":
        return "cap"
    raise ValueError(f"dispute_policy must be one of {', '.join(DISPUTE_POLICIES)}, "
                     f"got {policy!r}")


def disputed_claims(partition: Partition) -> tuple[Claim, ...]:
    """The grounded claims the offline engine disputes (``Claim.disputed`` set)."""
    return tuple(claim for claim in partition.grounded if claim.disputed)


def apply_dispute_policy(
    decision: Decision, partition: Partition, policy: DisputePolicy = "flag"
) -> tuple[Decision, bool]:
    """The decision after the dispute policy, and whether the cap fired.

    Under ``cap`` a ``proceed`` becomes ``regenerate`` when a grounded claim is disputed: a
    model judge grounded it, the offline engine found its record holding another value for the
    attribute it names. ``flag`` never changes the decision (the dispute is reported).

    Raises:
        ValueError: ``policy`` is not one of DISPUTE_POLICIES.
    """
    if check_dispute_policy(policy) == "flag" or decision is not Decision.PROCEED:
        return decision, False
    if disputed_claims(partition):
        return Decision.REGENERATE, True
    return decision, False
