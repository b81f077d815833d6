"""The console's default: one line on stderr per ``gsar.evaluate`` span, not the SDK's dump.

``configure_telemetry()`` with nothing configured used to print every span as JSON (some 140 lines
an evaluation); this exporter prints what a developer reads at a glance instead::

    gsar: final_answer proceed S=0.87 claims G4 U1 X0 K0 judge=staged trace=4bf92f35...

``GSAR_CONSOLE=spans`` brings the full dump back, ``GSAR_CONSOLE=off`` silences both. Only names,
numbers and ids are printed: no answer, claim or evidence text.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from gsar_otel import semconv as sc

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan


def summary_line(span: ReadableSpan) -> str | None:
    """The one line of a ``gsar.evaluate`` span (None for any other span)."""
    if not span.name.startswith(sc.SPAN_EVALUATE):
        return None
    attributes = span.attributes or {}
    function = attributes.get(sc.GSAR_FUNCTION) or span.name.removeprefix(sc.SPAN_EVALUATE).strip()
    decision = attributes.get(sc.GSAR_DECISION, "unjudged")
    parts = [f"gsar: {function or '-'} {decision}"]
    score = attributes.get(sc.GSAR_SCORE)
    if isinstance(score, int | float):
        parts.append(f"S={score:.2f}")
    counts = [attributes.get(name, 0) for name in (
        sc.GSAR_CLAIMS_GROUNDED, sc.GSAR_CLAIMS_UNGROUNDED, sc.GSAR_CLAIMS_CONTRADICTED,
        sc.GSAR_CLAIMS_COMPLEMENTARY)]
    parts.append("claims G{} U{} X{} K{}".format(*counts))
    reason = attributes.get(sc.GSAR_DEGRADED_REASON)
    if reason:
        parts.append(f"degraded={reason}")
    judge = attributes.get(sc.GSAR_JUDGE_NAME)
    if judge:
        parts.append(f"judge={judge}")
    if span.context is not None:
        parts.append(f"trace={span.context.trace_id:032x}")
    return " ".join(str(part) for part in parts)


class SummaryExporter(SpanExporter):
    """Writes :func:`summary_line` of each evaluation span to ``out`` (stderr by default)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = [line for line in map(summary_line, spans) if line is not None]
        if lines:
            try:
                with self._lock:
                    self.out.write("".join(f"{line}\n" for line in lines))
                    self.out.flush()
            except (OSError, ValueError):  # a closed stream never breaks the host
                return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None
