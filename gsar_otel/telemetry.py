"""Deprecated: moved to :mod:`gsar_otel.otel` (``traced``, ``setup``, ``instruments``,
``recording``); this path goes away in 0.3."""

import warnings

from gsar_otel._compat import REMOVED_IN

warnings.warn(
    f"gsar_otel.telemetry is deprecated and goes away in gsar-otel {REMOVED_IN}; import from "
    "gsar_otel.otel.traced / gsar_otel.otel.setup (or the public names from gsar_otel) instead",
    DeprecationWarning,
    stacklevel=2,
)

from gsar_otel.otel.instruments import (  # noqa: E402
    Instruments,
    Telemetry,
    get_telemetry,
    set_providers,
)
from gsar_otel.otel.recording import EvaluationRecorder, RoundRecorder, start_evaluation  # noqa: E402
from gsar_otel.otel.setup import TelemetryHandle, configure_telemetry  # noqa: E402
from gsar_otel.otel.traced import TracedEvaluator, emit_result  # noqa: E402

__all__ = [
    "EvaluationRecorder",
    "Instruments",
    "RoundRecorder",
    "Telemetry",
    "TelemetryHandle",
    "TracedEvaluator",
    "configure_telemetry",
    "emit_result",
    "get_telemetry",
    "set_providers",
    "start_evaluation",
]
