"""@pytest.mark.gsar: per-test defaults, below the command line and ini options."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW


def test_the_marker_is_registered(gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.gsar(min_score=None, judge=None, decision=None, "
                                 "record_mode=None)*"])


def test_marker_min_score_and_decision_set_the_passing_rule(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        @pytest.mark.gsar(min_score=0.6, decision="any")
        def test_low_bar(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}])

        @pytest.mark.gsar(decision="replan")
        def test_expected_replan(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}])

        def test_default_wants_proceed(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--strict-markers")
    result.assert_outcomes(passed=2, failed=1)


def test_an_explicit_argument_beats_the_marker(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        @pytest.mark.gsar(min_score=0.6)
        def test_strict_call(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.9)
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*S = 0.62 is below min_score 0.90*"])


def test_marker_judge_is_used_when_no_option_names_one(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        @pytest.mark.gsar(judge="scripted")
        def test_answer(assert_grounded):
            assert assert_grounded({GOOD!r}, [{METRIC_ROW!r}]).judge_name == "scripted"
    """)
    gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_a_class_marker_applies_to_its_tests(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        @pytest.mark.gsar(min_score=0.6, judge="scripted", decision="any")
        class TestAgent:
            def test_answer(self, assert_grounded):
                assert_grounded({HALF!r}, [{METRIC_ROW!r}])
    """)
    gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_unknown_marker_options_fail_naming_the_valid_ones(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        @pytest.mark.gsar(minscore=0.5)
        def test_typo(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

        @pytest.mark.gsar(0.5)
        def test_positional(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines_random([
        "*@pytest.mark.gsar: unknown option(s) minscore; valid: decision, judge, min_score*",
        "*@pytest.mark.gsar takes keyword options only*",
    ])
