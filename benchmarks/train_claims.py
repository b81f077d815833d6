"""The staged judge's claim model, learned for ``benchmarks/train_lexical.py`` (dev rows only).

A multinomial logistic regression (:func:`fit`, by Adam) or one boosted tree ensemble per class
(:func:`fit_trees`, ``benchmarks/train_trees.py``), both fitted to the same objective: weighted
claim cross-entropy (each data set and class weighing the same) plus an answer-level log-loss in
which P(faithful) is the product over the answer's claims of P(grounded) + P(complementary).
:func:`choose_capacity` picks the L2 strength (or the trees' round count) by grouped
cross-validated log-loss.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
import train_trees

from gsar_otel.judges.staged.trees import Ensemble

CLASSES = ("grounded", "ungrounded", "contradicted", "complementary")
SEED = 20261203
L2_GRID = (0.001, 0.01, 0.1, 1.0)


@dataclass
class AnswerRows:
    """Answers labelled only as a whole: their claims' vectors, the answer each belongs to,
    and per answer its label and weight. P(faithful) = product of the claims' P(grounded or
    complementary): every claim of a faithful answer is grounded."""

    x: np.ndarray
    group: np.ndarray
    y: np.ndarray
    w: np.ndarray

    def take(self, answers: np.ndarray) -> AnswerRows:
        keep = answers[self.group]
        renumber = np.cumsum(answers) - 1
        return AnswerRows(self.x[keep], renumber[self.group[keep]], self.y[answers],
                          self.w[answers])


SUPPORT = np.array([c in ("grounded", "complementary") for c in CLASSES])


def _softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def gradients(weights: np.ndarray, bias: np.ndarray, x: np.ndarray, y: np.ndarray,
              w: np.ndarray, answers: AnswerRows, total: float,
              l2: float) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of the weighted claim cross-entropy plus the answer-level log-loss."""
    p = _softmax(x @ weights.T + bias)
    error = (p - np.eye(len(CLASSES))[y]) * w[:, None] / total
    g_w = error.T @ x + l2 * weights
    g_b = error.sum(axis=0)
    if len(answers.y):
        q = _softmax(answers.x @ weights.T + bias)
        support = np.clip((q * SUPPORT).sum(axis=1), 1e-9, 1.0)
        log_p = np.bincount(answers.group, np.log(support), minlength=len(answers.y))
        prob = np.clip(np.exp(log_p), 1e-9, 1 - 1e-9)
        d_log_p = np.where(answers.y, -1.0, prob / (1 - prob)) * answers.w / total
        d_z = (SUPPORT * q / support[:, None] - q) * d_log_p[answers.group][:, None]
        g_w += d_z.T @ answers.x
        g_b += d_z.sum(axis=0)
    return g_w, g_b


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, answers: AnswerRows, l2: float,
        steps: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression, weighted, L2 on weights (not bias), by Adam."""
    rng = np.random.default_rng(SEED)
    k = len(CLASSES)
    weights = rng.normal(0, 0.01, (k, x.shape[1]))
    bias = np.zeros(k)
    m_w = np.zeros_like(weights)
    v_w = np.zeros_like(weights)
    m_b = np.zeros_like(bias)
    v_b = np.zeros_like(bias)
    total = w.sum() + answers.w.sum()
    for step in range(1, steps + 1):
        g_w, g_b = gradients(weights, bias, x, y, w, answers, total, l2)
        for param, grad, m, v in ((weights, g_w, m_w, v_w), (bias, g_b, m_b, v_b)):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= 0.05 * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return weights, bias


CLAIM_TREES = train_trees.Params(depth=3, rounds=150, learning_rate=0.1, l2=1.0,
                                 min_hessian=1.0)
CLAIM_TREE_ROUNDS = (50, 100, 150)
"""The boosted claim model (``--claim-learner trees``): one ensemble per class, its round count
chosen among these by grouped cross-validated log-loss, as the logistic L2 is."""


def fit_trees(x: np.ndarray, y: np.ndarray, w: np.ndarray, answers: AnswerRows,
              params: train_trees.Params) -> tuple[Ensemble, ...]:
    """Boosted trees for the same objective as :func:`fit` (claim cross-entropy plus the
    answer-level log-loss); the loss is scaled to one unit per row so that the trees' L2 and
    least Hessian read in rows."""
    k = len(CLASSES)
    rows = np.vstack([x, answers.x]) if len(answers.y) else x
    total = w.sum() + answers.w.sum()
    unit = len(rows) / total
    onehot = np.eye(k)[y]
    n = len(y)

    def grad_hess(margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = _softmax(margin[:n])
        g = (p - onehot) * w[:, None]
        h = p * (1 - p) * w[:, None]
        if len(answers.y):
            q = _softmax(margin[n:])
            support = np.clip((q * SUPPORT).sum(axis=1), 1e-9, 1.0)
            log_p = np.bincount(answers.group, np.log(support), minlength=len(answers.y))
            prob = np.clip(np.exp(log_p), 1e-9, 1 - 1e-9)
            d_log_p = np.where(answers.y, -1.0, prob / (1 - prob)) * answers.w
            d_z = (SUPPORT * q / support[:, None] - q) * d_log_p[answers.group][:, None]
            g = np.vstack([g, d_z])
            h = np.vstack([h, q * (1 - q) * np.abs(d_log_p[answers.group])[:, None]])
        return g * unit, h * unit

    return train_trees.fit_multiclass(rows, grad_hess, k, params)


def sample_weights(datasets: list[str], y: np.ndarray) -> np.ndarray:
    """Each data set weighs the same; within one, each class weighs the same."""
    counts: dict[tuple[str, int], int] = defaultdict(int)
    for d, c in zip(datasets, y, strict=True):
        counts[(d, int(c))] += 1
    classes_in: dict[str, int] = defaultdict(int)
    for d, _ in counts:
        classes_in[d] += 1
    return np.array([1.0 / (classes_in[d] * counts[(d, int(c))])
                     for d, c in zip(datasets, y, strict=True)])


def choose_capacity(xs: np.ndarray, y: np.ndarray, w: np.ndarray, fold_of: np.ndarray,
                    answers: AnswerRows, answer_fold: np.ndarray, folds: int, learner: str,
                    l2: float | None) -> tuple[float, float, dict[int, tuple[Any, Any]]]:
    """The L2 strength (``logistic``; ``l2`` fixes it) or round count (``trees``) with the least
    grouped cross-validated weighted log-loss, that loss, and its fold models by fold."""
    best_l2, best_loss = L2_GRID[0], float("inf")
    fold_fits: dict[float, dict[int, tuple[Any, Any]]] = {}
    if learner == "trees":
        grid: tuple[float, ...] = CLAIM_TREE_ROUNDS
        ensembles = {fold: fit_trees(xs[fold_of != fold], y[fold_of != fold],
                                     w[fold_of != fold], answers.take(answer_fold != fold),
                                     CLAIM_TREES) for fold in range(folds)}
    else:
        grid = (l2,) if l2 is not None else L2_GRID
    for value in grid:
        fold_fits[value] = {}
        loss = 0.0
        for fold in range(folds):
            train = fold_of != fold
            if learner == "trees":
                rounds = int(value)
                fitted = tuple(Ensemble(e.base, e.learning_rate, e.trees[:rounds], e.features,
                                        e.seed) for e in ensembles[fold])
                fold_fits[value][fold] = (fitted, None)
                logits = np.stack([train_trees.predict_margin(e, xs[~train]) for e in fitted],
                                  axis=1)
            else:
                weights, bias = fit(xs[train], y[train], w[train],
                                    answers.take(answer_fold != fold), value)
                fold_fits[value][fold] = (weights, bias)
                logits = xs[~train] @ weights.T + bias
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            loss -= float((w[~train] * np.log(p[np.arange(len(p)), y[~train]] + 1e-12)).sum())
        loss /= w.sum()
        print(f"{'rounds' if learner == 'trees' else 'l2'}={value}: cv log-loss "
              f"{loss:.4f}", file=sys.stderr)
        if loss < best_loss:
            best_l2, best_loss = value, loss
    return best_l2, best_loss, fold_fits[best_l2]
