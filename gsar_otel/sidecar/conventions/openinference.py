"""OpenInference (``openinference.span.kind``; spec ``semantic_conventions.md``, semconv 0.1.x).

- ``TOOL`` spans: ``output.value`` with ``tool.name``; the call id, when a tool message carries
  it, is ``message.tool_call_id``.
- ``RETRIEVER`` spans: ``retrieval.documents.{i}.document.{id,content}``.
- ``LLM`` spans: tool results ride as ``role: tool`` input messages
  (``llm.input_messages.{i}.message.{role,content,tool_call_id,name}``); the answer is the last
  LLM output (``llm.output_messages.{i}.message.content``) without ``message.tool_calls``.
- ``AGENT`` / root ``CHAIN`` spans: ``output.value`` is the run's answer; when it is a graph's
  state (LangGraph: ``{"messages": [...]}``), the answer is the last AI message's text.
- A LangChain tool's ``output.value`` is a serialized ``ToolMessage``: its ``content`` is the
  result and its ``tool_call_id`` the call id (so the same result in a model span's tool
  messages is one item).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.conventions import registry as cv
from gsar_otel.sidecar.conventions.genai import plain_text
from gsar_otel.sidecar.conventions.shared import (
    RANK_INFERENCE,
    Answer,
    Call,
    Extraction,
    Found,
    agent_rank,
    as_text,
    gather,
    indexed_answer,
    indexed_calls,
    indexed_tool_results,
    result_text,
    unwrap_json_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text

_AI_TYPES = frozenset({"ai", "AIMessage", "AIMessageChunk", "assistant"})


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenInference."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    kind = attributes.get(cv.OI_SPAN_KIND)
    if kind is None:
        return
    if kind == cv.OI_TOOL and cv.OI_OUTPUT_VALUE in attributes:
        content, call_id = tool_output(attributes[cv.OI_OUTPUT_VALUE])
        yield Found(content=content, span_id=span.span_id,
                    tool_name=str(attributes.get(cv.OI_TOOL_NAME) or span.name),
                    call_id=call_id, start_ns=span.start_ns)
    elif kind == cv.OI_RETRIEVER:
        for document in cv.indexed(attributes, cv.OI_RETRIEVAL_DOCUMENTS):
            document_text = document.get("document.content")
            if document_text:
                yield Found(content=as_text(document_text), span_id=span.span_id,
                            tool_name=span.name or "retriever", order=2, start_ns=span.start_ns)
    elif kind == cv.OI_LLM:
        yield from indexed_tool_results(span, cv.indexed(attributes, cv.OI_INPUT_MESSAGES),
                                        prefix="message.", name_key="message.name")
        yield from indexed_calls(span, attributes, cv.OI_OUTPUT_MESSAGES)
        text = indexed_answer(cv.indexed(attributes, cv.OI_OUTPUT_MESSAGES), prefix="message.")
        if text is not None:
            yield Answer(text, span.span_id, RANK_INFERENCE, span.end_ns,
                         cv.CONVENTION_OPENINFERENCE)
    if kind in (cv.OI_AGENT, cv.OI_CHAIN) and cv.OI_OUTPUT_VALUE in attributes:
        if kind == cv.OI_CHAIN and not is_run_span:
            return
        text = state_answer(attributes[cv.OI_OUTPUT_VALUE])
        if text:
            yield Answer(text, span.span_id, agent_rank(is_run_span), span.end_ns,
                         cv.CONVENTION_OPENINFERENCE)


def _lc_message(value: Any) -> dict[str, Any] | None:
    """A LangChain message as a plain dict: its serialized forms (``{"lc": 1, "kwargs": ...}``,
    ``{"type": ..., "data": ...}``) unwrapped; None for anything that is not a message."""
    if not isinstance(value, dict):
        return None
    kwargs = value.get("kwargs")
    if isinstance(kwargs, dict) and value.get("lc") is not None:
        ids = value.get("id")
        kind = ids[-1] if isinstance(ids, list) and ids else None
        return {"type": kwargs.get("type") or kind, **kwargs}
    data = value.get("data")
    if isinstance(data, dict) and isinstance(value.get("type"), str) and "content" in data:
        return {**data, "type": data.get("type") or value["type"]}  # messages_to_dict form
    return value if "content" in value and ("type" in value or "role" in value) else None


def tool_output(value: Any) -> tuple[str, str]:
    """A TOOL span's result text and call id: a serialized ``ToolMessage`` gives its content
    and ``tool_call_id``; anything else its unwrapped text and no id."""
    message = _lc_message(json_text(value))
    if message is not None and message.get("type") in ("tool", "ToolMessage"):
        return result_text(message.get("content")), str(message.get("tool_call_id") or "")
    return result_text(value), ""


def state_answer(value: Any) -> str:
    """An agent span's answer: the last AI message's text when the output is a graph state
    (``{"messages": [...]}``) or a message list, else the output's text."""
    decoded = json_text(value)
    history = decoded.get("messages") if isinstance(decoded, dict) else decoded
    if isinstance(history, list) and history and all(
            _lc_message(m) is not None for m in history):
        for raw in reversed(history):
            message = _lc_message(raw) or {}
            if (message.get("type") or message.get("role")) not in _AI_TYPES:
                continue
            if message.get("tool_calls"):
                return ""
            return plain_text(message.get("content"))
        return ""
    return unwrap_json_text(value)
