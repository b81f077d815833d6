"""Extraction per convention, from attribute sets shaped as each specification writes them:
the answer, the evidence union over every tool span, deduplication by call id and text, and
sources that lead back to the tool span."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.plugins import hookimpl, register, unregister
from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.conventions.extract import ExtractedRun, extract_run, merge_evidence
from gsar_otel.sidecar.conventions.shared import Found
from gsar_otel.sidecar.intake.spans import EventRecord, LogRecordData, SpanRecord

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROW_1 = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
ROW_2 = "host=db-prod-1 slow_queries=41 window=14:00-14:05"
ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02 with 41 slow queries."


def span(span_id: int, parent: int, name: str, end: int = 100,
         events: tuple[EventRecord, ...] = (), **attributes: Any) -> SpanRecord:
    return SpanRecord(trace_id=TRACE, span_id=f"{span_id:016x}",
                      parent_span_id=f"{parent:016x}" if parent else "", name=name,
                      start_ns=span_id, end_ns=end, attributes=attributes, events=events)


def run(*spans: SpanRecord, convention: str = "genai",
        logs: tuple[LogRecordData, ...] = ()) -> ReadyRun:
    return ReadyRun(trace_id=TRACE, spans=spans, logs=logs, run_span=spans[-1],
                    convention=convention, reason="settled")


def texts(extracted: ExtractedRun) -> list[str]:
    return [item.content for item in extracted.evidence]


def genai_messages(*messages: dict[str, Any]) -> str:
    return json.dumps(list(messages))


TOOL_CALL = {"role": "assistant", "finish_reason": "tool_call", "parts": [
    {"type": "tool_call", "id": "call_a", "name": "cpu", "arguments": {"host": "db-prod-1"}},
    {"type": "tool_call", "id": "call_b", "name": "slow_queries", "arguments": {}}]}
TOOL_RESULTS = {"role": "tool", "parts": [
    {"type": "tool_call_response", "id": "call_a", "response": ROW_1},
    # The attribute table's example writes `result`, the JSON schema `response`: both are read.
    {"type": "tool_call_response", "id": "call_b", "result": ROW_2}]}
FINAL = {"role": "assistant", "finish_reason": "stop",
         "parts": [{"type": "text", "content": ANSWER}]}


def test_genai_answer_from_the_agent_and_evidence_from_tool_spans_and_history() -> None:
    extracted = extract_run(run(
        span(2, 1, "chat gpt-4o", **{"gen_ai.operation.name": "chat",
                                     "gen_ai.output.messages": genai_messages(TOOL_CALL)}),
        span(3, 1, "execute_tool cpu", **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "cpu",
            "gen_ai.tool.call.id": "call_a", "gen_ai.tool.call.result": ROW_1}),
        span(4, 1, "chat gpt-4o", **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": genai_messages(TOOL_CALL, TOOL_RESULTS),
            "gen_ai.output.messages": genai_messages(FINAL)}),
        span(1, 0, "invoke_agent ops", **{"gen_ai.operation.name": "invoke_agent",
                                          "gen_ai.output.messages": genai_messages(FINAL)})))
    assert extracted.answer == ANSWER and extracted.answer_span_id == f"{1:016x}"
    # call_a from the tool span (not again from the history), call_b only in the history.
    assert texts(extracted) == [ROW_1, ROW_2]
    assert [(e.tool_name, e.span_id) for e in extracted.evidence] == [
        ("cpu", f"{3:016x}"), ("slow_queries", f"{4:016x}")]
    assert extracted.evidence_set().items[0].source == f"cpu@{3:016x}"
    assert extracted.notes == ()


def test_genai_answer_falls_back_to_the_last_chat_without_a_tool_call() -> None:
    extracted = extract_run(run(
        span(2, 1, "chat", end=50, **{"gen_ai.operation.name": "chat",
                                      "gen_ai.output.messages": genai_messages(TOOL_CALL)}),
        span(3, 1, "chat", end=90, **{"gen_ai.operation.name": "chat",
                                      "gen_ai.output.messages": genai_messages(FINAL)}),
        span(1, 0, "invoke_agent ops", **{"gen_ai.operation.name": "invoke_agent"})))
    assert extracted.answer == ANSWER
    assert extracted.notes == ("no_evidence",)


def test_genai_structured_tool_results_become_compact_json() -> None:
    result = {"host": "db-prod-1", "cpu_pct": 97.2}
    extracted = extract_run(run(
        span(2, 1, "execute_tool cpu", **{"gen_ai.operation.name": "execute_tool",
                                          "gen_ai.tool.call.result": json.dumps(result)}),
        span(1, 0, "invoke_agent", **{"gen_ai.operation.name": "invoke_agent",
                                      "gen_ai.output.messages": genai_messages(FINAL)})))
    assert texts(extracted) == ['{"cpu_pct":97.2,"host":"db-prod-1"}']
    assert extracted.evidence[0].tool_name == "cpu"  # from the span name


def test_older_event_form_on_spans_and_in_log_records() -> None:
    choice = EventRecord("gen_ai.choice", 5, {
        "message": json.dumps([{"text": ANSWER}]), "finish_reason": "end_turn"})
    tool_event = EventRecord("gen_ai.tool.message", 4, {
        "role": "tool", "content": json.dumps([{"text": ROW_1}]), "id": "tooluse_1"})
    log = LogRecordData(trace_id=TRACE, span_id=f"{2:016x}", event_name="gen_ai.tool.message",
                        body={"content": ROW_2, "id": "call_9"})
    # The model's own calls (Bedrock toolUse blocks, OpenAI tool_calls) make the results verified.
    calls = (EventRecord("gen_ai.choice", 1, {"message": json.dumps(
                 [{"toolUse": {"toolUseId": "tooluse_1", "name": "cpu", "input": {}}}])}),
             EventRecord("gen_ai.choice", 1, {"message": json.dumps(
                 {"content": None, "tool_calls": [{"id": "call_9", "type": "function"}]})}))
    extracted = extract_run(run(
        span(3, 1, "chat", end=2, events=calls, **{"gen_ai.operation.name": "chat"}),
        span(2, 1, "chat", events=(tool_event,), **{"gen_ai.operation.name": "chat"}),
        span(1, 0, "invoke_agent", events=(choice,),
             **{"gen_ai.operation.name": "invoke_agent"}),
        logs=(log,)))
    assert extracted.answer == ANSWER
    assert sorted(texts(extracted)) == sorted([ROW_1, ROW_2])


def test_operation_details_event_carries_the_messages() -> None:
    details = EventRecord("gen_ai.client.inference.operation.details", 3, {
        "gen_ai.input.messages": genai_messages(TOOL_CALL, TOOL_RESULTS),
        "gen_ai.output.messages": genai_messages(FINAL)})
    asked = EventRecord("gen_ai.client.inference.operation.details", 1, {
        "gen_ai.output.messages": genai_messages(TOOL_CALL)})
    extracted = extract_run(run(
        span(3, 1, "chat", end=2, events=(asked,), **{"gen_ai.operation.name": "chat"}),
        span(2, 1, "chat", events=(details,), **{"gen_ai.operation.name": "chat"}),
        span(1, 0, "invoke_agent", **{"gen_ai.operation.name": "invoke_agent"})))
    assert extracted.answer == ANSWER and texts(extracted) == [ROW_1, ROW_2]


def test_openinference_tool_retriever_llm_and_agent_spans() -> None:
    extracted = extract_run(run(
        span(2, 1, "cpu", **{"openinference.span.kind": "TOOL", "tool.name": "cpu",
                             "input.value": '{"host": "db-prod-1"}', "output.value": ROW_1}),
        span(3, 1, "search", **{"openinference.span.kind": "RETRIEVER",
                                "retrieval.documents.0.document.id": "doc-7",
                                "retrieval.documents.0.document.content": ROW_2,
                                "retrieval.documents.0.document.score": 0.9}),
        span(4, 1, "ChatOpenAI", **{
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "why slow?",
            "llm.input_messages.1.message.role": "tool",
            "llm.input_messages.1.message.content": ROW_1,
            "llm.input_messages.1.message.tool_call_id": "call_a",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": ANSWER}),
        span(1, 0, "agent", **{"openinference.span.kind": "AGENT",
                               "output.value": json.dumps({"output": ANSWER})}),
        convention="openinference"))
    assert extracted.answer == ANSWER
    assert texts(extracted) == [ROW_1, ROW_2]  # the tool message repeats the TOOL span's row
    assert extracted.convention == "openinference"


def test_openllmetry_entities_and_legacy_indexed_attributes() -> None:
    extracted = extract_run(run(
        span(2, 1, "cpu.tool", **{"traceloop.span.kind": "tool",
                                  "traceloop.entity.name": "cpu",
                                  "traceloop.entity.input": '{"args": [], "kwargs": {}}',
                                  "traceloop.entity.output": json.dumps(ROW_1)}),
        span(4, 1, "openai.chat", end=3, **{"gen_ai.completion.0.tool_calls.0.id": "call_b",
                                             "gen_ai.completion.0.tool_calls.0.name": "slow"}),
        span(5, 1, "openai.chat", **{"gen_ai.prompt.0.role": "user",
                                     "gen_ai.prompt.0.content": "why slow?",
                                     "gen_ai.prompt.1.role": "tool",
                                     "gen_ai.prompt.1.content": ROW_2,
                                     "gen_ai.prompt.1.tool_call_id": "call_b",
                                     "gen_ai.completion.0.role": "assistant",
                                     "gen_ai.completion.0.content": ANSWER}),
        span(1, 0, "ops.workflow", **{"traceloop.span.kind": "workflow",
                                      "traceloop.entity.name": "ops"}),
        convention="openllmetry"))
    assert extracted.answer == ANSWER
    assert texts(extracted) == [ROW_1, ROW_2]
    assert extracted.evidence[0].tool_name == "cpu"


def test_vercel_and_adk_native_attributes() -> None:
    extracted = extract_run(run(
        span(2, 1, "ai.toolCall", **{"ai.toolCall.name": "cpu", "ai.toolCall.id": "t1",
                                     "ai.toolCall.result": json.dumps({"cpu": 97.2})}),
        span(3, 1, "execute_tool slow", **{"gen_ai.operation.name": "execute_tool",
                                           "gen_ai.tool.name": "slow",
                                           "gcp.vertex.agent.tool_response": ROW_2}),
        span(1, 0, "ai.generateText", **{"ai.operationId": "ai.generateText",
                                         "ai.response.text": ANSWER}),
        convention="vercel"))
    assert extracted.answer == ANSWER
    assert texts(extracted) == ['{"cpu":97.2}', ROW_2]


@pytest.fixture
def plugin() -> Iterator[list[ReadyRun]]:
    seen: list[ReadyRun] = []

    class Extractor:
        @hookimpl
        def gsar_sidecar_extract(self, run: ReadyRun) -> ExtractedRun | None:
            seen.append(run)
            if run.run_span is not None and run.run_span.name == "custom":
                return ExtractedRun(answer="custom answer", answer_span_id="",
                                    evidence=(Found("row", "s", "tool"),), convention="mine")
            if run.run_span is not None and run.run_span.name == "broken":
                raise RuntimeError("plugin bug")
            return None

    instance = Extractor()
    register(instance, name="test-sidecar-extractor")
    yield seen
    unregister(instance)


def test_an_extractor_plugin_takes_over_or_steps_aside(plugin: list[ReadyRun]) -> None:
    assert extract_run(run(span(1, 0, "custom"))).convention == "mine"
    fallback = extract_run(run(span(1, 0, "invoke_agent", **{
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.output.messages": genai_messages(FINAL)})))
    assert fallback.answer == ANSWER
    broken = extract_run(run(span(1, 0, "broken")))
    assert "plugin_failed" in broken.notes
    assert len(plugin) == 3


_item = st.builds(Found, content=st.sampled_from(["a", "b", " a ", "A", "c", ""]),
                  span_id=st.sampled_from(["s1", "s2"]), tool_name=st.just("t"),
                  call_id=st.sampled_from(["", "x", "y"]), order=st.integers(0, 2))


@settings(max_examples=200, deadline=None)
@given(st.lists(_item, max_size=20))
def test_merged_evidence_has_no_repeats_and_loses_no_distinct_text(items: list[Found]) -> None:
    merged = merge_evidence(items)
    normal = [" ".join(i.content.split()).casefold() for i in merged]
    assert len(normal) == len(set(normal)) and "" not in normal
    # A call id answered again with another text is kept, marked as the retry's: only the
    # first item of each id is unmarked.
    first: set[str] = set()
    for kept in merged:
        if kept.call_id:
            assert kept.retry == (kept.call_id in first)
            first.add(kept.call_id)
    # No distinct text is lost.
    for item in items:
        text = " ".join(item.content.split()).casefold()
        assert not text or text in normal
