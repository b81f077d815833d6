"""The offline second opinion on a model judge's grounded claims.

A model judge may ground a claim that the records refute: "api-2 ran at 95% CPU" where 95% is
api-1's value and api-2's row holds 40%. After the model has judged, each claim it grounded is
checked alone by the records engine (:class:`~gsar_otel.judges.records.judge.RecordsJudge`); an
exact subject-and-attribute mismatch (its ``contradicted`` outcome) marks the claim
``disputed`` with the engine's reason. The claim stays grounded: the evaluator's
``dispute_policy`` decides whether a dispute is only reported (``flag``) or caps the decision
(``cap``).
"""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.judges.records.judge import RecordsJudge

_ENGINE = RecordsJudge()


def dispute_of(text: str, evidence: EvidenceSet) -> str | None:
    """The offline engine's reason when it contradicts ``text`` against ``evidence``, else
    None (verified, absent or unverified claims are not disputed: only a mismatch is)."""
    for outcome in _ENGINE.explain(synthesis=text, evidence=evidence):
        if outcome.outcome == "contradicted":
            refs = ", ".join(outcome.refs)
            return f"{outcome.reason} ({refs})" if refs else outcome.reason
    return None


def with_dispute(claim: Claim, evidence: EvidenceSet) -> Claim:
    """``claim`` with its dispute (or none) set by the offline engine."""
    reason = dispute_of(claim.text, evidence)
    if reason == claim.disputed:
        return claim
    return claim.model_copy(update={"disputed": reason})


def mark_model_claims(output: JudgeOutput, evidence: EvidenceSet, *,
                      check: bool = True) -> JudgeOutput:
    """A model judge's ``output`` with what the model may not say of itself dropped (a tier,
    a dispute) and, when ``check``, each grounded claim's dispute set. An undisputed verdict is
    left as the model gave it (its claims' tier reads as ``model`` in telemetry), so the guard's
    report recorded beside it still matches."""
    if output.abstained:
        return output

    def marked(claim: Claim, grounded: bool) -> Claim:
        if claim.judged_by is not None or claim.disputed is not None:
            claim = claim.model_copy(update={"judged_by": None, "disputed": None})
        return with_dispute(claim, evidence) if check and grounded else claim

    partition = output.to_partition()
    return output.with_partition(partition.model_copy(update={
        name: tuple(marked(c, name == "grounded") for c in claims)
        for name, claims in partition.buckets()}))
