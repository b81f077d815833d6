"""OpenLLMetry (``opentelemetry-semantic-conventions-ai`` 0.5.x, Traceloop SDK).

- ``traceloop.span.kind`` ``tool``: ``traceloop.entity.output`` is the tool's result (the SDK
  writes JSON; a ``{"output": ...}`` wrapper is unwrapped), ``traceloop.entity.name`` its name.
- ``workflow`` / ``agent`` spans: ``traceloop.entity.output`` is the answer.
- Legacy indexed LLM attributes: ``gen_ai.prompt.{i}.{role,content,tool_call_id}`` (tool results
  as ``role: tool``) and ``gen_ai.completion.{i}.content`` (the answer, when the completion has
  no ``tool_calls``).
"""

from __future__ import annotations

from collections.abc import Iterator

from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.conventions import registry as cv
from gsar_otel.sidecar.conventions.shared import (
    RANK_INFERENCE,
    Answer,
    Call,
    Extraction,
    Found,
    agent_rank,
    gather,
    indexed_answer,
    indexed_calls,
    indexed_tool_results,
    unwrap_json_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenLLMetry."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    kind = attributes.get(cv.TRACELOOP_SPAN_KIND)
    name = str(attributes.get(cv.TRACELOOP_ENTITY_NAME) or span.name)
    if kind == "tool" and cv.TRACELOOP_ENTITY_OUTPUT in attributes:
        yield Found(content=unwrap_json_text(attributes[cv.TRACELOOP_ENTITY_OUTPUT]),
                    span_id=span.span_id, tool_name=name, start_ns=span.start_ns)
    elif kind in ("workflow", "agent") and cv.TRACELOOP_ENTITY_OUTPUT in attributes:
        text = unwrap_json_text(attributes[cv.TRACELOOP_ENTITY_OUTPUT])
        if text:
            yield Answer(text, span.span_id, agent_rank(is_run_span), span.end_ns,
                         cv.CONVENTION_OPENLLMETRY)
    yield from indexed_tool_results(span, cv.indexed(attributes, cv.LEGACY_PROMPT))
    yield from indexed_calls(span, attributes, cv.LEGACY_COMPLETION)
    content = indexed_answer(cv.indexed(attributes, cv.LEGACY_COMPLETION))
    if content is not None:
        yield Answer(content, span.span_id, RANK_INFERENCE, span.end_ns,
                     cv.CONVENTION_OPENLLMETRY)
