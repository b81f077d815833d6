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

from gsar_otel.sidecar.conventions import registry as cv


def test_genai_names_match_the_semantic_conventions_package() -> None:
    assert cv.GEN_AI_OPERATION_NAME == gen_ai.GEN_AI_OPERATION_NAME
    assert cv.GEN_AI_AGENT_NAME == gen_ai.GEN_AI_AGENT_NAME
    assert cv.GEN_AI_WORKFLOW_NAME == gen_ai.GEN_AI_WORKFLOW_NAME
    assert cv.GEN_AI_TOOL_NAME == gen_ai.GEN_AI_TOOL_NAME
    assert cv.GEN_AI_TOOL_CALL_ID == gen_ai.GEN_AI_TOOL_CALL_ID
    assert cv.GEN_AI_TOOL_CALL_RESULT == gen_ai.GEN_AI_TOOL_CALL_RESULT
    assert cv.GEN_AI_INPUT_MESSAGES == gen_ai.GEN_AI_INPUT_MESSAGES
    assert cv.GEN_AI_OUTPUT_MESSAGES == gen_ai.GEN_AI_OUTPUT_MESSAGES
    assert cv.GEN_AI_RETRIEVAL_DOCUMENTS == gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS
    operations = {value.value for value in gen_ai.GenAiOperationNameValues}
    assert {cv.OP_INVOKE_AGENT, cv.OP_INVOKE_WORKFLOW, cv.OP_EXECUTE_TOOL} <= operations
    assert operations >= cv.INFERENCE_OPERATIONS


def test_openinference_names_match_the_semantic_conventions_package() -> None:
    assert cv.OI_SPAN_KIND == SpanAttributes.OPENINFERENCE_SPAN_KIND
    assert cv.OI_INPUT_VALUE == SpanAttributes.INPUT_VALUE
    assert cv.OI_OUTPUT_VALUE == SpanAttributes.OUTPUT_VALUE
    assert cv.OI_TOOL_NAME == SpanAttributes.TOOL_NAME
    assert cv.OI_INPUT_MESSAGES == SpanAttributes.LLM_INPUT_MESSAGES
    assert cv.OI_OUTPUT_MESSAGES == SpanAttributes.LLM_OUTPUT_MESSAGES
    assert cv.OI_RETRIEVAL_DOCUMENTS == SpanAttributes.RETRIEVAL_DOCUMENTS
    kinds = {value.value for value in OpenInferenceSpanKindValues}
    assert {cv.OI_AGENT, cv.OI_CHAIN, cv.OI_TOOL, cv.OI_RETRIEVER, cv.OI_LLM,
            cv.OI_EVALUATOR} <= kinds
    # The nested keys the extractor reads under llm.*_messages.{i} / retrieval.documents.{i}.
    assert (MessageAttributes.MESSAGE_ROLE, MessageAttributes.MESSAGE_CONTENT,
            MessageAttributes.MESSAGE_TOOL_CALL_ID, DocumentAttributes.DOCUMENT_CONTENT) == (
        "message.role", "message.content", "message.tool_call_id", "document.content")
