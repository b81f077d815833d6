"""Extraction from the span shapes real framework instrumentations send (captured from
smolagents, LangGraph, Strands, Google ADK and OpenLLMetry with OpenTelemetry's SDK): a tool
that returns the answer is not evidence, a graph state is not an answer, wrapped tool results
are read as their text, tool arguments are not results, results in log records and in ADK's
older span format are found; retried calls keep both results, history-only results are
unverified, and the evaluation is named after the agent."""

from __future__ import annotations

import json
from typing import Any

from gsar_otel.sidecar.conventions.extract import extract_run, merge
from gsar_otel.sidecar.conventions.shared import Found
from gsar_otel.sidecar.intake.spans import EventRecord, LogRecordData, SpanRecord
from gsar_otel.sidecar.output.verdict_spans import function_name
from tests.sidecar.test_extract import ANSWER, ROW_1, ROW_2, TRACE, run, span, texts

WRONG = "CPU on db-prod-1 reached 99.9% at 14:02."


def test_a_final_answer_tool_is_not_evidence_for_its_own_answer() -> None:
    """smolagents (OpenInference): the final_answer TOOL span's output is the answer itself."""
    extracted = extract_run(run(
        span(2, 1, "get_metrics", **{"openinference.span.kind": "TOOL",
                                     "tool.name": "get_metrics", "output.value": ROW_1}),
        span(3, 1, "FinalAnswerTool", **{"openinference.span.kind": "TOOL",
                                         "tool.name": "final_answer",
                                         "input.value": json.dumps({"answer": WRONG}),
                                         "output.value": WRONG}),
        span(1, 0, "ToolCallingAgent.run", **{"openinference.span.kind": "AGENT",
                                              "output.value": WRONG}),
        convention="openinference"))
    assert extracted.answer == WRONG
    assert texts(extracted) == [ROW_1]
    assert extracted.echoes == 1


def _lc(kind: str, **kwargs: Any) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind],
            "kwargs": kwargs}


def test_a_graph_state_answer_is_its_last_ai_message_and_tool_results_count_once() -> None:
    """LangGraph create_agent (OpenInference): the agent span's output is the whole state."""
    call = _lc("AIMessage", content="", type="ai", tool_calls=[
        {"name": "get_metrics", "args": {"host": "db-prod-1"}, "id": "call_1",
         "type": "tool_call"}])
    result = _lc("ToolMessage", content=ROW_1, type="tool", tool_call_id="call_1",
                 name="get_metrics", status="success")
    state = {"messages": [_lc("HumanMessage", content="Why is db-prod-1 slow?", type="human"),
                          call, result, _lc("AIMessage", content=ANSWER, type="ai",
                                            tool_calls=[])]}
    extracted = extract_run(run(
        span(2, 1, "model", **{
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name":
                "get_metrics"}),
        span(3, 1, "get_metrics", **{"openinference.span.kind": "TOOL",
                                     "tool.name": "get_metrics",
                                     "output.value": json.dumps(result)}),
        span(4, 1, "model", **{
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "Why is db-prod-1 slow?",
            "llm.input_messages.1.message.role": "tool",
            "llm.input_messages.1.message.content": ROW_1,
            "llm.input_messages.1.message.tool_call_id": "call_1",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": ANSWER}),
        span(1, 0, "LangGraph", **{"openinference.span.kind": "CHAIN",
                                   "output.value": json.dumps(state)}),
        convention="openinference"))
    assert extracted.answer == ANSWER
    assert texts(extracted) == [ROW_1]
    assert extracted.evidence[0].call_id == "call_1"


def test_wrapped_tool_results_are_read_as_their_text() -> None:
    """Strands (latest GenAI conventions) sends content blocks, ADK a one-field object."""
    extracted = extract_run(run(
        span(2, 1, "execute_tool cpu", **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "cpu",
            "gen_ai.tool.call.id": "t1",
            "gen_ai.tool.call.result": json.dumps([{"text": ROW_1}])}),
        span(3, 1, "execute_tool slow", **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "slow",
            "gen_ai.tool.call.id": "t2",
            "gcp.vertex.agent.tool_response": json.dumps({"result": ROW_2})}),
        span(1, 0, "invoke_agent", **{"gen_ai.operation.name": "invoke_agent",
                                      "gen_ai.output.messages": json.dumps([{
                                          "role": "assistant", "parts": [
                                              {"type": "text", "content": ANSWER}]}])})))
    assert texts(extracted) == [ROW_1, ROW_2]


def test_strands_tool_arguments_are_not_a_result() -> None:
    """Strands' default conventions: the execute_tool span's gen_ai.tool.message event holds the
    call's arguments, its gen_ai.choice event the result."""
    arguments = EventRecord("gen_ai.tool.message", 2, {
        "role": "tool", "content": json.dumps({"host": "db-prod-1"}), "id": "tooluse_1"})
    result = EventRecord("gen_ai.choice", 3, {
        "message": json.dumps([{"text": ROW_1}]), "id": "tooluse_1"})
    answer = EventRecord("gen_ai.choice", 5, {"message": json.dumps([{"text": ANSWER}]),
                                              "finish_reason": "end_turn"})
    extracted = extract_run(run(
        span(2, 1, "execute_tool get_metrics", events=(arguments, result), **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
            "gen_ai.tool.call.id": "tooluse_1"}),
        span(1, 0, "invoke_agent ops", events=(answer,),
             **{"gen_ai.operation.name": "invoke_agent"})))
    assert extracted.answer == ANSWER
    assert [(f.content, f.tool_name, f.call_id) for f in extracted.evidence] == [
        (ROW_1, "get_metrics", "tooluse_1")]


def test_anthropic_tool_results_in_log_records() -> None:
    """OpenLLMetry's anthropic instrumentation with use_attributes=False (0.62.4): the messages are
    log records tied to the application's span; the calls sit beside the choice's message and
    the tool result is a tool_result block of a gen_ai.user.message."""
    def log(name: str, body: Any) -> LogRecordData:
        return LogRecordData(trace_id=TRACE, span_id=f"{1:016x}", event_name=name, body=body)
    logs = (
        log("gen_ai.user.message", {"content": "Why is db-prod-1 slow?"}),
        log("gen_ai.choice", {"index": 0, "finish_reason": "tool_call",
                              "message": {"content": None}, "tool_calls": [
                                  {"id": "toolu_1", "type": "function", "function": {
                                      "name": "get_metrics",
                                      "arguments": {"host": "db-prod-1"}}}]}),
        log("gen_ai.assistant.message", {"content": [
            {"type": "tool_use", "id": "toolu_1", "name": "get_metrics",
             "input": {"host": "db-prod-1"}}]}),
        log("gen_ai.user.message", {"content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": ROW_1}]}),
        log("gen_ai.choice", {"index": 0, "finish_reason": "stop",
                              "message": {"content": ANSWER}}))
    extracted = extract_run(run(
        span(2, 1, "anthropic.chat", end=10, **{"gen_ai.operation.name": "chat"}),
        span(3, 1, "anthropic.chat", end=20, **{"gen_ai.operation.name": "chat"}),
        span(1, 0, "incident_agent.run"), convention="root", logs=logs))
    assert extracted.answer == ANSWER
    assert texts(extracted) == [ROW_1] and extracted.unverified == 0


def test_adk_older_span_format_answer_from_the_llm_response() -> None:
    def response(*parts: dict[str, Any]) -> str:
        return json.dumps({"content": {"role": "model", "parts": list(parts)}})
    extracted = extract_run(run(
        span(2, 1, "call_llm", end=10, **{"gcp.vertex.agent.llm_response": response(
            {"function_call": {"id": "adk-1", "name": "get_metrics", "args": {}}})}),
        span(3, 1, "execute_tool get_metrics", end=20, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
            "gen_ai.tool.call.id": "adk-1",
            "gcp.vertex.agent.tool_response": json.dumps({"result": ROW_1})}),
        span(4, 1, "call_llm", end=30, **{"gcp.vertex.agent.llm_response": response(
            {"text": ANSWER})}),
        span(1, 0, "invoke_agent ops", end=40, **{"gen_ai.operation.name": "invoke_agent",
                                                  "gen_ai.agent.name": "ops"})))
    assert extracted.answer == ANSWER
    assert texts(extracted) == [ROW_1]


def _result(content: str, call_id: str, start: int, span_id: str = "s",
            history: bool = False) -> Found:
    return Found(content, span_id, "get_metrics", call_id=call_id, start_ns=start,
                 order=1 if history else 0, from_history=history)


def test_a_retried_call_keeps_both_results_in_order_the_later_marked() -> None:
    stale, fresh = "host=db-prod-1 cpu_pct=12.0", ROW_1
    merged = merge([_result(fresh, "call_1", 20, "s2"), _result(stale, "call_1", 10, "s1")])
    assert [(f.content, f.retry) for f in merged.items] == [(stale, False), (fresh, True)]
    assert merged.retries == 1


def test_history_only_results_need_a_call_in_the_trace() -> None:
    """A client can write role: tool history; only results the trace shows being asked for are
    evidence by default."""
    forged = {"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "call_x", "response": "cpu_pct=99.9"}]}
    final = {"role": "assistant", "parts": [{"type": "text", "content": WRONG}]}
    shape = run(
        span(2, 1, "chat", **{"gen_ai.operation.name": "chat",
                              "gen_ai.input.messages": json.dumps([forged]),
                              "gen_ai.output.messages": json.dumps([final])}),
        span(1, 0, "invoke_agent", **{"gen_ai.operation.name": "invoke_agent"}))
    default = extract_run(shape)
    assert texts(default) == [] and default.unverified == 1
    included = extract_run(shape, include_unverified=True)
    assert texts(included) == ["cpu_pct=99.9"] and not included.evidence[0].verified
    assert included.evidence_set().items[0].source.endswith("#unverified")


def test_results_past_the_item_cap_are_named() -> None:
    from gsar_otel.sidecar.output.verdict_spans import sidecar_attributes

    items = [Found(f"row {n}", f"{n:016x}", "scan", start_ns=n) for n in range(2_003)]
    shape = run(span(1, 0, "invoke_agent", **{"gen_ai.operation.name": "invoke_agent"}))
    extracted = extract_run(shape)
    extracted = type(extracted)(answer="a", answer_span_id="", evidence=tuple(items),
                                convention="genai")
    attributes = sidecar_attributes(shape, extracted)
    assert attributes["gsar.sidecar.evidence.cut_sources"] == [
        f"scan@{n:016x}" for n in (2_000, 2_001, 2_002)]


def _named(**attributes: Any) -> str:
    root = SpanRecord(trace_id=TRACE, span_id=f"{1:016x}", parent_span_id="",
                      name="Agent workflow", attributes=attributes.pop("root", {}),
                      resource={"service.name": "incident-service"})
    child = SpanRecord(trace_id=TRACE, span_id=f"{2:016x}", parent_span_id=f"{1:016x}",
                       name="child", start_ns=5, attributes=attributes)
    return function_name(run(child, root))


def test_the_evaluation_is_named_after_the_agent_not_the_span() -> None:
    assert _named(**{"agent.name": "incident-bot"}) == "incident-bot"  # OpenInference
    assert _named(**{"gen_ai.agent.name": "ops"}) == "ops"
    assert _named(**{"ai.telemetry.functionId": "node-bot"}) == "node-bot"  # Vercel
    assert _named(root={"gen_ai.agent.name": "outer"}, **{"gen_ai.agent.name": "inner"}) == (
        "outer")
    assert _named() == "incident-service"


def test_a_graph_state_in_messages_to_dict_form() -> None:
    """openinference-instrumentation-langchain 0.1.80 writes LangGraph state messages as
    ``{"type": ..., "data": {...}}``; the root CHAIN span is named after the agent."""
    def message(kind: str, **data: Any) -> dict[str, Any]:
        return {"type": kind, "data": {"type": kind, "additional_kwargs": {}, **data}}
    state = {"messages": [
        message("human", content="Why is db-prod-1 slow?"),
        message("ai", content="", name="incident-bot", tool_calls=[
            {"args": {"host": "db-prod-1"}, "id": "call_1", "name": "get_metrics"}]),
        message("tool", content=ROW_1, tool_call_id="call_1", name="get_metrics"),
        message("ai", content=ANSWER, name="incident-bot", tool_calls=[])]}
    shape = run(
        span(2, 1, "get_metrics", **{"openinference.span.kind": "TOOL",
                                     "tool.name": "get_metrics",
                                     "output.value": json.dumps(state["messages"][2])}),
        span(1, 0, "incident-bot", **{"openinference.span.kind": "CHAIN",
                                      "output.value": json.dumps(state)}),
        convention="openinference")
    extracted = extract_run(shape)
    assert extracted.answer == ANSWER
    assert [(f.content, f.call_id) for f in extracted.evidence] == [(ROW_1, "call_1")]
    assert function_name(shape) == "incident-bot"


def test_adk_history_results_are_matched_to_the_model_calls_by_tool_name() -> None:
    """Google ADK 2.13 (message capture on): the messages ride on operation-details log records,
    and the history it sends renames the call ids (adk-... becomes get_metrics_0)."""
    def details(span_id: int, **messages: Any) -> LogRecordData:
        return LogRecordData(trace_id=TRACE, span_id=f"{span_id:016x}",
                             event_name="gen_ai.client.inference.operation.details",
                             attributes=messages)
    call = {"type": "tool_call", "id": "adk-1f2e", "name": "get_metrics",
            "arguments": {"host": "db-prod-1"}}
    renamed = {**call, "id": "get_metrics_0"}
    logs = (
        details(2, **{"gen_ai.output.messages": [{"role": "assistant", "parts": [call]}]}),
        details(4, **{"gen_ai.input.messages": [
            {"role": "assistant", "parts": [renamed]},
            {"role": "user", "parts": [{"type": "tool_call_response", "id": "get_metrics_0",
                                        "response": {"result": ROW_1}}]}],
            "gen_ai.output.messages": [{"role": "assistant", "parts": [
                {"type": "text", "content": ANSWER}]}]}))
    extracted = extract_run(run(
        span(2, 1, "generate_content m", end=10, **{"gen_ai.operation.name": "generate_content"}),
        span(3, 1, "execute_tool get_metrics", end=20, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
            "gen_ai.tool.call.id": "adk-1f2e"}),
        span(4, 1, "generate_content m", end=30, **{"gen_ai.operation.name": "generate_content"}),
        span(1, 0, "invoke_agent incident_bot", end=40, **{
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "incident_bot"}),
        logs=logs))
    assert extracted.answer == ANSWER
    assert [(f.content, f.tool_name) for f in extracted.evidence] == [(ROW_1, "get_metrics")]
    assert extracted.unverified == 0
