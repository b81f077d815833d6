"""No secret reaches a cassette recorded through the plugin: not the API key, not a header."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import GOOD, METRIC_ROW
from tests.support.fake_anthropic import FakeMessagesServer

API_KEY = "sk-ant-api03-plugin-test-key-0123456789"


def test_the_api_key_and_headers_never_reach_the_cassette(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    """)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                          ).assert_outcomes(passed=1)
        # The key was really sent (as a bearer token in anthropic 2.x, x-api-key before).
        sent = server.last_request.headers
        assert API_KEY in sent.get("authorization", "") + sent.get("x-api-key", "")
    [cassette] = (gsar_pytester.path / "cassettes").rglob("*.json")
    text = cassette.read_text()
    assert API_KEY not in text
    for header in ("x-api-key", "authorization", "anthropic-version", "user-agent"):
        assert header not in text.lower()


def test_a_secret_inside_the_answer_or_evidence_is_masked_before_writing(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    leaked = "sk-ant-api03-evidence-leak-abcdefghij"
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}, "config dump: api_key={leaked}"],
                            min_score=0, decision="any")
    """)
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-record-mode=once"
                                          ).assert_outcomes(passed=1)
    [cassette] = (gsar_pytester.path / "cassettes").rglob("*.json")
    text = cassette.read_text()
    assert leaked not in text and "test-key" not in text
    assert "[REDACTED]" in text
