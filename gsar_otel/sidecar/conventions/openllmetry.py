"""OpenLLMetry (``opentelemetry-semantic-conventions-ai`` 0.5.x, Traceloop SDK).

- ``traceloop.span.kind`` ``tool``: ``traceloop.entity.output`` is the tool's result (the SDK
  writes JSON; the ``{"output": ..., "kwargs": ...}`` envelope and a LangChain ``ToolMessage``
  in it come off, the message's ``tool_call_id`` is the call id), ``traceloop.entity.name`` its
  name, ``traceloop.entity.input`` its input.
- ``workflow`` / ``agent`` spans: ``traceloop.entity.output`` is the answer (LangChain's
  ``{"outputs": {...}, "kwargs": ...}`` read by :mod:`shapes`).
- Legacy indexed LLM attributes: ``gen_ai.prompt.{i}.{role,content,tool_call_id}`` (tool results
  as ``role: tool``) and ``gen_ai.completion.{i}.content`` (the answer, when the completion has
  no ``tool_calls``).
- Agent runs: ``workflow`` / ``agent`` spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from gsar_otel.sidecar.conventions.shared import (
    RANK_INFERENCE,
    Answer,
    Call,
    Convention,
    Extraction,
    Found,
    agent_rank,
    arguments_text,
    as_text,
    gather,
    indexed,
    indexed_answer,
    indexed_calls,
    indexed_tool_results,
    result_and_call,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun

# --- names -------------------------------------------------------------------------------------
CONVENTION_OPENLLMETRY: Final = "openllmetry"
TRACELOOP_SPAN_KIND: Final = "traceloop.span.kind"
TRACELOOP_ENTITY_NAME: Final = "traceloop.entity.name"
TRACELOOP_ENTITY_INPUT: Final = "traceloop.entity.input"
TRACELOOP_ENTITY_OUTPUT: Final = "traceloop.entity.output"
LEGACY_PROMPT: Final = "gen_ai.prompt"
LEGACY_COMPLETION: Final = "gen_ai.completion"


def run_kind(span: SpanRecord) -> str | None:
    """``openllmetry`` for a ``workflow`` or ``agent`` span, else None."""
    if span.attributes.get(TRACELOOP_SPAN_KIND) in ("workflow", "agent"):
        return CONVENTION_OPENLLMETRY
    return None


def may_hold_evidence(span: SpanRecord) -> bool:
    """A ``tool`` span, or any span with an entity output."""
    attributes = span.attributes
    return attributes.get(TRACELOOP_SPAN_KIND) == "tool" or TRACELOOP_ENTITY_OUTPUT in attributes


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenLLMetry."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    kind = attributes.get(TRACELOOP_SPAN_KIND)
    name = str(attributes.get(TRACELOOP_ENTITY_NAME) or span.name)
    if kind == "tool" and TRACELOOP_ENTITY_OUTPUT in attributes:
        result, call_id = result_and_call(attributes[TRACELOOP_ENTITY_OUTPUT])
        yield Found(content=result, span_id=span.span_id, tool_name=name, call_id=call_id,
                    start_ns=span.start_ns,
                    arguments=arguments_text(attributes.get(TRACELOOP_ENTITY_INPUT)))
    elif kind in ("workflow", "agent") and TRACELOOP_ENTITY_OUTPUT in attributes:
        output = as_text(json_text(attributes[TRACELOOP_ENTITY_OUTPUT]))
        if output:
            yield Answer(output, span.span_id, agent_rank(is_run_span), span.end_ns,
                         CONVENTION_OPENLLMETRY)
    yield from indexed_tool_results(span, indexed(attributes, LEGACY_PROMPT))
    yield from indexed_calls(span, attributes, LEGACY_COMPLETION)
    content = indexed_answer(indexed(attributes, LEGACY_COMPLETION))
    if content is not None:
        yield Answer(content, span.span_id, RANK_INFERENCE, span.end_ns,
                     CONVENTION_OPENLLMETRY)


CONVENTION = Convention("openllmetry", run_kind, may_hold_evidence, extract)
