"""OpenInference (``openinference.span.kind``; spec ``semantic_conventions.md``, semconv 0.1.x).

- ``TOOL`` spans: ``output.value`` with ``tool.name``; the call id, when a tool message carries
  it, is ``message.tool_call_id``.
- ``RETRIEVER`` spans: ``retrieval.documents.{i}.document.{id,content}``.
- ``LLM`` spans: tool results ride as ``role: tool`` input messages
  (``llm.input_messages.{i}.message.{role,content,tool_call_id,name}``); the answer is the last
  LLM output (``llm.output_messages.{i}.message.content``) without ``message.tool_calls``.
- ``AGENT`` / root ``CHAIN`` spans: ``output.value`` is the run's answer; when it is a graph's
  state (LangGraph: ``{"messages": [...]}``), the answer is the last AI message's text; a
  framework object (CrewAI's ``{"raw": ...}``) its one text field; a repr (LlamaIndex's
  ``StopEvent(...)``) is no answer (see :mod:`shapes`).
- ``TOOL`` spans' ``output.value`` wrappers come off: a serialized LangChain ``ToolMessage``
  gives its ``content`` and ``tool_call_id`` (so the same result in a model span's tool
  messages is one item), a LlamaIndex ``ToolOutput`` its text blocks. ``input.value`` is the
  call's input (for telling control tools apart).
- Agent runs: ``AGENT`` spans, and a ``CHAIN`` span that is the trace root.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import semconv as sc
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
                    call_id=call_id, start_ns=span.start_ns,
                    arguments=arguments_text(attributes.get(OI_INPUT_VALUE)))
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
        # The answer as recorded; a graph's state, an envelope or a serialized object is read
        # (or refused) by the one rule for every convention (shapes.answer_value).
        text = as_text(json_text(attributes[OI_OUTPUT_VALUE]))
        if text:
            yield Answer(text, span.span_id, agent_rank(is_run_span), span.end_ns,
                         CONVENTION_OPENINFERENCE)


def tool_output(value: Any) -> tuple[str, str]:
    """A TOOL span's result text and call id: wrappers taken off (a serialized ``ToolMessage``
    gives its content and ``tool_call_id``, a LlamaIndex ``ToolOutput`` its text blocks)."""
    return result_and_call(value)


CONVENTION = Convention("openinference", run_kind, may_hold_evidence, extract)
