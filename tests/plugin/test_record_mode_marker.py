"""``@pytest.mark.gsar(record_mode=...)``: a test's own record mode, over the command line and ini.

The inner sessions' AnthropicJudge talks to the real fake Messages API over HTTP; replays run with
the server stopped and no key.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_gsar.errors import GroundingFailure
from pytest_gsar.options import RECORD_MODES, marker_record_mode
from tests.plugin.helpers import GOOD, METRIC_ROW, write_ini
from tests.plugin.test_record_mode import OTHER, no_server, use_server
from tests.support.fake_anthropic import FakeMessagesServer

CASSETTE = ("cassettes", "gsar", "test_agent", "test_answer.json")


def marked(mode: str, *answers: str) -> str:
    calls = "".join(f"    assert_grounded({a!r}, [{METRIC_ROW!r}])\n" for a in answers or (GOOD,))
    return (f"import pytest\n\n@pytest.mark.gsar(record_mode={mode!r})\n"
            f"def test_answer(assert_grounded):\n{calls}")


def test_a_marker_records_in_a_replay_only_session_and_the_replay_needs_no_server(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=marked("once"))
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=1)
        assert len(server.message_requests) == 1
    assert gsar_pytester.path.joinpath(*CASSETTE).is_file()
    no_server(monkeypatch)
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=1)


def test_the_marker_wins_over_the_command_line_and_the_ini_file(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_ini(gsar_pytester, gsar_record_mode="all", gsar_judge="anthropic")
    gsar_pytester.makepyfile(test_agent=marked("none"))
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        for extra in ((), ("--gsar-record-mode=all",)):
            result = gsar_pytester.runpytest_inprocess(*extra)
            result.assert_outcomes(failed=1)
            result.stdout.fnmatch_lines(["*no recorded verdict for this answer in "
                                         "*test_answer.json (record mode 'none')*"])
        assert not server.message_requests


def test_a_marked_once_test_does_not_add_to_its_existing_cassette(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.makepyfile(test_agent=marked("once"))
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=1)
        gsar_pytester.makepyfile(test_agent=marked("once", GOOD, OTHER))
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*(record mode 'once'); run with "
                                     "--gsar-record-mode=new_episodes to add it"])
        gsar_pytester.makepyfile(test_agent=marked("new_episodes", GOOD, OTHER))
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic").assert_outcomes(passed=1)
        assert len(server.message_requests) == 2


def test_an_invalid_marker_mode_errors_naming_the_test_and_the_modes(
        gsar_pytester: pytest.Pytester) -> None:
    # The offline judge never reads a record mode: the marker is checked anyway.
    gsar_pytester.makepyfile(test_agent=marked("sometimes"))
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=staged")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "*test_agent.py::test_answer: @pytest.mark.gsar(record_mode=...): record mode must be "
        "one of none, once, new_episodes, all; got 'sometimes'*"])


def test_the_other_marker_options_still_work_beside_record_mode(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makepyfile(test_agent=f"""
import pytest

@pytest.mark.gsar(record_mode="none", decision="replan", min_score=0.0, judge="staged")
def test_answer(assert_grounded):
    assert_grounded("CPU on host db-prod-1 reached 45% at 14:02.", [{METRIC_ROW!r}])
""")
    gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)


class _Item:
    """What marker_record_mode reads of a test item: its closest marker and its node id."""

    nodeid = "tests/test_x.py::test_y"

    def __init__(self, mark: pytest.Mark | None) -> None:
        self.mark = mark

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return self.mark if name == "gsar" else None


@given(st.sampled_from(RECORD_MODES), st.sampled_from(["", " ", "\t"]), st.booleans())
def test_every_spelling_of_a_mode_is_that_mode(mode: str, pad: str, upper: bool) -> None:
    value = pad + (mode.upper() if upper else mode) + pad
    item = _Item(pytest.mark.gsar(record_mode=value).mark)
    assert marker_record_mode(item) == mode  # type: ignore[arg-type]


@given(st.text().filter(lambda t: t.strip().lower() not in RECORD_MODES))
def test_every_other_value_is_refused_naming_the_test_and_the_modes(value: str) -> None:
    item = _Item(pytest.mark.gsar(record_mode=value).mark)
    with pytest.raises(GroundingFailure) as raised:
        marker_record_mode(item)  # type: ignore[arg-type]
    assert str(raised.value).startswith("tests/test_x.py::test_y: @pytest.mark.gsar(")
    assert "one of none, once, new_episodes, all" in str(raised.value)


def test_no_marker_or_no_mode_leaves_the_session_mode() -> None:
    assert marker_record_mode(_Item(None)) is None  # type: ignore[arg-type]
    assert marker_record_mode(_Item(pytest.mark.gsar(min_score=0.5).mark)) is None  # type: ignore[arg-type]
