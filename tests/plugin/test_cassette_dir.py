"""Where cassettes live: next to the test file by default, or --gsar-cassette-dir / ini."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, METRIC_ROW, case, write_cases, write_ini
from tests.support.fake_anthropic import FakeMessagesServer

TESTS = f"""
import pytest

def test_answer(assert_grounded):
    assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

class TestAgent:
    @pytest.mark.parametrize("n", [1])
    def test_param(self, assert_grounded, n):
        assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
"""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeMessagesServer:
    with FakeMessagesServer() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        yield fake


def test_the_default_layout_is_cassettes_gsar_next_to_each_test_file(
        gsar_pytester: pytest.Pytester, server: FakeMessagesServer) -> None:
    gsar_pytester.mkpydir("agents")
    (gsar_pytester.path / "agents" / "test_triage.py").write_text(TESTS)
    write_cases(gsar_pytester, "agents/gsar_incidents.jsonl", [case("cpu", GOOD)])
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                      ).assert_outcomes(passed=3)
    base = gsar_pytester.path / "agents" / "cassettes" / "gsar"
    found = sorted(str(p.relative_to(base)) for p in base.rglob("*.json"))
    assert found == ["gsar_incidents.json", "test_triage/TestAgent.test_param[1].json",
                     "test_triage/test_answer.json"]


def test_the_command_line_and_ini_move_cassettes_under_one_directory(
        gsar_pytester: pytest.Pytester, server: FakeMessagesServer) -> None:
    gsar_pytester.mkpydir("agents")
    (gsar_pytester.path / "agents" / "test_triage.py").write_text(TESTS)
    write_ini(gsar_pytester, gsar_cassette_dir="recorded")
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once",
                                      "-k", "test_answer").assert_outcomes(passed=1, deselected=1)
    assert (gsar_pytester.path / "recorded" / "agents" / "test_triage" / "test_answer.json"
            ).exists()
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once",
                                      f"--gsar-cassette-dir={gsar_pytester.path / 'cli'}",
                                      "-k", "test_answer").assert_outcomes(passed=1, deselected=1)
    assert (gsar_pytester.path / "cli" / "agents" / "test_triage" / "test_answer.json").exists()
    assert not (gsar_pytester.path / "agents" / "cassettes").exists()
