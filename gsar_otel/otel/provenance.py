"""Which tier judged each claim, and the offline engine's disputes, as telemetry.

Claim events carry ``gsar.claim.judged_by`` and (for a dispute) ``gsar.claim.disputed`` with the
offline reason; the evaluate span carries a tiered judge's split (``gsar.judge.escalated_claims``
and its neighbours), the dispute count, policy and cap; ``gsar.judge.claims`` and
``gsar.claims.disputed`` count them. Called by :mod:`gsar_otel.otel.recording`, whose steps
swallow every error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gsar_otel import semconv as sc
from gsar_otel.core.model import Claim
from gsar_otel.core.result import GSARResult
from gsar_otel.core.scoring import disputed_claims
from gsar_otel.otel.instruments import Instruments


def claim_attributes(claim: Claim, *, capture_content: bool,
                     redact: Callable[[str, str], str | None], offline: bool) -> dict[str, Any]:
    """``gsar.claim.judged_by`` and the dispute of one claim's event; a claim whose judge did not
    say is ``offline`` for a deterministic judge, else ``model``."""
    judged_by = claim.judged_by or (sc.JUDGED_BY_OFFLINE if offline else sc.JUDGED_BY_MODEL)
    attributes: dict[str, Any] = {sc.GSAR_CLAIM_JUDGED_BY: judged_by}
    if claim.disputed:
        attributes[sc.GSAR_CLAIM_DISPUTED] = True
        if capture_content:
            reason = redact(claim.disputed, sc.REDACT_KIND_EXPLANATION)
            if reason is not None:
                attributes[sc.GSAR_CLAIM_DISPUTE_REASON] = reason
    return attributes


def span_attributes(result: GSARResult) -> dict[str, Any]:
    """The evaluate span's tier split, dispute count, policy and cap."""
    attributes: dict[str, Any] = {
        sc.GSAR_CLAIMS_DISPUTED: len(disputed_claims(result.final_partition)),
        sc.GSAR_DISPUTE_POLICY: result.dispute_policy,
        sc.GSAR_DISPUTE_CAPPED: result.dispute_capped,
    }
    tiers = result.tiers
    if tiers is not None:
        attributes[sc.GSAR_JUDGE_ESCALATED_CLAIMS] = tiers.escalated
        attributes[sc.GSAR_JUDGE_SETTLED_CLAIMS] = tiers.settled
        attributes[sc.GSAR_JUDGE_ESCALATION_CAPPED] = tiers.over_cap
        if tiers.model_tier:
            attributes[sc.GSAR_JUDGE_MODEL_TIER_SKIPPED] = tiers.model_tier
    return attributes


def record_metrics(instruments: Instruments, result: GSARResult, base: Mapping[str, str],
                   judge: str) -> None:
    """Count a tiered judge's claims by tier and the disputed claims."""
    attributes = {**base, sc.GSAR_JUDGE_NAME: judge}
    tiers = result.tiers
    if tiers is not None:
        for escalation, count, judged_by in (
                ("settled", tiers.settled, sc.JUDGED_BY_OFFLINE),
                ("escalated", tiers.escalated, sc.JUDGED_BY_MODEL),
                ("over_cap", tiers.over_cap, sc.JUDGED_BY_OFFLINE),
                ("no_model", tiers.no_model, sc.JUDGED_BY_OFFLINE)):
            if count:
                instruments.judge_claims.add(count, {
                    **attributes, sc.GSAR_CLAIM_JUDGED_BY: judged_by,
                    sc.GSAR_CLAIM_ESCALATION: escalation})
    disputed = len(disputed_claims(result.final_partition))
    if disputed:
        instruments.disputed.add(disputed, {**attributes,
                                            sc.GSAR_DISPUTE_POLICY: result.dispute_policy})
