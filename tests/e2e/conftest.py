"""End-to-end fixtures: a real Phoenix server (see tests/support/phoenix.py)."""

from tests.support.phoenix import phoenix

__all__ = ["phoenix"]
