"""--gsar-baseline and --gsar-update-baseline: score regressions against a stored baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin.helpers import (
    CONTRADICTED,
    GOOD,
    HALF,
    METRIC_ROW,
    case,
    read_json,
    write_cases,
    write_ini,
)


def write_baseline(path: Path, entries: dict[str, tuple[float, str]]) -> None:
    path.write_text(json.dumps({"format": "gsar-baseline/1", "entries": {
        key: {"score": score, "decision": decision, "judge": "scripted"}
        for key, (score, decision) in entries.items()}}))


def test_update_writes_every_case_and_assert_once(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD),
                                                    case("half", HALF, expect="replan")])
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
            assert_grounded({CONTRADICTED!r}, [{METRIC_ROW!r}], decision="replan")
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json",
                                               "--gsar-update-baseline")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["baseline *baseline.json: 0 regressed, 4 new, 0 vanished",
                                 "baseline written: 4 entries"])
    data = read_json(gsar_pytester.path / "baseline.json")
    assert data["format"] == "gsar-baseline/1"
    assert data["entries"] == {
        "gsar_cases.jsonl::good": {"score": 1.0, "decision": "proceed", "judge": "scripted"},
        "gsar_cases.jsonl::half": {"score": 0.625, "decision": "replan", "judge": "scripted"},
        "test_agent.py::test_answer": {"score": 1.0, "decision": "proceed", "judge": "scripted"},
        "test_agent.py::test_answer#2": {"score": 0.0, "decision": "replan", "judge": "scripted"},
    }
    # A run against the fresh baseline passes and has nothing to say.
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json")
    result.assert_outcomes(passed=3)
    assert "gsar grounding" not in result.stdout.str()


def test_a_score_drop_beyond_the_tolerance_fails(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF, expect="replan")])
    write_baseline(gsar_pytester.path / "baseline.json",
                   {"gsar_cases.jsonl::half": (0.9, "replan")})
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "gsar_cases.jsonl:1: grounding check failed: S fell by 0.28, from 0.90 to 0.62 "
        "(baseline tolerance 0.05)",
        "*baseline: S 0.90 -> 0.62 (-0.28), decision replan -> replan",
        "FAILED   gsar_cases.jsonl::half  S 0.62  replan     G1 U1 X0 K0  baseline 0.90 (-0.28)",
        "baseline *baseline.json: 1 regressed, 0 new, 0 vanished",
        "hint: grounding regressed: fix the agent's answers, or run with --gsar-update-baseline "
        "to accept the new scores",
    ])


def test_a_worse_decision_fails_even_within_the_tolerance(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl",
                [case("half", HALF, min_score=0.6, expect="any")])
    write_baseline(gsar_pytester.path / "baseline.json",
                   {"gsar_cases.jsonl::half": (0.65, "regenerate")})
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*decision got worse than the baseline: regenerate -> replan*"])


def test_scores_within_the_tolerance_or_better_pass(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF, expect="replan"),
                                                    case("good", GOOD)])
    write_baseline(gsar_pytester.path / "baseline.json", {
        "gsar_cases.jsonl::half": (0.66, "replan"), "gsar_cases.jsonl::good": (0.7, "regenerate")})
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines_random(["passed   gsar_cases.jsonl::half  *baseline 0.66 (-0.04)",
                                        "passed   gsar_cases.jsonl::good  *baseline 0.70 (+0.30)"])


def test_new_and_vanished_cases_are_reported_and_update_applies_them(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD), case("fresh", GOOD)])
    write_cases(gsar_pytester, "gsar_other.jsonl", [case("kept", GOOD)])
    write_baseline(gsar_pytester.path / "baseline.json", {
        "gsar_cases.jsonl::good": (1.0, "proceed"),
        "gsar_cases.jsonl::removed": (1.0, "proceed"),
        "gsar_other.jsonl::kept": (1.0, "proceed"),
        "gsar_gone.jsonl::whole-file": (1.0, "proceed"),
    })
    args = ["--gsar-judge=scripted", "--gsar-baseline=baseline.json", "gsar_cases.jsonl"]
    result = gsar_pytester.runpytest_inprocess(*args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "baseline *baseline.json: 0 regressed, 1 new, 1 vanished, 2 not run",
        "  new: gsar_cases.jsonl::fresh",
        "  vanished: gsar_cases.jsonl::removed",
        "hint: run with --gsar-update-baseline to add 1 new and drop 1 vanished baseline entries",
    ])
    gsar_pytester.runpytest_inprocess(*args, "--gsar-update-baseline").assert_outcomes(passed=2)
    entries = read_json(gsar_pytester.path / "baseline.json")["entries"]
    # Entries of files that did not run are kept; the removed case is dropped.
    assert sorted(entries) == ["gsar_cases.jsonl::fresh", "gsar_cases.jsonl::good",
                               "gsar_gone.jsonl::whole-file", "gsar_other.jsonl::kept"]


def test_deselected_and_skipped_tests_are_not_counted_as_vanished(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=f"""
        import pytest

        def test_kept(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

        def test_other(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

        @pytest.mark.skip(reason="judge offline")
        def test_skipped(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

        def test_no_longer_judges():
            pass
    """)
    write_baseline(gsar_pytester.path / "baseline.json", {
        f"test_agent.py::{name}": (1.0, "proceed")
        for name in ("test_kept", "test_other", "test_skipped", "test_no_longer_judges")})
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json", "-k", "not other")
    result.stdout.fnmatch_lines(["baseline *: 0 regressed, 0 new, 1 vanished, 2 not run",
                                 "  vanished: test_agent.py::test_no_longer_judges"])


def test_the_baseline_path_comes_from_ini(gsar_pytester: pytest.Pytester) -> None:
    write_ini(gsar_pytester, gsar_baseline="ci/baseline.json", gsar_judge="scripted")
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD)])
    gsar_pytester.runpytest_inprocess("--gsar-update-baseline").assert_outcomes(passed=1)
    assert read_json(gsar_pytester.path / "ci" / "baseline.json")["entries"]


def test_update_needs_a_baseline_path(gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--gsar-update-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--gsar-update-baseline needs a baseline file: pass "
                                 "--gsar-baseline=PATH or set gsar_baseline in the ini file*"])


@pytest.mark.parametrize(("content", "message"), [
    ("{oops", "cannot read baseline"),
    ('{"format": "other", "entries": {}}', "is not a gsar baseline"),
    ('{"format": "gsar-baseline/1", "entries": {"a": {"score": 1}}}',
     "entry 'a' needs a numeric \"score\" and a \"decision\""),
    ('{"format": "gsar-baseline/1", "entries": {"a": {"score": 1, "decision": "ok"}}}',
     "entry 'a' has decision 'ok'; allowed: proceed, regenerate, replan, abstain"),
])
def test_a_bad_baseline_file_is_a_usage_error(gsar_pytester: pytest.Pytester, content: str,
                                              message: str) -> None:
    (gsar_pytester.path / "baseline.json").write_text(content)
    result = gsar_pytester.runpytest_inprocess("--gsar-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_a_regression_under_another_judge_names_both_judges(
        gsar_pytester: pytest.Pytester) -> None:
    # e.g. a baseline written before the default offline judge changed
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("half", HALF, expect="replan"),
                                                    case("good", GOOD)])
    path = gsar_pytester.path / "baseline.json"
    path.write_text(json.dumps({"format": "gsar-baseline/1", "entries": {
        "gsar_cases.jsonl::half": {"score": 0.9, "decision": "replan", "judge": "lexical"},
        "gsar_cases.jsonl::good": {"score": 1.0, "decision": "proceed", "judge": "lexical"}}}))
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-baseline=baseline.json")
    result.assert_outcomes(passed=1, failed=1)  # a judge change alone is no regression
    result.stdout.fnmatch_lines([
        "*the baseline was written with judge 'lexical', this run judged with 'scripted'*"])
