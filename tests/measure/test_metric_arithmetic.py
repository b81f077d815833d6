"""Precision, recall, F1, accuracy, macro-F1, quantiles and bootstrap intervals, by hand."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from gsar_otel.core.model import Claim, Partition
from gsar_otel.core.scoring import gsar_score
from gsar_otel.measure.calibration_report import bootstrap_intervals, decision_metrics
from gsar_otel.measure.grades import THREE_WAY_LABELS, GradedScore, normalize_label
from gsar_otel.measure.stats import Interval, binary_metrics, multiclass_metrics, quantile

T, F = True, False


def test_binary_metrics_match_a_hand_computed_confusion() -> None:
    # tp=3 (0,1,2), fn=1 (3), fp=2 (4,5), tn=4
    truth = [T, T, T, T, F, F, F, F, F, F]
    predicted = [T, T, T, F, T, T, F, F, F, F]
    m = binary_metrics(truth, predicted)
    assert (m.tp, m.fp, m.fn, m.tn) == (3, 2, 1, 4)
    assert m.precision == pytest.approx(3 / 5)
    assert m.recall == pytest.approx(3 / 4)
    assert m.f1 == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))
    assert m.accuracy == pytest.approx(7 / 10)


def test_precision_is_zero_when_nothing_is_predicted_positive() -> None:
    m = binary_metrics([T, F, T], [F, F, F])
    assert (m.precision, m.recall, m.f1) == (0.0, 0.0, 0.0)
    assert m.accuracy == pytest.approx(1 / 3)


def test_multiclass_confusion_accuracy_and_macro_f1_match_hand_computation() -> None:
    truth = ["proceed", "proceed", "regenerate", "regenerate", "replan", "replan"]
    predicted = ["proceed", "regenerate", "regenerate", "regenerate", "replan", "proceed"]
    m = multiclass_metrics(truth, predicted, THREE_WAY_LABELS)
    assert m.confusion == ((1, 1, 0), (0, 2, 0), (1, 0, 1))
    assert m.accuracy == pytest.approx(4 / 6)
    # per class F1: proceed 2*1/(2+1+1)=0.5, regenerate 2*2/(4+1+0)=0.8, replan 2/(2+0+1)=2/3
    assert m.per_class("proceed").f1 == pytest.approx(0.5)
    assert m.per_class("regenerate").f1 == pytest.approx(0.8)
    assert m.per_class("replan").f1 == pytest.approx(2 / 3)
    assert m.macro_f1 == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)


def test_multiclass_metrics_reject_an_unknown_class() -> None:
    with pytest.raises(ValueError, match="'abstain' is not one of proceed, regenerate, replan"):
        multiclass_metrics(["proceed"], ["abstain"], THREE_WAY_LABELS)


def test_decision_metrics_report_proceed_against_the_rest_on_both_scales() -> None:
    binary = decision_metrics("binary", ["ok", "ok", "not_ok", "not_ok"],
                              ["proceed", "regenerate", "proceed", "replan"])
    assert binary == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5, "accuracy": 0.5})
    three = decision_metrics("three_way", ["proceed", "regenerate", "replan"],
                             ["proceed", "replan", "replan"])
    assert three["f1"] == pytest.approx(1.0)
    assert three["accuracy"] == pytest.approx(2 / 3)
    # F1: proceed 1, regenerate 0, replan 2/(2+1+0)
    assert three["macro_f1"] == pytest.approx((1 + 0 + 2 / 3) / 3)


def test_quantile_interpolates_linearly_between_ranks() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert quantile(values, 0.5) == pytest.approx(2.5)
    assert quantile(values, 0.25) == pytest.approx(1.75)
    assert quantile(values, 0.0) == 1.0
    assert quantile(values, 1.0) == 4.0
    with pytest.raises(ValueError, match="q must be in"):
        quantile(values, 1.5)


def _accuracy(truth: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    return {"accuracy": sum(t == p for t, p in zip(truth, predicted, strict=True)) / len(truth)}


def test_bootstrap_intervals_are_deterministic_for_a_seed_and_vary_with_it() -> None:
    truth = ["ok"] * 30 + ["not_ok"] * 30
    predicted = ["ok"] * 22 + ["not_ok"] * 8 + ["ok"] * 9 + ["not_ok"] * 21
    first = bootstrap_intervals(truth, predicted, _accuracy, resamples=400, seed=7)
    again = bootstrap_intervals(truth, predicted, _accuracy, resamples=400, seed=7)
    other = bootstrap_intervals(truth, predicted, _accuracy, resamples=400, seed=8)
    assert first == again
    assert first != other
    interval = first["accuracy"]
    assert interval.value == pytest.approx(43 / 60)
    assert interval.low < interval.value < interval.high
    # The normal approximation of a proportion's 95% interval is about +-0.114 here.
    half_width = 1.96 * math.sqrt(interval.value * (1 - interval.value) / 60)
    assert (interval.high - interval.low) / 2 == pytest.approx(half_width, rel=0.25)


def test_bootstrap_interval_of_a_perfect_prediction_is_a_point() -> None:
    labels = ["ok", "not_ok"] * 10
    intervals = bootstrap_intervals(labels, labels, _accuracy, resamples=50, seed=0)
    assert intervals == {"accuracy": Interval(1.0, 1.0, 1.0)}


def test_bootstrap_rejects_a_confidence_outside_zero_and_one() -> None:
    with pytest.raises(ValueError, match="confidence must be in"):
        bootstrap_intervals(["ok"], ["ok"], _accuracy, confidence=1.0)


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize(
    ("grounded", "ungrounded", "contradicted", "complementary"),
    [(0, 0, 0, 0), (2, 1, 0, 0), (1, 0, 2, 0), (0, 0, 2, 0), (1, 2, 1, 1), (0, 3, 0, 0)],
)
def test_graded_score_equals_gsar_score_for_any_rho(
    grounded: int, ungrounded: int, contradicted: int, complementary: int, rho: float
) -> None:
    def claims(count: int, kind: str) -> list[Claim]:
        return [Claim(f"{kind} {i}", kind) for i in range(count)]

    partition = Partition(
        grounded=claims(grounded, "specific_data"), ungrounded=claims(ungrounded, "inference"),
        contradicted=claims(contradicted, "tool_match"),
        complementary=claims(complementary, "complementary_finding"))
    graded = GradedScore.from_partition(partition, "ok")
    assert graded.score(rho) == pytest.approx(gsar_score(partition, contradiction_penalty=rho))


@pytest.mark.parametrize(("raw", "expected"), [
    ("OK", "ok"), (" not ok ", "not_ok"), ("not-ok", "not_ok"), ("Replan", "replan")])
def test_labels_are_normalised(raw: str, expected: str) -> None:
    assert normalize_label(raw) == expected


def test_an_unknown_label_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="proceed, regenerate, replan, ok, not_ok; got 'maybe'"):
        normalize_label("maybe")
