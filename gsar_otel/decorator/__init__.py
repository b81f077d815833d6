"""``@grounded`` and its companions; the shells live in :mod:`gsar_otel.decorator.api` and the
one sync/async implementation in :mod:`gsar_otel.decorator.grounding`."""

from gsar_otel.decorator.api import GroundedCall, GroundingError, flush, grounded

__all__ = ["GroundedCall", "GroundingError", "flush", "grounded"]
