"""--gsar-config / gsar_config: the settings file (thresholds, rho, weights) for judging."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, write_ini

TEST = f"""
def test_answer(assert_grounded):
    result = assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0, decision="any")
    print("DECISION=" + result.final_decision.value)
"""


def decision(pytester: pytest.Pytester, *args: str) -> str:
    result = pytester.runpytest_inprocess("--gsar-judge=scripted", "-s", *args)
    result.assert_outcomes(passed=1)
    [line] = [line for line in result.outlines if "DECISION=" in line]
    return line.split("DECISION=")[1].strip(" .")


@pytest.fixture
def lenient(gsar_pytester: pytest.Pytester) -> pytest.Pytester:
    (gsar_pytester.path / "lenient.json").write_text(json.dumps(
        {"thresholds": {"proceed": 0.6, "regenerate": 0.5}}))
    (gsar_pytester.path / "middle.json").write_text(json.dumps(
        {"thresholds": {"proceed": 0.7, "regenerate": 0.6}}))
    gsar_pytester.makepyfile(test_agent=TEST)
    return gsar_pytester


def test_the_settings_file_sets_the_thresholds(lenient: pytest.Pytester) -> None:
    assert decision(lenient) == "replan"  # S = 0.625 against 0.80 / 0.65
    assert decision(lenient, "--gsar-config=lenient.json") == "proceed"
    assert decision(lenient, "--gsar-config=middle.json") == "regenerate"


def test_the_command_line_beats_ini_which_beats_the_environment(
        lenient: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CONFIG", str(lenient.path / "middle.json"))
    assert decision(lenient) == "regenerate"
    write_ini(lenient, gsar_config="lenient.json")
    assert decision(lenient) == "proceed"
    assert decision(lenient, "--gsar-config=middle.json") == "regenerate"


def test_a_missing_settings_file_is_a_usage_error(gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--gsar-config=nowhere.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gsar settings file *nowhere.json does not exist*"])


def test_an_invalid_settings_file_fails_the_judging_tests_with_its_message(
        gsar_pytester: pytest.Pytester) -> None:
    (gsar_pytester.path / "bad.json").write_text(json.dumps({"thresholds": {"proceed": 2}}))
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-config=bad.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*proceed*"])
