"""Deprecated: moved to :mod:`gsar_otel.core.evidence`; this path goes away in 0.3."""

from gsar_otel._compat import moved

moved(__name__, "gsar_otel.core.evidence")
