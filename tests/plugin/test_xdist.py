"""Under pytest-xdist (-n 2): workers record into one cassette, results reach the controller, and
the summary, baseline and report are written once."""

from __future__ import annotations

import json

import pytest

from tests.plugin.helpers import case, read_json, write_cases
from tests.support.fake_anthropic import FakeMessagesServer

HOSTS = [f"db-prod-{n}" for n in range(8)]
CASES = [case(host, f"CPU on host {host} reached 97% at 14:02.",
              [f"[tool=query_metrics row=14:02:01] host={host} cpu_pct=97.2"]) for host in HOSTS]
MISREAD = case("misread", "CPU on host db-prod-9 reached 45% at 14:02.",
               ["[tool=query_metrics row=14:02:01] host=db-prod-9 cpu_pct=97.2"], min_score=0,
               expect="any")
"""The fake judge calls it grounded; the integrity guard does not (45% is not in the row)."""
MODULE = """
import pytest

@pytest.mark.parametrize("n", range(4))
def test_answer(assert_grounded, n):
    assert_grounded(f"Disk on host web-{n} was 80% full at 09:00.",
                    [f"[tool=query_metrics row=09:00:00] host=web-{n} disk_pct=80.1"])
"""
XDIST = ("-n", "2", "-p", "no:cacheprovider", "--gsar-judge=anthropic")


def test_two_workers_record_report_and_compare_once(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [*CASES, MISREAD])
    gsar_pytester.makepyfile(test_agent=MODULE)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        result = gsar_pytester.runpytest_subprocess(
            *XDIST, "--gsar-record-mode=once", "--gsar-baseline=baseline.json",
            "--gsar-update-baseline", "--gsar-report=report.html", "-v")
        assert len(server.message_requests) == 13
    result.assert_outcomes(passed=13)
    output = result.stdout.str()
    assert output.count("= gsar grounding =") == 1
    summary = output.split("= gsar grounding =")[1]
    assert summary.count("passed   gsar_cases.jsonl::db-prod-") == 8
    assert summary.count("passed   test_agent.py::test_answer[") == 4
    result.stdout.fnmatch_lines(["13 judged: 12 proceed, 1 replan; mean S 0.92",
                                 "baseline baseline.json: 0 regressed, 13 new, 0 vanished",
                                 "baseline written: 13 entries"])
    # Both workers recorded into the case file's one cassette; nothing was lost.
    verdicts = read_json(gsar_pytester.path / "cassettes" / "gsar" / "gsar_cases.json")["verdicts"]
    assert len(verdicts) == 9
    baseline_path = gsar_pytester.path / "baseline.json"
    baseline = read_json(baseline_path)
    assert len(baseline["entries"]) == 13
    assert (gsar_pytester.path / "report.html").read_text().count("<section") == 13

    # Replay with the server gone and no key; a regression is caught by whichever worker runs it.
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    baseline["entries"]["gsar_cases.jsonl::misread"] = {"score": 0.9, "decision": "proceed"}
    baseline_path.write_text(json.dumps(baseline))
    result = gsar_pytester.runpytest_subprocess(*XDIST, "--gsar-baseline=baseline.json")
    result.assert_outcomes(passed=12, failed=1)
    result.stdout.fnmatch_lines([
        "FAILED   gsar_cases.jsonl::misread  S 0.00  replan     G0 U1 X0 K0  baseline 0.90 (-0.90)",
        "baseline baseline.json: 1 regressed, 0 new, 0 vanished",
    ])
    assert result.stdout.str().count("= gsar grounding =") == 1
