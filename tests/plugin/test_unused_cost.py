"""What the plugin loads: only its hooks in a suite that never judges; no SDK to replay."""

from __future__ import annotations

import pytest

LIGHT_MODULES = {"pytest_gsar", "pytest_gsar.hooks", "pytest_gsar.options", "pytest_gsar.plugin",
                 "pytest_gsar.records", "pytest_gsar.state"}


def test_a_suite_without_gsar_imports_none_of_its_machinery(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest("""
        import sys

        def pytest_unconfigure(config):
            loaded = sorted(m for m in sys.modules
                            if m.split(".")[0] in ("gsar_otel", "pytest_gsar", "anthropic"))
            print("LOADED " + ",".join(loaded))
    """)
    gsar_pytester.makepyfile("""
        import pytest

        @pytest.mark.parametrize("n", range(20))
        def test_plain(n):
            assert n >= 0
    """)
    (gsar_pytester.path / "notes.jsonl").write_text('{"not": "a case file"}\n')
    result = gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=20)
    [line] = [line for line in result.outlines if line.startswith("LOADED ")]
    loaded = set(line.removeprefix("LOADED ").split(","))
    assert loaded <= LIGHT_MODULES, sorted(loaded - LIGHT_MODULES)


def test_replaying_anthropic_verdicts_loads_neither_the_sdk_nor_a_key(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.plugin.helpers import GOOD, case, write_cases
    from tests.support.fake_anthropic import FakeMessagesServer

    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("cpu", GOOD)])
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                          ).assert_outcomes(passed=1)
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    gsar_pytester.makeconftest("""
        import sys

        def pytest_unconfigure(config):
            print("SDK LOADED" if "anthropic" in sys.modules else "SDK NOT LOADED")
    """)
    result = gsar_pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s",
                                                "--gsar-judge=anthropic", "--gsar-record-mode=none")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*SDK NOT LOADED*"])
