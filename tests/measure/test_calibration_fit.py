"""The grid search recovers known thresholds and rho; folds and input checks behave."""

from __future__ import annotations

import pytest

from gsar_otel.core.model import GSARThresholds, Partition
from gsar_otel.measure.calibration import (
    CalibrationFit,
    cross_validate,
    fit_thresholds,
    predict,
    stratified_folds,
)
from gsar_otel.measure.grades import GradedScore, check_calibration_input
from tests.measure.synthetic import graded_rows


def examples_from(rows: list[dict[str, object]]) -> list[GradedScore]:
    return [GradedScore.from_partition(Partition.model_validate(row["partition"]),
                                       str(row["label"])) for row in rows]


@pytest.mark.parametrize(("proceed", "regenerate"), [(0.72, 0.5), (0.85, 0.6), (0.6, 0.35)])
def test_fit_recovers_known_three_way_thresholds(proceed: float, regenerate: float) -> None:
    examples = examples_from(graded_rows(200, proceed=proceed, regenerate=regenerate, seed=1))
    fit = fit_thresholds(examples, scale="three_way", objective="f1")
    assert fit.thresholds.proceed == pytest.approx(proceed, abs=0.03)
    assert fit.thresholds.regenerate == pytest.approx(regenerate, abs=0.03)
    assert fit.objective == pytest.approx(1.0)
    assert fit.regenerate_fitted and not fit.rho_fitted


def test_fit_recovers_thresholds_despite_some_grader_disagreement() -> None:
    examples = examples_from(graded_rows(200, proceed=0.72, regenerate=0.5, noise=0.08, seed=2))
    fit = fit_thresholds(examples, scale="three_way", objective="f1")
    assert fit.thresholds.proceed == pytest.approx(0.72, abs=0.05)
    assert fit.thresholds.regenerate == pytest.approx(0.5, abs=0.05)
    assert fit.objective < 1.0


def test_binary_fit_recovers_proceed_and_keeps_the_default_band_below_it() -> None:
    examples = examples_from(graded_rows(150, proceed=0.66, regenerate=0.0, binary=True, seed=3))
    fit = fit_thresholds(examples, scale="binary")
    assert fit.thresholds.proceed == pytest.approx(0.66, abs=0.03)
    assert fit.thresholds.regenerate == pytest.approx(fit.thresholds.proceed - 0.15)
    assert not fit.regenerate_fitted


def test_fitted_thresholds_sit_in_the_middle_of_an_empty_gap() -> None:
    # Every not-ok answer scores 1/3, every ok answer 1.0: anything in (1/3, 1.0] separates them.
    low = Partition.model_validate({"grounded": [{"text": "a", "type": "tool_match"}],
                                    "ungrounded": [{"text": "b", "type": "tool_match"},
                                                   {"text": "c", "type": "tool_match"}]})
    high = Partition.model_validate({"grounded": [{"text": "a", "type": "tool_match"}]})
    # (Under the score policy: the contradiction policy would hold every low answer back.)
    score = {"contradiction_policy": "score"}
    examples = ([GradedScore.from_partition(low, "not_ok", policies=score)] * 10
                + [GradedScore.from_partition(high, "ok", policies=score)] * 10)
    # The value in force (0.30) lets the not-ok answers through, so the fit must move: it moves to
    # the centre of the plateau, not its edge.
    fit = fit_thresholds(examples, scale="binary", defaults=GSARThresholds(0.30, 0.15))
    assert 0.6 <= fit.thresholds.proceed <= 0.7
    # 0.80 also separates them perfectly: no candidate is strictly better, so it stays.
    kept = fit_thresholds(examples, scale="binary", defaults=GSARThresholds(0.80, 0.65))
    assert kept.thresholds == GSARThresholds(0.80, 0.65)
    # With the caps in force the value in force already stops every low answer: it stays.
    capped = ([GradedScore.from_partition(low, "not_ok")] * 10
              + [GradedScore.from_partition(high, "ok")] * 10)
    stays = fit_thresholds(capped, scale="binary", defaults=GSARThresholds(0.30, 0.15))
    assert stays.thresholds == GSARThresholds(0.30, 0.15)


@pytest.mark.parametrize("scale", ["binary", "three_way"])
def test_thresholds_in_force_stay_when_every_candidate_ties(scale: str) -> None:
    # Every answer is fully grounded and graded ok/proceed: every threshold scores the same.
    high = Partition.model_validate({"grounded": [{"text": "a", "type": "tool_match"}]})
    label = "ok" if scale == "binary" else "proceed"
    examples = [GradedScore.from_partition(high, label)] * 20
    fit = fit_thresholds(examples, scale=scale)  # type: ignore[arg-type]
    assert fit.thresholds == GSARThresholds()
    assert fit.contradiction_penalty == 0.5


def test_thresholds_in_force_move_when_a_candidate_is_strictly_better() -> None:
    examples = examples_from(graded_rows(150, proceed=0.66, regenerate=0.0, binary=True, seed=3))
    fit = fit_thresholds(examples, scale="binary", defaults=GSARThresholds(0.80, 0.65))
    assert fit.thresholds.proceed != 0.80


@pytest.mark.parametrize("seed", [4, 5])
def test_fitted_rho_follows_how_much_graders_punish_contradictions(seed: int) -> None:
    harsh = examples_from(graded_rows(200, proceed=0.7, regenerate=0.5, rho=1.0, seed=seed))
    lenient = examples_from(graded_rows(200, proceed=0.7, regenerate=0.5, rho=0.1, seed=seed))
    harsh_fit = fit_thresholds(harsh, scale="three_way", fit_rho=True)
    lenient_fit = fit_thresholds(lenient, scale="three_way", fit_rho=True)
    assert harsh_fit.contradiction_penalty >= 0.8
    assert lenient_fit.contradiction_penalty <= 0.3
    assert harsh_fit.rho_fitted
    # Without --fit-rho the default is kept whatever the grades say.
    assert fit_thresholds(harsh, scale="three_way").contradiction_penalty == 0.5


def test_an_abstained_verdict_is_predicted_replan_whatever_its_score() -> None:
    example = GradedScore(support=5.0, ungrounded=0.0, contradicted=0.0, label="proceed",
                          abstained=True)
    assert predict(example, GSARThresholds(), 0.5) == "replan"
    assert predict(GradedScore(5.0, 0.0, 0.0, "proceed"), GSARThresholds(), 0.5) == "proceed"


def test_stratified_folds_partition_the_indices_and_spread_every_label() -> None:
    labels = ["ok"] * 12 + ["not_ok"] * 8
    folds = stratified_folds(labels, 4, seed=1)
    assert sorted(i for fold in folds for i in fold) == list(range(20))
    for fold in folds:
        assert [labels[i] for i in fold].count("ok") == 3
        assert [labels[i] for i in fold].count("not_ok") == 2
    assert folds == stratified_folds(labels, 4, seed=1)
    assert folds != stratified_folds(labels, 4, seed=2)


def test_cross_validation_predicts_every_held_out_answer_with_a_fit_from_other_folds() -> None:
    examples = examples_from(graded_rows(100, proceed=0.7, regenerate=0.5, seed=6))
    cv = cross_validate(examples, scale="three_way", folds=5, seed=0)
    assert len(cv.fits) == 5
    assert all(isinstance(fit, CalibrationFit) for fit in cv.fits)
    assert len(cv.predictions) == len(examples)
    correct = sum(p == e.label for p, e in zip(cv.predictions, examples, strict=True))
    assert correct / len(examples) >= 0.9


def _repeat(label: str, count: int) -> list[GradedScore]:
    return [GradedScore(1.0, 0.0, 0.0, label)] * count


@pytest.mark.parametrize(("examples", "message"), [
    (_repeat("ok", 5) + _repeat("not_ok", 4), "too few graded answers: 9"),
    (_repeat("ok", 20), "every answer is graded 'ok'"),
    (_repeat("ok", 20) + _repeat("not_ok", 3), "only 3 answer\\(s\\) graded 'not_ok'"),
    (_repeat("proceed", 10) + _repeat("replan", 10), "only 0 answer\\(s\\) graded 'regenerate'"),
    (_repeat("proceed", 10) + _repeat("not_ok", 10), "on the binary scale but label 1"),
])
def test_calibration_input_problems_are_named(examples: list[GradedScore], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_calibration_input(examples, folds=5)


def test_folds_below_two_are_rejected() -> None:
    with pytest.raises(ValueError, match="--folds must be >= 2, got 1"):
        check_calibration_input(_repeat("ok", 10) + _repeat("not_ok", 10), folds=1)


def test_rho_stays_at_the_value_in_force_when_no_answer_has_a_contradiction() -> None:
    rows = graded_rows(120, proceed=0.7, regenerate=0.5, seed=9)
    for row in rows:
        row["partition"]["contradicted"] = []  # type: ignore[index]
    examples = examples_from(rows)
    assert fit_thresholds(examples, scale="three_way", fit_rho=True,
                          default_rho=0.3).contradiction_penalty == 0.3
