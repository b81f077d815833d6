"""The plugin's own exceptions."""

from __future__ import annotations

from gsar_otel.errors import GSARError


class GroundingFailure(AssertionError, GSARError):
    """A judgement did not meet its test's expectations; the message explains every shortfall."""


class CaseFormatError(GSARError):
    """A line of a case file is not a valid case (raised by :mod:`pytest_gsar.cases`)."""
