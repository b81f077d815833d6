"""Recorded agent outputs as test cases: gsar_*.jsonl and *.gsar.jsonl."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import CONTRADICTED, GOOD, HALF, METRIC_ROW, case, write_cases


def test_each_line_of_a_case_file_is_a_test_item_named_file_and_id(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_incidents.jsonl", [case("cpu", GOOD),
                                                        case("outage", HALF, expect="replan")])
    write_cases(gsar_pytester, "agents/triage.gsar.jsonl", [case("contradiction", CONTRADICTED,
                                                                  expect="replan")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines_random(["gsar_incidents.jsonl::cpu PASSED*",
                                        "gsar_incidents.jsonl::outage PASSED*",
                                        "agents/triage.gsar.jsonl::contradiction PASSED*"])


def test_other_jsonl_files_are_not_collected(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "incidents.jsonl", [case("cpu", GOOD)])
    write_cases(gsar_pytester, "gsarcases.jsonl", [case("cpu", GOOD)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_case_that_misses_its_expectation_fails_with_its_line_and_claims(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("cpu", GOOD), case("outage", HALF), case("low-bar", HALF, min_score=0.6, expect="any"),
        case("too-high", HALF, min_score=0.7, expect="any")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*_ gsar case outage _*",
        "gsar_cases.jsonl:2: grounding check failed: decision is replan, expected proceed",
        "*- ungrounded, inference, refs *: 'The outage was caused by a config push.'*",
    ])
    result.stdout.fnmatch_lines(["gsar_cases.jsonl:4: grounding check failed: S = 0.62 is below "
                                 "min_score 0.70"])


def test_evidence_may_be_text_or_objects_with_ids(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("text", GOOD, METRIC_ROW),
        case("objects", GOOD, [{"id": "metrics-1", "content": METRIC_ROW, "source": "metrics"}]),
    ])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=2)


def test_a_case_can_name_its_judge(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("named", GOOD, judge="staged"),
                                                    case("unknown", GOOD, judge="oracle")])
    result = gsar_pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*unknown judge 'oracle'; available: staged, anthropic, "
                                 "records, tiered, lexical, scripted*"])


def test_blank_lines_are_skipped_and_line_numbers_stay_true(gsar_pytester: pytest.Pytester) -> None:
    (gsar_pytester.path / "gsar_cases.jsonl").write_text(
        "\n" + json.dumps(case("first", GOOD)) + "\n\n" + json.dumps(case("second", HALF)) + "\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["gsar_cases.jsonl:4: grounding check failed*"])


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "a", "synthesis": "x"', "not valid JSON (Expecting ',' delimiter at column 29)"),
    ('["a", "b"]', "a case must be a JSON object, got list"),
    ('{"id": "a", "synthesis": "x"}', "missing required field(s) 'evidence'"),
    ('{"id": "a", "synthesis": "x", "evidence": "e", "expected": "proceed"}',
     "unknown field(s) 'expected'; allowed: id, synthesis, evidence, expect, min_score, judge, "
     "meta"),
    ('{"id": "", "synthesis": "x", "evidence": "e"}', "field 'id' must be a non-empty string"),
    ('{"id": "a::b", "synthesis": "x", "evidence": "e"}', "field 'id' must be a non-empty string"),
    ('{"id": "a", "synthesis": 3, "evidence": "e"}', "field 'synthesis' must be a non-empty "
                                                     "string, got 3"),
    ('{"id": "a", "synthesis": "x", "evidence": 7}', "field 'evidence': evidence must be a "
                                                     "string, an Evidence, a dict"),
    ('{"id": "a", "synthesis": "x", "evidence": "e", "expect": "ok"}',
     "field 'expect' must be one of proceed, regenerate, replan, abstain, any, not_proceed, "
     "got 'ok'"),
    ('{"id": "a", "synthesis": "x", "evidence": "e", "min_score": 1.5}',
     "field 'min_score' must be a number between 0 and 1, got 1.5"),
    ('{"id": "a", "synthesis": "x", "evidence": "e", "judge": 1}',
     "field 'judge' must be a judge name, got 1"),
])
def test_a_bad_line_is_a_collection_error_naming_file_and_line(
        gsar_pytester: pytest.Pytester, line: str, message: str) -> None:
    good = json.dumps(case("fine", GOOD))
    (gsar_pytester.path / "gsar_cases.jsonl").write_text(f"{good}\n{line}\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting gsar_cases.jsonl*",
                                 f"*gsar_cases.jsonl:2: {message}*"])
    assert "Traceback" not in result.stdout.str()


def test_duplicate_ids_are_a_collection_error_naming_both_lines(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("cpu", GOOD), case("other", GOOD),
                                                    case("cpu", HALF)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*gsar_cases.jsonl:3: duplicate case id 'cpu' (first on "
                                 "line 1)*"])


def test_cases_can_be_selected_by_id(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("cpu", GOOD), case("outage", HALF)])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "gsar_cases.jsonl::cpu")
    result.assert_outcomes(passed=1)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-k", "not outage")
    result.assert_outcomes(passed=1, deselected=1)


def test_expect_not_proceed_passes_any_decision_but_proceed(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("half", HALF, expect="not_proceed"),
        case("contradicted", CONTRADICTED, expect="NOT_PROCEED"),
        case("good", GOOD, expect="not_proceed")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "gsar_cases.jsonl:3: grounding check failed: decision is proceed, expected anything but "
        "proceed (not_proceed)"])


def test_assert_grounded_takes_not_proceed(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(f"""
        def test_bad(assert_grounded):
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], decision="not_proceed")

        def test_good(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}], decision="not_proceed")
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=1, failed=1)
