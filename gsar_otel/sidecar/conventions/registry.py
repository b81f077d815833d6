"""The attribute names the sidecar reads from other instrumentations, and run-span detection.

Sources (checked against the specifications, versions as read):

- OpenTelemetry GenAI semantic conventions v1.41.0 (``gen-ai-agent-spans.md``,
  ``gen-ai-spans.md``, ``gen-ai-events.md``), and the deprecated per-message events of <= v1.36
  (``gen_ai.choice``, ``gen_ai.tool.message``; ``model/gen-ai/deprecated/events-deprecated.yaml``).
- OpenInference semantic conventions (``spec/semantic_conventions.md``, semconv package 0.1.x).
- OpenLLMetry ``opentelemetry-semantic-conventions-ai`` 0.5.x (``traceloop.*``; the legacy
  indexed ``gen_ai.prompt.{i}`` / ``gen_ai.completion.{i}`` attributes).
- Vercel AI SDK telemetry (``ai.generateText``, ``ai.toolCall.*``); Google ADK
  (``gcp.vertex.agent.*``).

These are names the sidecar *reads*; names it writes live in :mod:`gsar_otel.semconv`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gsar_otel import semconv as sc
from gsar_otel.sidecar.intake.spans import SpanRecord

# --- OpenTelemetry GenAI --------------------------------------------------------------------
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
OP_INVOKE_AGENT: Final = "invoke_agent"
OP_INVOKE_WORKFLOW: Final = "invoke_workflow"
OP_EXECUTE_TOOL: Final = "execute_tool"
INFERENCE_OPERATIONS: Final = frozenset({"chat", "text_completion", "generate_content"})
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_WORKFLOW_NAME: Final = "gen_ai.workflow.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
GEN_AI_RETRIEVAL_DOCUMENTS: Final = "gen_ai.retrieval.documents"
EVENT_OPERATION_DETAILS: Final = "gen_ai.client.inference.operation.details"
EVENT_CHOICE: Final = "gen_ai.choice"
EVENT_TOOL_MESSAGE: Final = "gen_ai.tool.message"

# --- OpenInference ------------------------------------------------------------------------
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

# --- OpenLLMetry (Traceloop) ---------------------------------------------------------------------
TRACELOOP_SPAN_KIND: Final = "traceloop.span.kind"
TRACELOOP_ENTITY_NAME: Final = "traceloop.entity.name"
TRACELOOP_ENTITY_INPUT: Final = "traceloop.entity.input"
TRACELOOP_ENTITY_OUTPUT: Final = "traceloop.entity.output"
LEGACY_PROMPT: Final = "gen_ai.prompt"
LEGACY_COMPLETION: Final = "gen_ai.completion"

# --- native framework attributes ---------------------------------------------------------------
VERCEL_RUN_SPANS: Final = frozenset({"ai.generateText", "ai.streamText"})
VERCEL_RESPONSE_TEXT: Final = "ai.response.text"
VERCEL_TOOL_NAME: Final = "ai.toolCall.name"
VERCEL_TOOL_ID: Final = "ai.toolCall.id"
VERCEL_TOOL_RESULT: Final = "ai.toolCall.result"
VERCEL_OPERATION_ID: Final = "ai.operationId"
VERCEL_FUNCTION_ID: Final = "ai.telemetry.functionId"
ADK_TOOL_RESPONSE: Final = "gcp.vertex.agent.tool_response"
ADK_LLM_RESPONSE: Final = "gcp.vertex.agent.llm_response"
PYDANTIC_AI_FINAL_RESULT: Final = "final_result"
PYDANTIC_AI_TOOL_RESPONSE: Final = "tool_response"
"""Pydantic AI's instrumentation version 2 (``running tool`` spans)."""

# --- conventions ---------------------------------------------------------------------------------
CONVENTION_GENAI: Final = "genai"
CONVENTION_OPENINFERENCE: Final = "openinference"
CONVENTION_OPENLLMETRY: Final = "openllmetry"
CONVENTION_VERCEL: Final = "vercel"
CONVENTION_ROOT: Final = "root"
"""No agent-run span in any convention: the trace root is the run."""


def run_kind(span: SpanRecord) -> str | None:
    """The convention under which ``span`` is an agent run (or a candidate for one), or None.

    An OpenInference ``CHAIN`` counts only as the trace root (chains nest freely).
    """
    attributes = span.attributes
    if attributes.get(GEN_AI_OPERATION_NAME) in (OP_INVOKE_AGENT, OP_INVOKE_WORKFLOW):
        return CONVENTION_GENAI
    kind = attributes.get(OI_SPAN_KIND)
    if kind == OI_AGENT or (kind == OI_CHAIN and not span.parent_span_id):
        return CONVENTION_OPENINFERENCE
    if attributes.get(TRACELOOP_SPAN_KIND) in ("workflow", "agent"):
        return CONVENTION_OPENLLMETRY
    operation = attributes.get(VERCEL_OPERATION_ID, span.name)
    # Attribute values may be lists or maps (OTLP kvlist): only a string names an operation.
    if isinstance(operation, str) and operation in VERCEL_RUN_SPANS:
        return CONVENTION_VERCEL
    return None


EVIDENCE_KEYS: Final = (GEN_AI_TOOL_CALL_RESULT, GEN_AI_INPUT_MESSAGES, VERCEL_TOOL_RESULT,
                        ADK_TOOL_RESPONSE, PYDANTIC_AI_TOOL_RESPONSE, TRACELOOP_ENTITY_OUTPUT)


def may_hold_evidence(span: SpanRecord) -> bool:
    """Whether ``span`` is a tool call or may carry a tool result (a tool span of any
    convention, a model call's input history): what makes a run's trace worth keeping longer
    than a run with none (eviction order, :mod:`gsar_otel.sidecar.assembly.assembler`)."""
    attributes = span.attributes
    return (attributes.get(GEN_AI_OPERATION_NAME) == OP_EXECUTE_TOOL
            or attributes.get(OI_SPAN_KIND) in (OI_TOOL, OI_RETRIEVER)
            or attributes.get(TRACELOOP_SPAN_KIND) == "tool"
            or any(key in attributes for key in EVIDENCE_KEYS))


def indexed(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Flattened indexed attributes ``{prefix}.{i}.{rest}`` as a list of dicts ordered by i.

    ``llm.input_messages.0.message.role`` -> ``[{"message.role": ...}]``.
    """
    found: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start):].partition(".")
        if index.isdigit() and rest:
            found.setdefault(int(index), {})[rest] = value
    return [found[i] for i in sorted(found)]
