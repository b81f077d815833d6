"""The typed-grounding data model: evidence types, claims, partitions, thresholds, judge output.

Field names of :class:`JudgeOutput` follow Appendix C of the GSAR paper exactly, so verdicts
round-trip with other GSAR implementations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gsar_otel.core.thresholds import THRESHOLD_DEFAULTS, check_threshold_order
from gsar_otel.core.thresholds import check_unit_interval as check_unit_interval


class EvidenceType(StrEnum):
    """What kind of evidence backs a claim; each type carries a weight (see DEFAULT_WEIGHT_MAP)."""

    TOOL_MATCH = "tool_match"
    SPECIFIC_DATA = "specific_data"
    SIGNAL_MATCH = "signal_match"
    COMPLEMENTARY_FINDING = "complementary_finding"
    SYNTHESIS = "synthesis"
    NEG_EVIDENCE = "neg_evidence"
    INFERENCE = "inference"
    DOMAIN = "domain"


DEFAULT_WEIGHT_MAP: Mapping[EvidenceType, float] = MappingProxyType(
    {
        EvidenceType.TOOL_MATCH: 1.00,
        EvidenceType.SPECIFIC_DATA: 0.95,
        EvidenceType.SIGNAL_MATCH: 0.90,
        EvidenceType.COMPLEMENTARY_FINDING: 0.85,
        EvidenceType.SYNTHESIS: 0.80,
        EvidenceType.NEG_EVIDENCE: 0.70,
        EvidenceType.INFERENCE: 0.60,
        EvidenceType.DOMAIN: 0.60,
    }
)
"""Appendix B reference weights. Read-only: pass ``weight_map=`` to override some of them."""

TOOL_BACKED_TYPES: frozenset[EvidenceType] = frozenset(
    {EvidenceType.TOOL_MATCH, EvidenceType.SPECIFIC_DATA, EvidenceType.SIGNAL_MATCH})
"""The evidence types read off a tool's output (a row, a number, a signal): a contradicted claim
of one of them states a checkable fact that the evidence refutes."""

DEFAULT_UNKNOWN_WEIGHT = 0.60
"""Weight of an evidence type the weight map does not know (a judge's invented type string)."""

BUCKETS: tuple[str, ...] = ("grounded", "ungrounded", "contradicted", "complementary")
"""The four buckets of a partition, in the order claims are listed."""

Bucket = Literal["grounded", "ungrounded", "contradicted", "complementary"]


def parse_evidence_type(value: object) -> EvidenceType | str:
    """Return the EvidenceType for ``value``, or the cleaned string when no type matches.

    Unknown strings are kept rather than rejected so that one invented type never voids a whole
    judgement; the integrity guard records them and scoring weighs them as ``default_unknown``.

    Raises:
        ValueError: ``value`` is not a non-empty string.
    """
    if isinstance(value, EvidenceType):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ValueError(
            f"claim type must be a non-empty string, one of {[t.value for t in EvidenceType]}; "
            f"got {value!r}"
        )
    cleaned = value.strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return EvidenceType(cleaned)
    except ValueError:
        return value.strip()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Claim(_Frozen):
    """One atomic statement of an answer, its evidence type and the evidence ids it cites.

    ``Claim("CPU hit 97%", "tool_match", ["E1"])`` and the keyword form are both accepted.
    """

    text: str = Field(description="The atomic statement, in natural language.")
    type: EvidenceType | str = Field(
        description="Evidence type; an unknown string is kept and weighted as default_unknown."
    )
    evidence_refs: tuple[str, ...] = Field(
        default=(), description="Ids of the evidence items that back (or refute) the claim."
    )
    conclusion: bool = Field(
        default=False,
        description="The claim states a cause or a conclusion drawn from the evidence (\"X caused "
                    "Y\", \"so the root cause is Z\"), not an observation. An ungrounded "
                    "conclusion caps the decision at regenerate under the default conclusion "
                    "policy.",
    )
    verifiable: bool = Field(
        default=True,
        description="False for a claim its judge could not check against any record (prose, "
                    "reasoning, context): an unverified claim sits in U but is left out of S, "
                    "and its share is reported as the unverified share. Model judges leave it "
                    "True.",
    )
    judged_by: Literal["offline", "model"] | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="Which tier judged the claim: the offline engine or a model (set by the "
                    "tiered judge and the model judges; None when the judge does not say).",
    )
    disputed: str | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="The offline engine's reason when it contradicts a claim a model judge "
                    "grounded (an exact subject-and-attribute mismatch against the records); "
                    "None when undisputed. The dispute policy decides whether it caps.",
    )

    def __init__(self, *args: Any, **data: Any) -> None:
        if len(args) > 3:
            raise TypeError(f"Claim takes at most 3 positional arguments, got {len(args)}")
        for name, value in zip(("text", "type", "evidence_refs"), args, strict=False):
            if name in data:
                raise TypeError(f"Claim got two values for {name!r}")
            data[name] = value
        super().__init__(**data)

    @field_validator("type", mode="before")
    @classmethod
    def _parse_type(cls, value: object) -> EvidenceType | str:
        return parse_evidence_type(value)

    @field_validator("evidence_refs", mode="before")
    @classmethod
    def _parse_refs(cls, value: object) -> object:
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @property
    def known_type(self) -> bool:
        """True when ``type`` is one of the eight EvidenceType values."""
        return isinstance(self.type, EvidenceType)


class Partition(_Frozen):
    """The four disjoint buckets a judge sorts an answer's claims into: G, U, X and K."""

    grounded: tuple[Claim, ...] = ()
    ungrounded: tuple[Claim, ...] = ()
    contradicted: tuple[Claim, ...] = ()
    complementary: tuple[Claim, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when no bucket holds a claim."""
        return self.total_claims == 0

    @property
    def total_claims(self) -> int:
        """Number of claims over all four buckets."""
        return sum(len(claims) for _, claims in self.buckets())

    def all_claims(self) -> list[Claim]:
        """Every claim, in bucket order G, U, X, K."""
        return [claim for _, claims in self.buckets() for claim in claims]

    def buckets(self) -> Iterator[tuple[Bucket, tuple[Claim, ...]]]:
        """Yield ``(bucket name, claims)`` in the order G, U, X, K."""
        yield "grounded", self.grounded
        yield "ungrounded", self.ungrounded
        yield "contradicted", self.contradicted
        yield "complementary", self.complementary

    def counts(self) -> dict[str, int]:
        """Number of claims per bucket name."""
        return {name: len(claims) for name, claims in self.buckets()}


class GSARThresholds(_Frozen):
    """Decision thresholds: S >= proceed proceeds, regenerate <= S < proceed regenerates.

    ``regenerate == proceed`` is allowed and gives a two-tier mode (proceed or replan).
    """

    proceed: float = THRESHOLD_DEFAULTS["proceed"]
    regenerate: float = THRESHOLD_DEFAULTS["regenerate"]

    def __init__(self, *args: Any, **data: Any) -> None:
        if len(args) > 2:
            raise TypeError(f"GSARThresholds takes at most 2 positional arguments, got {len(args)}")
        for name, value in zip(("proceed", "regenerate"), args, strict=False):
            if name in data:
                raise TypeError(f"GSARThresholds got two values for {name!r}")
            data[name] = value
        super().__init__(**data)

    @field_validator("proceed", "regenerate", mode="before")
    @classmethod
    def _unit(cls, value: object, info: Any) -> float:
        return check_unit_interval(f"thresholds.{info.field_name}", value)

    @model_validator(mode="after")
    def _ordered(self) -> GSARThresholds:
        check_threshold_order(self.proceed, self.regenerate)
        return self


class Decision(StrEnum):
    """What to do with an answer: keep it, rewrite it, gather new evidence, or (judge) abstain."""

    PROCEED = "proceed"
    REGENERATE = "regenerate"
    REPLAN = "replan"
    ABSTAIN = "abstain"


DECISION_RANK: Mapping[Decision, int] = MappingProxyType(
    {Decision.PROCEED: 0, Decision.REGENERATE: 1, Decision.REPLAN: 2, Decision.ABSTAIN: 3}
)
"""How bad a decision is, for "did it get worse" comparisons (higher is worse)."""


_CLAIM_FIELDS = ("text", "type", "evidence_refs", "conclusion", "verifiable", "judged_by",
                 "disputed")


class JudgeOutput(_Frozen):
    """A judge's verdict on one answer (Appendix C schema; field names must not change)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    grounding_score: float = Field(
        description="The judge's own overall score in [0, 1]; audit only, S is recomputed."
    )
    is_grounded: bool = Field(description="The judge's own binary verdict; audit only.")
    grounded_claims: tuple[Claim, ...] = Field(default=(), description="G: backed by evidence.")
    ungrounded_claims: tuple[Claim, ...] = Field(
        default=(), description="U: specific assertions the evidence does not back."
    )
    contradicted_claims: tuple[Claim, ...] = Field(
        default=(), description="X: assertions the evidence refutes."
    )
    complementary_claims: tuple[Claim, ...] = Field(
        default=(),
        description="K: non-redundant perspectives that conflict with nothing in G or X.",
    )
    gaps: tuple[str, ...] = Field(default=(), description="Missing evidence worth gathering.")
    contradictions: tuple[str, ...] = Field(default=(), description="Conflicts noted, free-form.")
    verification_needed: bool = Field(default=False, description="Another tool call would help.")
    verification_reason: str | None = Field(default=None, description="Why, in one line.")
    explanation: str = Field(default="", description="One-sentence explanation of the verdict.")
    decision_status: Literal["resolved", "abstain"] = Field(
        default="resolved", description="'abstain' when the judge cannot judge the evidence."
    )
    abstain_reason: str | None = Field(default=None, description="Required when abstaining.")

    @field_validator("grounding_score", mode="before")
    @classmethod
    def _score(cls, value: object) -> float:
        return check_unit_interval("grounding_score", value)

    @field_validator("grounded_claims", "ungrounded_claims", "contradicted_claims",
                     "complementary_claims", mode="before")
    @classmethod
    def _lenient_claims(cls, value: object) -> object:
        # A judge that adds its own keys to a claim ("confidence", "reason") or sends null for an
        # empty list must not void the whole verdict; Claim itself stays strict for callers.
        if value is None:
            return ()
        if isinstance(value, list | tuple):
            return [{key: item[key] for key in _CLAIM_FIELDS if key in item}
                    if isinstance(item, Mapping) else item for item in value]
        return value

    @field_validator("gaps", "contradictions", mode="before")
    @classmethod
    def _null_list(cls, value: object) -> object:
        return () if value is None else value

    @field_validator("explanation", mode="before")
    @classmethod
    def _null_explanation(cls, value: object) -> object:
        return "" if value is None else value

    @model_validator(mode="after")
    def _abstain_has_reason(self) -> JudgeOutput:
        if self.decision_status == "abstain" and not (self.abstain_reason or "").strip():
            raise ValueError("abstain_reason must be a non-empty string when decision_status is "
                             "'abstain'")
        return self

    def to_partition(self) -> Partition:
        """The four claim lists as a Partition."""
        return Partition(
            grounded=self.grounded_claims,
            ungrounded=self.ungrounded_claims,
            contradicted=self.contradicted_claims,
            complementary=self.complementary_claims,
        )

    @property
    def abstained(self) -> bool:
        """True when the judge declined to judge (decision_status == 'abstain')."""
        return self.decision_status == "abstain"

    def with_partition(self, partition: Partition) -> JudgeOutput:
        """A copy of this output whose four claim lists are those of ``partition``."""
        return self.model_copy(
            update={
                "grounded_claims": partition.grounded,
                "ungrounded_claims": partition.ungrounded,
                "contradicted_claims": partition.contradicted,
                "complementary_claims": partition.complementary,
            }
        )


SAFE_DEFAULT_REASON = "judge produced malformed output"


def safe_default_judge_output(reason: str = SAFE_DEFAULT_REASON) -> JudgeOutput:
    """The verdict used when a judge cannot deliver one: abstain, no claims, score 0.5."""
    reason = reason.strip() or SAFE_DEFAULT_REASON
    return JudgeOutput(
        grounding_score=0.5,
        is_grounded=False,
        decision_status="abstain",
        abstain_reason=reason,
        explanation=f"Safe default: {reason}",
    )
