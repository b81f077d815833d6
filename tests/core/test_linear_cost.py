"""The text helpers, the anchor reader and the integrity guard run in linear time, and none of
their regexes can backtrack super-linearly (ReDoS).

Cost is counted in operations (Python line events plus characters handed to the modules'
regexes, see ``tests/support/cost.py``), so the measure does not depend on the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from gsar_otel.core import anchors, integrity, text
from gsar_otel.core.anchor import compare, model, scan, times, words
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from tests.support.cost import growth_exponent, module_patterns, operations, regex_hazards

pytestmark = pytest.mark.cost

MODULES: list[ModuleType] = [text, integrity, anchors, scan, words, compare, times, model]
SIZES = [250, 500, 1000, 2000]
LINEAR = 1.3
"""Largest growth exponent accepted: linear code measures about 1.0, quadratic about 2.0."""

INPUTS: dict[str, Callable[[int], str]] = {
    "A. * n": lambda n: "A. " * n,
    "1. * n": lambda n: "1." * n,
    "a- * n": lambda n: "a-" * n,
    "cpu rose and * n": lambda n: "cpu rose and " * n,
    "numbers in one sentence": lambda n: "CPU " + " ".join(
        f"{i % 97}.{i % 10}% at {i % 24}:{i % 60:02d} on db-{i}" for i in range(n)) + ".",
    "long [\\w.-] run": lambda n: "x" + "a1-b_2." * n,
    "digits and dots": lambda n: "1.2" * n,
    "colons": lambda n: "1:" * n,
    "unclosed quotes": lambda n: '"a ' * n,
    "key=value row": lambda n: " ".join(f"k{i}={i}.5ms" for i in range(n)),
    "months and units": lambda n: "May 1, 2024 3 GB port 80 HTTP 503 " * n,
}


def _forget() -> None:
    """Drop every remembered result, so each size is measured from scratch."""
    for module in MODULES:
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", None) == module.__name__:
                clear()
    integrity._INDEXES.clear()


def _cost(function: Callable[[str], Any], make: Callable[[int], str]) -> Callable[[int], float]:
    def measure(size: int) -> float:
        value = make(size)
        _forget()
        return operations(function, value, modules=MODULES)
    return measure


def _judged(value: str) -> None:
    """The integrity guard on a verdict whose claim, answer and evidence are ``value``."""
    output = JudgeOutput(grounding_score=0.9, is_grounded=True,
                         grounded_claims=[Claim(value, "tool_match", ["E1"])])
    integrity.check_judge_output(output, synthesis=value, evidence=EvidenceSet.coerce([value]))


FUNCTIONS: dict[str, Callable[[str], Any]] = {
    "split_sentences": text.split_sentences,
    "words": text.words,
    "content_stems": text.content_stems,
    "extract_anchors": anchors.extract_anchors,
    "numbers": text.numbers,
    "anchors": text.anchors,
    "identifiers": text.identifiers,
    "clock_times": text.clock_times,
    "check_judge_output": _judged,
}


@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("function_name", list(FUNCTIONS))
def test_each_text_helper_is_linear_on_redos_shaped_input(function_name: str,
                                                           input_name: str) -> None:
    exponent = growth_exponent(_cost(FUNCTIONS[function_name], INPUTS[input_name]), SIZES)
    assert exponent < LINEAR, f"{function_name} on {input_name!r}: exponent {exponent:.2f}"


def _many_items_many_numbers(size: int) -> tuple[JudgeOutput, str, EvidenceSet]:
    """size/50 rows of 50 numbers each; a claim per row with 25 of its numbers, and one claim
    citing every row with three numbers of each."""
    rows = max(size // 50, 1)
    evidence = EvidenceSet.coerce([
        f"host=db-{i} " + " ".join(f"m{j}={i}.{j:02d} t{j}={j % 24}:{i % 60:02d}"
                                   for j in range(50)) for i in range(rows)])
    claims = [Claim("Values " + ", ".join(f"{i}.{j:02d}" for j in range(0, 50, 2)), "tool_match",
                    [f"E{i + 1}"]) for i in range(rows)]
    claims.append(Claim("All " + " ".join(f"{i}.{j:02d}" for i in range(rows) for j in range(3)),
                        "tool_match", [f"E{i + 1}" for i in range(rows)]))
    output = JudgeOutput(grounding_score=0.9, is_grounded=True, grounded_claims=claims)
    return output, " ".join(claim.text + "." for claim in claims), evidence


def test_the_guard_checks_many_numbers_against_many_items_in_linear_time() -> None:
    def measure(size: int) -> float:
        output, synthesis, evidence = _many_items_many_numbers(size)
        _forget()
        return operations(integrity.check_judge_output, output, synthesis=synthesis,
                          evidence=evidence, modules=MODULES)

    assert growth_exponent(measure, SIZES) < LINEAR


def test_the_many_numbers_verdict_is_kept_whole_so_the_work_is_real() -> None:
    output, synthesis, evidence = _many_items_many_numbers(500)
    report = integrity.check_judge_output(output, synthesis=synthesis, evidence=evidence)
    assert report.adjustments == ()


def test_one_claim_with_many_numbers_is_not_checked_against_every_evidence_number() -> None:
    def measure(size: int) -> float:
        row = " ".join(f"m{j}={j}.5" for j in range(size))
        claim = Claim("Saw " + " ".join(f"{j}.5" for j in range(0, size, 2)), "tool_match",
                      ["E1"])
        output = JudgeOutput(grounding_score=0.9, is_grounded=True, grounded_claims=[claim])
        _forget()
        return operations(integrity.check_judge_output, output, synthesis=claim.text,
                          evidence=EvidenceSet.coerce([row]), modules=MODULES)

    assert growth_exponent(measure, SIZES) < LINEAR


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_no_regex_of_the_text_modules_can_backtrack_super_linearly(module: ModuleType) -> None:
    hazards = {name: regex_hazards(pattern) for name, pattern in module_patterns(module).items()}
    assert {name: found for name, found in hazards.items() if found} == {}


def test_the_hazard_check_does_see_the_shapes_it_forbids() -> None:
    assert regex_hazards(r"(?:[\w.-]+)*@") and regex_hazards(r"(?=[\w.]*\d)\w+")
    assert not regex_hazards(r"(?:[\w.-]++)*+@")
