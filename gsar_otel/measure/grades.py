"""Human grades for ``gsar calibrate``: the label scales, a graded answer reduced to its weights,
and the checks a graded set must pass before it is calibrated.

A grade is ``proceed | regenerate | replan`` (three-way) or ``ok | not_ok`` (binary, ok meaning
proceed); one file uses one scale. Each graded answer is reduced to the three weights its score
depends on, W(G)+W(K), W(U) and W(X), so S can be recomputed for any rho (Eq. 2) without judging
again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from gsar_otel.core.model import DEFAULT_UNKNOWN_WEIGHT, Decision, EvidenceType, Partition
from gsar_otel.core.scoring import (
    NEUTRAL_SCORE,
    apply_conclusion_policy,
    apply_contradiction_policy,
    apply_dispute_policy,
    check_conclusion_policy,
    check_contradiction_policy,
    check_dispute_policy,
    partition_weight,
)

PROCEED: Final = "proceed"
REGENERATE: Final = "regenerate"
REPLAN: Final = "replan"
OK: Final = "ok"
NOT_OK: Final = "not_ok"

THREE_WAY_LABELS: Final = (PROCEED, REGENERATE, REPLAN)
"""Three-way grades, in decision order; also the predicted classes."""
BINARY_LABELS: Final = (OK, NOT_OK)
"""Binary grades; ``ok`` means the answer should proceed."""
ALL_LABELS: Final = (*THREE_WAY_LABELS, *BINARY_LABELS)

LabelScale = Literal["binary", "three_way"]

DEFAULT_RHO: Final = 0.5
"""The reference contradiction penalty (the paper's calibrated point)."""
MIN_EXAMPLES: Final = 10
"""Fewest graded answers a calibration accepts (100-200 are recommended)."""


def normalize_label(value: object) -> str:
    """Return a grade in canonical form: one of :data:`ALL_LABELS`.

    Case, surrounding space and ``-`` or a space instead of ``_`` are tolerated
    (``"Not OK"`` is ``not_ok``).

    Raises:
        ValueError: ``value`` is not one of the allowed grades.
    """
    if isinstance(value, str):
        cleaned = "_".join(value.strip().lower().replace("-", " ").split())
        if cleaned in ALL_LABELS:
            return cleaned
    raise ValueError(f"label must be one of {', '.join(ALL_LABELS)}; got {value!r}")


def label_scale_of(label: str) -> LabelScale:
    """``binary`` for ok / not_ok, ``three_way`` for proceed / regenerate / replan."""
    return "binary" if label in BINARY_LABELS else "three_way"


def is_ok(label: str) -> bool:
    """True for a grade that says the answer should proceed (``ok`` or ``proceed``)."""
    return label in (OK, PROCEED)


@dataclass(frozen=True, slots=True)
class GradedScore:
    """One graded answer, reduced to what its score depends on, and its human grade.

    Attributes:
        support: W(G) + W(K), the weight of grounded and complementary claims.
        ungrounded: W(U).
        contradicted: W(X), before the contradiction penalty.
        label: the human grade, canonical (see :func:`normalize_label`).
        abstained: the judge abstained; the answer is then predicted ``replan`` whatever S is.
        empty: the partition had no claims (S is the neutral 0.5).
        capped: a decision policy in force (conclusion, contradiction, dispute) caps this
            answer's ``proceed`` at ``regenerate`` whatever the thresholds: the real decision
            never lets it proceed, so neither does a prediction.
    """

    support: float
    ungrounded: float
    contradicted: float
    label: str
    abstained: bool = False
    empty: bool = False
    capped: bool = False

    @classmethod
    def from_partition(
        cls,
        partition: Partition,
        label: str,
        *,
        abstained: bool = False,
        weight_map: Mapping[EvidenceType | str, float] | None = None,
        default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
        policies: Mapping[str, str] | None = None,
    ) -> GradedScore:
        """Reduce a judged partition to its weights (Eq. 1), and whether the decision policies
        cap it (``policies``: ``conclusion_policy``, ``contradiction_policy``,
        ``dispute_policy``, each defaulting as the evaluator's does).

        Raises:
            ValueError: an invalid label or weight map.
        """

        def weight(claims: Iterable[Any]) -> float:
            return partition_weight(claims, weight_map=weight_map, default_unknown=default_unknown)

        return cls(
            support=weight(partition.grounded) + weight(partition.complementary),
            ungrounded=weight(partition.ungrounded),
            contradicted=weight(partition.contradicted),
            label=normalize_label(label),
            abstained=abstained,
            empty=partition.is_empty,
            capped=policy_capped(partition, policies),
        )

    def score(self, rho: float = DEFAULT_RHO) -> float:
        """S for contradiction penalty ``rho`` (Eq. 2), equal to :func:`gsar_score`."""
        if self.empty:
            return NEUTRAL_SCORE
        denominator = self.support + self.ungrounded + rho * self.contradicted
        if denominator == 0.0:
            return NEUTRAL_SCORE
        return min(1.0, max(0.0, self.support / denominator))

    @property
    def ok(self) -> bool:
        """True when the grade says the answer should proceed."""
        return is_ok(self.label)


def policy_capped(partition: Partition, policies: Mapping[str, str] | None = None) -> bool:
    """True when a decision policy caps ``partition``'s proceed at regenerate: the same
    functions the evaluator's decision applies, so a prediction never passes what it stops.

    Raises:
        ValueError: an unknown policy value.
    """
    chosen = dict(policies or {})
    proceed = Decision.PROCEED
    return (apply_conclusion_policy(proceed, partition, check_conclusion_policy(
                chosen.get("conclusion_policy", "cap")))[1]
            or apply_contradiction_policy(proceed, partition, check_contradiction_policy(
                chosen.get("contradiction_policy", "cap")))[1]
            or apply_dispute_policy(proceed, partition, check_dispute_policy(
                chosen.get("dispute_policy", "flag")))[1])


# --- input checks -------------------------------------------------------------------------------


def label_scale(labels: Sequence[str]) -> LabelScale:
    """The one scale all ``labels`` are on.

    Raises:
        ValueError: the labels mix the binary and the three-way scale (names the first
            offender by its position, 1-based).
    """
    if not labels:
        raise ValueError("no labels")
    first = label_scale_of(labels[0])
    for position, label in enumerate(labels, start=1):
        if label_scale_of(label) != first:
            raise ValueError(
                f"label {position} ({label!r}) is on the {label_scale_of(label)} scale but "
                f"label 1 ({labels[0]!r}) is on the {first} scale; grade one file with either "
                f"{' | '.join(THREE_WAY_LABELS)} or {' | '.join(BINARY_LABELS)}")
    return first


def check_calibration_input(examples: Sequence[GradedScore], *, folds: int) -> LabelScale:
    """Check that ``examples`` can be calibrated with ``folds``-fold cross-validation
    (:func:`check_calibration_labels` on their grades).

    Returns:
        The label scale.

    Raises:
        ValueError: as :func:`check_calibration_labels`.
    """
    return check_calibration_labels([e.label for e in examples], folds=folds)


def check_calibration_labels(labels: Sequence[str], *, folds: int) -> LabelScale:
    """Check that answers graded ``labels`` can be calibrated with ``folds``-fold
    cross-validation. Needs only the grades, so ``gsar calibrate`` runs it before judging.

    Returns:
        The label scale.

    Raises:
        ValueError: too few answers (fewer than :data:`MIN_EXAMPLES`), a single grade, a
            missing three-way class, fewer answers of a grade than folds, or fewer than 2 folds.
    """
    if folds < 2:
        raise ValueError(f"--folds must be >= 2, got {folds}")
    if len(labels) < MIN_EXAMPLES:
        raise ValueError(f"too few graded answers: {len(labels)}; calibration needs at least "
                         f"{MIN_EXAMPLES} (100-200 recommended)")
    scale = label_scale(labels)
    classes = BINARY_LABELS if scale == "binary" else THREE_WAY_LABELS
    counts = {name: list(labels).count(name) for name in classes}
    present = [name for name, count in counts.items() if count]
    if len(present) < 2:
        raise ValueError(f"every answer is graded {present[0]!r}; calibration needs answers of "
                         f"more than one grade ({', '.join(classes)})")
    for name, count in counts.items():
        if count < folds:
            raise ValueError(
                f"only {count} answer(s) graded {name!r}; {folds}-fold cross-validation needs at "
                f"least {folds} of each grade ({', '.join(classes)}); grade more answers or "
                f"lower --folds")
    return scale
