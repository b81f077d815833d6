"""A suite that never judges loads only the plugin's hooks: no gsar_otel, no judge, no SDK."""

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
