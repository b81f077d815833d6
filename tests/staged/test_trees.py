"""The boosted tree ensemble: plain-Python inference gives the hand-computed outputs, equals the
numpy trainer's own prediction, and survives a model.json round trip; the gate reads it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import train_trees
from gsar_otel.judges.staged.classify import Model
from gsar_otel.judges.staged.features import FEATURE_NAMES, FEATURES_VERSION, FeatureVector
from gsar_otel.judges.staged.gate import (
    GATE_FEATURES,
    GATE_REGIMES,
    GATE_VERSION,
    Gate,
    GateInput,
    tree_vector,
)
from gsar_otel.judges.staged.trees import LEAF, TREES_VERSION, Ensemble, Tree

STUMP = Tree(feature=(0, LEAF, LEAF), threshold=(0.5, 0.0, 0.0), left=(1, LEAF, LEAF),
             right=(2, LEAF, LEAF), value=(0.0, -1.0, 1.0))
DEPTH_TWO = Tree(feature=(1, 0, LEAF, LEAF, LEAF), threshold=(2.0, -1.0, 0.0, 0.0, 0.0),
                 left=(1, 3, LEAF, LEAF, LEAF), right=(2, 4, LEAF, LEAF, LEAF),
                 value=(0.0, 0.0, 4.0, 10.0, 20.0))
HAND = Ensemble(base=0.25, learning_rate=0.5, trees=(STUMP, DEPTH_TWO), features=2)


@pytest.mark.parametrize(("x", "expected"), [
    ((0.0, 0.0), 0.25 + 0.5 * (-1.0 + 20.0)),   # x0 <= 0.5; x1 <= 2 then x0 > -1
    ((0.5, 2.0), 0.25 + 0.5 * (-1.0 + 20.0)),   # a value equal to a threshold goes left
    ((-3.0, 1.0), 0.25 + 0.5 * (-1.0 + 10.0)),  # x0 <= -1
    ((0.6, 2.5), 0.25 + 0.5 * (1.0 + 4.0)),     # x1 > 2: a leaf at depth one
])
def test_hand_built_ensemble_gives_known_margins(x: tuple[float, float],
                                                 expected: float) -> None:
    assert HAND.margin(x) == pytest.approx(expected)


def test_path_pushes_credit_each_split_to_its_feature() -> None:
    # (0, 0): the stump goes left (feature 0: 0 -> -1); the second tree splits on feature 1
    # (0 -> 0), then on feature 0 (0 -> 20); each change is scaled by the learning rate.
    assert path(STUMP, (0.0, 0.0)) == [0, 1]
    assert path(DEPTH_TWO, (0.0, 0.0)) == [0, 1, 4]
    assert HAND.margin_and_pushes((0.0, 0.0))[1] == pytest.approx([0.5 * (-1.0 + 20.0), 0.0])
    assert HAND.margin_and_pushes((0.6, 2.5))[1] == pytest.approx([0.5 * 1.0, 0.5 * 4.0])


def test_margin_refuses_a_vector_of_another_length() -> None:
    with pytest.raises(ValueError, match="reads 2 features"):
        HAND.margin((1.0, 2.0, 3.0))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(8, 80), features=st.integers(1, 5),
       depth=st.integers(1, 3), rounds=st.integers(1, 12),
       discrete=st.booleans())
def test_inference_equals_the_trainers_numpy_prediction(seed: int, rows: int, features: int,
                                                        depth: int, rounds: int,
                                                        discrete: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, features))
    if discrete:  # ties and values equal to thresholds
        x = np.round(x * 2) / 2
    y = rng.random(rows) < 1 / (1 + np.exp(-x[:, 0]))
    w = rng.uniform(0.5, 2.0, rows)
    ensemble = train_trees.fit_binary(
        x, y, w, train_trees.Params(depth=depth, rounds=rounds, learning_rate=0.3, l2=1.0,
                                    min_hessian=0.1, bins=8))
    probe = np.vstack([x, rng.normal(size=(20, features)) * 3])
    expected = train_trees.predict_margin(ensemble, probe)
    for row, margin in zip(probe.tolist(), expected, strict=True):
        assert ensemble.margin(row) == pytest.approx(float(margin), abs=1e-9)
    for tree in ensemble.trees:  # the trainer's trees are no deeper than asked
        assert _depth(tree) <= depth


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), features=st.integers(1, 5), depth=st.integers(1, 3),
       rounds=st.integers(1, 12))
def test_one_walk_gives_the_margin_and_the_path_pushes_exactly(seed: int, features: int,
                                                                depth: int, rounds: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(60, features)) * 2) / 2  # ties at thresholds too
    y = rng.random(60) < 1 / (1 + np.exp(-x[:, 0]))
    ensemble = train_trees.fit_binary(
        x, y, np.ones(60), train_trees.Params(depth=depth, rounds=rounds, learning_rate=0.3,
                                              l2=1.0, min_hessian=0.1, bins=8))
    for row in np.vstack([x, rng.normal(size=(20, features)) * 3]).tolist():
        expected = [0.0] * features  # the pushes walked node by node along Tree.path
        for tree in ensemble.trees:
            nodes = path(tree, row)
            for node, child in pairwise(nodes):
                expected[tree.feature[node]] += ensemble.learning_rate * (
                    tree.value[child] - tree.value[node])
        margin, pushes = ensemble.margin_and_pushes(row)
        assert margin == ensemble.margin(row)  # the same sums in the same order: equal floats
        assert pushes == expected


def path(tree: Tree, x: Sequence[float]) -> list[int]:
    """The nodes ``x`` passes through, root to leaf (an oracle walked node by node)."""
    nodes = [0]
    while tree.feature[nodes[-1]] != LEAF:
        node = nodes[-1]
        nodes.append(tree.left[node] if x[tree.feature[node]] <= tree.threshold[node]
                     else tree.right[node])
    return nodes


def _depth(tree: Tree, node: int = 0) -> int:
    if tree.feature[node] == LEAF:
        return 0
    return 1 + max(_depth(tree, tree.left[node]), _depth(tree, tree.right[node]))


def test_training_is_deterministic_and_learns_an_interaction() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] > 0) != (x[:, 1] > 0)  # XOR: no linear model separates it
    params = train_trees.Params(depth=2, rounds=30, learning_rate=0.3)
    first = train_trees.fit_binary(x, y, np.ones(400), params)
    assert first == train_trees.fit_binary(x, y, np.ones(400), params)
    assert first.seed == train_trees.SEED
    accuracy = float(((train_trees.predict_margin(first, x) > 0) == y).mean())
    assert accuracy > 0.9


def test_model_json_round_trip_keeps_every_margin() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 4))
    ensemble = train_trees.fit_binary(x, x[:, 1] > 0.2, np.ones(60),
                                      train_trees.Params(depth=3, rounds=10))
    again = Ensemble.from_json(json.loads(json.dumps(ensemble.to_json())))
    assert again == ensemble
    for row in x.tolist():
        assert again.margin(row) == ensemble.margin(row)


@pytest.mark.parametrize(("change", "message"), [
    ({"version": "trees-0"}, "retrain"),
    ({"trees": [dict(STUMP.to_json(), left=[0, -1, -1])]}, "malformed"),
    ({"trees": [dict(STUMP.to_json(), feature=[5, -1, -1])]}, "malformed"),
    ({"trees": [dict(STUMP.to_json(), value=[0.0])]}, "one length"),
    ({"trees": [dict(STUMP.to_json(), left=[])]}, "one length"),
    ({"trees": [dict(STUMP.to_json(), right=[1, -1, -1])]}, "two parents"),
])
def test_a_malformed_section_raises_a_clear_error(change: dict[str, object],
                                                  message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Ensemble.from_json(HAND.to_json() | change)


def _gate_section(**extra: object) -> dict[str, object]:
    thresholds = {**{f"demote_{r}": 0.3 for r in GATE_REGIMES},
                  **{f"promote_{r}": 0.7 for r in GATE_REGIMES}}
    return {"version": GATE_VERSION, "feature_names": list(GATE_FEATURES),
            "thresholds": thresholds, **extra}


def test_the_gate_reads_its_probability_from_the_trees() -> None:
    n = len(GATE_REGIMES) + len(GATE_FEATURES)
    # one stump on the 'tool' regime indicator: log-odds +2 inside it, -2 elsewhere
    at = GATE_REGIMES.index("tool")
    stump = Tree((at, LEAF, LEAF), (0.5, 0.0, 0.0), (1, LEAF, LEAF), (2, LEAF, LEAF),
                 (0.0, -2.0, 2.0))
    section = _gate_section(trees=Ensemble(0.0, 1.0, (stump,), n).to_json())
    gate = Gate.from_json(json.loads(json.dumps(section)))
    values = (0.5,) * len(GATE_FEATURES)
    assert gate.probability(GateInput("tool", values)) == pytest.approx(1 / (1 + math.exp(-2)))
    assert gate.probability(GateInput("table", values)) == pytest.approx(1 / (1 + math.exp(2)))
    assert tree_vector(GateInput("tool", values))[:len(GATE_REGIMES)] == [
        1.0 if r == "tool" else 0.0 for r in GATE_REGIMES]


def test_a_logistic_section_loads_and_older_regimes_are_refused() -> None:
    n = len(GATE_REGIMES) * (1 + len(GATE_FEATURES))
    logistic = _gate_section(mean=[0.0] * n, scale=[1.0] * n, weights=[0.0] * n, bias=1.0)
    gate = Gate.from_json(logistic)
    assert gate.trees is None
    assert gate.probability(GateInput("tool", (0.0,) * len(GATE_FEATURES))) == pytest.approx(
        1 / (1 + math.exp(-1)))
    trees = HAND.to_json() | {"features": len(GATE_REGIMES) + len(GATE_FEATURES)}
    for older in ("gate-4", "gate-5"):  # prose split by claims, not sentences
        with pytest.raises(ValueError, match="retrain"):
            Gate.from_json(_gate_section(version=older, trees=trees))
        with pytest.raises(ValueError, match="retrain"):
            Gate.from_json(logistic | {"version": older})
    with pytest.raises(ValueError, match="another feature count"):
        Gate.from_json(_gate_section(trees=HAND.to_json()))
    assert TREES_VERSION == "trees-1"


def _claim_section(trees: list[Ensemble]) -> dict[str, object]:
    n = len(FEATURE_NAMES)
    return {"features_version": FEATURES_VERSION, "feature_names": list(FEATURE_NAMES),
            "classes": ["grounded", "ungrounded", "contradicted", "complementary"],
            "mean": [0.0] * n, "scale": [1.0] * n,
            "claim_trees": [e.to_json() for e in trees],
            "thresholds": {"grounded_rows": 0.5, "grounded_prose_single": 0.5,
                           "grounded_prose_multi": 0.5, "contradicted": 0.5}}


def test_the_claim_model_reads_class_margins_from_its_trees() -> None:
    n = len(FEATURE_NAMES)
    at = FEATURE_NAMES.index("coverage")
    # grounded: +3 when coverage > 0.5 (node values: root 0, leaves -1 and +3)
    stump = Tree((at, LEAF, LEAF), (0.5, 0.0, 0.0), (1, LEAF, LEAF), (2, LEAF, LEAF),
                 (0.0, -1.0, 3.0))
    empty = Tree((LEAF,), (0.0,), (LEAF,), (LEAF,), (0.0,))
    trees = [Ensemble(0.0, 1.0, (stump,), n)] + [Ensemble(0.0, 1.0, (empty,), n)] * 3
    model = Model.from_json(json.loads(json.dumps(_claim_section(trees))))
    high = FeatureVector(tuple(0.9 if i == at else 0.0 for i in range(n)))
    low = FeatureVector(tuple(0.1 if i == at else 0.0 for i in range(n)))
    assert model.probabilities(high)["grounded"] == pytest.approx(
        math.exp(3) / (math.exp(3) + 3))
    assert model.probabilities(low)["grounded"] == pytest.approx(
        math.exp(-1) / (math.exp(-1) + 3))
    # the deciding feature is the one the path split on, with the path's change of value
    assert model.contributions(high, "grounded")[0] == ("coverage", pytest.approx(3.0))
    assert model.contributions(low, "grounded")[0] == ("coverage", pytest.approx(-1.0))


def test_claim_trees_of_another_feature_count_raise() -> None:
    empty = Tree((LEAF,), (0.0,), (LEAF,), (LEAF,), (0.0,))
    with pytest.raises(ValueError, match="retrain"):
        Model.from_json(_claim_section([Ensemble(0.0, 1.0, (empty,), 3)] * 4))
