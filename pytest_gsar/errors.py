"""The plugin's own exceptions."""

from __future__ import annotations


class GroundingFailure(AssertionError):
    """A judgement did not meet its test's expectations; the message explains every shortfall."""
