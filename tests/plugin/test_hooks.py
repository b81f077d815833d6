"""pytest_gsar_result and pytest_gsar_make_judge, for users' conftest files."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case, write_cases


def test_pytest_gsar_result_sees_every_judgement_before_the_test_fails(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest("""
        seen = []

        def pytest_gsar_result(item, result):
            seen.append((item.nodeid, result.final_decision.value, result.rounds))
            item.user_properties.append(("rounds", result.rounds))

        def pytest_sessionfinish(session):
            print("SEEN", sorted(seen))
    """)
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD), case("half", HALF)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-s")
    result.assert_outcomes(passed=1, failed=1)
    assert ("SEEN [('gsar_cases.jsonl::good', 'proceed', 1), ('gsar_cases.jsonl::half', "
            "'replan', 1)]") in result.stdout.str()


def test_the_make_judge_hook_is_called_once_per_session(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest("""
        from gsar_otel import StagedJudge

        calls = []

        class Counted(StagedJudge):
            deterministic = True

        def pytest_gsar_make_judge(config):
            calls.append(config)
            return Counted()

        def pytest_sessionfinish(session):
            print("CALLS", len(calls))
    """)
    gsar_pytester.makepyfile(test_agent=f"""
        import pytest

        @pytest.mark.parametrize("n", range(3))
        def test_answer(assert_grounded, n):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("-s")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*CALLS 1*"])
