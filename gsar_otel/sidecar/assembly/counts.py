"""What the run assembler counts
(:attr:`~gsar_otel.sidecar.assembly.assembler.TraceAssembler.counts`):
each received span and log record under one outcome (:data:`ITEM_KEYS`), and traces evicted,
runs past the per-trace cap and spans given to no run (:data:`COUNT_NOTES`, the names the
sidecar's stats give them)."""

from __future__ import annotations

DROP_EVICTED = "evicted"
"""A run whose trace was pushed out (``max_traces`` or ``max_held_bytes``) before it was ready."""
DROP_EVICTED_FRAGMENT = "evicted_fragment"
"""A trace with no run span and no root pushed out (counted per trace, apart from runs)."""
DROP_EVICTED_NO_RUN_SPAN = "evicted_no_run_span"
"""A trace with a root but no agent-run span pushed out (counted per trace, apart from runs)."""
RUNS_OVER_CAP = "runs_over_cap"
"""A top-level run candidate past ``MAX_RUNS_PER_TRACE`` in one trace, held as a plain span of
the trace (counted; its answer is not judged on its own)."""
SPANS_WITHHELD_OVER_CAP = "spans_withheld_over_cap"
"""Spans and logs below a run candidate past the cap, given to no run at release."""
SPANS_WITHHELD_NO_RUN = "spans_withheld_no_run"
"""Spans and logs under no run and above none in a trace of several runs, given to none."""
SPAN_ACCEPTED = "accepted"
SPAN_LATE = "late"
SPAN_OWN = "own"
SPAN_OVER_TRACE_CAP = "over_trace_cap"
SPAN_DUPLICATE = "duplicate"
"""A span id already buffered, the same span again (an exporter's retry): dropped."""
SPAN_DUPLICATE_CONFLICT = "duplicate_conflict"
"""A span id already buffered with different content: both copies kept (the run flagged)."""
SPAN_FORGED = "forged"
"""A span that claims to be the sidecar's own but that it did not write: not judged."""
LOG_ACCEPTED = "log_accepted"
LOG_UNTRACED = "log_untraced"
LOG_LATE = "log_late"
LOG_OVER_TRACE_CAP = "log_over_trace_cap"
ITEM_KEYS = frozenset({SPAN_ACCEPTED, SPAN_LATE, SPAN_OWN, SPAN_OVER_TRACE_CAP, SPAN_DUPLICATE,
                       SPAN_DUPLICATE_CONFLICT, SPAN_FORGED, LOG_ACCEPTED, LOG_UNTRACED,
                       LOG_LATE, LOG_OVER_TRACE_CAP})
"""The keys that count received spans and log records (each lands in exactly one); the others
count traces."""
COUNT_NOTES: dict[str, tuple[str, str]] = {
    DROP_EVICTED_FRAGMENT: ("traces_evicted", "fragment"),
    DROP_EVICTED_NO_RUN_SPAN: ("traces_evicted", "no_run_span"),
    RUNS_OVER_CAP: ("runs_over_cap", "max_runs_per_trace"),
    SPANS_WITHHELD_OVER_CAP: ("spans_withheld", "over_cap"),
    SPANS_WITHHELD_NO_RUN: ("spans_withheld", "no_run"),
}
"""Trace-level counts as the sidecar's stats name them
(``gsar_sidecar_{name}_total{gsar_sidecar_reason=...}``); runs evicted are counted as runs."""
