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
- Agent runs: ``AGENT`` spans, and a ``CHAIN`` span that is the trace root.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import semconv as sc
from gsar_otel.sidecar.conventions.genai import plain_text
from gsar_otel.sidecar.conventions.shared import (
    RANK_INFERENCE,
    Answer,
    Call,
    Convention,
    Extraction,
    Found,
    agent_rank,
    as_text,
    gather,
    indexed,
    indexed_answer,
    indexed_calls,
    indexed_tool_results,
    result_text,
    unwrap_json_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun

# --- names -------------------------------------------------------------------------------------
CONVENTION_OPENINFERENCE: Final = "openinference"
OI_SPAN_KIND: Final = sc.OPENINFERENCE_SPAN_KIND
OI_AGENT: Final = "AGENT"
OI_CHAIN: Final = "CHAIN"
OI_TOOL: Final = "TOOL"
OI_RETRIEVER: Final = "RETRIEVER"
OI_LLM: Final = "LLM"
OI_EVALUATOR: Final = sc.OPENINFERENCE_SPAN_KIND_EVALUATOR
OI_INPUT_VALUE: Final = "input.value"
OI_OUTPUT_VALUE: Final = "output.value"
OI_TOOL_NAME: Final = "tool.name"
OI_INPUT_MESSAGES: Final = "llm.input_messages"
OI_OUTPUT_MESSAGES: Final = "llm.output_messages"
OI_RETRIEVAL_DOCUMENTS: Final = "retrieval.documents"
OI_AGENT_NAME: Final = "agent.name"


def run_kind(span: SpanRecord) -> str | None:
    """``openinference`` for an ``AGENT`` span, or a ``CHAIN`` that is the trace root (chains
    nest freely), else None."""
    kind = span.attributes.get(OI_SPAN_KIND)
    if kind == OI_AGENT or (kind == OI_CHAIN and not span.parent_span_id):
        return CONVENTION_OPENINFERENCE
    return None


def may_hold_evidence(span: SpanRecord) -> bool:
    """A ``TOOL`` or ``RETRIEVER`` span."""
    return span.attributes.get(OI_SPAN_KIND) in (OI_TOOL, OI_RETRIEVER)


_AI_TYPES = frozenset({"ai", "AIMessage", "AIMessageChunk", "assistant"})


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under OpenInference."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    kind = attributes.get(OI_SPAN_KIND)
    if kind is None:
        return
    if kind == OI_TOOL and OI_OUTPUT_VALUE in attributes:
        content, call_id = tool_output(attributes[OI_OUTPUT_VALUE])
        yield Found(content=content, span_id=span.span_id,
                    tool_name=str(attributes.get(OI_TOOL_NAME) or span.name),
                    call_id=call_id, start_ns=span.start_ns)
    elif kind == OI_RETRIEVER:
        for document in indexed(attributes, OI_RETRIEVAL_DOCUMENTS):
            document_text = document.get("document.content")
            if document_text:
                yield Found(content=as_text(document_text), span_id=span.span_id,
                            tool_name=span.name or "retriever", order=2, start_ns=span.start_ns)
    elif kind == OI_LLM:
        yield from indexed_tool_results(span, indexed(attributes, OI_INPUT_MESSAGES),
                                        prefix="message.", name_key="message.name")
        yield from indexed_calls(span, attributes, OI_OUTPUT_MESSAGES)
        text = indexed_answer(indexed(attributes, OI_OUTPUT_MESSAGES), prefix="message.")
        if text is not None:
            yield Answer(text, span.span_id, RANK_INFERENCE, span.end_ns,
                         CONVENTION_OPENINFERENCE)
    if kind in (OI_AGENT, OI_CHAIN) and OI_OUTPUT_VALUE in attributes:
        if kind == OI_CHAIN and not is_run_span:
            return
        text = state_answer(attributes[OI_OUTPUT_VALUE])
        if text:
            yield Answer(text, span.span_id, agent_rank(is_run_span), span.end_ns,
                         CONVENTION_OPENINFERENCE)


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


CONVENTION = Convention("openinference", run_kind, may_hold_evidence, extract)
