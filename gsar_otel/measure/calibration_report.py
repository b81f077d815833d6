"""The ``gsar calibrate`` report: the metrics of a set of decisions with bootstrap intervals,
measured at the values in force, at the fitted values and cross-validated, and the settings
file the fitted values are written to.

Metrics are those of "proceed" against the rest (precision, recall, F1), accuracy on the grades'
own scale and, for three-way grades, macro-F1; each comes with a percentile-bootstrap interval
over answers (:func:`gsar_otel.measure.stats.bootstrap`, seeded, so deterministic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from gsar_otel.core.model import GSARThresholds
from gsar_otel.measure.calibration import (
    DEFAULT_FALSE_PASS_COST,
    DEFAULT_OBJECTIVE,
    Objective,
    cross_validate,
    false_passes,
    fit_thresholds,
    objective_name,
    predict_all,
)
from gsar_otel.measure.grades import (
    BINARY_LABELS,
    DEFAULT_RHO,
    PROCEED,
    THREE_WAY_LABELS,
    GradedScore,
    LabelScale,
    is_ok,
)
from gsar_otel.measure.stats import (
    Interval,
    binary_metrics,
    bootstrap,
    multiclass_metrics,
    same_length,
)

DEFAULT_RESAMPLES: Final = 1000
DEFAULT_CONFIDENCE: Final = 0.95


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
        multi = multiclass_metrics(truth, predicted, THREE_WAY_LABELS)
        values["accuracy"] = multi.accuracy
        values["macro_f1"] = multi.macro_f1
    return values


def bootstrap_intervals(
    truth: Sequence[str],
    predicted: Sequence[str],
    statistic: Callable[[Sequence[str], Sequence[str]], Mapping[str, float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = 0,
    strata: Sequence[str] | None = None,
) -> dict[str, Interval]:
    """Percentile-bootstrap intervals for every value ``statistic`` returns.

    Answers (each a grade with its prediction) are resampled with replacement ``resamples`` times
    from ``random.Random(seed)``, so the same inputs and seed always give the same intervals; with
    ``strata`` (one key per answer, such as the grades) each stratum is resampled on its own. See
    :func:`gsar_otel.measure.stats.bootstrap`.

    Raises:
        ValueError: no answers, ``resamples`` < 1, or ``confidence`` not in (0, 1).
    """
    same_length(truth, predicted)
    if not truth:
        raise ValueError("bootstrap needs at least one answer")

    def on_pairs(pairs: Sequence[tuple[str, str]]) -> Mapping[str, float]:
        return statistic([t for t, _ in pairs], [p for _, p in pairs])

    return bootstrap(list(zip(truth, predicted, strict=True)), on_pairs, resamples=resamples,
                     confidence=confidence, seed=seed, strata=strata)


def build_report(
    examples: Sequence[GradedScore], *, scale: LabelScale, folds: int, fit_rho: bool,
    seed: int, resamples: int, baseline: GSARThresholds | None = None,
    baseline_rho: float = DEFAULT_RHO, objective: Objective = DEFAULT_OBJECTIVE,
    false_pass_cost: float = DEFAULT_FALSE_PASS_COST,
) -> dict[str, Any]:
    """Fit, cross-validate and measure; the report as a JSON-ready dict.

    ``baseline`` and ``baseline_rho`` are the values in force (default: built in); they are
    measured as "defaults", and rho stays at ``baseline_rho`` unless ``fit_rho``. Each point
    carries its ``false_passes`` (answers not graded ok that it lets proceed); ``opens_gate``
    is true when the fit has more of them than the values in force.
    """
    defaults = baseline or GSARThresholds()
    default_rho = baseline_rho
    truth = [e.label for e in examples]

    def metrics(predicted: Sequence[str]) -> dict[str, dict[str, float]]:
        intervals = bootstrap_intervals(
            truth, predicted, lambda t, p: decision_metrics(scale, t, p),
            resamples=resamples, seed=seed)
        return {name: interval.as_dict() for name, interval in intervals.items()}

    fit = fit_thresholds(examples, scale=scale, defaults=defaults, default_rho=default_rho,
                         fit_rho=fit_rho, objective=objective, false_pass_cost=false_pass_cost)
    cv = cross_validate(examples, scale=scale, folds=folds, seed=seed, defaults=defaults,
                        default_rho=default_rho, fit_rho=fit_rho, objective=objective,
                        false_pass_cost=false_pass_cost)
    passes_in_force = false_passes(examples, defaults, default_rho)
    passes_fitted = false_passes(examples, fit.thresholds, fit.contradiction_penalty)
    classes = BINARY_LABELS if scale == "binary" else THREE_WAY_LABELS
    return {
        "examples": len(examples),
        "label_scale": scale,
        "labels": {name: truth.count(name) for name in classes},
        "objective": objective_name(scale, objective, false_pass_cost),
        "opens_gate": passes_fitted > passes_in_force,
        "folds": folds,
        "seed": seed,
        "bootstrap": {"resamples": resamples, "confidence": DEFAULT_CONFIDENCE},
        "defaults": {
            **settings_document(defaults, default_rho),
            "false_passes": passes_in_force,
            "metrics": metrics(predict_all(examples, defaults, default_rho)),
        },
        "fitted": {
            **settings_document(fit.thresholds, fit.contradiction_penalty),
            "objective": fit.objective,
            "false_passes": passes_fitted,
            "regenerate_fitted": fit.regenerate_fitted,
            "rho_fitted": fit.rho_fitted,
            "metrics": metrics(predict_all(examples, fit.thresholds, fit.contradiction_penalty)),
        },
        "cross_validated": {
            "metrics": metrics(cv.predictions),
            "false_passes": sum(1 for example, decision in zip(examples, cv.predictions,
                                                               strict=True)
                                if not example.ok and decision == PROCEED),
            "fold_fits": [settings_document(f.thresholds, f.contradiction_penalty)
                          for f in cv.fits],
        },
        "settings_file": None,
        "plot": None,
    }


def settings_document(thresholds: GSARThresholds, contradiction_penalty: float
                      ) -> dict[str, Any]:
    """The GSAR_CONFIG settings file content for fitted values (also each point of the report)."""
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
