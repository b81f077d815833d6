"""Frameworks that trace natively with attributes of their own.

- Vercel AI SDK: ``ai.toolCall`` spans (``ai.toolCall.{name,id,result}``); the answer is
  ``ai.response.text`` of ``ai.generateText`` / ``ai.streamText``.
- Google ADK: ``execute_tool`` spans with ``gcp.vertex.agent.tool_response`` (``{"result": ...}``
  unwrapped); in its older span format the answer is only in the ``call_llm`` span's
  ``gcp.vertex.agent.llm_response`` (``content.parts[].text``, none with a ``function_call``).
- Pydantic AI: ``final_result`` on its ``invoke_agent`` span; ``tool_response`` on the
  ``running tool`` spans of its instrumentation version 2.
- Agent runs: Vercel's ``ai.generateText`` / ``ai.streamText`` spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from gsar_otel.sidecar.conventions import genai
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
    result_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun

# --- names -------------------------------------------------------------------------------------
CONVENTION_VERCEL: Final = "vercel"
VERCEL_RUN_SPANS: Final = frozenset({"ai.generateText", "ai.streamText"})
VERCEL_RESPONSE_TEXT: Final = "ai.response.text"
VERCEL_TOOL_NAME: Final = "ai.toolCall.name"
VERCEL_TOOL_ID: Final = "ai.toolCall.id"
VERCEL_TOOL_RESULT: Final = "ai.toolCall.result"
VERCEL_TOOL_ARGS: Final = "ai.toolCall.args"
VERCEL_OPERATION_ID: Final = "ai.operationId"
VERCEL_FUNCTION_ID: Final = "ai.telemetry.functionId"
ADK_TOOL_RESPONSE: Final = "gcp.vertex.agent.tool_response"
ADK_LLM_RESPONSE: Final = "gcp.vertex.agent.llm_response"
PYDANTIC_AI_FINAL_RESULT: Final = "final_result"
PYDANTIC_AI_TOOL_RESPONSE: Final = "tool_response"
"""Pydantic AI's instrumentation version 2 (``running tool`` spans)."""
NATIVE_ARGUMENT_KEYS: Final = ("gcp.vertex.agent.tool_call_args", "tool_arguments")
"""A tool call's input in Google ADK's and Pydantic AI (version 2)'s own attributes."""


def run_kind(span: SpanRecord) -> str | None:
    """``vercel`` for an ``ai.generateText`` / ``ai.streamText`` span, else None (Google ADK and
    Pydantic AI runs are GenAI ``invoke_agent`` spans)."""
    operation = span.attributes.get(VERCEL_OPERATION_ID, span.name)
    # Attribute values may be lists or maps (OTLP kvlist): only a string names an operation.
    if isinstance(operation, str) and operation in VERCEL_RUN_SPANS:
        return CONVENTION_VERCEL
    return None


EVIDENCE_KEYS: Final = (VERCEL_TOOL_RESULT, ADK_TOOL_RESPONSE, PYDANTIC_AI_TOOL_RESPONSE)


def may_hold_evidence(span: SpanRecord) -> bool:
    """A span with a tool result in a framework's own attribute."""
    return any(key in span.attributes for key in EVIDENCE_KEYS)


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence from native framework attributes."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    rank = agent_rank(is_run_span)
    if VERCEL_TOOL_RESULT in attributes:
        yield Found(content=result_text(attributes[VERCEL_TOOL_RESULT]),
                    span_id=span.span_id,
                    tool_name=str(attributes.get(VERCEL_TOOL_NAME) or "tool"),
                    call_id=str(attributes.get(VERCEL_TOOL_ID) or ""),
                    start_ns=span.start_ns,
                    arguments=arguments_text(attributes.get(VERCEL_TOOL_ARGS)))
    native = next((k for k in (ADK_TOOL_RESPONSE, PYDANTIC_AI_TOOL_RESPONSE)
                   if k in attributes), None)
    if native is not None and genai.GEN_AI_TOOL_CALL_RESULT not in attributes:
        yield Found(content=result_text(attributes[native]),
                    span_id=span.span_id,
                    tool_name=str(attributes.get(genai.GEN_AI_TOOL_NAME) or "tool"),
                    call_id=str(attributes.get(genai.GEN_AI_TOOL_CALL_ID) or ""),
                    start_ns=span.start_ns,
                    arguments=arguments_text(next((attributes[k] for k in NATIVE_ARGUMENT_KEYS
                                                   if k in attributes), None)))
    operation = attributes.get(VERCEL_OPERATION_ID, span.name)
    if (isinstance(operation, str) and operation in VERCEL_RUN_SPANS
            and VERCEL_RESPONSE_TEXT in attributes):
        yield Answer(as_text(attributes[VERCEL_RESPONSE_TEXT]), span.span_id,
                     rank, span.end_ns, CONVENTION_VERCEL)
    if (attributes.get(genai.GEN_AI_OPERATION_NAME) == genai.OP_INVOKE_AGENT
            and PYDANTIC_AI_FINAL_RESULT in attributes):
        yield Answer(as_text(json_text(attributes[PYDANTIC_AI_FINAL_RESULT])),
                     span.span_id, rank, span.end_ns, genai.CONVENTION_GENAI)
    if ADK_LLM_RESPONSE in attributes:
        yield from _adk_response(span, attributes[ADK_LLM_RESPONSE])


def _adk_response(span: SpanRecord, value: Any) -> Iterator[Answer | Call]:
    """ADK's ``LlmResponse`` JSON: the model's calls, or its text as an inference answer."""
    response = json_text(value)
    content = response.get("content") if isinstance(response, dict) else None
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return
    texts: list[str] = []
    called = False
    for part in parts:
        if not isinstance(part, dict):
            continue
        call = part.get("function_call") or part.get("functionCall")
        if isinstance(call, dict):
            called = True
            yield Call(str(call.get("id") or ""), span.start_ns, str(call.get("name") or ""))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"].strip())
    text = "\n".join(t for t in texts if t)
    if text and not called:
        yield Answer(text, span.span_id, RANK_INFERENCE, span.end_ns, genai.CONVENTION_GENAI)


CONVENTION = Convention("native", run_kind, may_hold_evidence, extract)
