"""The shared statistics: the quantile rule, the bootstrap and the confusion counts, by hand; and
``gsar bench`` and ``gsar calibrate`` giving the same interval for the same data."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

import pytest

from gsar_otel.measure.bench import bootstrap_interval
from gsar_otel.measure.calibration_report import bootstrap_intervals
from gsar_otel.measure.stats import (
    BinaryMetrics,
    Confusion,
    Interval,
    bootstrap,
    percentile_interval,
    quantile,
)

# --- the quantile rule: linear interpolation at position q * (n - 1) ---------------------------


@pytest.mark.parametrize(("values", "q", "expected"), [
    ([1.0, 2.0, 3.0, 4.0], 0.5, 2.5),      # position 1.5: halfway between 2 and 3
    ([1.0, 2.0, 3.0, 4.0], 0.25, 1.75),    # position 0.75
    ([1.0, 2.0, 3.0, 4.0], 0.1, 1.3),      # position 0.3
    ([1.0, 2.0, 3.0, 4.0], 0.9, 3.7),      # position 2.7
    ([10.0, 20.0, 40.0, 80.0, 160.0], 0.3, 24.0),    # position 1.2: 20 + 0.2 * (40 - 20)
    ([10.0, 20.0, 40.0, 80.0, 160.0], 0.95, 144.0),  # position 3.8: 80 + 0.8 * (160 - 80)
    ([10.0, 20.0, 40.0, 80.0, 160.0], 0.5, 40.0),    # position 2: the middle value itself
    ([3.0, 1.0, 2.0], 0.5, 2.0),            # unsorted input is sorted first
    ([5.0], 0.37, 5.0),                     # one value is every quantile
])
def test_the_quantile_interpolates_linearly_between_ranks(
    values: list[float], q: float, expected: float
) -> None:
    assert quantile(values, q) == pytest.approx(expected)


def test_the_ends_are_the_smallest_and_largest_value_exactly() -> None:
    values = [0.3, 0.1, 0.7, 0.2]
    assert quantile(values, 0.0) == 0.1
    assert quantile(values, 1.0) == 0.7


@pytest.mark.parametrize("cuts", [2, 4, 10, 40])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_quantile_matches_statistics_quantiles_inclusive(cuts: int, seed: int) -> None:
    rng = random.Random(seed)
    values = [rng.random() for _ in range(rng.randint(2, 60))]
    expected = statistics.quantiles(values, n=cuts, method="inclusive")
    assert [quantile(values, i / cuts) for i in range(1, cuts)] == pytest.approx(expected)


def test_the_quantile_matches_numpys_default_linear_method() -> None:
    numpy = pytest.importorskip("numpy")
    rng = random.Random(3)
    values = [rng.gauss(0, 1) for _ in range(37)]
    for q in (0.0, 0.025, 0.1, 0.333, 0.5, 0.9, 0.975, 1.0):
        assert quantile(values, q) == pytest.approx(float(numpy.quantile(values, q)))


def test_the_quantile_rejects_no_values_and_q_outside_zero_and_one() -> None:
    with pytest.raises(ValueError, match="quantile of no values"):
        quantile([], 0.5)
    for q in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="q must be in"):
            quantile([1.0], q)


def test_the_interval_is_the_central_quantiles_not_the_nearest_ranks() -> None:
    draws = [float(v) for v in range(2000)]
    # Positions 0.025 * 1999 = 49.975 and 0.975 * 1999 = 1949.025. The nearest-rank rule bench
    # used before took draws[50] and draws[1949].
    low, high = percentile_interval(draws, 0.95)
    assert low == pytest.approx(49.975)
    assert high == pytest.approx(1949.025)
    assert percentile_interval([float(v) for v in range(101)], 0.9) == pytest.approx((5.0, 95.0))
    with pytest.raises(ValueError, match="confidence must be in"):
        percentile_interval(draws, 1.0)


# --- the bootstrap -----------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values)}


def test_the_bootstrap_is_deterministic_for_a_seed_and_varies_with_it() -> None:
    values = [float(v) for v in range(30)]
    first = bootstrap(values, _mean, resamples=300, confidence=0.9, seed=11)
    assert first == bootstrap(values, _mean, resamples=300, confidence=0.9, seed=11)
    assert first != bootstrap(values, _mean, resamples=300, confidence=0.9, seed=12)
    interval = first["mean"]
    assert interval.value == pytest.approx(14.5)
    assert interval.low < 14.5 < interval.high


def test_the_bootstrap_interval_is_the_linear_quantiles_of_the_seeded_draws() -> None:
    values = [1.0, 2.0, 2.0, 3.0, 5.0, 8.0, 13.0]
    rng = random.Random(5)  # the draws, replayed: each position with randrange
    draws = [statistics.fmean(values[rng.randrange(len(values))] for _ in values)
             for _ in range(250)]
    cut = statistics.quantiles(draws, n=40, method="inclusive")  # cut[0] = 2.5%, cut[-1] = 97.5%
    interval = bootstrap(values, _mean, resamples=250, confidence=0.95, seed=5)["mean"]
    assert (interval.low, interval.high) == pytest.approx((cut[0], cut[-1]))


def test_a_stratified_bootstrap_keeps_the_size_of_every_stratum() -> None:
    samples = ["a"] * 3 + ["b"] * 7

    def share_of_a(sample: Sequence[str]) -> dict[str, float]:
        return {"a": sample.count("a") / len(sample)}

    intervals = bootstrap(samples, share_of_a, resamples=100, confidence=0.95, seed=0,
                          strata=samples)
    assert intervals == {"a": Interval(0.3, 0.3, 0.3)}
    plain = bootstrap(samples, share_of_a, resamples=100, confidence=0.95, seed=0)["a"]
    assert plain.low < 0.3 < plain.high


def test_the_bootstrap_rejects_what_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        bootstrap([], _mean, resamples=10, confidence=0.95, seed=0)
    with pytest.raises(ValueError, match="resamples must be >= 1"):
        bootstrap([1.0], _mean, resamples=0, confidence=0.95, seed=0)
    with pytest.raises(ValueError, match="confidence must be in"):
        bootstrap([1.0], _mean, resamples=10, confidence=0.0, seed=0)
    with pytest.raises(ValueError, match="strata and samples differ in length"):
        bootstrap([1.0, 2.0], _mean, resamples=10, confidence=0.95, seed=0, strata=["x"])


# --- confusion counts --------------------------------------------------------------------------

# (actually positive, predicted positive): tp 3, fn 1, fp 2, tn 4.
PAIRS = [(True, True)] * 3 + [(True, False)] + [(False, True)] * 2 + [(False, False)] * 4


def test_balanced_accuracy_of_a_known_confusion_matrix() -> None:
    matrix = Confusion.from_pairs(PAIRS)
    assert (matrix.tp, matrix.fn, matrix.fp, matrix.tn) == (3, 1, 2, 4)
    assert matrix == Confusion(tp=3, fn=1, fp=2, tn=4)
    assert matrix.recall == pytest.approx(3 / 4)
    assert matrix.specificity == pytest.approx(4 / 6)
    assert matrix.precision == pytest.approx(3 / 5)
    assert matrix.balanced_accuracy == pytest.approx((3 / 4 + 4 / 6) / 2)
    assert matrix.accuracy == pytest.approx(7 / 10)
    assert matrix.f1 == pytest.approx(2 * 3 / (2 * 3 + 2 + 1))


def test_balanced_accuracy_does_not_depend_on_which_class_is_positive() -> None:
    swapped = Confusion.from_pairs((not a, not p) for a, p in PAIRS)
    assert swapped.balanced_accuracy == Confusion.from_pairs(PAIRS).balanced_accuracy


def test_undefined_ratios_are_none_or_zero_by_convention() -> None:
    nothing_predicted = [(True, False), (False, False), (False, False)]
    strict = Confusion.from_pairs(nothing_predicted)
    zero = BinaryMetrics.from_pairs(nothing_predicted)
    assert strict.precision is None and zero.precision == 0.0
    assert Confusion().recall is None and BinaryMetrics().recall == 0.0
    assert Confusion().accuracy is None and BinaryMetrics().accuracy == 0.0
    # One class absent: the recall of the class present, under either convention.
    only_positive = [(True, True), (True, False)]
    assert Confusion.from_pairs(only_positive).balanced_accuracy == pytest.approx(0.5)
    assert BinaryMetrics.from_pairs(only_positive).balanced_accuracy == pytest.approx(0.5)
    assert Confusion().balanced_accuracy is None


# --- bench and calibrate agree -----------------------------------------------------------------


def test_bench_and_calibrate_report_the_same_interval_for_the_same_data() -> None:
    # (actually faithful, predicted faithful), faithful first as bench resamples them.
    pairs = ([(True, True)] * 9 + [(True, False)] * 4 + [(False, False)] * 11
             + [(False, True)] * 6)
    truth = ["ok" if actual else "not_ok" for actual, _ in pairs]
    predicted = ["proceed" if judged else "replan" for _, judged in pairs]

    def balanced_accuracy(t: Sequence[str], p: Sequence[str]) -> dict[str, float]:
        matrix = Confusion.from_pairs(
            (a == "ok", b == "proceed") for a, b in zip(t, p, strict=True))
        assert matrix.balanced_accuracy is not None
        return {"balanced_accuracy": matrix.balanced_accuracy}

    bench = bootstrap_interval(pairs, resamples=500, seed=9)
    calibrate = bootstrap_intervals(truth, predicted, balanced_accuracy, resamples=500, seed=9,
                                    strata=truth)["balanced_accuracy"]
    assert bench == (calibrate.low, calibrate.high)
    assert calibrate.value == pytest.approx((9 / 13 + 11 / 17) / 2)

    # Both are the linear-interpolation quantiles of the same stratified draws, replayed here.
    rng = random.Random(9)
    faithful, unfaithful = pairs[:13], pairs[13:]
    draws = []
    for _ in range(500):
        sample = rng.choices(faithful, k=13) + rng.choices(unfaithful, k=17)
        draws.append(Confusion.from_pairs((not a, not p) for a, p in sample).balanced_accuracy)
    ordered = sorted(d for d in draws if d is not None)
    cut = statistics.quantiles(ordered, n=40, method="inclusive")
    assert bench == pytest.approx((cut[0], cut[-1]))
    # The data is chosen so that the nearest-rank rule bench used before gives another interval.
    nearest_rank = (ordered[math.floor(0.025 * 500)], ordered[math.ceil(0.975 * 500) - 1])
    assert bench != nearest_rank


def test_bench_interval_is_deterministic_for_a_seed_and_none_without_both_classes() -> None:
    pairs = [(True, True)] * 6 + [(True, False)] * 2 + [(False, False)] * 5 + [(False, True)] * 3
    first = bootstrap_interval(pairs, resamples=400, seed=1)
    assert first is not None
    assert bootstrap_interval(pairs, resamples=400, seed=1) == first
    assert bootstrap_interval(pairs, resamples=400, seed=2) != first
    assert bootstrap_interval([(True, True), (True, False)]) is None
