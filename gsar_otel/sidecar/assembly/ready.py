"""A run released for judging (:class:`ReadyRun`) and why it was released when it was."""

from __future__ import annotations

from dataclasses import dataclass

from gsar_otel.sidecar.intake.spans import LogRecordData, SpanRecord

READY_SETTLED = "settled"
"""The run span arrived and the settle window passed."""
INCOMPLETE_HARD_CAP = "hard_cap"
INCOMPLETE_PARENT_MISSING = "parent_missing"
"""The run span's parent (or a span above it) never arrived before the hard cap."""
INCOMPLETE_NO_RUN_SPAN = "no_run_span"
INCOMPLETE_SPANS_DROPPED = "spans_dropped"
INCOMPLETE_VALUES_TRUNCATED = "values_truncated"
INCOMPLETE_SHUTDOWN = "shutdown"
INCOMPLETE_CONFLICTING_SPANS = "conflicting_spans"
"""A span id of the run came twice with different content: both copies are its evidence."""


@dataclass(frozen=True, slots=True)
class ReadyRun:
    """A run released for judging: its spans, logs, the run span and why it was released."""

    trace_id: str
    spans: tuple[SpanRecord, ...]
    logs: tuple[LogRecordData, ...]
    run_span: SpanRecord | None
    convention: str
    reason: str
    """``settled``, or the reason the run is incomplete (``hard_cap``, ``shutdown`` ...)."""
    spans_dropped: int = 0
    first_seen: float = 0.0
    values_truncated: int = 0
    """Attribute values of its spans cut or dropped at intake."""
    runs_in_trace: int = 1
    """Runs released from the same trace at the same time (each judged on its own)."""
    size: int = 0
    """Estimated bytes its spans and logs hold."""
    conflicting: int = 0
    """Spans it holds whose id came with different content (each copy kept)."""

    @property
    def incomplete(self) -> bool:
        return bool(self.incomplete_reason)

    @property
    def incomplete_reason(self) -> str:
        if self.reason != READY_SETTLED:
            return self.reason
        if self.spans_dropped:
            return INCOMPLETE_SPANS_DROPPED
        if self.conflicting:
            return INCOMPLETE_CONFLICTING_SPANS
        return INCOMPLETE_VALUES_TRUNCATED if self.values_truncated else ""
