"""The one base of every exception gsar-otel and its pytest plugin define.

Each exception class of the two packages subclasses :class:`GSARError` as well as the built-in
it subclassed before (``SettingsError`` is still a ``ValueError``, ``GroundingFailure`` still an
``AssertionError``), so ``except GSARError`` catches any of them and existing ``except``
clauses keep working. The classes stay in the modules that raise them, under their public names;
this module holds the base and the exceptions more than one layer raises.
"""

from __future__ import annotations


class GSARError(Exception):
    """The base of every exception gsar-otel defines."""


class EscapedBaseException(GSARError):
    """A ``SystemExit`` or ``KeyboardInterrupt`` raised by a judge or an extractor on a judging
    thread (the background worker's loop, the sidecar's judge thread or extraction pool), caught
    so the loop lives on. The background worker counts the job ``error``; the sidecar counts the
    run failed under the original exception's name (``name``)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error
        self.name = type(error).__name__
