"""Extraction from span shapes captured from real frameworks and their own instrumentation
(LangChain + opentelemetry-instrumentation-langchain 0.62.4, LlamaIndex 0.14 +
openinference-instrumentation-llama-index 4.6.1, CrewAI 1.15 + openinference-instrumentation-crewai
1.1.21; trimmed to the attributes the sidecar reads): the answer read out of the framework's
object or from the last model output, one evidence item per tool call, control tools left out
and listed, history-only results flagged where a user looks."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from gsar_otel import semconv as sc
from gsar_otel.sidecar.conventions.extract import extract_run
from gsar_otel.sidecar.judging import count_results
from gsar_otel.sidecar.output import verdict_spans as emit
from gsar_otel.sidecar.output.verdict_spans import log_once, sidecar_attributes
from gsar_otel.sidecar.output.stats import SidecarStats
from tests.sidecar.test_extract import run, span, texts

ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02."
QUESTION = "Why is db-prod-1 slow?"


def _lc(kind: str, **kwargs: Any) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind],
            "kwargs": kwargs}


TOOL_MESSAGE = _lc("ToolMessage", content=ROW, type="tool", name="get_metrics",
                   tool_call_id="call_1", status="success")
CALL = _lc("AIMessage", content="", type="ai", name="incident-bot", tool_calls=[
    {"name": "get_metrics", "args": {"host": "db-prod-1"}, "id": "call_1", "type": "tool_call"}])


def _parts(*messages: dict[str, Any]) -> str:
    return json.dumps(list(messages))


def langchain_openllmetry() -> Any:
    """create_agent traced by OpenLLMetry's LangChain instrumentation, attribute mode."""
    tool_output = json.dumps({"output": TOOL_MESSAGE, "kwargs": {
        "tags": ["seq:step:1"], "color": "green", "name": "get_metrics"}})
    tool_input = json.dumps({"input_str": "{'host': 'db-prod-1'}", "tags": ["seq:step:1"],
                             "metadata": {"langgraph_step": 2}, "inputs": {"host": "db-prod-1"},
                             "kwargs": {"color": "green", "name": None, "tool_call_id": "call_1"}})
    state = {"outputs": {"messages": [
        _lc("HumanMessage", content=QUESTION, type="human"), CALL, TOOL_MESSAGE,
        _lc("AIMessage", content=ANSWER, type="ai", name="incident-bot", tool_calls=[])]},
        "kwargs": {"tags": []}}
    return run(
        span(3, 2, "ToolCallingFake.chat", **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": _parts({"role": "user", "parts": [
                {"type": "text", "content": QUESTION}]}),
            "gen_ai.output.messages": _parts({"role": "assistant", "parts": [
                {"type": "tool_call", "id": "call_1", "name": "get_metrics",
                 "arguments": {"host": "db-prod-1"}}], "finish_reason": ""})}),
        span(4, 2, "execute_tool get_metrics", **{
            "traceloop.span.kind": "tool", "traceloop.entity.name": "get_metrics",
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
            "traceloop.entity.input": tool_input, "gen_ai.tool.call.arguments": tool_input,
            "traceloop.entity.output": tool_output, "gen_ai.tool.call.result": tool_output}),
        span(5, 2, "ToolCallingFake.chat", **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": _parts(
                {"role": "user", "parts": [{"type": "text", "content": QUESTION}]},
                {"role": "tool", "parts": [
                    {"type": "tool_call_response", "id": "call_1", "response": ROW}]}),
            "gen_ai.output.messages": _parts({"role": "assistant", "parts": [
                {"type": "text", "content": ANSWER}], "finish_reason": ""})}),
        span(2, 1, "incident-bot.workflow", **{
            "traceloop.span.kind": "workflow", "traceloop.entity.name": "incident-bot",
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "incident-bot",
            "traceloop.entity.output": json.dumps(state)}),
        span(1, 0, "invoke_agent incident-bot", **{
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "incident-bot"}))


def test_langchain_openllmetry_one_item_per_tool_call_and_the_answer_from_the_graph() -> None:
    """Before: the tool's {output, kwargs} envelope twice (traceloop.entity.output and
    gen_ai.tool.call.result) and the history copy; the workflow's JSON as the answer."""
    extracted = extract_run(langchain_openllmetry())
    assert extracted.answer == ANSWER
    assert extracted.answer_source == "agent_span:outputs.messages"
    assert [(f.content, f.call_id) for f in extracted.evidence] == [(ROW, "call_1")]
    assert not extracted.controls and extracted.unverified == 0


def llamaindex() -> Any:
    """A FunctionAgent traced by OpenInference: the root CHAIN's output is a cut repr."""
    return run(
        span(3, 1, "OpenAI.astream_chat", **{
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": QUESTION,
            "output.value": "assistant: ",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name":
                "get_metrics"}),
        span(4, 1, "FunctionTool.acall", **{
            "openinference.span.kind": "TOOL", "tool.name": "get_metrics",
            "input.value": json.dumps({"kwargs": {"host": "db-prod-1"}}),
            "output.value": json.dumps({
                "blocks": [{"text": ROW}], "tool_name": "get_metrics",
                "raw_input": {"args": [], "kwargs": {"host": "db-prod-1"}},
                "raw_output": ROW, "is_error": False}, separators=(",", ":"))}),
        span(5, 1, "BaseWorkflowAgent.call_tool", **{
            "openinference.span.kind": "CHAIN",
            "output.value": "ToolCallResult(tool_name='get_metrics', tool_kwargs={'host': "
                            "'db-prod-1'}, tool_id='call_1', tool_output=ToolOutput(blocks=["
                            "TextBlock(block_type='text', text='host=db-prod-1 cpu_pct=97.2 "
                            "at=14:02:0..."}),
        span(6, 1, "OpenAI.astream_chat", **{
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": QUESTION,
            "llm.input_messages.1.message.role": "tool",
            "llm.input_messages.1.message.content": ROW,
            "llm.input_messages.1.message.tool_call_id": "call_1",
            "output.value": f"assistant: {ANSWER}",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": ANSWER}),
        span(1, 0, "FunctionAgent.run", **{
            "openinference.span.kind": "CHAIN",
            "output.value": "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole"
                            ".ASSISTANT: 'assistant'>, additional_kwargs={}, blocks=[TextBlock("
                            "block_type='text', text='CPU on db-prod-1 reached 97.2% at 14:02..."}),
        convention="openinference")


def test_llamaindex_a_repr_is_no_answer_the_last_model_output_is() -> None:
    """Before: the cut StopEvent(...) repr was judged (S = 0 for a correct answer)."""
    extracted = extract_run(llamaindex())
    assert extracted.answer == ANSWER
    assert extracted.answer_source == "model_output"
    assert texts(extracted) == [ROW]


def test_crewai_the_crew_output_is_read_for_its_raw_text() -> None:
    """Before: the CrewOutput JSON was judged (a correct answer replanned)."""
    crew_output = {"raw": ANSWER, "pydantic": None, "json_dict": None, "tasks_output": [{
        "description": QUESTION, "raw": ANSWER, "agent": "incident-bot",
        "output_format": "raw", "messages": [{"role": "tool", "content": ROW}]}],
        "token_usage": {"total_tokens": 30}}
    extracted = extract_run(run(
        span(3, 2, "get_metrics.run", **{"openinference.span.kind": "TOOL",
                                         "tool.name": "get_metrics",
                                         "input.value": json.dumps({"host": "db-prod-1"}),
                                         "output.value": ROW}),
        span(2, 1, "incident-bot._execute_core", **{
            "openinference.span.kind": "AGENT",
            "output.value": json.dumps(crew_output["tasks_output"][0])}),
        span(1, 0, "incident-crew.kickoff", **{"openinference.span.kind": "CHAIN",
                                               "output.value": json.dumps(crew_output)}),
        convention="openinference"))
    assert (extracted.answer, extracted.answer_source) == (ANSWER, "run_span:raw")
    assert texts(extracted) == [ROW]


def test_a_tool_span_and_its_history_copy_differently_wrapped_are_one_item() -> None:
    """A tool span with no call id ({output, kwargs} envelope) and the same result as MCP
    content in a later role: tool message with a call id: one item, the tool span's."""
    mcp = {"content": [{"type": "text", "text": ROW}], "isError": False}
    extracted = extract_run(run(
        span(2, 1, "tool", **{"traceloop.span.kind": "tool", "traceloop.entity.name": "get_metrics",
                              "traceloop.entity.output": json.dumps({"output": mcp,
                                                                     "kwargs": {}})}),
        span(3, 1, "chat", **{"gen_ai.operation.name": "chat", "gen_ai.input.messages": _parts(
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_7",
                                        "response": mcp}]})}),
        span(1, 0, "agent.workflow", **{"traceloop.span.kind": "workflow",
                                        "traceloop.entity.output": json.dumps(ANSWER)}),
        convention="openllmetry"))
    assert [(f.content, f.span_id) for f in extracted.evidence] == [(ROW, f"{2:016x}")]


def _control_run() -> Any:
    """A ReAct-style run ending on control tools: a finish() answering 'Completed.', and a
    final_answer tool given the answer that acknowledges with a fixed message."""
    return run(
        span(2, 1, "execute_tool get_metrics", **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
            "gen_ai.tool.call.arguments": json.dumps({"host": "db-prod-1"}),
            "gen_ai.tool.call.result": ROW}),
        span(3, 1, "execute_tool finish", **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "finish",
            "gen_ai.tool.call.arguments": "{}", "gen_ai.tool.call.result": "Completed."}),
        span(4, 1, "FinalAnswerTool", **{
            "openinference.span.kind": "TOOL", "tool.name": "final_answer",
            "input.value": json.dumps({"answer": ANSWER}),
            "output.value": "Message has been sent"}),
        span(1, 0, "invoke_agent react", **{
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "react",
            "gen_ai.output.messages": _parts({"role": "assistant", "parts": [
                {"type": "text", "content": ANSWER}]})}))


def test_control_tools_are_not_evidence_and_are_listed_and_counted() -> None:
    shape = _control_run()
    extracted = extract_run(shape)
    assert texts(extracted) == [ROW]
    assert [f.tool_name for f in extracted.controls] == ["finish", "final_answer"]
    attributes = sidecar_attributes(shape, extracted)
    assert attributes[sc.GSAR_SIDECAR_EVIDENCE_CONTROLS] == 2
    assert attributes[sc.GSAR_SIDECAR_EVIDENCE_CONTROL_SOURCES] == [
        f"finish@{3:016x}", f"final_answer@{4:016x}"]
    assert attributes[sc.GSAR_SIDECAR_ANSWER_SOURCE] == "run_span"
    stats = SidecarStats()
    count_results(stats, extracted, include_unverified=False)
    assert stats.get("tool_results", "control") == 2
    assert 'gsar_sidecar_tool_results_total{gsar_sidecar_reason="control"} 2' in (
        stats.prometheus_text())


def _one_call_per_trace() -> Any:
    """Every model call its own trace, no agent span: this trace is the second call, whose
    history holds the tool result of a call made in another trace."""
    return run(span(1, 0, "chat gpt-4o", **{
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": _parts(
            {"role": "user", "parts": [{"type": "text", "content": QUESTION}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                        "response": ROW}]}),
        "gen_ai.output.messages": _parts({"role": "assistant", "parts": [
            {"type": "text", "content": ANSWER}]})}), convention="root")


def test_history_only_results_say_unverified_history_with_a_hint(
        caplog: pytest.LogCaptureFixture) -> None:
    shape = _one_call_per_trace()
    extracted = extract_run(shape)
    assert extracted.evidence == () and extracted.unverified == 1
    attributes = sidecar_attributes(shape, extracted)
    assert attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_REASON] == "unverified_history"
    assert "--include-unverified" in attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_HINT]
    assert "\n" not in attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_HINT]
    kept = extract_run(shape, include_unverified=True)
    assert texts(kept) == [ROW]
    assert sc.GSAR_SIDECAR_RUN_INCOMPLETE_REASON not in sidecar_attributes(shape, kept)
    # Logged once per agent, not once per run nor once per process.
    emit._logged.clear()
    with caplog.at_level(logging.WARNING, logger=emit.logger.name):
        assert log_once("unverified_history", "t1", "agent-a")
        assert not log_once("unverified_history", "t2", "agent-a")
        assert log_once("unverified_history", "t3", "agent-b")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all("--include-unverified" in line for line in lines)


def test_no_tool_content_at_all_says_no_evidence_with_a_hint() -> None:
    shape = run(span(1, 0, "invoke_agent bot", **{
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.output.messages": _parts({"role": "assistant", "parts": [
            {"type": "text", "content": ANSWER}]})}))
    attributes = sidecar_attributes(shape, extract_run(shape))
    assert attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_REASON] == "no_evidence"
    assert "tool result" in attributes[sc.GSAR_SIDECAR_RUN_INCOMPLETE_HINT]


def test_a_run_whose_only_answer_is_a_serialized_object_is_not_judged() -> None:
    """No text field, no model output: no answer (a gsar.sidecar.skipped span, no_answer),
    rather than the object judged as if it were prose."""
    extracted = extract_run(run(
        span(2, 1, "get_metrics", **{"openinference.span.kind": "TOOL",
                                     "tool.name": "get_metrics", "output.value": ROW}),
        span(1, 0, "Flow.run", **{"openinference.span.kind": "CHAIN",
                                  "output.value": json.dumps({"host": "db-prod-1",
                                                              "cpu_pct": 97.2})}),
        convention="openinference"))
    assert extracted.answer is None and texts(extracted) == [ROW]
