"""--gsar-contradiction-policy / gsar_contradiction_policy: whether a contradicted tool-backed
claim caps the decision at regenerate (cap) or S alone decides (score)."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import METRIC_ROW, write_ini

ONE_WRONG_FACT = ("CPU on host db-prod-1 reached 97% at 14:02. Host db-prod-1 ran at 97% CPU at "
                  "14:02. The CPU of db-prod-1 was 97% at 14:02. At 14:02 db-prod-1 used 97% "
                  "CPU. Later CPU on host db-prod-1 was 45% at 14:02.")
"""Four grounded tool-backed sentences and one METRIC_ROW refutes: S = 4 / 4.5 = 0.889."""

TEST = f"""
def test_answer(assert_grounded):
    result = assert_grounded({ONE_WRONG_FACT!r}, [{METRIC_ROW!r}], min_score=0, decision="any")
    print("DECISION=" + result.final_decision.value + " CAPPED_BY=" + ",".join(result.capped_by))
"""


def outcome(pytester: pytest.Pytester, *args: str) -> str:
    result = pytester.runpytest_inprocess("--gsar-judge=scripted", "-s", *args)
    result.assert_outcomes(passed=1)
    [line] = [line for line in result.outlines if "DECISION=" in line]
    return line.split("DECISION=")[1].strip(" .")


@pytest.fixture
def wrong_fact(gsar_pytester: pytest.Pytester) -> pytest.Pytester:
    gsar_pytester.makepyfile(test_agent=TEST)
    return gsar_pytester


def test_a_wrong_tool_fact_is_capped_by_default_and_score_lets_s_decide(
        wrong_fact: pytest.Pytester) -> None:
    assert outcome(wrong_fact) == "regenerate CAPPED_BY=contradiction"
    assert outcome(wrong_fact, "--gsar-contradiction-policy=score") == "proceed CAPPED_BY="
    assert outcome(wrong_fact, "--gsar-contradiction-policy=cap") == (
        "regenerate CAPPED_BY=contradiction")


def test_the_command_line_beats_ini_which_beats_the_environment(
        wrong_fact: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CONTRADICTION_POLICY", "score")
    assert outcome(wrong_fact) == "proceed CAPPED_BY="
    write_ini(wrong_fact, gsar_contradiction_policy="cap")
    assert outcome(wrong_fact) == "regenerate CAPPED_BY=contradiction"
    assert outcome(wrong_fact, "--gsar-contradiction-policy=score") == "proceed CAPPED_BY="


def test_the_option_beats_the_settings_file(wrong_fact: pytest.Pytester) -> None:
    (wrong_fact.path / "pure.json").write_text(json.dumps({"contradiction_policy": "score"}))
    assert outcome(wrong_fact, "--gsar-config=pure.json") == "proceed CAPPED_BY="
    assert outcome(wrong_fact, "--gsar-config=pure.json", "--gsar-contradiction-policy=cap") == (
        "regenerate CAPPED_BY=contradiction")


def test_a_failed_check_says_which_policy_held_the_decision_back(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({ONE_WRONG_FACT!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*decision is regenerate, expected proceed*",
        "*S alone would proceed; capped at regenerate by a contradicted or unsupported "
        "tool-backed claim "
        "(contradiction_policy=cap)*"])
    passing = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                                "--gsar-contradiction-policy=score")
    passing.assert_outcomes(passed=1)


def test_an_unknown_value_on_the_command_line_names_the_choices(
        gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--gsar-contradiction-policy=strict")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--gsar-contradiction-policy: invalid choice: 'strict' "
                                 "(choose from *cap*score*)"])


def test_an_unknown_ini_value_is_a_usage_error_naming_the_allowed_ones(
        gsar_pytester: pytest.Pytester) -> None:
    write_ini(gsar_pytester, gsar_contradiction_policy="sometimes")
    result = gsar_pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gsar_contradiction_policy (ini) must be one of cap, score; "
                                 "got 'sometimes'*"])


def test_the_plugins_policy_names_are_the_scorings() -> None:
    from gsar_otel.core.scoring import CONTRADICTION_POLICIES
    from pytest_gsar.options import CONTRADICTION_POLICIES as PLUGIN_POLICIES

    assert PLUGIN_POLICIES == CONTRADICTION_POLICIES
