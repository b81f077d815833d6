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

from gsar_otel.sidecar import conventions as cv
from gsar_otel.sidecar.assembly import ReadyRun
from gsar_otel.sidecar.extract_model import (
    RANK_AGENT,
    RANK_INFERENCE,
    RANK_RUN_SPAN,
    Answer,
    Extraction,
    Found,
    as_text,
    unwrap_json_text,
)
from gsar_otel.sidecar.spans import json_text


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenInference."""
    run_id = run.run_span.span_id if run.run_span is not None else ""
    answers: list[Answer] = []
    found: list[Found] = []
    for span in run.spans:
        attributes = span.attributes
        kind = attributes.get(cv.OI_SPAN_KIND)
        if kind is None:
            continue
        if kind == cv.OI_TOOL and cv.OI_OUTPUT_VALUE in attributes:
            found.append(Found(content=as_text(json_text(attributes[cv.OI_OUTPUT_VALUE])),
                               span_id=span.span_id,
                               tool_name=str(attributes.get(cv.OI_TOOL_NAME) or span.name),
                               start_ns=span.start_ns))
        elif kind == cv.OI_RETRIEVER:
            for document in cv.indexed(attributes, cv.OI_RETRIEVAL_DOCUMENTS):
                content = document.get("document.content")
                if content:
                    found.append(Found(content=as_text(content), span_id=span.span_id,
                                       tool_name=span.name or "retriever", order=2,
                                       start_ns=span.start_ns))
        elif kind == cv.OI_LLM:
            for message in cv.indexed(attributes, cv.OI_INPUT_MESSAGES):
                if message.get("message.role") == "tool":
                    found.append(Found(
                        content=as_text(json_text(message.get("message.content"))),
                        span_id=span.span_id, tool_name=str(message.get("message.name") or "tool"),
                        call_id=str(message.get("message.tool_call_id") or ""), order=1,
                        start_ns=span.start_ns))
            output = cv.indexed(attributes, cv.OI_OUTPUT_MESSAGES)
            if output and not any(k.startswith("message.tool_calls.") for k in output[-1]):
                text = output[-1].get("message.content")
                if isinstance(text, str) and text.strip():
                    answers.append(Answer(text.strip(), span.span_id, RANK_INFERENCE,
                                          span.end_ns, cv.CONVENTION_OPENINFERENCE))
        if kind in (cv.OI_AGENT, cv.OI_CHAIN) and cv.OI_OUTPUT_VALUE in attributes:
            rank = RANK_RUN_SPAN if span.span_id == run_id else RANK_AGENT
            if kind == cv.OI_CHAIN and span.span_id != run_id:
                continue
            text = unwrap_json_text(attributes[cv.OI_OUTPUT_VALUE])
            if text:
                answers.append(Answer(text, span.span_id, rank, span.end_ns,
                                      cv.CONVENTION_OPENINFERENCE))
    return Extraction(answers=tuple(answers), evidence=tuple(found))
