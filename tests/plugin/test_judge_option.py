"""--gsar-judge, the gsar_judge ini option, the pytest_gsar_make_judge hook and the defaults."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import GOOD, METRIC_ROW, write_ini

REPORTS_JUDGE = f"""
def test_answer(assert_grounded):
    result = assert_grounded({GOOD!r}, [{METRIC_ROW!r}], min_score=0, decision="any")
    print("JUDGE=" + result.judge_name)
"""

CUSTOM_JUDGE_CONFTEST = """
from gsar_otel import StagedJudge

class TeamJudge(StagedJudge):
    name = "team"
    deterministic = True

def pytest_gsar_make_judge(config):
    return TeamJudge()
"""


def judge_used(pytester: pytest.Pytester, *args: str) -> str:
    result = pytester.runpytest_inprocess("-s", *args)
    result.assert_outcomes(passed=1)
    [line] = [line for line in result.outlines if "JUDGE=" in line]
    return line.split("JUDGE=")[1].strip(" .")


def test_the_command_line_names_the_judge(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=REPORTS_JUDGE)
    assert judge_used(gsar_pytester, "--gsar-judge=scripted") == "scripted"
    assert judge_used(gsar_pytester, "--gsar-judge=SCRIPTED") == "scripted"
    assert judge_used(gsar_pytester, "--gsar-judge=staged") == "staged"


def test_the_lexical_name_is_a_deprecated_alias_of_the_staged_judge(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=REPORTS_JUDGE)
    result = gsar_pytester.runpytest_inprocess("-s", "--gsar-judge=lexical")
    result.assert_outcomes(passed=1)
    assert [line.split("JUDGE=")[1].strip(" .") for line in result.outlines
            if "JUDGE=" in line] == ["staged"]
    result.stdout.fnmatch_lines(["*DeprecationWarning: the 'lexical' judge is now the one "
                                 "offline judge 'staged'*"])


def test_the_hook_supplies_the_default_judge_and_options_override_it(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest(CUSTOM_JUDGE_CONFTEST)
    gsar_pytester.makepyfile(test_agent=REPORTS_JUDGE)
    assert judge_used(gsar_pytester) == "team"
    write_ini(gsar_pytester, gsar_judge="scripted")
    assert judge_used(gsar_pytester) == "scripted"


def test_without_any_setting_the_library_default_applies(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=REPORTS_JUDGE)
    assert judge_used(gsar_pytester) == "staged"  # no API key configured
    config = gsar_pytester.path / "gsar.json"
    config.write_text(json.dumps({"judge": "scripted",
                                  "thresholds": {"proceed": 0.9, "regenerate": 0.7}}))
    monkeypatch.setenv("GSAR_CONFIG", str(config))
    assert judge_used(gsar_pytester) == "scripted"


def test_gsar_config_thresholds_reach_assert_grounded(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    config = gsar_pytester.path / "gsar.json"
    # The causal claim is a conclusion: the file's score policy lets S alone decide, so the
    # lowered thresholds (and the policy) are what reach assert_grounded.
    config.write_text(json.dumps({"thresholds": {"proceed": 0.6, "regenerate": 0.5},
                                  "conclusion_policy": "score"}))
    monkeypatch.setenv("GSAR_CONFIG", str(config))
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            result = assert_grounded("{GOOD} The outage was caused by a config push.",
                                     [{METRIC_ROW!r}])
            assert result.final_decision == "proceed"
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=staged").assert_outcomes(passed=1)


def test_invalid_gsar_settings_fail_the_judging_test_with_their_message(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_PROCEED", "2")
    gsar_pytester.makepyfile(test_agent=REPORTS_JUDGE)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=staged")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GSAR_PROCEED*"])


def test_an_unknown_judge_is_a_usage_error_listing_the_available_ones(
        gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--gsar-judge: unknown judge 'oracle'; available: staged, "
                                 "anthropic, records, tiered, lexical*"])
    write_ini(gsar_pytester, gsar_judge="oracle")
    result = gsar_pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gsar_judge (ini): unknown judge 'oracle'*"])
