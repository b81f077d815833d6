"""The records judge: typed verification with three honest outcomes.

Evidence is read once into records (:mod:`.reading`), indexed (:mod:`.index`); the answer is
split into claims (:mod:`.claims`), each checked by the rules of the registry (:mod:`.rules`),
and each claim gets one outcome:

- **verified** (grounded): what it states that can be checked (typed values, names, states,
  a cause) is found on its records or derived from them (:mod:`.derive`);
- **contradicted**: its record holds another value for the attribute it names, or another
  state of the same family, or the level it says there was none of;
- **unverified**: nothing in it can be checked against a record. It goes to U with
  ``verifiable=False``: S leaves it out, and the answer's unverified share is reported.

A typed value or a name found nowhere and derivable from nothing is ungrounded (checkable: the
invariant that an absent value is never grounded). A recommendation is complementary. When every
checkable claim holds but more than :attr:`RecordsSettings.unverified_share` of the claims are
unverified, the judge abstains with the reason ``unverified``: it cannot tell "unsupported" from
"supported in words it cannot read", and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Bucket, Claim, EvidenceType, JudgeOutput, check_unit_interval
from gsar_otel.core.result import UNVERIFIED
from gsar_otel.core.scoring import gsar_score
from gsar_otel.judges.records.claims import ClaimText, advice_clause, read_claim, split_claims
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.registry import check_claim
from gsar_otel.judges.records.rules import Check
from gsar_otel.judges.records.subjects import Subjects

UNVERIFIED_ABSTAIN: Final = UNVERIFIED
"""The abstain reason of an answer most of whose claims the rules cannot check."""
DEFAULT_UNVERIFIED_SHARE: Final = 0.5
"""The largest share of unverified claims an answer may hold and still proceed."""

Outcome = Literal["verified", "contradicted", "unverified", "absent", "advice"]


@dataclass(frozen=True, slots=True)
class RecordsSettings:
    """The records judge's one tunable: the unverified share an answer may hold."""

    unverified_share: float = DEFAULT_UNVERIFIED_SHARE

    def __post_init__(self) -> None:
        check_unit_interval("unverified_share", self.unverified_share)


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    """One claim, its outcome, its bucket and the checks behind them."""

    text: str
    outcome: Outcome
    bucket: Bucket
    type: EvidenceType
    refs: tuple[str, ...]
    checks: tuple[Check, ...]
    conclusion: bool
    reason: str

    @property
    def verifiable(self) -> bool:
        """False for a claim nothing of which could be checked."""
        return self.outcome != "unverified"


class RecordsJudge:
    """The offline judge built on records. Implements the Judge protocol."""

    name = "records"
    deterministic = True
    model: str | None = None
    features_version = "records-1"
    checks_values = True
    """It checks every typed value against the records itself: the integrity guard's plainer
    number check is skipped for it."""

    def __init__(self, settings: RecordsSettings | None = None) -> None:
        self.settings = settings or RecordsSettings()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence`` (synchronous CPU work)."""
        return self.judge_now(synthesis=synthesis, evidence=evidence)

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The same judgement, synchronously."""
        return assemble(self.explain(synthesis=synthesis, evidence=evidence), evidence,
                        self.settings)

    def explain(self, *, synthesis: str, evidence: EvidenceSet) -> list[ClaimOutcome]:
        """Every claim with its outcome and the checks behind it."""
        index = RecordIndex(evidence)
        outcomes = []
        before: Subjects | None = None
        for text in split_claims(synthesis):
            claim = read_claim(text)
            inherited = before.passed_on(claim.plural) if before else frozenset()
            opened = before.opening() if before else frozenset()
            found, before = check_claim(claim, index, inherited, opened)
            stated: list[Check] = []
            cut = advice_clause(claim) if claim.advice else 0
            if cut > 0:  # what it states before its advice is checked as any claim is
                stated, _ = check_claim(read_claim(claim.clean[:cut]), index, inherited,
                                        opened)
            outcomes.append(_outcome(text, claim, found, stated))
        return outcomes


def _outcome(text: str, claim: ClaimText, found: list[Check],
             stated: list[Check] | None = None) -> ClaimOutcome:
    checks = tuple(c for c in found if not (claim.advice and c.rule in ("value", "state")))
    facts = [c for c in stated or () if c.rule in ("value", "state")
             and c.outcome in ("contradicted", "absent")]
    checks += tuple(c for c in facts if c not in checks)
    conclusion = claim.cause is not None

    def made(outcome: Outcome, bucket: Bucket, kind: EvidenceType, chosen: list[Check],
             reason: str) -> ClaimOutcome:
        refs = tuple(dict.fromkeys(r for c in chosen for r in c.refs))
        return ClaimOutcome(text, outcome, bucket, kind, refs, checks, conclusion, reason)

    contradicted = [c for c in checks if c.outcome == "contradicted"]
    if contradicted:
        return made("contradicted", "contradicted", EvidenceType.TOOL_MATCH, contradicted,
                    contradicted[0].reason)
    absent = [c for c in checks if c.outcome == "absent" and (not claim.advice or c in facts)]
    if absent:
        kind = EvidenceType.INFERENCE if absent[0].rule == "cause" else EvidenceType.SPECIFIC_DATA
        return made("absent", "ungrounded", kind, absent, absent[0].reason)
    if claim.advice:
        return made("advice", "complementary", EvidenceType.COMPLEMENTARY_FINDING, [],
                    "a recommendation")
    elsewhere = [c for c in checks if c.outcome == "elsewhere"]
    if elsewhere:
        return made("unverified", "ungrounded", EvidenceType.SPECIFIC_DATA, elsewhere,
                    elsewhere[0].reason)
    verified = [c for c in checks if c.outcome == "verified"]
    if verified:
        kind = (EvidenceType.SPECIFIC_DATA if any(c.derived for c in verified)
                else EvidenceType.TOOL_MATCH)
        return made("verified", "grounded", kind, verified, verified[0].reason)
    return made("unverified", "ungrounded", EvidenceType.SYNTHESIS, [],
                "nothing in the claim can be checked against a record")


def assemble(outcomes: list[ClaimOutcome], evidence: EvidenceSet,
             settings: RecordsSettings) -> JudgeOutput:
    """The JudgeOutput of the claims' outcomes."""
    buckets: dict[Bucket, list[Claim]] = {
        "grounded": [], "ungrounded": [], "contradicted": [], "complementary": []}
    gaps: list[str] = []
    contradictions: list[str] = []
    for outcome in outcomes:
        buckets[outcome.bucket].append(Claim(
            text=outcome.text, type=outcome.type, evidence_refs=outcome.refs,
            conclusion=outcome.conclusion and outcome.bucket != "grounded",
            verifiable=outcome.verifiable))
        if outcome.outcome == "absent":
            gaps.append(f"{outcome.text}: {outcome.reason}")
        elif outcome.outcome == "contradicted":
            contradictions.append(f"{outcome.text}: {outcome.reason}")
    output = JudgeOutput(
        grounding_score=0.5, is_grounded=False,
        grounded_claims=tuple(buckets["grounded"]),
        ungrounded_claims=tuple(buckets["ungrounded"]),
        contradicted_claims=tuple(buckets["contradicted"]),
        complementary_claims=tuple(buckets["complementary"]))
    score = gsar_score(output.to_partition())
    total = len(outcomes)
    unverified = sum(o.outcome == "unverified" for o in outcomes)
    share = unverified / total if total else 0.0
    problems = bool(gaps or contradictions)
    counts = {o: sum(x.outcome == o for x in outcomes)
              for o in ("verified", "contradicted", "absent", "unverified", "advice")}
    explanation = (f"{total} claim(s) against {len(evidence)} evidence item(s): "
                   + ", ".join(f"{n} {o}" for o, n in counts.items() if n) + "."
                   if total else "The answer holds no claim.")
    first = (contradictions or gaps or [""])[0] or None
    if first:
        explanation += f" First problem: {first}."
    abstain = not problems and total > 0 and share > settings.unverified_share
    return output.model_copy(update={
        "grounding_score": score,
        "is_grounded": not problems and not abstain,
        "gaps": tuple(gaps),
        "contradictions": tuple(contradictions),
        "verification_needed": problems,
        "verification_reason": first,
        "explanation": explanation,
        "decision_status": "abstain" if abstain else "resolved",
        "abstain_reason": (f"{UNVERIFIED_ABSTAIN}: {unverified} of {total} claims could not be "
                           f"checked against any record") if abstain else None,
    })
