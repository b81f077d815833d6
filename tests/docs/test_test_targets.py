"""The tests are split by cost, and CI runs both halves.

``make test`` (the README's quick start) leaves out the tests marked ``cost`` (counted work,
linear cost, pathological input, the benchmarks run); ``make test-cost`` runs only those; the
marker is registered, and ``.ci/run`` calls both targets, so nothing is skipped in CI."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COST_FILES = (
    "tests/plugin/test_replay_cost.py",
    "tests/core/test_linear_cost.py",
    "tests/core/test_pathological_input.py",
    "tests/measure/test_benchmarks_run.py",
    "tests/staged/test_cost.py",
    "tests/records/test_linear_cost.py",
)


def recipe(target: str) -> str:
    """The recipe lines of ``target`` in the Makefile, joined."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.M)
    assert match is not None, f"the Makefile has no {target} target"
    return match.group(1)


def test_the_cost_marker_is_registered() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert any(marker.startswith("cost:") for marker in markers)


def test_make_test_leaves_the_cost_tests_out_and_make_test_cost_runs_them() -> None:
    assert '-m "not cost"' in recipe("test")
    assert "-m cost" in recipe("test-cost")


def test_ci_runs_both_targets() -> None:
    lines = [line.split("#", 1)[0].strip()
             for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    targets = [line.split()[1] for line in lines if line.startswith("make ")]
    assert "test" in targets and "test-cost" in targets


@pytest.mark.parametrize("path", COST_FILES)
def test_the_cost_files_carry_the_marker(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(r"^pytestmark = pytest\.mark\.cost$", text, re.M), f"{path} is not marked"
