"""Linear cost: no regex hazard in any stage, and judge work grows linearly with the answer and
with the evidence, on inputs shaped to make a careless implementation quadratic."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

import pytest

import gsar_otel.judges.staged as staged
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from tests.support.cost import growth_exponent, module_patterns, operations, regex_hazards

pytestmark = pytest.mark.cost

MODULES: list[ModuleType] = [
    importlib.import_module(f"gsar_otel.judges.staged.{info.name}")
    for info in pkgutil.iter_modules(staged.__path__)]
SIZES = [250, 500, 1000, 2000]
EVIDENCE = EvidenceSet.coerce(["host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z",
                               "CPU rose and memory fell at 10:15."])


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_no_regex_hazard(module: ModuleType) -> None:
    for name, pattern in module_patterns(module).items():
        assert regex_hazards(pattern) == [], name


def _judge() -> StagedJudge:
    judge = StagedJudge()
    judge.judge_now(synthesis="warm up the model", evidence=EVIDENCE)
    return judge


ANSWERS: dict[str, Callable[[int], str]] = {
    "initials": lambda n: "A. " * n,
    "dotted": lambda n: "1." * n,
    "hyphens": lambda n: "a-" * n,
    "joined": lambda n: "cpu rose and " * n,
    "unsplit": lambda n: "cpu and " * n,
    "numbers": lambda n: " ".join(f"{i}.5% at 10:{i % 60:02d}" for i in range(n // 4)),
}


@pytest.mark.parametrize("shape", sorted(ANSWERS))
def test_judge_is_linear_in_the_answer(shape: str) -> None:
    judge = _judge()

    def cost(n: int) -> float:
        return operations(judge.judge_now, synthesis=ANSWERS[shape](n), evidence=EVIDENCE,
                          modules=MODULES)

    assert growth_exponent(cost, SIZES) < 1.3


EVIDENCE_SHAPES: dict[str, Callable[[int], list[str]]] = {
    "rows": lambda n: [f"host=edge-lb-{i} http_5xx_rate={i % 97}.2% ts=10:{i % 60:02d}:00"
                       for i in range(n // 4)],
    "prose": lambda n: [" ".join(["CPU rose and memory fell on edge-lb-3."] * (n // 8))],
    # Many numbers of one kind: each claim number must be found by value, not by a scan.
    "numbers": lambda n: [" ".join(f"v{i}={i % 991}.{i % 7}" for i in range(n * 4))],
}


@pytest.mark.parametrize("shape", sorted(EVIDENCE_SHAPES))
def test_judge_is_linear_in_the_evidence(shape: str) -> None:
    judge = _judge()
    answer = "The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. CPU rose on edge-lb-3."

    def cost(n: int) -> float:
        evidence = EvidenceSet.coerce(EVIDENCE_SHAPES[shape](n))
        return operations(judge.judge_now, synthesis=answer, evidence=evidence,
                          modules=MODULES)

    assert growth_exponent(cost, SIZES) < 1.3


def test_claims_against_numbers_cost_linear_in_both() -> None:
    # Claims and evidence numbers grow together: comparing every claim anchor with every
    # evidence anchor would grow with their product (exponent 2).
    judge = _judge()

    def cost(n: int) -> float:
        answer = " ".join(f"Queue q{i} held {i % 991}.{i % 7} messages." for i in range(n // 10))
        evidence = EvidenceSet.coerce([" ".join(f"q{i}={(i * 7) % 991}.{i % 7}"
                                                for i in range(n * 2))])
        return operations(judge.judge_now, synthesis=answer, evidence=evidence,
                          modules=MODULES)

    # Each claim value is looked up by value in align and in compare (about 1.04); a pairwise
    # pass over a unit's anchors in compare grew at 1.29.
    assert growth_exponent(cost, SIZES) < 1.15
