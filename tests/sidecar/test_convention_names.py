"""The attribute names the sidecar reads are the conventions' own: checked against the constants
of the installed ``opentelemetry-semantic-conventions`` (GenAI, incubating) and
``openinference-semantic-conventions`` packages, so a rename upstream fails here, not silently
in production (an extractor reading a name nobody writes finds no evidence)."""

from __future__ import annotations

from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from gsar_otel.sidecar.conventions import genai, openinference


def test_genai_names_match_the_semantic_conventions_package() -> None:
    assert genai.GEN_AI_OPERATION_NAME == gen_ai.GEN_AI_OPERATION_NAME
    assert genai.GEN_AI_AGENT_NAME == gen_ai.GEN_AI_AGENT_NAME
    assert genai.GEN_AI_WORKFLOW_NAME == gen_ai.GEN_AI_WORKFLOW_NAME
    assert genai.GEN_AI_TOOL_NAME == gen_ai.GEN_AI_TOOL_NAME
    assert genai.GEN_AI_TOOL_CALL_ID == gen_ai.GEN_AI_TOOL_CALL_ID
    assert genai.GEN_AI_TOOL_CALL_RESULT == gen_ai.GEN_AI_TOOL_CALL_RESULT
    assert genai.GEN_AI_INPUT_MESSAGES == gen_ai.GEN_AI_INPUT_MESSAGES
    assert genai.GEN_AI_OUTPUT_MESSAGES == gen_ai.GEN_AI_OUTPUT_MESSAGES
    assert genai.GEN_AI_RETRIEVAL_DOCUMENTS == gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS
    operations = {value.value for value in gen_ai.GenAiOperationNameValues}
    assert {genai.OP_INVOKE_AGENT, genai.OP_INVOKE_WORKFLOW, genai.OP_EXECUTE_TOOL} <= operations
    assert operations >= genai.INFERENCE_OPERATIONS


def test_openinference_names_match_the_semantic_conventions_package() -> None:
    assert openinference.OI_SPAN_KIND == SpanAttributes.OPENINFERENCE_SPAN_KIND
    assert openinference.OI_INPUT_VALUE == SpanAttributes.INPUT_VALUE
    assert openinference.OI_OUTPUT_VALUE == SpanAttributes.OUTPUT_VALUE
    assert openinference.OI_TOOL_NAME == SpanAttributes.TOOL_NAME
    assert openinference.OI_INPUT_MESSAGES == SpanAttributes.LLM_INPUT_MESSAGES
    assert openinference.OI_OUTPUT_MESSAGES == SpanAttributes.LLM_OUTPUT_MESSAGES
    assert openinference.OI_RETRIEVAL_DOCUMENTS == SpanAttributes.RETRIEVAL_DOCUMENTS
    kinds = {value.value for value in OpenInferenceSpanKindValues}
    assert {openinference.OI_AGENT, openinference.OI_CHAIN, openinference.OI_TOOL,
            openinference.OI_RETRIEVER, openinference.OI_LLM, openinference.OI_EVALUATOR} <= kinds
    # The nested keys the extractor reads under llm.*_messages.{i} / retrieval.documents.{i}.
    assert (MessageAttributes.MESSAGE_ROLE, MessageAttributes.MESSAGE_CONTENT,
            MessageAttributes.MESSAGE_TOOL_CALL_ID, DocumentAttributes.DOCUMENT_CONTENT) == (
        "message.role", "message.content", "message.tool_call_id", "document.content")
