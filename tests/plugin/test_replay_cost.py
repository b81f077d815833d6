"""What replaying one recorded case costs, in counted operations (never in time): the secret
environment values are read once per judgement, and a small judgement's integrity guard runs
without a trip through the worker pool."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, case, write_cases

COUNTING_CONFTEST = """
    import gsar_otel.core.redact as redact
    from gsar_otel.core import deadline

    reads = []
    real_secret_values = redact.secret_values

    def counting_secret_values(*args, **kwargs):
        reads.append(1)
        return real_secret_values(*args, **kwargs)

    redact.secret_values = counting_secret_values
    before = deadline.pool_stats()

    def pytest_unconfigure(config):
        after = deadline.pool_stats()
        print(f"COUNTS reads={len(reads)} jobs={after.submitted - before.submitted} "
              f"inline={after.inline - before.inline}")
"""


def test_each_replayed_case_reads_the_secrets_once_and_submits_no_pool_job(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_anthropic import FakeMessagesServer

    cases = [case(f"cpu-{i}", GOOD.replace("97%", f"{90 + i}%"),
                  [f"host=db-prod-1 cpu_pct={90 + i}.2 at 14:02:01"]) for i in range(5)]
    write_cases(gsar_pytester, "gsar_cases.jsonl", cases)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge=anthropic",
                                           "--gsar-record-mode=once").assert_outcomes(passed=5)
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    gsar_pytester.makeconftest(COUNTING_CONFTEST)
    result = gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s",
                                                "--gsar-judge=anthropic", "--gsar-record-mode=none")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*COUNTS reads=5 jobs=0 inline=5*"])
