"""Frameworks that trace natively with attributes of their own.

- Vercel AI SDK: ``ai.toolCall`` spans (``ai.toolCall.{name,id,result}``); the answer is
  ``ai.response.text`` of ``ai.generateText`` / ``ai.streamText``.
- Google ADK: ``execute_tool`` spans with ``gcp.vertex.agent.tool_response`` (``{"result": ...}``
  unwrapped); in its older span format the answer is only in the ``call_llm`` span's
  ``gcp.vertex.agent.llm_response`` (``content.parts[].text``, none with a ``function_call``).
- Pydantic AI: ``final_result`` on its ``invoke_agent`` span; ``tool_response`` on the
  ``running tool`` spans of its instrumentation version 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.conventions import registry as cv
from gsar_otel.sidecar.conventions.shared import (
    RANK_INFERENCE,
    Answer,
    Call,
    Extraction,
    Found,
    agent_rank,
    as_text,
    gather,
    result_text,
    unwrap_json_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence from native framework attributes."""
    return gather(run, _span_items)


def _span_items(span: SpanRecord, is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    rank = agent_rank(is_run_span)
    if cv.VERCEL_TOOL_RESULT in attributes:
        yield Found(content=result_text(attributes[cv.VERCEL_TOOL_RESULT]),
                    span_id=span.span_id,
                    tool_name=str(attributes.get(cv.VERCEL_TOOL_NAME) or "tool"),
                    call_id=str(attributes.get(cv.VERCEL_TOOL_ID) or ""),
                    start_ns=span.start_ns)
    native = next((k for k in (cv.ADK_TOOL_RESPONSE, cv.PYDANTIC_AI_TOOL_RESPONSE)
                   if k in attributes), None)
    if native is not None and cv.GEN_AI_TOOL_CALL_RESULT not in attributes:
        yield Found(content=result_text(attributes[native]),
                    span_id=span.span_id,
                    tool_name=str(attributes.get(cv.GEN_AI_TOOL_NAME) or "tool"),
                    call_id=str(attributes.get(cv.GEN_AI_TOOL_CALL_ID) or ""),
                    start_ns=span.start_ns)
    operation = attributes.get(cv.VERCEL_OPERATION_ID, span.name)
    if (isinstance(operation, str) and operation in cv.VERCEL_RUN_SPANS
            and cv.VERCEL_RESPONSE_TEXT in attributes):
        yield Answer(as_text(attributes[cv.VERCEL_RESPONSE_TEXT]), span.span_id,
                     rank, span.end_ns, cv.CONVENTION_VERCEL)
    if (attributes.get(cv.GEN_AI_OPERATION_NAME) == cv.OP_INVOKE_AGENT
            and cv.PYDANTIC_AI_FINAL_RESULT in attributes):
        yield Answer(unwrap_json_text(attributes[cv.PYDANTIC_AI_FINAL_RESULT]),
                     span.span_id, rank, span.end_ns, cv.CONVENTION_GENAI)
    if cv.ADK_LLM_RESPONSE in attributes:
        yield from _adk_response(span, attributes[cv.ADK_LLM_RESPONSE])


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
        yield Answer(text, span.span_id, RANK_INFERENCE, span.end_ns, cv.CONVENTION_GENAI)
