"""Judge one extracted run and write the grounding back into the agent's trace.

The ``gsar.evaluate`` span is a child of the run span (so Jaeger and Honeycomb show it inside
the run) and carries exactly one span link to it (OpenInference's rule for evaluation carriers:
the link, not parentage, names the target). It has the same attributes, ``gsar.claim`` events,
``gen_ai.evaluation.result`` event and ``gsar.*`` metrics as the decorator's, plus
``gsar.source=sidecar``, the convention the run was read under, and the incompleteness flags.

A run that cannot be judged (no answer found) gets a ``gsar.sidecar.skipped`` span in the same
place instead, with the reason and what to turn on; each reason is also logged once per process.
The evaluation is filed under the agent's name (``gen_ai.agent.name``, OpenInference's
``agent.name``, the Vercel AI SDK's function id), else the service's name.

Names read from the agent's spans (the agent's, the run span's, each tool's in the evidence
sources) are exported whether content capture is on or off, so each passes through the content
masking first (:func:`gsar_otel.plugins.mask_name`): a plain identifier is kept as it is, a
secret inside a name reads ``[REDACTED]``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from gsar_otel import semconv as sc
from gsar_otel.core.protocol import Judge
from gsar_otel.core.result import GSARResult
from gsar_otel.otel.instruments import Telemetry
from gsar_otel.otel.traced import TracedEvaluator
from gsar_otel.plugins import mask_name
from gsar_otel.runtime.guards import on_failure
from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.assembly.late import LateBatch
from gsar_otel.sidecar.conventions import genai, native, openinference, openllmetry, registry
from gsar_otel.sidecar.conventions.extract import (
    NOTE_NO_EVIDENCE,
    NOTE_UNVERIFIED_HISTORY,
    ExtractedRun,
    extract_run,
    source,
)
from gsar_otel.sidecar.conventions.shared import Found

logger = logging.getLogger(__name__)

DEFAULT_FUNCTION = "agent"
MAX_SOURCES = 2_000
"""Evidence sources listed on the span (the evidence set's own item limit)."""
SKIPPED_NO_ANSWER: Final = "no_answer"
SKIPPED_JUDGING_BUDGET: Final = "judging_budget"
HINTS: Final = {
    SKIPPED_JUDGING_BUDGET: (
        "the answer's claims times the evidence's rows are over --max-judge-pairs: raise it "
        "(0: no bound) to judge such runs"),
    SKIPPED_NO_ANSWER: (
        "no final answer found in the run: record message content (e.g. "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, OpenInference's default, "
        "ADK's message capture) or the answer on the agent span as text (a serialized object "
        "with no single text field is not an answer)"),
    NOTE_NO_EVIDENCE: (
        "no tool result found in the run: record tool results (gen_ai.tool.call.result on "
        "execute_tool spans, or tool messages) so the answer can be grounded"),
    NOTE_UNVERIFIED_HISTORY: (
        "tool results were found only in message histories with no tool call in the trace "
        "(each model call its own trace, no agent span?) and left out; trace the agent run, "
        "or run the sidecar with --include-unverified if clients cannot write the history"),
}
PER_AGENT: Final = frozenset({NOTE_UNVERIFIED_HISTORY})
"""Reasons logged once per agent rather than once per process."""
NAME_KEYS: Final = (genai.GEN_AI_AGENT_NAME, openinference.OI_AGENT_NAME, native.VERCEL_FUNCTION_ID,
                    genai.GEN_AI_WORKFLOW_NAME)
_logged: set[str] = set()
_logged_lock = threading.Lock()


def log_once(reason: str, trace_id: str, agent: str = "") -> bool:
    """Log why a run was skipped or judged without (all its) evidence, once per reason per
    process, or once per reason per agent for :data:`PER_AGENT` reasons."""
    key = f"{reason}\x00{agent}" if reason in PER_AGENT else reason
    with _logged_lock:
        if key in _logged:
            return False
        _logged.add(key)
    scope = f"agent {agent}" if reason in PER_AGENT else "reason"
    logger.warning("gsar sidecar: trace %s: %s (%s; logged once per %s)", trace_id,
                   reason, HINTS.get(reason, reason), scope)
    return True


def span_context(trace_id: str, span_id: str) -> SpanContext:
    """The (remote, sampled) context of a received span."""
    return SpanContext(trace_id=int(trace_id, 16), span_id=int(span_id, 16), is_remote=True,
                       trace_flags=TraceFlags(TraceFlags.SAMPLED))


def run_context(run: ReadyRun) -> tuple[Context, SpanContext]:
    """The context to start the evaluate span in (child of the run span) and the link target."""
    span_id = run.run_span.span_id if run.run_span is not None else ""
    target = span_context(run.trace_id, span_id) if span_id else SpanContext(
        trace_id=int(run.trace_id, 16), span_id=1, is_remote=True)
    return trace.set_span_in_context(NonRecordingSpan(target)), target


def _text(value: Any) -> str:
    return value.strip()[:128] if isinstance(value, str) else ""


def exported_source(item: Found) -> str:
    """An evidence item's ``tool@span_id`` source, the tool name masked."""
    return mask_name(source(item))


def run_span_name(run: ReadyRun) -> str:
    """The run span's name as it is exported (masked)."""
    return mask_name(run.run_span.name) if run.run_span is not None else ""


def function_name(run: ReadyRun) -> str:
    """:func:`agent_name`, masked: what the verdict span is named and filed under."""
    return mask_name(agent_name(run))


def agent_name(run: ReadyRun) -> str:
    """What the evaluation is reported under (``gsar.function``, a metric attribute): the
    agent's name on the run span, else on any span of the run (first started first), else the
    OpenLLMetry workflow's name, else an OpenInference run span's name (the agent or graph it
    traces), else the service's name; never another span name (``GET /orders/42``), so the
    metric stays low-cardinality."""
    spans = sorted(run.spans, key=lambda s: s.start_ns)
    if run.run_span is not None:
        spans.insert(0, run.run_span)
    for span in spans:
        for key in NAME_KEYS:
            if name := _text(span.attributes.get(key)):
                return name
    for span in spans:
        if span.attributes.get(openllmetry.TRACELOOP_SPAN_KIND) in ("workflow", "agent") and (
                name := _text(span.attributes.get(openllmetry.TRACELOOP_ENTITY_NAME))):
            return name
    # An OpenInference run span is named after its agent or graph (LangGraph's create_agent
    # name), as the instrumentation names spans after the runnable.
    if run.run_span is not None and run.convention == openinference.CONVENTION_OPENINFERENCE and (
            name := _text(run.run_span.name)):
        return name
    for span in spans:
        name = _text(span.resource.get("service.name"))
        if name and not name.startswith("unknown_service"):
            return name
    return DEFAULT_FUNCTION


def incompleteness(run: ReadyRun, extracted: ExtractedRun) -> str:
    """Why the evidence may be incomplete ('' when nothing says so)."""
    if run.incomplete:
        return run.incomplete_reason
    for note in (NOTE_UNVERIFIED_HISTORY, NOTE_NO_EVIDENCE):
        if note in extracted.notes:
            return note
    return ""


def sidecar_attributes(run: ReadyRun, extracted: ExtractedRun, kept: int | None = None
                       ) -> dict[str, Any]:
    """The attributes the sidecar adds to the evaluate span (``kept``: the evidence items the
    evidence set kept, when the caller has built it already)."""
    reason = incompleteness(run, extracted)
    attributes: dict[str, Any] = {
        sc.GSAR_SOURCE: sc.GSAR_SOURCE_SIDECAR,
        sc.GSAR_SIDECAR_CONVENTION: extracted.convention,
        sc.GSAR_SIDECAR_RUN_SPANS: len(run.spans),
        sc.GSAR_SIDECAR_RUN_INCOMPLETE: bool(reason),
        sc.GSAR_SIDECAR_EVIDENCE_SPANS: extracted.evidence_spans,
        sc.GSAR_SIDECAR_EVIDENCE_SOURCES: [
            exported_source(item) for item in extracted.evidence[:MAX_SOURCES]],
        sc.GSAR_SIDECAR_EVIDENCE_ECHOES: extracted.echoes,
        sc.GSAR_SIDECAR_EVIDENCE_UNVERIFIED: extracted.unverified,
        sc.GSAR_SIDECAR_EVIDENCE_RETRIES: extracted.retries,
        sc.GSAR_SIDECAR_EVIDENCE_CONTROLS: len(extracted.controls),
    }
    if extracted.controls:
        attributes[sc.GSAR_SIDECAR_EVIDENCE_CONTROL_SOURCES] = [
            exported_source(item) for item in extracted.controls[:MAX_SOURCES]]
    if extracted.answer_source:
        attributes[sc.GSAR_SIDECAR_ANSWER_SOURCE] = extracted.answer_source
    if kept is None:
        kept = len(extracted.evidence_set())
    if kept < len(extracted.evidence):
        attributes[sc.GSAR_SIDECAR_EVIDENCE_CUT_SOURCES] = [
            exported_source(item) for item in extracted.evidence[kept:kept + MAX_SOURCES]]
    if run.run_span is not None:
        attributes[sc.GSAR_SIDECAR_RUN_SPAN_NAME] = run_span_name(run)
    if reason:
        attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_REASON] = reason
        if reason in HINTS:
            attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_HINT] = HINTS[reason]
    return attributes


def evaluation_attributes(result: GSARResult) -> dict[str, Any]:
    """The result as an OpenInference evaluation carrier (name, score, label, annotator)."""
    prefix = sc.OPENINFERENCE_EVALUATION_PREFIX
    kind = "LLM" if result.judge_model else "CODE"
    return {f"{prefix}name": sc.GEN_AI_EVALUATION_NAME_VALUE,
            f"{prefix}score": result.final_score,
            f"{prefix}label": result.final_decision.value,
            f"{prefix}annotator_kind": kind}


async def judge_and_emit(run: ReadyRun, extracted: ExtractedRun, *, judge: Judge,
                         telemetry: Telemetry, options: Mapping[str, Any] | None = None,
                         capture_content: bool | None = None,
                         attributes: Mapping[str, Any] | None = None) -> GSARResult | None:
    """Judge ``extracted.answer`` against its evidence inside a ``gsar.evaluate`` span placed
    in the run's trace (with ``attributes`` added). Raises what the evaluator raises (the span
    is marked failed). A run without an answer is not judged: a ``gsar.sidecar.skipped`` span
    is written instead and None returned."""
    if extracted.answer is None:
        flag_skipped(run, extracted, telemetry, SKIPPED_NO_ANSWER)
        return None
    for note in (NOTE_UNVERIFIED_HISTORY, NOTE_NO_EVIDENCE):
        if note in extracted.notes:
            log_once(note, run.trace_id, function_name(run))
    context, target = run_context(run)
    evaluator = TracedEvaluator(judge, function=function_name(run), mode=sc.MODE_SIDECAR,
                                capture_content=capture_content, telemetry=telemetry,
                                **dict(options or {}))
    evidence = extracted.evidence_set()  # built once: the span's figures and the judge's input
    recorder = evaluator.start_recording(context)
    try:
        with on_failure(recorder.fail):
            span = recorder.span
            if span.is_recording():
                span.add_link(target)
                span.set_attributes({**sidecar_attributes(run, extracted, len(evidence)),
                                     **(attributes or {})})
            result = await evaluator.evaluate_recorded(
                recorder, report_synthesis=extracted.answer, evidence_corpus=evidence)
            if span.is_recording():
                span.set_attributes(evaluation_attributes(result))
            return result
    finally:
        recorder.end()


def flag_late(batch: LateBatch, telemetry: Telemetry) -> int:
    """Write one ``gsar.sidecar.late_spans`` span for ``batch`` into its trace (child of and
    linked to the run span); returns how many evidence items the late items carried."""
    late = ReadyRun(trace_id=batch.trace_id, spans=tuple(batch.spans), logs=tuple(batch.logs),
                    run_span=None, convention=registry.CONVENTION_ROOT, reason="late")
    evidence = extract_run(late).evidence
    target = span_context(batch.trace_id, batch.run_span_id)
    span = telemetry.tracer.start_span(
        sc.SPAN_SIDECAR_LATE, context=trace.set_span_in_context(NonRecordingSpan(target)),
        links=[trace.Link(target)], attributes={
            sc.GSAR_SOURCE: sc.GSAR_SOURCE_SIDECAR,
            sc.GSAR_SIDECAR_LATE_ITEMS: batch.count,
            sc.GSAR_SIDECAR_LATE_EVIDENCE: len(evidence),
            sc.GSAR_SIDECAR_LATE_EVIDENCE_SOURCES: [
                exported_source(item) for item in evidence[:MAX_SOURCES]],
        })
    span.end()
    return len(evidence)


def flag_skipped(run: ReadyRun, extracted: ExtractedRun, telemetry: Telemetry,
                 reason: str = SKIPPED_NO_ANSWER, hint: str | None = None) -> None:
    """Write one ``gsar.sidecar.skipped`` span for a run that is not judged into its trace
    (child of and linked to the run span), and log the reason once per process; ``hint``
    (default: the reason's own) says what to do about it."""
    log_once(reason, run.trace_id)
    context, target = run_context(run)
    attributes: dict[str, Any] = {
        sc.GSAR_SOURCE: sc.GSAR_SOURCE_SIDECAR,
        sc.GSAR_FUNCTION: function_name(run),
        sc.GSAR_SIDECAR_SKIPPED_REASON: reason,
        sc.GSAR_SIDECAR_SKIPPED_HINT: hint or HINTS.get(reason, reason),
        sc.GSAR_SIDECAR_CONVENTION: extracted.convention,
        sc.GSAR_SIDECAR_RUN_SPANS: len(run.spans),
        sc.GSAR_EVIDENCE_COUNT: len(extracted.evidence),
    }
    if run.run_span is not None:
        attributes[sc.GSAR_SIDECAR_RUN_SPAN_NAME] = run_span_name(run)
    span = telemetry.tracer.start_span(sc.SPAN_SIDECAR_SKIPPED, context=context,
                                       links=[trace.Link(target)], attributes=attributes)
    span.end()
