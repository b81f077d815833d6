"""Gradient-boosted shallow trees for a weighted binary log-loss, in numpy (dev-side training).

Second-order boosting: each round fits one tree of depth at most ``depth`` to the loss's
gradients and Hessians, splitting greedily on candidate thresholds (midpoints between a
feature's distinct values, thinned to at most ``bins`` quantiles), leaf value -G / (H + l2).
No sampling, so training is deterministic; the seed is recorded only. Inference is
``gsar_otel.judges.staged.trees`` (plain Python); :func:`predict_margin` is its numpy twin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gsar_otel.judges.staged.trees import LEAF, Ensemble, Tree

SEED = 20261203


@dataclass(frozen=True)
class Params:
    depth: int = 2
    rounds: int = 100
    learning_rate: float = 0.1
    l2: float = 1.0
    min_hessian: float = 1.0
    bins: int = 32


def candidate_thresholds(x: np.ndarray, bins: int) -> list[np.ndarray]:
    """Per feature, the midpoints between consecutive distinct values (at most ``bins``)."""
    out = []
    for column in x.T:
        values = np.unique(column)
        mids = (values[:-1] + values[1:]) / 2
        if len(mids) > bins:
            mids = np.unique(np.quantile(mids, np.linspace(0, 1, bins), method="nearest"))
        out.append(mids)
    return out


def binned(x: np.ndarray, thresholds: list[np.ndarray]) -> np.ndarray:
    """Each value's bin: the number of the feature's thresholds below it, so that
    ``value <= thresholds[j]`` exactly when ``bin <= j``."""
    return np.stack([np.searchsorted(cuts, column, side="left")
                     for cuts, column in zip(thresholds, x.T, strict=True)], axis=1)


def _best_split(bins: np.ndarray, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
                thresholds: list[np.ndarray], p: Params) -> tuple[float, int, float]:
    """(gain, feature, threshold) of the best split of ``rows``; gain 0 when none helps."""
    gs, hs = g[rows].sum(), h[rows].sum()
    parent = gs * gs / (hs + p.l2)
    best = (0.0, LEAF, 0.0)
    for feature, cuts in enumerate(thresholds):
        if not len(cuts):
            continue
        column = bins[rows, feature]
        gl = np.cumsum(np.bincount(column, g[rows], minlength=len(cuts) + 1))[:-1]
        hl = np.cumsum(np.bincount(column, h[rows], minlength=len(cuts) + 1))[:-1]
        gr, hr = gs - gl, hs - hl
        gain = gl * gl / (hl + p.l2) + gr * gr / (hr + p.l2) - parent
        gain[(hl < p.min_hessian) | (hr < p.min_hessian)] = -np.inf
        at = int(np.argmax(gain))
        if gain[at] > best[0] + 1e-12:
            best = (float(gain[at]), feature, float(cuts[at]))
    return best


def fit_tree(bins: np.ndarray, g: np.ndarray, h: np.ndarray, thresholds: list[np.ndarray],
             p: Params) -> Tree:
    """One tree fitted to gradients ``g`` and Hessians ``h`` of the rows ``bins`` bins
    (nodes in breadth-first order)."""
    feature: list[int] = []
    threshold: list[float] = []
    value: list[float] = []
    queue = [(np.arange(len(g)), 0)]
    while queue:
        rows, depth = queue.pop(0)
        split = (_best_split(bins, g, h, rows, thresholds, p) if depth < p.depth
                 else (0.0, LEAF, 0.0))
        feature.append(split[1])
        threshold.append(split[2] if split[1] != LEAF else 0.0)
        value.append(float(-g[rows].sum() / (h[rows].sum() + p.l2)))
        if split[1] != LEAF:
            cut = int(np.searchsorted(thresholds[split[1]], split[2]))
            goes_left = bins[rows, split[1]] <= cut
            queue.append((rows[goes_left], depth + 1))
            queue.append((rows[~goes_left], depth + 1))
    return _renumber(feature, threshold, value)


def _renumber(feature: list[int], threshold: list[float], value: list[float]) -> Tree:
    """Children indices of a breadth-first node list (each split's two children come next in
    the order splits were made)."""
    left: list[int] = []
    right: list[int] = []
    following = 1
    for f in feature:
        if f == LEAF:
            left.append(LEAF)
            right.append(LEAF)
        else:
            left.append(following)
            right.append(following + 1)
            following += 2
    return Tree(tuple(feature), tuple(threshold), tuple(left), tuple(right), tuple(value))


def predict_tree(tree: Tree, x: np.ndarray) -> np.ndarray:
    """The tree's leaf values for every row of ``x`` (numpy)."""
    node = np.zeros(len(x), dtype=int)
    feature = np.array(tree.feature)
    threshold = np.array(tree.threshold)
    left, right, value = np.array(tree.left), np.array(tree.right), np.array(tree.value)
    for _ in range(len(tree.feature)):
        inner = feature[node] != LEAF
        if not inner.any():
            break
        f = np.where(inner, feature[node], 0)
        goes_left = x[np.arange(len(x)), f] <= threshold[node]
        node = np.where(inner, np.where(goes_left, left[node], right[node]), node)
    return value[node]


def predict_margin(ensemble: Ensemble, x: np.ndarray, rounds: int | None = None) -> np.ndarray:
    """The ensemble's margins for every row (the first ``rounds`` trees when given)."""
    total = np.zeros(len(x))
    for tree in ensemble.trees[:rounds]:
        total += predict_tree(tree, x)
    return ensemble.base + ensemble.learning_rate * total


def fit_binary(x: np.ndarray, y: np.ndarray, w: np.ndarray, p: Params) -> Ensemble:
    """Boosted trees minimising the weighted binary log-loss."""
    y = y.astype(float)
    prior = float(np.clip((w * y).sum() / w.sum(), 1e-6, 1 - 1e-6))
    base = float(np.log(prior / (1 - prior)))
    thresholds = candidate_thresholds(x, p.bins)
    bins = binned(x, thresholds)
    margin = np.full(len(y), base)
    trees = []
    for _ in range(p.rounds):
        prob = 1 / (1 + np.exp(-np.clip(margin, -50, 50)))
        g = (prob - y) * w
        h = np.maximum(prob * (1 - prob), 1e-6) * w
        tree = fit_tree(bins, g, h, thresholds, p)
        trees.append(tree)
        margin += p.learning_rate * predict_tree(tree, x)
    return Ensemble(base, p.learning_rate, tuple(trees), x.shape[1], SEED)


GradHess = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""Margins (rows x classes) to the loss's gradients and (diagonal) Hessians, same shape."""


def fit_multiclass(x: np.ndarray, grad_hess: GradHess, classes: int,
                   p: Params) -> tuple[Ensemble, ...]:
    """One boosted ensemble per class (a tree each per round) minimising any loss of the
    class margins given as ``grad_hess``; base margins zero."""
    thresholds = candidate_thresholds(x, p.bins)
    bins = binned(x, thresholds)
    margin = np.zeros((len(x), classes))
    trees: list[list[Tree]] = [[] for _ in range(classes)]
    for _ in range(p.rounds):
        g, h = grad_hess(margin)
        for k in range(classes):
            tree = fit_tree(bins, g[:, k], np.maximum(h[:, k], 1e-12), thresholds, p)
            trees[k].append(tree)
            margin[:, k] += p.learning_rate * predict_tree(tree, x)
    return tuple(Ensemble(0.0, p.learning_rate, tuple(t), x.shape[1], SEED) for t in trees)
