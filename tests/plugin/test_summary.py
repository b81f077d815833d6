"""The gsar section of the terminal summary: only when it has something to say."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import CONTRADICTED, GOOD, HALF, case, write_cases


def test_nothing_is_printed_when_every_judgement_passes(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1)
    assert "gsar grounding" not in result.stdout.str()


def test_nothing_is_printed_in_a_suite_that_does_not_judge(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile("def test_plain():\n    assert True\n")
    result = gsar_pytester.runpytest_inprocess("-v")
    result.assert_outcomes(passed=1)
    assert "gsar grounding" not in result.stdout.str()


def test_failures_are_listed_with_score_decision_and_counts_then_a_hint(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("good", GOOD), case("half", HALF), case("contradicted", CONTRADICTED)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*= gsar grounding =*",
        "FAILED   gsar_cases.jsonl::half          S 0.62  replan     G1 U1 X0 K0",
        "FAILED   gsar_cases.jsonl::contradicted  S 0.00  replan     G0 U0 X1 K0",
        "3 judged: 1 proceed, 2 replan; mean S 0.54; 2 failed",
        "hint: each failure above lists the claims that are not grounded; -v shows every "
        "judgement",
        "*= short test summary info =*",
    ])
    assert "gsar_cases.jsonl::good  " not in result.stdout.str()


def test_verbose_lists_every_judgement(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD),
                                                    case("half", HALF, expect="replan")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*= gsar grounding =*",
        "passed   gsar_cases.jsonl::good  S 1.00  proceed    G1 U0 X0 K0",
        "passed   gsar_cases.jsonl::half  S 0.62  replan     G1 U1 X0 K0",
        "2 judged: 1 proceed, 1 replan; mean S 0.81",
    ])
    assert "hint:" not in result.stdout.str()
