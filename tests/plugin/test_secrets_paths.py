"""Each path out of the process masks secrets the same way: built-in masking, then the
``gsar_redact`` plugins, which see already-masked text."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from gsar_otel.core.redact import REDACTED
from gsar_otel.judges.anthropic.logs import SDK_LOGGERS, RedactingFilter, install_log_redaction
from gsar_otel.plugins import hookimpl, register, unregister

SECRET = "password=hunter2hunter2"


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def gsar_redact(self, text: str, kind: str) -> str:
        self.seen.append((text, kind))
        return text.replace("db-prod-1", "<host>")


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    plugin = Recorder()
    register(plugin, name="tests-secrets-recorder")
    yield plugin
    unregister(plugin)


def test_span_content_is_masked_before_the_plugins_see_it(recorder: Recorder) -> None:
    from gsar_otel.otel.recording import _redact

    assert _redact(f"db-prod-1 {SECRET}", "claim") == f"<host> password={REDACTED}"
    assert recorder.seen == [(f"db-prod-1 password={REDACTED}", "claim")]


def test_report_text_is_masked_before_the_plugins_see_it(recorder: Recorder) -> None:
    from pytest_gsar.report import Redactor

    assert Redactor()(f"db-prod-1 {SECRET} \udcff", "evidence") == (
        f"<host> password={REDACTED} \ufffd")
    assert recorder.seen == [(f"db-prod-1 password={REDACTED} \ufffd", "evidence")]


def test_a_failing_plugin_hides_report_text() -> None:
    class Broken:
        @hookimpl
        def gsar_redact(self, text: str, kind: str) -> str:
            raise RuntimeError("boom")

    from pytest_gsar.report import Redactor

    plugin = Broken()
    register(plugin, name="tests-secrets-broken")
    try:
        assert Redactor()("anything", "claim") == REDACTED
    finally:
        unregister(plugin)


def _record(msg: str, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("anthropic._base_client", logging.DEBUG, __file__, 1, msg, args,
                             exc_info)


def test_the_log_filter_masks_messages_arguments_and_exception_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-key-value-1234567")
    record = _record("Request options: %s", {"json_data": {"content": f"x {SECRET}"},
                                             "note": "plain-key-value-1234567"},
                     exc=ValueError("Authorization: Bearer abcdefgh12345678"))
    assert RedactingFilter().filter(record) is True
    message = record.getMessage()
    assert "hunter2hunter2" not in message and "plain-key-value-1234567" not in message
    assert REDACTED in message
    assert record.exc_text is not None and "abcdefgh12345678" not in record.exc_text


def test_the_log_filter_never_drops_a_record_or_raises() -> None:
    record = _record("%d items", "not a number")  # formatting fails
    assert RedactingFilter().filter(record) is True
    assert "withheld" in record.getMessage()


def test_the_filter_is_installed_once_on_every_sdk_logger() -> None:
    install_log_redaction()
    install_log_redaction()
    for name in SDK_LOGGERS:
        filters = [f for f in logging.getLogger(name).filters if isinstance(f, RedactingFilter)]
        assert len(filters) == 1, name


def test_an_anthropic_judge_installs_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    from gsar_otel.judges.anthropic.judge import AnthropicJudge

    logger = logging.getLogger("anthropic._base_client")
    for existing in [f for f in logger.filters if isinstance(f, RedactingFilter)]:
        logger.removeFilter(existing)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdef")
    AnthropicJudge()
    assert any(isinstance(f, RedactingFilter) for f in logger.filters)
