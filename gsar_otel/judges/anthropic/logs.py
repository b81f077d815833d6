"""Secrets never reach a log through the ``anthropic`` SDK.

At DEBUG the SDK logs each request's options, the full JSON body with the evidence and the
answer, and each response's headers. An AnthropicJudge installs :class:`RedactingFilter` on the
SDK's and its HTTP client's loggers, so every record they emit is masked by the one redaction
(:mod:`gsar_otel.core.redact`: secret shapes and secret environment values) before any handler
sees it. The filter is added once per logger, never drops a record and never raises.
"""

from __future__ import annotations

import logging
import threading
from typing import Final

from gsar_otel.core.redact import redact_text, secret_values

SDK_LOGGERS: Final = ("anthropic", "anthropic._base_client", "anthropic._response",
                      "anthropic._tracing", "httpx", "httpx2", "httpcore", "httpcore.http11",
                      "httpcore.connection", "httpcore2", "httpcore2.http11",
                      "httpcore2.connection")
"""A logger's filters do not see records propagated from its children: each logger that emits
is named."""


class RedactingFilter(logging.Filter):
    """Masks secrets in a record's message (formatted once) and in its exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            values = secret_values()
            message = record.getMessage()
            masked = redact_text(message, values)
            if masked != message:
                record.msg, record.args = masked, None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = redact_text(record.exc_text, values)
        except Exception:  # a log line is never worth breaking the call that logs it
            record.msg, record.args, record.exc_info, record.exc_text = (
                "[log record withheld: it could not be checked for secrets]", None, None, None)
        return True


_lock = threading.Lock()


def install_log_redaction() -> None:
    """Add a :class:`RedactingFilter` to each of :data:`SDK_LOGGERS` that has none yet."""
    with _lock:
        for name in SDK_LOGGERS:
            logger = logging.getLogger(name)
            if not any(isinstance(f, RedactingFilter) for f in logger.filters):
                logger.addFilter(RedactingFilter())


__all__ = ["SDK_LOGGERS", "RedactingFilter", "install_log_redaction"]
