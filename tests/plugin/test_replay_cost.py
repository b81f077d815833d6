"""What replaying one recorded case costs, in counted operations (never in time): the secret
environment values are read once per judgement, a small judgement submits no job to the worker
pool, and a verdict recorded with the integrity guard's report (its memo) is not checked again,
unless the memo is missing or the user asks for ``--gsar-recheck``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin.helpers import GOOD, case, read_json, write_cases, write_ini

pytestmark = pytest.mark.cost

COUNTING_CONFTEST = """
    import gsar_otel.core.redact as redact
    import gsar_otel.judges.recorded.judge as recorded_judge
    from gsar_otel.core import judge_round
    from gsar_otel.runtime import pool

    reads = []
    guards = []
    real_secret_values = redact.secret_values
    real_guard = judge_round.check_judge_output

    def counting_secret_values(*args, **kwargs):
        reads.append(1)
        return real_secret_values(*args, **kwargs)

    def counting_guard(*args, **kwargs):
        guards.append(1)
        return real_guard(*args, **kwargs)

    redact.secret_values = counting_secret_values
    judge_round.check_judge_output = counting_guard
    restores = []
    real_restore = recorded_judge.restore_verdict

    def counting_restore(*args, **kwargs):
        restores.append(1)
        return real_restore(*args, **kwargs)

    recorded_judge.restore_verdict = counting_restore
    before = pool.pool_stats()

    def pytest_unconfigure(config):
        import sys

        after = pool.pool_stats()
        print(f"COUNTS reads={len(reads)} jobs={after.submitted - before.submitted} "
              f"inline={after.inline - before.inline} guard={len(guards)}")
        print(f"IMPORTED opentelemetry={'opentelemetry' in sys.modules} "
              f"restores={len(restores)}")
"""

CASES = 5


def recorded_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five cases recorded against the fake Messages API; the cassette's path."""
    from tests.support.fake_anthropic import FakeMessagesServer

    cases = [case(f"cpu-{i}", GOOD.replace("97%", f"{90 + i}%"),
                  [f"host=db-prod-1 cpu_pct={90 + i}.2 at 14:02:01"]) for i in range(CASES)]
    write_cases(pytester, "gsar_cases.jsonl", cases)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge=anthropic",
                                      "--gsar-record-mode=once").assert_outcomes(passed=CASES)
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    pytester.makeconftest(COUNTING_CONFTEST)
    return pytester.path / "cassettes" / "gsar" / "gsar_cases.json"


def replay(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s",
                                           "--gsar-judge=anthropic", *args)
    result.assert_outcomes(passed=CASES)
    return result


def strip_memos(cassette: Path) -> None:
    """The cassette as it was recorded before verdicts carried the guard's report."""
    document = read_json(cassette)
    for entry in document["verdicts"].values():
        entry["verdict"].pop("guard")
    cassette.write_text(json.dumps(document, indent=2, sort_keys=True), encoding="utf-8")


def test_a_replayed_case_reads_the_secrets_once_and_reuses_the_recorded_guard_report(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    cassette = recorded_suite(gsar_pytester, monkeypatch)
    assert all("digest" in entry["verdict"]["guard"]
               for entry in read_json(cassette)["verdicts"].values())
    result = replay(gsar_pytester, "--gsar-record-mode=none")
    result.stdout.fnmatch_lines(["*COUNTS reads=5 jobs=0 inline=0 guard=0*",
                                 # nothing listens for telemetry: OpenTelemetry is not loaded;
                                 # no reference mask in the cassette: nothing to read back
                                 "*IMPORTED opentelemetry=False restores=0*"])


def test_a_cassette_without_guard_reports_runs_the_guard_once_per_case_without_a_pool_job(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    cassette = recorded_suite(gsar_pytester, monkeypatch)
    strip_memos(cassette)
    result = replay(gsar_pytester, "--gsar-record-mode=none")
    result.stdout.fnmatch_lines(["*COUNTS reads=5 jobs=0 inline=5 guard=5*"])
    assert "guard" not in json.dumps(read_json(cassette))  # record mode none writes nothing


def test_recheck_runs_the_guard_on_every_replayed_verdict(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded_suite(gsar_pytester, monkeypatch)
    replay(gsar_pytester, "--gsar-record-mode=none", "--gsar-recheck").stdout.fnmatch_lines(
        ["*COUNTS reads=5 jobs=0 inline=5 guard=5*"])
    write_ini(gsar_pytester, gsar_recheck="true")
    replay(gsar_pytester, "--gsar-record-mode=none").stdout.fnmatch_lines(
        ["*COUNTS reads=5 jobs=0 inline=5 guard=5*"])


def test_new_episodes_adds_the_guard_report_beside_older_verdicts(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    cassette = recorded_suite(gsar_pytester, monkeypatch)
    recorded = read_json(cassette)
    strip_memos(cassette)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # a mode that may record builds the SDK
    replay(gsar_pytester, "--gsar-record-mode=new_episodes").stdout.fnmatch_lines(
        ["*COUNTS * guard=5*"])
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert read_json(cassette) == recorded  # the same reports the recording kept
    replay(gsar_pytester, "--gsar-record-mode=none").stdout.fnmatch_lines(
        ["*COUNTS * guard=0*"])


def test_a_hand_edited_verdict_is_checked_again(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing a recorded claim (here: citing an id the evidence does not have) voids the
    recorded report: the guard runs on that verdict and its repair decides the case."""
    cassette = recorded_suite(gsar_pytester, monkeypatch)
    document = read_json(cassette)
    entry = next(iter(document["verdicts"].values()))
    entry["verdict"]["output"]["grounded_claims"][0]["evidence_refs"] = ["E9"]
    cassette.write_text(json.dumps(document, indent=2, sort_keys=True), encoding="utf-8")
    result = gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s",
                                                "--gsar-judge=anthropic",
                                                "--gsar-record-mode=none")
    result.assert_outcomes(passed=CASES - 1, failed=1)
    result.stdout.fnmatch_lines(["*refs E9*adjusted: unknown_evidence_ref*",
                                 "1 replayed verdict(s) carried an integrity guard report that "
                                 "no longer matches *; --gsar-record-mode=new_episodes records "
                                 "fresh reports",
                                 "*COUNTS * guard=1*"])
    # Under xdist the workers' counts reach the controller's summary.
    distributed = gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2",
                                                     "--gsar-judge=anthropic",
                                                     "--gsar-record-mode=none")
    distributed.assert_outcomes(passed=CASES - 1, failed=1)
    distributed.stdout.fnmatch_lines(["1 replayed verdict(s) carried an integrity guard report*"])
