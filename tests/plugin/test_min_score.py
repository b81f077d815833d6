"""--gsar-min-score: the lowest passing S where a test sets none; CLI > ini > marker; checked as
well as the decision unless the test says ``decision="any"``."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import HALF, METRIC_ROW, case, write_cases, write_ini

MARKED = f"""
import pytest

@pytest.mark.gsar(min_score=0.9, decision="any")
def test_marked(assert_grounded):
    assert_grounded({HALF!r}, [{METRIC_ROW!r}])
"""


def test_min_score_lets_a_lower_decision_pass_with_decision_any(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF, expect="any")])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-min-score=0.6"
                                      ).assert_outcomes(passed=1)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-min-score=0.7")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*S = 0.62 is below min_score 0.70*"])


def test_the_command_line_beats_ini_which_beats_the_marker(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=MARKED)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(failed=1)
    write_ini(gsar_pytester, gsar_min_score="0.6")
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-min-score=0.8")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*S = 0.62 is below min_score 0.80*"])


def test_a_case_min_score_beats_the_options(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl",
                [case("half", HALF, min_score=0.6, expect="any")])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-min-score=0.9"
                                      ).assert_outcomes(passed=1)


def test_an_abstaining_judge_fails_a_min_score(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest("""
        from gsar_otel.core.model import safe_default_judge_output

        class Abstainer:
            name = "abstainer"
            deterministic = True

            async def judge(self, *, synthesis, evidence):
                return safe_default_judge_output("evidence is unreadable")

        def pytest_gsar_make_judge(config):
            return Abstainer()
    """)
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF)])
    result = gsar_pytester.runpytest_inprocess("--gsar-min-score=0.1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the judge abstained (evidence is unreadable)*"])


@pytest.mark.parametrize("value", ["1.01", "-1", "high"])
def test_an_invalid_min_score_is_a_usage_error(gsar_pytester: pytest.Pytester, value: str) -> None:
    result = gsar_pytester.runpytest_inprocess(f"--gsar-min-score={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--gsar-min-score must be a number between 0 and 1, "
                                 f"got '{value}'*"])


def test_min_score_adds_to_the_decision_check(gsar_pytester: pytest.Pytester) -> None:
    # HALF reaches S = 0.62 but its decision is replan: a threshold the user gives must not let
    # an answer through that the default check stops.
    gsar_pytester.makepyfile(f"""
        import pytest

        def test_keyword(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.6)

        @pytest.mark.gsar(min_score=0.6)
        def test_marker(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}])

        def test_turned_off_by_name(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.6, decision="any")
    """)
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("half", HALF, min_score=0.6), case("half-any", HALF, min_score=0.6, expect="any")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(["*decision is replan, expected proceed (min_score adds to the "
                                 "decision check; decision='any' turns it off)*"])


def test_the_min_score_option_adds_to_the_decision_check(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-min-score=0.6")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*decision is replan, expected proceed*"])
