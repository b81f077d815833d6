"""OpenInference (``openinference.span.kind``; spec ``semantic_conventions.md``, semconv 0.1.x).

- ``TOOL`` spans: ``output.value`` with ``tool.name``; the call id, when a tool message carries
  it, is ``message.tool_call_id``.
- ``RETRIEVER`` spans: ``retrieval.documents.{i}.document.{id,content}``.
- ``LLM`` spans: tool results ride as ``role: tool`` input messages
  (``llm.input_messages.{i}.message.{role,content,tool_call_id,name}``); the answer is the last
  LLM output (``llm.output_messages.{i}.message.content``) without ``message.tool_calls``.
- ``AGENT`` / root ``CHAIN`` spans: ``output.value`` is the run's answer.
"""

from __future__ import annotations

from collections.abc import Iterator

from gsar_otel.sidecar import conventions as cv
from gsar_otel.sidecar.assembly import ReadyRun
from gsar_otel.sidecar.extract_model import (
    RANK_INFERENCE,
    Answer,
    Extraction,
    Found,
    agent_rank,
    as_text,
    gather,
    indexed_answer,
    indexed_tool_results,
    unwrap_json_text,
)
from gsar_otel.sidecar.spans import SpanRecord, json_text


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenInference."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found]:
    attributes = span.attributes
    kind = attributes.get(cv.OI_SPAN_KIND)
    if kind is None:
        return
    if kind == cv.OI_TOOL and cv.OI_OUTPUT_VALUE in attributes:
        yield Found(content=as_text(json_text(attributes[cv.OI_OUTPUT_VALUE])),
                    span_id=span.span_id,
                    tool_name=str(attributes.get(cv.OI_TOOL_NAME) or span.name),
                    start_ns=span.start_ns)
    elif kind == cv.OI_RETRIEVER:
        for document in cv.indexed(attributes, cv.OI_RETRIEVAL_DOCUMENTS):
            content = document.get("document.content")
            if content:
                yield Found(content=as_text(content), span_id=span.span_id,
                            tool_name=span.name or "retriever", order=2, start_ns=span.start_ns)
    elif kind == cv.OI_LLM:
        yield from indexed_tool_results(span, cv.indexed(attributes, cv.OI_INPUT_MESSAGES),
                                        prefix="message.", name_key="message.name")
        text = indexed_answer(cv.indexed(attributes, cv.OI_OUTPUT_MESSAGES), prefix="message.")
        if text is not None:
            yield Answer(text, span.span_id, RANK_INFERENCE, span.end_ns,
                         cv.CONVENTION_OPENINFERENCE)
    if kind in (cv.OI_AGENT, cv.OI_CHAIN) and cv.OI_OUTPUT_VALUE in attributes:
        if kind == cv.OI_CHAIN and not is_run_span:
            return
        text = unwrap_json_text(attributes[cv.OI_OUTPUT_VALUE])
        if text:
            yield Answer(text, span.span_id, agent_rank(is_run_span), span.end_ns,
                         cv.CONVENTION_OPENINFERENCE)
