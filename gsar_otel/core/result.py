"""What an evaluation produces: one :class:`GSAREvaluation` per judge round and the
:class:`GSARResult` that sums them up, with the names of the loop's actions and degraded reasons."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

from pydantic import Field

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import Adjustment
from gsar_otel.core.model import Decision, JudgeOutput, Partition, _Frozen
from gsar_otel.core.protocol import JudgeUsage, TierCounts

DEADLINE_EXCEEDED = "DeadlineExceeded"
"""``judge_error`` of a round the deadline cut off."""

DEFAULT_MAX_SYNTHESIS_CHARS = 100_000
"""Longest answer judged; a longer one is cut and the cut is recorded as an adjustment."""

Action = Literal["initial", "regenerate", "replan"]
DegradedReason = Literal[
    "replan_budget", "max_rounds", "deadline", "no_recovery", "stalled", "regenerate_budget",
    "no_evidence", "unverified",
]
UNVERIFIED: Final = "unverified"
"""The abstain reason (and degraded reason) of an answer too few of whose claims its judge could
check against the evidence: every checkable claim held, the rest could not be read."""

CAP_REASONS: Final = {
    "conclusion": "an ungrounded or contradicted conclusion (conclusion_policy=cap)",
    "contradiction": "a contradicted or unsupported tool-backed claim (contradiction_policy=cap)",
    "dispute": "a model-grounded claim the offline engine contradicts (dispute_policy=cap)",
}
"""What made each policy cap a decision, and the setting that turns it off, for messages."""

NO_EVIDENCE: Final = "no_evidence"
"""The abstain reason (and degraded reason) of an answer given no evidence at all: nothing was
judged, since every claim would be ungrounded and S 0.00, a verdict about the wiring rather than
the answer. Every entry point reaches it through
:class:`~gsar_otel.core.evaluator.GSAREvaluator`."""
NO_EVIDENCE_EXPLANATION: Final = (
    "no_evidence: there was no evidence to judge the answer against, so nothing was judged "
    "(every claim would be ungrounded); pass the tool results the answer rests on")

RegenerateFn = Callable[[str, JudgeOutput], "str | Awaitable[str]"]
ReplanFn = Callable[[str, EvidenceSet, JudgeOutput], Any]


class GSAREvaluation(_Frozen):
    """One judge round of the loop: what was judged, the verdict, S and the decision."""

    iteration: int = Field(ge=0, description="0-based round index.")
    score: float = Field(ge=0.0, le=1.0, description="S recomputed from the repaired partition.")
    decision: Decision
    judge_output: JudgeOutput = Field(description="The verdict after the integrity guard.")
    report_synthesis: str = Field(description="The answer that was judged.")
    evidence_corpus: EvidenceSet = Field(description="The evidence it was judged against.")
    action: Action = Field(default="initial", description="What produced this round's answer.")
    adjustments: tuple[Adjustment, ...] = ()
    judge_error: str | None = Field(default=None, description="Error type when the judge failed.")
    judge_duration_s: float = 0.0
    judge_usage: JudgeUsage | None = None
    judge_model: str | None = None
    conclusion_capped: bool = Field(
        default=False, description="S alone would proceed, but an ungrounded or contradicted "
                                   "conclusion capped the decision at regenerate.")
    contradiction_capped: bool = Field(
        default=False, description="S alone would proceed, but a contradicted or unsupported "
                                   "tool-backed claim "
                                   "capped the decision at regenerate.")
    dispute_capped: bool = Field(
        default=False, description="S alone would proceed, but a disputed claim capped the "
                                   "decision at regenerate (dispute_policy=cap).")
    tiers: TierCounts | None = Field(default=None, description="A tiered judge's split of the "
                                                               "claims between its tiers.")


class GSARResult(_Frozen):
    """The outcome of an evaluation: the answer to use, its score and decision, and the trail."""

    final_report: str
    final_score: float
    final_decision: Decision
    final_partition: Partition
    final_judge_output: JudgeOutput
    replans_used: int = 0
    regenerations_used: int = 0
    degraded: bool = False
    degraded_reason: DegradedReason | None = None
    final_iteration: int = Field(default=0, description="Index of the round the final_* fields "
                                                        "come from (the best one when degraded).")
    final_evidence: EvidenceSet = Field(default_factory=EvidenceSet)
    trajectory: tuple[GSAREvaluation, ...] = ()
    adjustments: tuple[Adjustment, ...] = Field(
        default=(), description="The integrity guard's changes behind the final verdict.")
    judge_name: str = ""
    judge_model: str | None = None
    conclusion_capped: bool = Field(
        default=False, description="The final decision was capped at regenerate by the "
                                   "conclusion policy (see gsar_otel.core.scoring).")
    conclusion_policy: str = Field(default="cap", description="The conclusion policy in force.")
    contradiction_capped: bool = Field(
        default=False, description="The final decision was capped at regenerate by the "
                                   "contradiction policy (see gsar_otel.core.scoring).")
    contradiction_policy: str = Field(default="cap",
                                      description="The contradiction policy in force.")
    dispute_capped: bool = Field(
        default=False, description="The final decision was capped at regenerate by the "
                                   "dispute policy (a disputed model-grounded claim).")
    dispute_policy: str = Field(default="flag", description="The dispute policy in force.")
    tiers: TierCounts | None = Field(default=None, description="A tiered judge's split of the "
                                                               "final round's claims.")

    @property
    def capped_by(self) -> tuple[str, ...]:
        """The policies that capped the final decision at regenerate although S alone would
        proceed: ``("conclusion",)``, ``("contradiction",)``, ``("dispute",)``, several, or
        ``()``."""
        return tuple(name for name, capped in (("conclusion", self.conclusion_capped),
                                               ("contradiction", self.contradiction_capped),
                                               ("dispute", self.dispute_capped))
                     if capped)

    @property
    def cap_note(self) -> str:
        """Why the decision is regenerate although S alone would proceed, for messages (``"S
        alone would proceed; capped at regenerate by a contradicted or unsupported tool-backed
        claim (contradiction_policy=cap)"``); empty when no policy capped it."""
        if not self.capped_by:
            return ""
        reasons = " and by ".join(CAP_REASONS[name] for name in self.capped_by)
        return f"S alone would proceed; capped at regenerate by {reasons}"

    @property
    def rounds(self) -> int:
        """Judge rounds run."""
        return len(self.trajectory)

    @property
    def judge_errors(self) -> tuple[str, ...]:
        """Error types of failed judge rounds, in order."""
        return tuple(e.judge_error for e in self.trajectory if e.judge_error)

    @property
    def judge_usage(self) -> JudgeUsage | None:
        """Tokens over all rounds, when the judge reports them."""
        usages = [e.judge_usage for e in self.trajectory if e.judge_usage is not None]
        if not usages:
            return None
        total = usages[0]
        for usage in usages[1:]:
            total = total + usage
        return total




def shortfall_lines(partition: Partition,
                    annotate: Callable[[str], str] | None = None) -> list[str]:
    """The readable list of the claims that are not grounded: a header, then one line per
    ungrounded or contradicted claim with its evidence type and cited evidence (empty when every
    claim is grounded). ``annotate`` adds a suffix for a claim's text (e.g. its adjustments).
    Shared by ``GroundingError`` and the pytest plugin's failure message."""
    shortfalls = [(bucket, claim) for bucket, claims in partition.buckets()
                  if bucket in ("ungrounded", "contradicted") for claim in claims]
    if not shortfalls:
        return []
    lines = [f"claims not grounded ({len(shortfalls)} of {partition.total_claims}):"]
    for bucket, claim in shortfalls:
        refs = ", ".join(claim.evidence_refs) or "none"
        suffix = annotate(claim.text) if annotate is not None else ""
        lines.append(f"  - {bucket}, {claim.type}, refs {refs}: {claim.text!r}{suffix}")
    return lines


def no_evidence_round(answer: str, hint: str = "") -> GSAREvaluation:
    """The one round of an answer given no evidence: an abstain with the ``no_evidence`` reason
    (``hint``, when given, replaces the generic advice), no claims, the judge not called."""
    from gsar_otel.core.model import safe_default_judge_output

    output = safe_default_judge_output(hint or NO_EVIDENCE_EXPLANATION)
    return GSAREvaluation(iteration=0, score=0.0, decision=Decision.ABSTAIN, judge_output=output,
                          report_synthesis=answer, evidence_corpus=EvidenceSet())
