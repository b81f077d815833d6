"""OpenLLMetry (``opentelemetry-semantic-conventions-ai`` 0.5.x, Traceloop SDK).

- ``traceloop.span.kind`` ``tool``: ``traceloop.entity.output`` is the tool's result (the SDK
  writes JSON; a ``{"output": ...}`` wrapper is unwrapped), ``traceloop.entity.name`` its name.
- ``workflow`` / ``agent`` spans: ``traceloop.entity.output`` is the answer.
- Legacy indexed LLM attributes: ``gen_ai.prompt.{i}.{role,content,tool_call_id}`` (tool results
  as ``role: tool``) and ``gen_ai.completion.{i}.content`` (the answer, when the completion has
  no ``tool_calls``).
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
    """Answers and evidence under OpenLLMetry."""
    run_id = run.run_span.span_id if run.run_span is not None else ""
    answers: list[Answer] = []
    found: list[Found] = []
    for span in run.spans:
        attributes = span.attributes
        kind = attributes.get(cv.TRACELOOP_SPAN_KIND)
        name = str(attributes.get(cv.TRACELOOP_ENTITY_NAME) or span.name)
        if kind == "tool" and cv.TRACELOOP_ENTITY_OUTPUT in attributes:
            found.append(Found(content=unwrap_json_text(attributes[cv.TRACELOOP_ENTITY_OUTPUT]),
                               span_id=span.span_id, tool_name=name, start_ns=span.start_ns))
        elif kind in ("workflow", "agent") and cv.TRACELOOP_ENTITY_OUTPUT in attributes:
            text = unwrap_json_text(attributes[cv.TRACELOOP_ENTITY_OUTPUT])
            if text:
                rank = RANK_RUN_SPAN if span.span_id == run_id else RANK_AGENT
                answers.append(Answer(text, span.span_id, rank, span.end_ns,
                                      cv.CONVENTION_OPENLLMETRY))
        for message in cv.indexed(attributes, cv.LEGACY_PROMPT):
            if message.get("role") == "tool":
                found.append(Found(content=as_text(json_text(message.get("content"))),
                                   span_id=span.span_id, tool_name="tool",
                                   call_id=str(message.get("tool_call_id") or ""), order=1,
                                   start_ns=span.start_ns))
        completions = cv.indexed(attributes, cv.LEGACY_COMPLETION)
        if completions and not any(k.startswith("tool_calls.") for k in completions[-1]):
            content = completions[-1].get("content")
            if isinstance(content, str) and content.strip():
                answers.append(Answer(content.strip(), span.span_id, RANK_INFERENCE, span.end_ns,
                                      cv.CONVENTION_OPENLLMETRY))
    return Extraction(answers=tuple(answers), evidence=tuple(found))
