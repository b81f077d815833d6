"""Per-deployment recalibration of the decision thresholds (and rho) on a human-graded set.

The paper's reference thresholds (0.80 / 0.65, rho 0.5) are one calibrated point, not a law. A
deployment grades 100-200 of its own answers (``proceed | regenerate | replan``, or simply
``ok | not_ok``) and fits the thresholds that best reproduce those grades. Everything here is a
pure function of the graded scores (:mod:`gsar_otel.measure.grades`); parsing and judging the
graded file are in :mod:`gsar_otel.measure.graded_input`, the report's metrics and bootstrap
intervals in :mod:`gsar_otel.measure.calibration_report`, the plot in
:mod:`gsar_otel.measure.calibration_plot`, and reading files and printing in
``gsar_otel.cli.calibrate``.

How the fit works:

- Each graded answer is reduced to the three weights its score depends on, W(G)+W(K), W(U) and
  W(X), so S can be recomputed for any rho (Eq. 2) without judging again.
- Grid search: tau_proceed and tau_regenerate over 0.00, 0.01, ..., 1.00 with regenerate <= proceed,
  and, when asked, rho over 0.0, 0.1, ..., 1.0. A threshold set predicts what :func:`decide` would
  (boundaries included within its tolerance) and then the decision policies in force would (an
  answer a cap holds back never proceeds, whatever the thresholds); an abstained verdict always
  counts as ``replan``.
- Objective (``--objective``). ``cost``, the default: this is a safety gate, so a false pass
  (an answer graded not_ok, regenerate or replan that the thresholds let proceed) costs
  ``false_pass_cost`` (default 5) and a false stop (an answer graded ok / proceed held back)
  costs 1; the search minimises the mean cost per answer. With three-way labels the macro F1
  breaks ties, which places tau_regenerate. ``f1``: with ``ok | not_ok`` labels, the F1 of
  "proceed" (ok = proceed); with three-way labels, the macro-averaged F1 over the three classes.
  F1 of "proceed" rewards letting answers through and can open the gate (30 graded answers have
  fitted proceed 0.25), which is why it is not the default. Binary grades say nothing about
  where regenerate ends and replan begins, so tau_regenerate keeps the default band width below
  the fitted tau_proceed.
- :func:`false_passes` counts the false passes of any threshold set; ``gsar calibrate`` warns
  when the fit has more of them than the thresholds in force, and then refuses to write it.
- The thresholds in force stay in force unless a grid point does strictly better: a tie with
  them is not a reason to move (a set that cannot tell 0.80 from 0.50 apart says nothing about
  either). Otherwise, among equally good grid points the one nearest the median of all of them
  wins: the centre of the optimal plateau, not its edge, which generalises better and is
  reproducible. rho, likewise, leaves the value in force only when another value does strictly
  better (with no contradicted claims in the set, rho cannot matter).
- Thresholds have nothing to train but themselves, so the final search runs on the whole set.
  K-fold cross-validation (stratified by label, seeded) runs the same search on K-1 folds and
  predicts the held-out fold; the pooled out-of-fold predictions give an honest estimate of the
  metrics on new answers (in-sample metrics at the fitted values are optimistic), and the fold
  fits show how stable the thresholds are.
- Confidence intervals are percentile bootstraps over answers (seeded, so deterministic), their
  ends linear-interpolation quantiles (:mod:`gsar_otel.measure.stats`).
"""

from __future__ import annotations

import random
import statistics
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.model import GSARThresholds
from gsar_otel.core.scoring import BOUNDARY_TOLERANCE, decide
from gsar_otel.measure.grades import (
    DEFAULT_RHO,
    OK,
    PROCEED,
    REGENERATE,
    REPLAN,
    THREE_WAY_LABELS,
    GradedScore,
    LabelScale,
    is_ok,
)
from gsar_otel.measure.stats import f1_from_counts

THRESHOLD_GRID: Final = tuple(i / 100 for i in range(101))
"""Candidate thresholds: 0.00 to 1.00 in steps of 0.01."""
RHO_GRID: Final = tuple(i / 10 for i in range(11))
"""Candidate contradiction penalties: 0.0 to 1.0 in steps of 0.1."""

DEFAULT_FOLDS: Final = 5

Objective = Literal["cost", "f1"]
OBJECTIVES: Final = ("cost", "f1")
DEFAULT_OBJECTIVE: Final = "cost"
DEFAULT_FALSE_PASS_COST: Final = 5.0
"""What a false pass costs against a false stop (1) under the ``cost`` objective."""
_TIE_BREAK: Final = 1e-9
"""Weight of the macro F1 under the ``cost`` objective: it only breaks ties of cost."""

_EPSILON: Final = 1e-12
"""Objective values closer than this are ties."""


# --- prediction and fitting ------------------------------------------------------------------


def predict(example: GradedScore, thresholds: GSARThresholds, rho: float) -> str:
    """The decision class the thresholds give ``example``: proceed, regenerate or replan."""
    if example.abstained:
        return REPLAN
    decision = decide(example.score(rho), thresholds=thresholds).value
    if example.capped and decision == PROCEED:
        return REGENERATE  # as the real decision's policy caps do
    return decision


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


def objective_name(scale: LabelScale, objective: Objective = DEFAULT_OBJECTIVE,
                   false_pass_cost: float = DEFAULT_FALSE_PASS_COST) -> str:
    """What the search optimises for this label scale and objective."""
    if objective == "cost":
        return f"cost (false pass {false_pass_cost:g}, false stop 1)"
    return "f1_proceed" if scale == "binary" else "macro_f1"


def check_objective(objective: str, false_pass_cost: float) -> None:
    """Raises ValueError for an unknown objective or a false-pass cost below 1."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if not false_pass_cost >= 1.0 or false_pass_cost == float("inf"):
        raise ValueError(f"the false-pass cost must be a finite number >= 1 (a false pass costs "
                         f"at least what a false stop does), got {false_pass_cost!r}")


def false_passes(examples: Sequence[GradedScore], thresholds: GSARThresholds, rho: float
                 ) -> int:
    """Answers graded anything but ok / proceed that ``thresholds`` let proceed."""
    return sum(1 for example in examples
               if not example.ok and predict(example, thresholds, rho) == PROCEED)


def fit_thresholds(
    examples: Sequence[GradedScore],
    *,
    scale: LabelScale,
    defaults: GSARThresholds | None = None,
    default_rho: float = DEFAULT_RHO,
    fit_rho: bool = False,
    threshold_grid: Sequence[float] = THRESHOLD_GRID,
    rho_grid: Sequence[float] = RHO_GRID,
    objective: Objective = DEFAULT_OBJECTIVE,
    false_pass_cost: float = DEFAULT_FALSE_PASS_COST,
) -> CalibrationFit:
    """Grid-search tau_proceed, tau_regenerate (and rho) that best reproduce the grades.

    See the module docstring for the objective and the tie rule.

    Raises:
        ValueError: no examples, an empty grid, or a bad objective.
    """
    check_objective(objective, false_pass_cost)
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
        for value, proceed, regenerate in _search_one_rho(examples, scale, rho, grid,
                                                          objective, false_pass_cost):
            if value > best + _EPSILON:
                best, optimal = value, []
            if value >= best - _EPSILON:
                optimal.append((rho, proceed, regenerate))
    # rho moves away from the value in force only when that does better, not on a tie.
    at_default = [point for point in optimal if point[0] == default_rho]
    in_force = [point for point in at_default if _is_in_force(point, base, scale)]
    rho, proceed, regenerate = in_force[0] if in_force else _central(at_default or optimal)
    if scale == "binary":
        regenerate = round(max(0.0, proceed - band), 6)
    return CalibrationFit(
        thresholds=GSARThresholds(proceed=proceed, regenerate=regenerate),
        contradiction_penalty=rho,
        objective=best,
        regenerate_fitted=scale == "three_way",
        rho_fitted=fit_rho,
    )


def _is_in_force(point: tuple[float, float, float], base: GSARThresholds,
                 scale: LabelScale) -> bool:
    """Whether a grid point is the threshold set in force (binary grades fit only tau_proceed)."""
    _, proceed, regenerate = point
    if abs(proceed - base.proceed) > _EPSILON:
        return False
    return scale == "binary" or abs(regenerate - base.regenerate) <= _EPSILON


def _search_one_rho(
    examples: Sequence[GradedScore], scale: LabelScale, rho: float, grid: Sequence[float],
    objective: Objective = DEFAULT_OBJECTIVE, false_pass_cost: float = DEFAULT_FALSE_PASS_COST,
) -> Iterable[tuple[float, float, float]]:
    """Yield ``(objective, proceed, regenerate)`` for every grid point at one rho (the cost
    objective as minus the mean cost, so that larger is better under either objective).

    Prefix counts over the answers sorted by S make each grid point O(1): the answers below a
    threshold are a prefix of the sorted order.
    """
    # A capped answer never proceeds: for the proceed threshold it sorts below every grid point
    # (a second order, by S with caps applied), for the regenerate threshold by its own S.
    judged = sorted((e.score(rho) + BOUNDARY_TOLERANCE, e.label) for e in examples
                    if not e.abstained)
    gated = sorted((-1.0 if e.capped else e.score(rho) + BOUNDARY_TOLERANCE, e.label)
                   for e in examples if not e.abstained)
    # decide() puts s in the band of t when s + tolerance >= t, so "below t" is a bisect_left.
    shifted = [s for s, _ in judged]
    shifted_gated = [s for s, _ in gated]
    below = {t: bisect_left(shifted, t) for t in grid}
    below_gated = {t: bisect_left(shifted_gated, t) for t in grid}
    labels = THREE_WAY_LABELS if scale == "three_way" else (OK,)

    def prefixes(order: Sequence[tuple[float, str]]) -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        for name in labels:
            counts = [0]
            for _, label in order:
                counts.append(counts[-1] + (label == name or (name == OK and is_ok(label))))
            table[name] = counts
        return table

    prefix, prefix_gated = prefixes(judged), prefixes(gated)
    n_judged = len(judged)
    abstained = [e.label for e in examples if e.abstained]

    def cost(passed: int, passed_ok: int, actual_ok: int) -> float:
        """Minus the mean cost of letting ``passed`` answers proceed, ``passed_ok`` of them ok."""
        return -(false_pass_cost * (passed - passed_ok) + (actual_ok - passed_ok)) / len(examples)

    if scale == "binary":
        actual_ok = sum(1 for e in examples if e.ok)
        ok_judged = prefix_gated[OK][n_judged]
        for proceed in grid:
            i = below_gated[proceed]
            tp = ok_judged - prefix_gated[OK][i]
            predicted_ok = n_judged - i
            if objective == "cost":
                yield cost(predicted_ok, tp, actual_ok), proceed, proceed
            else:
                yield f1_from_counts(tp, predicted_ok - tp, actual_ok - tp), proceed, proceed
        return

    actual = {name: sum(1 for e in examples if e.label == name) for name in THREE_WAY_LABELS}
    abstained_replan = sum(1 for label in abstained if label == REPLAN)
    proceed_judged = prefix_gated[PROCEED][n_judged]
    for pi, proceed in enumerate(grid):
        ip = below_gated[proceed]
        passed = n_judged - ip
        tp_proceed = proceed_judged - prefix_gated[PROCEED][ip]
        f1_proceed = f1_from_counts(tp_proceed, passed - tp_proceed, actual[PROCEED] - tp_proceed)
        regenerate_passed = prefix_gated[REGENERATE][n_judged] - prefix_gated[REGENERATE][ip]
        base = cost(passed, tp_proceed, actual[PROCEED]) if objective == "cost" else None
        for regenerate in grid[: pi + 1]:
            ir = below[regenerate]
            # At least regenerate by S (caps never lower a decision below regenerate), less
            # those that proceed.
            at_least = n_judged - ir
            tp_regen = (prefix[REGENERATE][n_judged] - prefix[REGENERATE][ir]) - regenerate_passed
            tp_replan = prefix[REPLAN][ir] + abstained_replan
            predicted_replan = ir + len(abstained)
            f1_regen = f1_from_counts(tp_regen, (at_least - passed) - tp_regen,
                                      actual[REGENERATE] - tp_regen)
            f1_replan = f1_from_counts(tp_replan, predicted_replan - tp_replan,
                                       actual[REPLAN] - tp_replan)
            macro = (f1_proceed + f1_regen + f1_replan) / 3.0
            value = macro if base is None else base + _TIE_BREAK * macro
            yield value, proceed, regenerate


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
    objective: Objective = DEFAULT_OBJECTIVE,
    false_pass_cost: float = DEFAULT_FALSE_PASS_COST,
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
                             fit_rho=fit_rho, objective=objective,
                             false_pass_cost=false_pass_cost)
        fits.append(fit)
        for i in held_out:
            predictions[i] = predict(examples[i], fit.thresholds, fit.contradiction_penalty)
    return CrossValidation(fits=tuple(fits), predictions=tuple(predictions))
