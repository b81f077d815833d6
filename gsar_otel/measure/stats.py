"""The statistics ``gsar bench`` and ``gsar calibrate`` share: confusion counts, quantiles and
the percentile bootstrap.

One implementation of each, so the two commands can never disagree on how a figure is computed:

- :class:`Confusion` counts a binary prediction against the truth for one positive class and
  derives precision, recall, specificity, balanced accuracy, F1 and accuracy from the counts.
  A ratio with nothing to divide by is None; :class:`BinaryMetrics` is the same counts with the
  "0.0 when undefined" convention, for figures that are averaged or bootstrapped.
- :func:`quantile` uses linear interpolation between order statistics: the ``q``-quantile of
  ``n`` ascending values sits at position ``q * (n - 1)`` (Hyndman & Fan type 7, numpy's default
  ``"linear"`` method, :func:`statistics.quantiles` with ``method="inclusive"``).
- :func:`bootstrap` resamples with replacement from a seeded :class:`random.Random` (optionally
  per stratum) and takes the interval's ends with :func:`quantile`.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Self, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


def ratio(part: int, whole: int) -> float | None:
    """``part / whole``; None when ``whole`` is 0."""
    return part / whole if whole else None


def f1_from_counts(tp: int, fp: int, fn: int) -> float:
    """F1 = 2TP / (2TP + FP + FN); 0.0 when there is nothing to count."""
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


# --- confusion counts ----------------------------------------------------------------------------


class Confusion(BaseModel):
    """Counts of (actual, predicted) for one positive class.

    ``tp``: positive, predicted positive; ``fn``: positive, predicted negative; ``fp``: negative,
    predicted positive; ``tn``: negative, predicted negative.
    """

    model_config = ConfigDict(frozen=True)

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[bool, bool]]) -> Self:
        """Count ``(actually positive, predicted positive)`` pairs."""
        tp = fn = fp = tn = 0
        for actual, predicted in pairs:
            if actual and predicted:
                tp += 1
            elif actual:
                fn += 1
            elif predicted:
                fp += 1
            else:
                tn += 1
        return cls(tp=tp, fn=fn, fp=fp, tn=tn)

    @property
    def total(self) -> int:
        """Everything counted."""
        return self.tp + self.fn + self.fp + self.tn

    @property
    def precision(self) -> float | None:
        """TP / (TP + FP): share of predicted positives that are positive."""
        return ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """TP / (TP + FN): share of positives predicted positive."""
        return ratio(self.tp, self.tp + self.fn)

    @property
    def specificity(self) -> float | None:
        """TN / (TN + FP): share of negatives predicted negative (the negative class's recall)."""
        return ratio(self.tn, self.tn + self.fp)

    @property
    def balanced_accuracy(self) -> float | None:
        """Mean of the two classes' recalls, of the classes present (None when empty).

        With one class absent it is that of the class present; it does not depend on which
        class is called positive.
        """
        # The ratios themselves, not the properties: a subclass may map "undefined" to 0.0.
        both = (ratio(self.tp, self.tp + self.fn), ratio(self.tn, self.tn + self.fp))
        recalls = [r for r in both if r is not None]
        return math.fsum(recalls) / len(recalls) if recalls else None

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall; 0.0 when there is nothing to count."""
        return f1_from_counts(self.tp, self.fp, self.fn)

    @property
    def accuracy(self) -> float | None:
        """(TP + TN) / all."""
        return ratio(self.tp + self.tn, self.total)


class BinaryMetrics(Confusion):
    """:class:`Confusion` whose precision, recall and accuracy are 0.0 when undefined.

    Precision is 0.0 when nothing was predicted positive, recall 0.0 when nothing is positive
    (scikit-learn's ``zero_division=0``), so every figure is a number that can be averaged.
    """

    @property
    def precision(self) -> float:
        """TP / (TP + FP), 0.0 when nothing was predicted positive."""
        return super().precision or 0.0

    @property
    def recall(self) -> float:
        """TP / (TP + FN), 0.0 when nothing is positive."""
        return super().recall or 0.0

    @property
    def accuracy(self) -> float:
        """(TP + TN) / all, 0.0 when empty."""
        return super().accuracy or 0.0


def binary_metrics(truth: Sequence[bool], predicted: Sequence[bool]) -> BinaryMetrics:
    """Count true/false positives/negatives of ``predicted`` against ``truth``.

    Raises:
        ValueError: the sequences differ in length.
    """
    same_length(truth, predicted)
    return BinaryMetrics.from_pairs(zip(truth, predicted, strict=True))


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
        """Share of answers whose predicted class is their grade (0.0 when empty)."""
        total = sum(map(sum, self.confusion))
        correct = sum(self.confusion[i][i] for i in range(len(self.classes)))
        return correct / total if total else 0.0

    @property
    def macro_f1(self) -> float:
        """Unweighted mean of the per-class F1 scores."""
        return statistics.fmean(self.per_class(name).f1 for name in self.classes)


def multiclass_metrics(truth: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
                       ) -> MulticlassMetrics:
    """The confusion matrix of ``predicted`` against ``truth`` over ``classes``.

    Raises:
        ValueError: the sequences differ in length, or a value is not one of ``classes``.
    """
    same_length(truth, predicted)
    names = tuple(classes)
    matrix = [[0] * len(names) for _ in names]
    for t, p in zip(truth, predicted, strict=True):
        for value in (t, p):
            if value not in names:
                raise ValueError(f"class {value!r} is not one of {', '.join(names)}")
        matrix[names.index(t)][names.index(p)] += 1
    return MulticlassMetrics(classes=names, confusion=tuple(tuple(row) for row in matrix))


def same_length(truth: Sequence[object], predicted: Sequence[object]) -> None:
    """Raise ValueError when ``truth`` and ``predicted`` differ in length."""
    if len(truth) != len(predicted):
        raise ValueError(f"truth and predictions differ in length ({len(truth)} vs "
                         f"{len(predicted)})")


# --- quantiles -----------------------------------------------------------------------------------


def quantile(values: Iterable[float], q: float) -> float:
    """The ``q``-quantile (0 <= q <= 1) of ``values``, interpolating linearly between ranks.

    The values are sorted; the quantile sits at position ``q * (n - 1)`` of the ascending order,
    between the two values either side of it (numpy's default ``"linear"`` method). The median
    of ``[1, 2, 3, 4]`` is 2.5 and its 0.25-quantile 1.75.

    Raises:
        ValueError: no values, or ``q`` outside [0, 1].
    """
    return _quantile_of_sorted(sorted(values), q)


def _quantile_of_sorted(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction


def percentile_interval(values: Iterable[float], confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of ``values``: their (1 -/+ confidence) / 2 quantiles.

    Raises:
        ValueError: no values, or ``confidence`` not in (0, 1).
    """
    check_confidence(confidence)
    ordered = sorted(values)
    tail = (1.0 - confidence) / 2.0
    return _quantile_of_sorted(ordered, tail), _quantile_of_sorted(ordered, 1.0 - tail)


def check_confidence(confidence: float) -> None:
    """Raise ValueError unless 0 < ``confidence`` < 1."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


# --- bootstrap -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate and its bootstrap confidence interval."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        """``{"value", "low", "high"}``, for JSON."""
        return {"value": self.value, "low": self.low, "high": self.high}


def bootstrap(
    samples: Sequence[T],
    statistic: Callable[[Sequence[T]], Mapping[str, float]],
    *,
    resamples: int,
    confidence: float,
    seed: int,
    strata: Sequence[Hashable] | None = None,
) -> dict[str, Interval]:
    """Percentile-bootstrap intervals for every value ``statistic`` returns.

    Each of ``resamples`` resamples draws ``len(samples)`` items with replacement from
    ``random.Random(seed)``, so the same inputs and seed always give the same intervals. With
    ``strata`` (one key per sample) each stratum, in order of first appearance, is resampled on
    its own to its own size: every resample keeps the class balance of the data (a stratified
    bootstrap). The interval's ends are the quantiles (:func:`quantile`) of the resampled values
    at (1 -/+ ``confidence``) / 2; the point value is ``statistic(samples)``.

    The plain bootstrap draws each position with ``rng.randrange`` and the stratified one each
    stratum with ``rng.choices``: the draws each command made before they shared this function,
    so their seeded figures did not move.

    Raises:
        ValueError: no samples, ``resamples`` < 1, ``confidence`` not in (0, 1), or ``strata``
            of another length than ``samples``.
    """
    if not samples:
        raise ValueError("bootstrap needs at least one sample")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples!r}")
    check_confidence(confidence)
    draw = _plain_draw(samples) if strata is None else _stratified_draw(samples, strata)
    point = statistic(samples)
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {name: [] for name in point}
    for _ in range(resamples):
        values = statistic(draw(rng))
        for name in point:
            draws[name].append(values[name])
    intervals: dict[str, Interval] = {}
    for name, value in point.items():
        low, high = percentile_interval(draws[name], confidence)
        intervals[name] = Interval(value, low, high)
    return intervals


def _plain_draw(samples: Sequence[T]) -> Callable[[random.Random], list[T]]:
    n = len(samples)

    def draw(rng: random.Random) -> list[T]:
        return [samples[rng.randrange(n)] for _ in range(n)]

    return draw


def _stratified_draw(samples: Sequence[T], strata: Sequence[Hashable]
                     ) -> Callable[[random.Random], list[T]]:
    if len(strata) != len(samples):
        raise ValueError(f"strata and samples differ in length ({len(strata)} vs "
                         f"{len(samples)})")
    groups: dict[Hashable, list[T]] = {}
    for key, sample in zip(strata, samples, strict=True):
        groups.setdefault(key, []).append(sample)

    def draw(rng: random.Random) -> list[T]:
        return [item for group in groups.values() for item in rng.choices(group, k=len(group))]

    return draw
