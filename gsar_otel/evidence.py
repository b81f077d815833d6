"""Deprecated: moved to :mod:`gsar_otel.core.evidence` (items and sets) and
:mod:`gsar_otel.core.capture` (``record_evidence``, ``tool_evidence``); goes away in 0.3."""

import warnings

from gsar_otel._compat import REMOVED_IN

warnings.warn(
    f"gsar_otel.evidence is deprecated and goes away in gsar-otel {REMOVED_IN}; import from "
    "gsar_otel.core.evidence / gsar_otel.core.capture (or the public names from gsar_otel) "
    "instead",
    DeprecationWarning,
    stacklevel=2,
)

from gsar_otel.core.capture import collect_evidence, record_evidence, tool_evidence  # noqa: E402
from gsar_otel.core.evidence import (  # noqa: E402
    DEFAULT_MAX_ITEM_CHARS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_TOTAL_CHARS,
    Evidence,
    EvidenceSet,
    Truncation,
    infer_evidence_type,
    normalize_ref,
)

__all__ = [
    "DEFAULT_MAX_ITEMS",
    "DEFAULT_MAX_ITEM_CHARS",
    "DEFAULT_MAX_TOTAL_CHARS",
    "Evidence",
    "EvidenceSet",
    "Truncation",
    "collect_evidence",
    "infer_evidence_type",
    "normalize_ref",
    "record_evidence",
    "tool_evidence",
]
