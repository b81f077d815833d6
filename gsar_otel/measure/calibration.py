"""Per-deployment recalibration of the decision thresholds (and rho) on a human-graded set.

The paper's reference thresholds (0.80 / 0.65, rho 0.5) are one calibrated point, not a law. A
deployment grades 100-200 of its own answers (``proceed | regenerate | replan``, or simply
``ok | not_ok``) and fits the thresholds that best reproduce those grades. Everything here is a
pure function of the graded scores; reading files, judging and plotting live in
``gsar_otel.cli.calibrate``.

How the fit works:

- Each graded answer is reduced to the three weights its score depends on, W(G)+W(K), W(U) and
  W(X), so S can be recomputed for any rho (Eq. 2) without judging again.
- Grid search: tau_proceed and tau_regenerate over 0.00, 0.01, ..., 1.00 with regenerate <= proceed,
  and, when asked, rho over 0.0, 0.1, ..., 1.0. A threshold set predicts what :func:`decide` would
  (boundaries included within its tolerance); an abstained verdict always counts as ``replan``.
- Objective: with ``ok | not_ok`` labels, the F1 of "proceed" (ok = proceed). Binary grades say
  nothing about where regenerate ends and replan begins, so tau_regenerate keeps the default
  band width below the fitted tau_proceed. With three-way labels, the macro-averaged F1 over the
  three classes (it does not let the largest class dominate, as accuracy would).
- Among equally good grid points the one nearest the median of all of them wins: the centre of
  the optimal plateau, not its edge, which generalises better and is reproducible. rho leaves
  the value in force only when another value does strictly better (with no contradicted claims
  in the set, rho cannot matter).
- Thresholds have nothing to train but themselves, so the final search runs on the whole set.
  K-fold cross-validation (stratified by label, seeded) runs the same search on K-1 folds and
  predicts the held-out fold; the pooled out-of-fold predictions give an honest estimate of the
  metrics on new answers (in-sample metrics at the fitted values are optimistic), and the fold
  fits show how stable the thresholds are.
- Confidence intervals are percentile bootstraps over answers (seeded, so deterministic).
"""

from __future__ import annotations

import math
import random
import statistics
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from gsar_otel.core.model import DEFAULT_UNKNOWN_WEIGHT, EvidenceType, GSARThresholds, Partition
from gsar_otel.core.scoring import BOUNDARY_TOLERANCE, NEUTRAL_SCORE, decide, partition_weight

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

THRESHOLD_GRID: Final = tuple(i / 100 for i in range(101))
"""Candidate thresholds: 0.00 to 1.00 in steps of 0.01."""
RHO_GRID: Final = tuple(i / 10 for i in range(11))
"""Candidate contradiction penalties: 0.0 to 1.0 in steps of 0.1."""

DEFAULT_RHO: Final = 0.5
DEFAULT_FOLDS: Final = 5
DEFAULT_RESAMPLES: Final = 1000
DEFAULT_CONFIDENCE: Final = 0.95
MIN_EXAMPLES: Final = 10
"""Fewest graded answers a calibration accepts (100-200 are recommended)."""

_EPSILON: Final = 1e-12
"""Objective values closer than this are ties."""


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
    """

    support: float
    ungrounded: float
    contradicted: float
    label: str
    abstained: bool = False
    empty: bool = False

    @classmethod
    def from_partition(
        cls,
        partition: Partition,
        label: str,
        *,
        abstained: bool = False,
        weight_map: Mapping[EvidenceType | str, float] | None = None,
        default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
    ) -> GradedScore:
        """Reduce a judged partition to its weights (Eq. 1).

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


# --- metrics ----------------------------------------------------------------------------------


def f1_from_counts(tp: int, fp: int, fn: int) -> float:
    """F1 = 2TP / (2TP + FP + FN); 0.0 when there is nothing to count."""
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


@dataclass(frozen=True, slots=True)
class BinaryMetrics:
    """Precision, recall, F1 and accuracy of one positive class, with the counts behind them.

    Precision is 0.0 when nothing was predicted positive, recall 0.0 when nothing is positive.
    """

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        """TP / (TP + FP)."""
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else 0.0

    @property
    def recall(self) -> float:
        """TP / (TP + FN)."""
        actual = self.tp + self.fn
        return self.tp / actual if actual else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        return f1_from_counts(self.tp, self.fp, self.fn)

    @property
    def accuracy(self) -> float:
        """(TP + TN) / all."""
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 0.0


def binary_metrics(truth: Sequence[bool], predicted: Sequence[bool]) -> BinaryMetrics:
    """Count true/false positives/negatives of ``predicted`` against ``truth``.

    Raises:
        ValueError: the sequences differ in length.
    """
    _same_length(truth, predicted)
    tp = sum(1 for t, p in zip(truth, predicted, strict=True) if t and p)
    fp = sum(1 for t, p in zip(truth, predicted, strict=True) if p and not t)
    fn = sum(1 for t, p in zip(truth, predicted, strict=True) if t and not p)
    return BinaryMetrics(tp=tp, fp=fp, fn=fn, tn=len(truth) - tp - fp - fn)


@dataclass(frozen=True, slots=True)
class MulticlassMetrics:
    """Accuracy, per-class metrics, macro-F1 and the confusion matrix over fixed classes."""

    classes: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    """``confusion[i][j]``: answers graded ``classes[i]`` and predicted ``classes[j]``."""

    def per_class(self, name: str) -> BinaryMetrics:
        """One class against the rest."""
        i = self.classes.index(name)
        tp = self.confusion[i][i]
        fn = sum(self.confusion[i]) - tp
        fp = sum(row[i] for row in self.confusion) - tp
        total = sum(map(sum, self.confusion))
        return BinaryMetrics(tp=tp, fp=fp, fn=fn, tn=total - tp - fp - fn)

    @property
    def accuracy(self) -> float:
        """Share of answers whose predicted class is their grade."""
        total = sum(map(sum, self.confusion))
        correct = sum(self.confusion[i][i] for i in range(len(self.classes)))
        return correct / total if total else 0.0

    @property
    def macro_f1(self) -> float:
        """Unweighted mean of the per-class F1 scores."""
        return statistics.fmean(self.per_class(name).f1 for name in self.classes)


def multiclass_metrics(
    truth: Sequence[str], predicted: Sequence[str], classes: Sequence[str] = THREE_WAY_LABELS
) -> MulticlassMetrics:
    """The confusion matrix of ``predicted`` against ``truth`` over ``classes``.

    Raises:
        ValueError: the sequences differ in length, or a value is not one of ``classes``.
    """
    _same_length(truth, predicted)
    names = tuple(classes)
    matrix = [[0] * len(names) for _ in names]
    for t, p in zip(truth, predicted, strict=True):
        for value in (t, p):
            if value not in names:
                raise ValueError(f"class {value!r} is not one of {', '.join(names)}")
        matrix[names.index(t)][names.index(p)] += 1
    return MulticlassMetrics(classes=names, confusion=tuple(tuple(row) for row in matrix))


def decision_metrics(scale: LabelScale, truth: Sequence[str], predicted: Sequence[str]
                     ) -> dict[str, float]:
    """The reported metrics for grades ``truth`` and predicted decisions ``predicted``.

    ``precision``, ``recall`` and ``f1`` are those of "proceed" against the rest, on either
    scale. ``accuracy`` is on the grades' own scale; ``macro_f1`` is added for three-way grades.
    """
    ok = binary_metrics([is_ok(t) for t in truth], [p == PROCEED for p in predicted])
    values = {"precision": ok.precision, "recall": ok.recall, "f1": ok.f1}
    if scale == "binary":
        values["accuracy"] = ok.accuracy
    else:
        multi = multiclass_metrics(truth, predicted)
        values["accuracy"] = multi.accuracy
        values["macro_f1"] = multi.macro_f1
    return values


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"truth and predictions differ in length ({len(a)} vs {len(b)})")


# --- bootstrap --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate and its bootstrap confidence interval."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        """``{"value", "low", "high"}``, for JSON."""
        return {"value": self.value, "low": self.low, "high": self.high}


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 <= q <= 1) of ascending values, interpolating linearly.

    Raises:
        ValueError: no values, or ``q`` outside [0, 1].
    """
    if not sorted_values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    fraction = position - below
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * fraction


def bootstrap_intervals(
    truth: Sequence[str],
    predicted: Sequence[str],
    statistic: Callable[[Sequence[str], Sequence[str]], Mapping[str, float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
) -> dict[str, Interval]:
    """Percentile-bootstrap intervals for every value ``statistic`` returns.

    Answers are resampled with replacement ``resamples`` times from ``random.Random(seed)``, so
    the same inputs and seed always give the same intervals.

    Raises:
        ValueError: no answers, ``resamples`` < 1, or ``confidence`` not in (0, 1).
    """
    _same_length(truth, predicted)
    if not truth:
        raise ValueError("bootstrap needs at least one answer")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    point = statistic(truth, predicted)
    rng = random.Random(seed)
    n = len(truth)
    draws: dict[str, list[float]] = {name: [] for name in point}
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        values = statistic([truth[i] for i in picks], [predicted[i] for i in picks])
        for name in point:
            draws[name].append(values[name])
    tail = (1.0 - confidence) / 2.0
    intervals: dict[str, Interval] = {}
    for name, value in point.items():
        ordered = sorted(draws[name])
        intervals[name] = Interval(value, percentile(ordered, tail), percentile(ordered, 1 - tail))
    return intervals


# --- prediction and fitting ------------------------------------------------------------------


def predict(example: GradedScore, thresholds: GSARThresholds, rho: float) -> str:
    """The decision class the thresholds give ``example``: proceed, regenerate or replan."""
    if example.abstained:
        return REPLAN
    return decide(example.score(rho), thresholds=thresholds).value


def predict_all(examples: Sequence[GradedScore], thresholds: GSARThresholds, rho: float
                ) -> list[str]:
    """:func:`predict` for every example, in order."""
    return [predict(example, thresholds, rho) for example in examples]


@dataclass(frozen=True, slots=True)
class CalibrationFit:
    """Thresholds and rho chosen by the grid search, and the objective they reach.

    Attributes:
        thresholds: the fitted tau_proceed and tau_regenerate.
        contradiction_penalty: the fitted rho (the default when rho was not fitted).
        objective: in-sample value of the objective at the fitted point.
        regenerate_fitted: False for binary grades, where tau_regenerate keeps the default band
            width below tau_proceed instead of being fitted.
        rho_fitted: True when rho was searched.
    """

    thresholds: GSARThresholds
    contradiction_penalty: float
    objective: float
    regenerate_fitted: bool
    rho_fitted: bool


def objective_name(scale: LabelScale) -> str:
    """What the search maximises for this label scale."""
    return "f1_proceed" if scale == "binary" else "macro_f1"


def fit_thresholds(
    examples: Sequence[GradedScore],
    *,
    scale: LabelScale,
    defaults: GSARThresholds | None = None,
    default_rho: float = DEFAULT_RHO,
    fit_rho: bool = False,
    threshold_grid: Sequence[float] = THRESHOLD_GRID,
    rho_grid: Sequence[float] = RHO_GRID,
) -> CalibrationFit:
    """Grid-search tau_proceed, tau_regenerate (and rho) that best reproduce the grades.

    See the module docstring for the objective and the tie rule.

    Raises:
        ValueError: no examples, or an empty grid.
    """
    if not examples:
        raise ValueError("cannot fit thresholds on no examples")
    grid = sorted(set(threshold_grid))
    rhos = sorted(set(rho_grid)) if fit_rho else [default_rho]
    if not grid or not rhos:
        raise ValueError("threshold and rho grids must not be empty")
    base = defaults or GSARThresholds()
    band = base.proceed - base.regenerate

    best = -1.0
    optimal: list[tuple[float, float, float]] = []  # (rho, proceed, regenerate)
    for rho in rhos:
        for value, proceed, regenerate in _search_one_rho(examples, scale, rho, grid):
            if value > best + _EPSILON:
                best, optimal = value, []
            if value >= best - _EPSILON:
                optimal.append((rho, proceed, regenerate))
    # rho moves away from the value in force only when that does better, not on a tie.
    at_default = [point for point in optimal if point[0] == default_rho]
    rho, proceed, regenerate = _central(at_default or optimal)
    if scale == "binary":
        regenerate = round(max(0.0, proceed - band), 6)
    return CalibrationFit(
        thresholds=GSARThresholds(proceed=proceed, regenerate=regenerate),
        contradiction_penalty=rho,
        objective=best,
        regenerate_fitted=scale == "three_way",
        rho_fitted=fit_rho,
    )


def _search_one_rho(
    examples: Sequence[GradedScore], scale: LabelScale, rho: float, grid: Sequence[float]
) -> Iterable[tuple[float, float, float]]:
    """Yield ``(objective, proceed, regenerate)`` for every grid point at one rho.

    Prefix counts over the answers sorted by S make each grid point O(1): the answers below a
    threshold are a prefix of the sorted order.
    """
    judged = sorted((e.score(rho) + BOUNDARY_TOLERANCE, e.label) for e in examples
                    if not e.abstained)
    # decide() puts s in the band of t when s + tolerance >= t, so "below t" is a bisect_left.
    shifted = [s for s, _ in judged]
    below = {t: bisect_left(shifted, t) for t in grid}
    labels = THREE_WAY_LABELS if scale == "three_way" else (OK,)
    prefix: dict[str, list[int]] = {}
    for name in labels:
        counts = [0]
        for _, label in judged:
            counts.append(counts[-1] + (label == name or (name == OK and is_ok(label))))
        prefix[name] = counts
    n_judged = len(judged)
    abstained = [e.label for e in examples if e.abstained]

    if scale == "binary":
        actual_ok = sum(1 for e in examples if e.ok)
        ok_judged = prefix[OK][n_judged]
        for proceed in grid:
            i = below[proceed]
            tp = ok_judged - prefix[OK][i]
            predicted_ok = n_judged - i
            yield f1_from_counts(tp, predicted_ok - tp, actual_ok - tp), proceed, proceed
        return

    actual = {name: sum(1 for e in examples if e.label == name) for name in THREE_WAY_LABELS}
    abstained_replan = sum(1 for label in abstained if label == REPLAN)
    proceed_judged = prefix[PROCEED][n_judged]
    for pi, proceed in enumerate(grid):
        ip = below[proceed]
        tp_proceed = proceed_judged - prefix[PROCEED][ip]
        f1_proceed = f1_from_counts(tp_proceed, (n_judged - ip) - tp_proceed,
                                    actual[PROCEED] - tp_proceed)
        for regenerate in grid[: pi + 1]:
            ir = below[regenerate]
            tp_regen = prefix[REGENERATE][ip] - prefix[REGENERATE][ir]
            tp_replan = prefix[REPLAN][ir] + abstained_replan
            predicted_replan = ir + len(abstained)
            f1_regen = f1_from_counts(tp_regen, (ip - ir) - tp_regen,
                                      actual[REGENERATE] - tp_regen)
            f1_replan = f1_from_counts(tp_replan, predicted_replan - tp_replan,
                                       actual[REPLAN] - tp_replan)
            yield (f1_proceed + f1_regen + f1_replan) / 3.0, proceed, regenerate


def _central(points: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    """The point nearest the coordinate-wise median of ``points`` (ties: the smallest)."""
    centre = [statistics.median(p[i] for p in points) for i in range(len(points[0]))]
    return min(points, key=lambda p: (sum((a - b) ** 2 for a, b in zip(p, centre, strict=True)),
                                      p))


# --- cross-validation -------------------------------------------------------------------------


def stratified_folds(labels: Sequence[str], k: int, *, seed: int = 0) -> list[list[int]]:
    """Split indices into ``k`` folds, each label spread as evenly as possible, seeded.

    Raises:
        ValueError: ``k`` < 2 or more folds than labels.
    """
    if k < 2:
        raise ValueError(f"folds must be >= 2, got {k!r}")
    if k > len(labels):
        raise ValueError(f"cannot make {k} folds from {len(labels)} examples")
    rng = random.Random(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    position = 0
    for name in sorted(set(labels)):
        members = [i for i, label in enumerate(labels) if label == name]
        rng.shuffle(members)
        for index in members:
            folds[position % k].append(index)
            position += 1
    return [sorted(fold) for fold in folds]


@dataclass(frozen=True, slots=True)
class CrossValidation:
    """The fit on each training split and the pooled out-of-fold predictions."""

    fits: tuple[CalibrationFit, ...]
    predictions: tuple[str, ...]
    """Out-of-fold decision for every example, in input order."""


def cross_validate(
    examples: Sequence[GradedScore],
    *,
    scale: LabelScale,
    folds: int = DEFAULT_FOLDS,
    seed: int = 0,
    defaults: GSARThresholds | None = None,
    default_rho: float = DEFAULT_RHO,
    fit_rho: bool = False,
) -> CrossValidation:
    """Fit on K-1 folds, predict the held-out fold, for each of the K folds.

    Raises:
        ValueError: as :func:`stratified_folds`.
    """
    split = stratified_folds([e.label for e in examples], folds, seed=seed)
    predictions: list[str] = [""] * len(examples)
    fits: list[CalibrationFit] = []
    for held_out in split:
        held = set(held_out)
        training = [e for i, e in enumerate(examples) if i not in held]
        fit = fit_thresholds(training, scale=scale, defaults=defaults, default_rho=default_rho,
                             fit_rho=fit_rho)
        fits.append(fit)
        for i in held_out:
            predictions[i] = predict(examples[i], fit.thresholds, fit.contradiction_penalty)
    return CrossValidation(fits=tuple(fits), predictions=tuple(predictions))


# --- input checks and the report --------------------------------------------------------------


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
    """Check that ``examples`` can be calibrated with ``folds``-fold cross-validation.

    Returns:
        The label scale.

    Raises:
        ValueError: too few examples, a single grade, a missing three-way class, fewer examples
            of a grade than folds, or fewer than 2 folds.
    """
    if folds < 2:
        raise ValueError(f"--folds must be >= 2, got {folds}")
    if len(examples) < MIN_EXAMPLES:
        raise ValueError(f"too few graded answers: {len(examples)}; calibration needs at least "
                         f"{MIN_EXAMPLES} (100-200 recommended)")
    labels = [e.label for e in examples]
    scale = label_scale(labels)
    classes = BINARY_LABELS if scale == "binary" else THREE_WAY_LABELS
    counts = {name: labels.count(name) for name in classes}
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


def settings_document(thresholds: GSARThresholds, contradiction_penalty: float
                      ) -> dict[str, Any]:
    """The GSAR_CONFIG settings file content for fitted values."""
    return {
        "thresholds": {"proceed": thresholds.proceed, "regenerate": thresholds.regenerate},
        "contradiction_penalty": contradiction_penalty,
    }


SETTINGS_SCHEMA: Final[Mapping[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "gsar-otel settings (GSAR_CONFIG)",
    "type": "object",
    "properties": {
        "thresholds": {
            "type": "object",
            "properties": {
                "proceed": {"type": "number", "minimum": 0, "maximum": 1},
                "regenerate": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "additionalProperties": False,
        },
        "contradiction_penalty": {"type": "number", "minimum": 0, "maximum": 1},
    },
}
"""JSON schema of the keys ``gsar calibrate`` writes (every key optional)."""
