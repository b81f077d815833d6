"""Sidecar fixtures: one real Phoenix server for every sidecar end-to-end test of the session
(see tests/support/phoenix.py)."""

from tests.support.phoenix import phoenix

__all__ = ["phoenix"]
