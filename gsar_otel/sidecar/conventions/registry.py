"""The conventions the sidecar reads, in the one order they are tried in, and run-span detection
across them.

Each convention is a module of this package holding its attribute names, its detection (which
spans are agent runs, which may carry a tool result) and its extraction (sources checked against
the specifications, versions as read):

- :mod:`~gsar_otel.sidecar.conventions.genai`: OpenTelemetry GenAI semantic conventions v1.41.0
  (``gen-ai-agent-spans.md``, ``gen-ai-spans.md``, ``gen-ai-events.md``), and the deprecated
  per-message events of <= v1.36 (``gen_ai.choice``, ``gen_ai.tool.message``;
  ``model/gen-ai/deprecated/events-deprecated.yaml``).
- :mod:`~gsar_otel.sidecar.conventions.openinference`: OpenInference semantic conventions
  (``spec/semantic_conventions.md``, semconv package 0.1.x).
- :mod:`~gsar_otel.sidecar.conventions.openllmetry`: OpenLLMetry
  ``opentelemetry-semantic-conventions-ai`` 0.5.x (``traceloop.*``; the legacy indexed
  ``gen_ai.prompt.{i}`` / ``gen_ai.completion.{i}`` attributes).
- :mod:`~gsar_otel.sidecar.conventions.native`: frameworks' own attributes: Vercel AI SDK
  telemetry (``ai.generateText``, ``ai.toolCall.*``), Google ADK (``gcp.vertex.agent.*``),
  Pydantic AI.

What the extractors return and the helpers they share are in
:mod:`~gsar_otel.sidecar.conventions.shared`; merging their findings, and the plugin hook, in
:mod:`~gsar_otel.sidecar.conventions.extract`.

A new convention is a module with the same three parts and a line in :data:`CONVENTIONS`.
These are names the sidecar *reads*; names it writes live in :mod:`gsar_otel.semconv`.
"""

from __future__ import annotations

from typing import Final

from gsar_otel.sidecar.conventions import genai, native, openinference, openllmetry
from gsar_otel.sidecar.conventions.shared import Convention
from gsar_otel.sidecar.intake.spans import SpanRecord

CONVENTIONS: Final[tuple[Convention, ...]] = (
    genai.CONVENTION, openinference.CONVENTION, openllmetry.CONVENTION, native.CONVENTION)
"""Every convention, in order: the first whose detection claims a span names its run kind, and
extractions are merged in this order."""

CONVENTION_ROOT: Final = "root"
"""No agent-run span in any convention: the trace root is the run."""


def run_kind(span: SpanRecord) -> str | None:
    """The convention under which ``span`` is an agent run (or a candidate for one), or None.

    An OpenInference ``CHAIN`` counts only as the trace root (chains nest freely).
    """
    for convention in CONVENTIONS:
        kind = convention.run_kind(span)
        if kind is not None:
            return kind
    return None


def may_hold_evidence(span: SpanRecord) -> bool:
    """Whether ``span`` is a tool call or may carry a tool result (a tool span of any
    convention, a model call's input history): what makes a run's trace worth keeping longer
    than a run with none (eviction order, :mod:`gsar_otel.sidecar.assembly.assembler`)."""
    return any(convention.may_hold_evidence(span) for convention in CONVENTIONS)
