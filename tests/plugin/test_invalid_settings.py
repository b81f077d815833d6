"""The plugin applies GSAR_PROCEED and GSAR_CONFIG like the library, and an invalid value fails
the judging tests with the message that names the variable (never a silent default)."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import HALF, METRIC_ROW

TEST = f"""
def test_answer(assert_grounded):
    result = assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0, decision="any")
    print("DECISION=" + result.final_decision.value)
"""


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("GSAR_PROCEED", "2", "GSAR_PROCEED must be a number in [0, 1], got '2'"),
    ("GSAR_REGENERATE", "abc", "GSAR_REGENERATE must be a number in [0, 1], got 'abc'"),
    ("GSAR_CONFIG", "missing.json", "named by GSAR_CONFIG"),
])
def test_an_invalid_setting_fails_the_judging_test_naming_the_variable(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variable: str,
        value: str, message: str) -> None:
    gsar_pytester.makepyfile(test_agent=TEST)
    monkeypatch.setenv(variable, value)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-s")
    result.assert_outcomes(failed=1)
    assert message in result.stdout.str()


def test_gsar_proceed_and_gsar_regenerate_set_the_thresholds(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=TEST)
    monkeypatch.setenv("GSAR_PROCEED", "0.6")  # S = 0.625
    monkeypatch.setenv("GSAR_REGENERATE", "0.5")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-s")
    result.assert_outcomes(passed=1)
    assert "DECISION=proceed" in result.stdout.str()


def test_a_settings_file_on_the_command_line_replaces_a_broken_gsar_config(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    (gsar_pytester.path / "lenient.json").write_text(json.dumps(
        {"thresholds": {"proceed": 0.6, "regenerate": 0.5}}))
    gsar_pytester.makepyfile(test_agent=TEST)
    monkeypatch.setenv("GSAR_CONFIG", "missing.json")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-s",
                                               "--gsar-config=lenient.json")
    result.assert_outcomes(passed=1)
    assert "DECISION=proceed" in result.stdout.str()
