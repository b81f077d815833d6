"""--gsar-record-mode: record verdicts against the fake Messages API, replay them with no server.

The outer test starts a real HTTP fake of the Messages API; the inner session's AnthropicJudge
reaches it through ANTHROPIC_BASE_URL with a test key. Replays run with the server stopped and
no key at all.
"""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, METRIC_ROW, case, read_json, write_cases, write_ini
from tests.support.fake_anthropic import FakeMessagesServer

OTHER = "Host db-prod-1 had CPU at 97% at 14:02."
TEST_FILE = f"""
def test_answer(assert_grounded):
    assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
"""
TWO_ANSWERS = f"""
def test_answer(assert_grounded):
    assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    assert_grounded({OTHER!r}, [{METRIC_ROW!r}])
"""


def use_server(monkeypatch: pytest.MonkeyPatch, server: FakeMessagesServer) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")


def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_once_records_and_none_replays_with_the_server_stopped(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                                   "--gsar-record-mode=once")
        result.assert_outcomes(passed=1)
        assert len(server.message_requests) == 1
    cassette = gsar_pytester.path / "cassettes" / "gsar" / "test_agent" / "test_answer.json"
    verdicts = read_json(cassette)["verdicts"]
    [entry] = verdicts.values()
    assert entry["judge"]["backend"] == "anthropic"
    assert entry["synthesis"] == GOOD
    assert entry["evidence"] == [{"id": "E1", "type": "tool_match", "content": METRIC_ROW}]

    no_server(monkeypatch)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic")
    result.assert_outcomes(passed=1)


def test_none_is_the_default_and_a_missing_verdict_says_how_to_record_it(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    no_server(monkeypatch)
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*no recorded verdict for this answer in *test_answer.json (record mode 'none'); run "
        "with --gsar-record-mode=once to record it",
        "MISSING  test_agent.py::test_answer  no recorded verdict",
        "hint: run with --gsar-record-mode=once to record the missing verdicts",
    ])
    assert not (gsar_pytester.path / "cassettes").exists()


def test_once_does_not_add_to_an_existing_cassette_but_new_episodes_does(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                          ).assert_outcomes(passed=1)
        gsar_pytester.makepyfile(test_agent=TWO_ANSWERS)
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                                   "--gsar-record-mode=once")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*(record mode 'once'); run with "
                                     "--gsar-record-mode=new_episodes to add it"])
        assert len(server.message_requests) == 1

        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                          "--gsar-record-mode=new_episodes"
                                          ).assert_outcomes(passed=1)
        assert len(server.message_requests) == 2
    cassette = gsar_pytester.path / "cassettes" / "gsar" / "test_agent" / "test_answer.json"
    synthesized = sorted(v["synthesis"] for v in read_json(cassette)["verdicts"].values())
    assert synthesized == sorted([GOOD, OTHER])

    no_server(monkeypatch)
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=1)


def test_all_calls_the_judge_again_for_recorded_verdicts(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        for mode, requests in (("once", 1), ("new_episodes", 1), ("all", 2)):
            gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                              f"--gsar-record-mode={mode}"
                                              ).assert_outcomes(passed=1)
            assert len(server.message_requests) == requests, mode


def test_case_files_share_one_cassette_per_file(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_cases(gsar_pytester, "gsar_incidents.jsonl", [case("cpu", GOOD), case("other", OTHER)])
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                          ).assert_outcomes(passed=2)
        assert len(server.message_requests) == 2
    cassette = gsar_pytester.path / "cassettes" / "gsar" / "gsar_incidents.json"
    assert len(read_json(cassette)["verdicts"]) == 2

    no_server(monkeypatch)
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=2)
    write_cases(gsar_pytester, "gsar_incidents.jsonl", [case("cpu", GOOD), case("other", OTHER),
                                                        case("new", "CPU hit 97%.")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["hint: run with --gsar-record-mode=new_episodes to record the "
                                 "missing verdicts"])


def test_a_failed_judge_call_is_not_recorded(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.fake_anthropic import server_error

    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        server.enqueue(*[server_error() for _ in range(5)])
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                                   "--gsar-record-mode=once")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*decision is abstain, expected proceed*"])
    assert not (gsar_pytester.path / "cassettes").exists()


def test_a_deterministic_judge_needs_no_cassette(gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    gsar_pytester.runpytest_inprocess("--gsar-judge=staged", "--gsar-record-mode=all"
                                      ).assert_outcomes(passed=1)
    assert not (gsar_pytester.path / "cassettes").exists()


def test_recording_without_a_key_fails_with_how_to_set_one(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    no_server(monkeypatch)
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cannot build the 'anthropic' judge: AnthropicJudge needs an "
                                 "Anthropic API key: set ANTHROPIC_API_KEY*"])


def test_record_mode_comes_from_ini_and_the_command_line_wins(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_ini(gsar_pytester, gsar_record_mode="once", gsar_judge="anthropic")
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.runpytest_inprocess("--gsar-record-mode=none").assert_outcomes(failed=1)
        assert not server.message_requests
        gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)
        assert len(server.message_requests) == 1


def test_an_invalid_record_mode_is_a_usage_error_naming_the_valid_ones(
        gsar_pytester: pytest.Pytester) -> None:
    result = gsar_pytester.runpytest_inprocess("--gsar-record-mode=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --gsar-record-mode: invalid choice: 'sometimes' "
                                 "(choose from 'none', 'once', 'new_episodes', 'all')*"])
    write_ini(gsar_pytester, gsar_record_mode="sometimes")
    result = gsar_pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gsar_record_mode (ini) must be one of none, once, "
                                 "new_episodes, all; got 'sometimes'*"])


def test_a_damaged_cassette_fails_with_how_to_recover(gsar_pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    no_server(monkeypatch)
    gsar_pytester.makepyfile(test_agent=TEST_FILE)
    cassette = gsar_pytester.path / "cassettes" / "gsar" / "test_agent" / "test_answer.json"
    cassette.parent.mkdir(parents=True)
    cassette.write_text("{ not json")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cannot read cassette *test_answer.json*delete it and record "
                                 "again with --gsar-record-mode=once*"])
