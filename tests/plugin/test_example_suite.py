"""examples/pytest_suite stays a passing suite a user can copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest_suite"


def test_the_example_suite_passes_against_its_own_baseline(gsar_pytester: pytest.Pytester) -> None:
    for path in EXAMPLE.iterdir():
        if path.is_file():
            shutil.copy(path, gsar_pytester.path / path.name)
        elif path.name == "recorded":
            shutil.copytree(path, gsar_pytester.path / path.name)
    with (gsar_pytester.path / "pytest.ini").open("a") as ini:  # quiet pytest-asyncio, if present
        ini.write("asyncio_default_fixture_loop_scope = function\n")
    result = gsar_pytester.runpytest_inprocess("-p", "no:cacheprovider", "--junitxml=junit.xml")
    result.assert_outcomes(passed=8)
    assert "gsar grounding" not in result.stdout.str()
    junit = (gsar_pytester.path / "junit.xml").read_text()
    assert 'name="gsar_rounds"' in junit and 'name="gsar_decision" value="regenerate"' in junit
