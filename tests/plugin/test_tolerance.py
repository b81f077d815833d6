"""--gsar-tolerance: how far S may fall below the baseline."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import HALF, case, write_cases, write_ini


@pytest.fixture
def regressed_by_0_04(gsar_pytester: pytest.Pytester) -> pytest.Pytester:
    """A case whose S (0.625) sits 0.04 below its baseline (0.665)."""
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF, expect="replan")])
    (gsar_pytester.path / "baseline.json").write_text(json.dumps({
        "format": "gsar-baseline/1",
        "entries": {"gsar_cases.jsonl::half": {"score": 0.665, "decision": "replan"}}}))
    return gsar_pytester


def test_the_default_tolerance_is_0_05(regressed_by_0_04: pytest.Pytester) -> None:
    regressed_by_0_04.runpytest_inprocess("--gsar-judge=scripted", "--gsar-baseline=baseline.json"
                                          ).assert_outcomes(passed=1)


def test_a_tighter_tolerance_fails_the_same_drop(regressed_by_0_04: pytest.Pytester) -> None:
    result = regressed_by_0_04.runpytest_inprocess("--gsar-judge=scripted",
                                                   "--gsar-baseline=baseline.json",
                                                   "--gsar-tolerance=0.01")
    result.assert_outcomes(failed=1)
    # 0.665 -> 0.625 shown with two decimals would read "0.67 to 0.62 by 0.04": three decimals.
    result.stdout.fnmatch_lines(
        ["*S fell by 0.040, from 0.665 to 0.625 (baseline tolerance 0.01)*"])


def test_the_command_line_beats_ini(regressed_by_0_04: pytest.Pytester) -> None:
    write_ini(regressed_by_0_04, gsar_tolerance="0.01")
    regressed_by_0_04.runpytest_inprocess("--gsar-judge=scripted", "--gsar-baseline=baseline.json"
                                          ).assert_outcomes(failed=1)
    regressed_by_0_04.runpytest_inprocess("--gsar-judge=scripted", "--gsar-baseline=baseline.json",
                                          "--gsar-tolerance=0.1").assert_outcomes(passed=1)


@pytest.mark.parametrize("value", ["-0.1", "1.5", "nan", "lots"])
def test_an_invalid_tolerance_is_a_usage_error(gsar_pytester: pytest.Pytester, value: str) -> None:
    result = gsar_pytester.runpytest_inprocess(f"--gsar-tolerance={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--gsar-tolerance must be a number between 0 and 1, "
                                 f"got '{value}'*"])
    write_ini(gsar_pytester, gsar_tolerance=value)
    result = gsar_pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gsar_tolerance (ini) must be a number between 0 and 1*"])
