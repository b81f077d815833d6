"""The gate's threshold search keeps synthetic claim accuracy one standard error above target."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def train_gate(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the script imports train_trees beside it
    return importlib.import_module("train_gate")


def test_the_floor_is_one_standard_error_above_the_target(train_gate: ModuleType) -> None:
    assert train_gate.claim_floor(2500, 0.95) == pytest.approx(0.95 + math.sqrt(0.0475 / 2500))
    assert train_gate.claim_floor(0, 0.95) == 0.95
    floors = [train_gate.claim_floor(n) for n in (100, 1000, 10000)]
    assert floors == sorted(floors, reverse=True) and floors[-1] > train_gate.CLAIM_TARGET


def test_the_search_prefers_the_floor_then_the_mean(train_gate: ModuleType) -> None:
    at_target = {"wice": 0.9, "synthetic_claims": 0.95}
    above = {"wice": 0.5, "synthetic_claims": 0.96}
    floor = train_gate.claim_floor(2000)
    assert train_gate.better(train_gate.value_of(above, floor),
                             train_gate.value_of(at_target, floor))
    # above the floor, only the mean counts
    higher = {"wice": 0.9, "synthetic_claims": 0.97}
    assert train_gate.better(train_gate.value_of(higher, floor),
                             train_gate.value_of(above, floor))
