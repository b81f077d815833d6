"""Under pytest-xdist (-n 2) results reach the controller; summary, baseline and report once."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case, read_json, write_cases
from tests.support.fake_anthropic import FakeMessagesServer

CASES = [case(f"good-{n}", GOOD) for n in range(6)] + [case("half", HALF)]
MODULE = f"""
import pytest

@pytest.mark.parametrize("n", range(4))
def test_answer(assert_grounded, n):
    assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
"""


def test_two_workers_report_once_and_write_the_baseline_and_report_once(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", CASES)
    gsar_pytester.makepyfile(test_agent=MODULE)
    result = gsar_pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--gsar-judge=lexical",
        "--gsar-baseline=baseline.json", "--gsar-update-baseline", "--gsar-report=report.html",
        "-v")
    result.assert_outcomes(passed=10, failed=1)
    output = result.stdout.str()
    assert output.count("= gsar grounding =") == 1
    result.stdout.fnmatch_lines(["11 judged: 10 proceed, 1 replan; mean S 0.97; 1 failed",
                                 "baseline *: 0 regressed, 11 new, 0 vanished",
                                 "baseline written: 11 entries"])
    summary = output.split("= gsar grounding =")[1]
    assert summary.count("passed   gsar_cases.jsonl::good-") == 6
    entries = read_json(gsar_pytester.path / "baseline.json")["entries"]
    assert len(entries) == 11 and entries["gsar_cases.jsonl::half"]["decision"] == "replan"
    report = (gsar_pytester.path / "report.html").read_text()
    assert report.count("<section") == 11

    # Against that baseline, a regression is caught in whichever worker runs the case.
    write_cases(gsar_pytester, "gsar_cases.jsonl", [*CASES[:-1], case("half", HALF, min_score=0)])
    (gsar_pytester.path / "test_agent.py").write_text(MODULE.replace(repr(GOOD), repr(HALF)))
    result = gsar_pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--gsar-judge=lexical",
        "--gsar-baseline=baseline.json", "--gsar-min-score=0")
    result.assert_outcomes(passed=7, failed=4)
    result.stdout.fnmatch_lines(["baseline *: 4 regressed, 0 new, 0 vanished"])


def test_workers_recording_into_one_cassette_keep_every_verdict(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [case(f"host-{n}", f"CPU on host db-prod-{n} reached 97% at 14:02.",
                  [f"[tool=query_metrics row=14:02:01] host=db-prod-{n} cpu_pct=97.2"])
             for n in range(8)]
    write_cases(gsar_pytester, "gsar_cases.jsonl", cases)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        gsar_pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider",
                                           "--gsar-judge=anthropic", "--gsar-record-mode=once"
                                           ).assert_outcomes(passed=8)
        assert len(server.message_requests) == 8
    verdicts = read_json(gsar_pytester.path / "cassettes" / "gsar" / "gsar_cases.json")["verdicts"]
    assert len(verdicts) == 8
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    gsar_pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider",
                                       "--gsar-judge=anthropic").assert_outcomes(passed=8)
