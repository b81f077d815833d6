"""The assert_grounded, gsar_judge and gsar_evaluator fixtures."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import CONTRADICTED, GOOD, HALF, METRIC_ROW, case, write_cases


def test_assert_grounded_passes_a_grounded_answer_and_returns_the_result(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_answer(assert_grounded):
            result = assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
            assert result.final_decision == "proceed"
            assert result.final_score == 1.0
            assert result.judge_name == "scripted"
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)


def test_a_failure_shows_score_decision_and_every_claim_that_is_not_grounded(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_answer(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*GroundingFailure: grounding check failed: decision is replan, expected proceed",
        "*S = 0.62, decision = replan, judge = scripted, claims G1 U1 X0 K0",
        "*claims not grounded (1 of 2):",
        "*- ungrounded, inference, refs *: 'The outage was caused by a config push.'*",
    ])
    # The traceback points at the test's own line, not into the plugin.
    result.stdout.fnmatch_lines(["test_a_failure_shows*.py:2: GroundingFailure"])
    assert "judging.py" not in result.stdout.str()


def test_a_contradicted_claim_is_listed_with_its_bucket_type_and_refs(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_answer(assert_grounded):
            assert_grounded({CONTRADICTED!r}, [{METRIC_ROW!r}])
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- contradicted, tool_match, refs E1: "
                                 "'CPU on host db-prod-1 reached 45% at 14:02.'*"])


def test_min_score_and_decision_arguments_set_the_passing_rule(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_low_bar(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.6, decision="any")

        def test_high_bar(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.7, decision="any")

        def test_expected_decision(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], decision="replan")

        def test_wrong_decision(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], decision="replan")
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*S = 0.62 is below min_score 0.70*",
                                 "*decision is proceed, expected replan*"])


def test_evaluator_options_reach_the_evaluator(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        from gsar_otel import GSARThresholds

        def test_lenient_thresholds(assert_grounded):
            result = assert_grounded({HALF!r}, [{METRIC_ROW!r}],
                                     thresholds=GSARThresholds(proceed=0.6, regenerate=0.5))
            assert result.final_decision == "proceed"

        def test_bad_option(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], k_max=-1)
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*invalid evaluator option: k_max must be an integer >= 0*"])


def test_bad_arguments_fail_with_the_allowed_values(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_bad_decision(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], decision="maybe")

        def test_bad_min_score(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], min_score=2)

        def test_bad_judge(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], judge="oracle")
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines_random([
        "*decision must be one of proceed, regenerate, replan, abstain, any, not_proceed, "
        "got 'maybe'*",
        "*min_score must be a number between 0 and 1, got 2*",
        "*unknown judge 'oracle'; available: staged, anthropic, records, tiered, lexical, scripted*",
    ])


def test_an_explicit_judge_object_is_used_as_given(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        from gsar_otel import StagedJudge

        class Strict(StagedJudge):
            name = "strict"
            deterministic = True

        def test_answer(assert_grounded):
            result = assert_grounded({GOOD!r}, [{METRIC_ROW!r}], judge=Strict())
            assert result.judge_name == "strict"
    """)
    gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_gsar_judge_and_gsar_evaluator_fixtures_use_the_configured_judge(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import asyncio
        from gsar_otel import EvidenceSet

        def test_judge(gsar_judge):
            assert gsar_judge.name == "scripted"
            output = asyncio.run(gsar_judge.judge(synthesis={GOOD!r},
                                                  evidence=EvidenceSet.coerce([{METRIC_ROW!r}])))
            assert len(output.grounded_claims) == 1

        def test_evaluator(gsar_evaluator):
            result = gsar_evaluator.evaluate_sync(report_synthesis={HALF!r},
                                                  evidence_corpus=[{METRIC_ROW!r}])
            assert result.final_decision == "replan"
            assert result.judge_name == "scripted"
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=2)


def test_assert_grounded_works_inside_an_async_test(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import asyncio

        def test_in_running_loop(assert_grounded):
            async def inner():
                return assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
            assert asyncio.run(inner()).final_decision == "proceed"
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)


def test_each_call_in_a_test_is_judged_and_reported(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_two(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], decision="replan")
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["passed   test_each_call*.py::test_two  *S 1.00*proceed*",
                                 "passed   test_each_call*.py::test_two#2*S 0.62*replan*"])


def test_exceptions_from_the_tests_own_callbacks_propagate_unchanged(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        import pytest

        class AgentBroke(ValueError):
            pass

        def rewrite(synthesis, judge_output):
            raise AgentBroke("the agent's rewriter failed")

        def test_answer(assert_grounded):
            with pytest.raises(AgentBroke, match="rewriter failed"):
                assert_grounded({HALF!r}, [{METRIC_ROW!r}], regenerate_fn=rewrite)
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1)


def test_bad_answers_and_evidence_fail_with_a_clear_message(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_not_text(assert_grounded):
            assert_grounded({{"answer": 1}}, [{METRIC_ROW!r}])

        def test_bad_evidence(assert_grounded):
            assert_grounded({GOOD!r}, 42)
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines_random([
        "*assert_grounded: synthesis must be a str, got dict*",
        "*assert_grounded: evidence must be a string, an Evidence, a dict*",
    ])


def test_no_evidence_is_the_evaluators_no_evidence_abstain(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_none(assert_grounded):
            assert_grounded({GOOD!r})

        def test_empty_list(assert_grounded):
            assert_grounded({GOOD!r}, [])

        def test_expected(assert_grounded):
            result = assert_grounded({GOOD!r}, [], decision="abstain")
            assert result.degraded_reason == "no_evidence"
            assert result.trajectory[0].judge_duration_s == 0.0
    """)
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("blank", GOOD, []), case("known-bad", GOOD, [], expect="not_proceed")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=3, passed=2)
    result.stdout.fnmatch_lines(["*decision is abstain, expected proceed*"])
    result.stdout.fnmatch_lines(["*the judge abstained: no_evidence: there was no evidence*"])
