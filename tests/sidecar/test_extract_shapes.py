"""The shapes frameworks wrap text in, read by rule (``conventions/shapes.py``): envelopes come
off tool results and answers, a serialized object is never an answer, a control tool is not
evidence. Table-driven over the rules' data, with properties for what must never be lost."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.sidecar.conventions.shapes import (
    ACKNOWLEDGEMENT_FILLER,
    ACKNOWLEDGEMENT_WORDS,
    ENVELOPES,
    answer_value,
    is_acknowledgement,
    is_control,
    looks_serialized,
    unwrap,
)
from gsar_otel.sidecar.conventions.shared import result_and_call, result_text
from gsar_otel.sidecar.intake.spans import json_text

ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02."


def _lc_tool_message(content: str, call_id: str) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor",
            "id": ["langchain", "schema", "messages", "ToolMessage"],
            "kwargs": {"content": content, "type": "tool", "name": "get_metrics",
                       "tool_call_id": call_id, "status": "success"}}


# Each row: a wrapped tool result as an instrumentation records it -> the text and call id.
TOOL_RESULTS: list[tuple[str, Any, str, str]] = [
    ("plain text", ROW, ROW, ""),
    ("JSON-encoded text", json.dumps(ROW), ROW, ""),
    ("OpenLLMetry {output, kwargs} around a LangChain ToolMessage (opentelemetry-instrumentation-"
     "langchain 0.62.4)",
     json.dumps({"output": _lc_tool_message(ROW, "call_1"),
                 "kwargs": {"tags": ["seq:step:1"], "color": "green", "name": "get_metrics"}}),
     ROW, "call_1"),
    ("OpenLLMetry decorator {output} one field", json.dumps({"output": ROW}), ROW, ""),
    ("LlamaIndex ToolOutput (openinference-instrumentation-llama-index 4.6.1)",
     json.dumps({"blocks": [{"text": ROW}], "tool_name": "get_metrics",
                 "raw_input": {"args": [], "kwargs": {"host": "db-prod-1"}},
                 "raw_output": ROW, "is_error": False}), ROW, ""),
    ("LlamaIndex TextBlock with block_type",
     json.dumps({"blocks": [{"block_type": "text", "text": ROW}], "raw_output": ROW}), ROW, ""),
    ("MCP CallToolResult",
     json.dumps({"content": [{"type": "text", "text": ROW}], "isError": False}), ROW, ""),
    ("content blocks", json.dumps([{"type": "text", "text": ROW}]), ROW, ""),
    ("one-field {result}", json.dumps({"result": ROW}), ROW, ""),
    ("plain chat tool message",
     json.dumps({"role": "tool", "content": ROW, "tool_call_id": "call_9"}), ROW, "call_9"),
    ("{output} around MCP content",
     json.dumps({"output": {"content": [{"type": "text", "text": ROW}]}, "kwargs": {}}), ROW, ""),
]


@pytest.mark.parametrize(("shape", "value", "text", "call_id"), TOOL_RESULTS,
                         ids=[row[0] for row in TOOL_RESULTS])
def test_tool_result_envelopes_come_off(shape: str, value: Any, text: str, call_id: str) -> None:
    assert result_and_call(value) == (text, call_id), shape


def test_every_envelope_of_the_table_comes_off_with_every_key_it_allows_beside() -> None:
    for envelope in ENVELOPES:
        wrapped = {envelope.key: ROW, **{key: "meta" for key in envelope.beside}}
        assert result_text(wrapped) == ROW, envelope.shape
        # One key more that is not the envelope's: it is data, and the object stays whole.
        assert result_text({**wrapped, "cpu_pct": 97.2}) != ROW, envelope.shape


_DATA_KEYS = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda k: not any(k == e.key or k in e.beside for e in ENVELOPES))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_DATA_KEYS, st.one_of(st.integers(), st.text(max_size=12)),
                       min_size=1, max_size=4),
       st.sampled_from([e.key for e in ENVELOPES]))
def test_a_structured_row_loses_no_value(row: dict[str, Any], beside: str) -> None:
    """An object with a data key is never taken for a wrapper: every value stays in the text."""
    text = result_text(json.dumps({beside: "x", **row}))
    for value in row.values():
        assert json.dumps(value, ensure_ascii=False) in text or str(value) in text


def _crew_output(raw: str) -> str:
    task = {"description": "Why is db-prod-1 slow?", "name": "Why is db-prod-1 slow?",
            "expected_output": "One sentence.", "summary": "Why is db-prod-1 slow?...",
            "raw": raw, "pydantic": None, "json_dict": None, "agent": "incident-bot",
            "output_format": "raw", "messages": [{"role": "user", "content": "Why?"}]}
    return json.dumps({"raw": raw, "pydantic": None, "json_dict": None, "tasks_output": [task],
                       "token_usage": {"total_tokens": 30}})


def _state(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [{"lc": 1, "type": "constructor",
                          "id": ["langchain", "schema", "messages", m.pop("kind")],
                          "kwargs": m} for m in messages]}


# Each row: a run span's output -> the answer and the field it is read from, or None (no answer
# there: the answer is looked for on the run's other spans).
ANSWERS: list[tuple[str, Any, tuple[str, str] | None]] = [
    ("plain text", ANSWER, (ANSWER, "")),
    ("CrewAI CrewOutput (openinference-instrumentation-crewai 1.1.21)", _crew_output(ANSWER),
     (ANSWER, "raw")),
    ("OpenLLMetry LangChain chain {outputs: {output}, kwargs}",
     json.dumps({"outputs": {"output": ANSWER}, "kwargs": {"tags": []}}),
     (ANSWER, "outputs.output")),
    ("OpenLLMetry LangChain graph {outputs: {messages}, kwargs}",
     json.dumps({"outputs": _state({"kind": "HumanMessage", "content": "Why?", "type": "human"},
                                   {"kind": "AIMessage", "content": ANSWER, "type": "ai",
                                    "tool_calls": []}), "kwargs": {"name": "incident-bot"}}),
     (ANSWER, "outputs.messages")),
    ("a graph state whose last AI message holds content blocks with citations",
     json.dumps(_state({"kind": "AIMessage", "type": "ai", "content": [
         {"type": "text", "text": ANSWER, "citations": []},
         {"type": "thinking", "thinking": "hm"}]})), (ANSWER, "messages")),
    ("a graph state ending on a tool call",
     json.dumps(_state({"kind": "AIMessage", "content": "", "type": "ai",
                        "tool_calls": [{"name": "get_metrics", "id": "c", "args": {}}]})), None),
    ("LlamaIndex StopEvent repr, cut (openinference-instrumentation-llama-index 4.6.1)",
     "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: "
     "'assistant'>, additional_kwargs={}, blocks=[TextBlock(block_type='text', text='CPU on "
     "db-prod-1 reached 97.2% at 14:02...", None),
    ("a JSON of outputs made of message reprs",
     json.dumps({"response": "ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, "
                             "blocks=[TextBlock(text='x')])", "sources": []}), None),
    ("a pydantic str() of a message",
     "content='CPU on db-prod-1 reached 97.2%' additional_kwargs={} response_metadata={}", None),
    ("a Python dict repr", "{'role': 'assistant', 'content': 'CPU on db-prod-1'}", None),
    ("an object repr", "<AgentOutput object at 0x7f3a2b1c>", None),
    ("JSON cut short", '{"raw": "CPU on db-prod-1 reached 97.2% at 14:02.", "tasks_output": [{',
     None),
    ("an object with two different texts", json.dumps({"text": "a", "content": "b"}), None),
    ("an object with no text field", json.dumps({"host": "db-prod-1", "cpu": 97.2}), None),
    ("an answer object with one text field", json.dumps({"answer": ANSWER, "confidence": 0.9}),
     (ANSWER, "answer")),
    ("a Pydantic AI text result, JSON-encoded", json.dumps(ANSWER), (ANSWER, "")),
]


@pytest.mark.parametrize(("shape", "value", "expected"), ANSWERS, ids=[r[0] for r in ANSWERS])
def test_answers_come_out_of_envelopes_and_objects_are_never_answers(
        shape: str, value: Any, expected: tuple[str, str] | None) -> None:
    assert answer_value(value) == expected, shape


@pytest.mark.parametrize("prose", [
    ANSWER, "CPU(97%) was high on db-prod-1.", "Restart(s) needed: none.",
    "x = 3 is what the metric said", "Yes.", "db-prod-1: cpu_pct=97.2 (high)",
    "[Update] CPU on db-prod-1 is high", "{host} placeholders were not filled",
    "cpu_pct=97.2 at=14:02:01 on db-prod-1", "Summary(1): CPU is high."])
def test_prose_is_not_taken_for_a_serialized_object(prose: str) -> None:
    assert not looks_serialized(prose)
    assert answer_value(prose) == (prose, "")


# Each row: a tool's output -> whether it is a fixed acknowledgement with no data.
ACKNOWLEDGEMENTS = [
    ("Completed.", True), ("Message has been sent", True), ("Done", True),
    ("Task completed successfully!", True), ("Final answer submitted.", True),
    ("Final result processed.", True),  # Pydantic AI's output tool return
    ("OK", False),  # a health check's answer is data
    ("", False), (ROW, False), ("No incidents found", False), ("Backup completed", False),
    ("Completed 3 of 4 steps", False), ("Sent 41 alerts", False),
    ("done " * 9, False),  # too long for a fixed acknowledgement
]


@pytest.mark.parametrize(("output", "expected"), ACKNOWLEDGEMENTS)
def test_acknowledgements(output: str, expected: bool) -> None:
    assert is_acknowledgement(output) is expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(ACKNOWLEDGEMENT_WORDS | ACKNOWLEDGEMENT_FILLER)),
                min_size=1, max_size=6), st.integers(0, 10_000))
def test_an_acknowledgement_holds_no_number(words: list[str], number: int) -> None:
    """Words of the table make an acknowledgement only with an action word, never with a
    number among them (a number is data)."""
    text = " ".join(words)
    assert is_acknowledgement(text) is any(w in ACKNOWLEDGEMENT_WORDS for w in words)
    assert not is_acknowledgement(f"{text} {number}")


# Each row: (output, recorded input or None, is it the framework's control flow).
CONTROLS: list[tuple[str, str, str | None, bool]] = [
    ("final_answer whose input is the answer, acknowledged", "Message has been sent",
     json.dumps({"answer": ANSWER}), True),
    ("final_answer whose input is the answer, any output", "ok",
     json.dumps({"args": [], "kwargs": {"text": ANSWER}}), True),
    ("finish() with no input (a ReAct finish tool)", "Completed.", "{}", True),
    ("finish with its input not recorded", "Completed.", None, True),
    ("finish with call metadata only", "Completed.",
     json.dumps({"tags": ["x"], "metadata": {"step": 2}, "kwargs": {}}), True),
    ("an action given data, acknowledged", "Done", json.dumps({"host": "db-prod-1"}), False),
    ("a data tool", ROW, json.dumps({"host": "db-prod-1"}), False),
    ("a data tool, input not recorded", ROW, None, False),
    ("a short answer is not looked for in inputs", "Data: 41", json.dumps({"q": "Yes."}), False),
]


@pytest.mark.parametrize(("shape", "output", "arguments", "expected"), CONTROLS,
                         ids=[r[0] for r in CONTROLS])
def test_control_tools(shape: str, output: str, arguments: str | None, expected: bool) -> None:
    assert is_control(output, arguments, [ANSWER, "Yes."]) is expected, shape


def test_unwrap_notes_the_path_it_took() -> None:
    wrapped = json.dumps({"outputs": {"output": ANSWER}, "kwargs": {}})
    assert unwrap(wrapped).path == "outputs.output"
    assert unwrap(ROW).path == ""


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
                     lambda inner: st.one_of(st.lists(inner, max_size=3),
                                             st.dictionaries(st.text(max_size=6), inner,
                                                             max_size=3)), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.dictionaries(st.text(max_size=8), _JSON, min_size=1, max_size=4),
                 st.lists(_JSON, min_size=1, max_size=3)))
def test_a_serialized_object_is_never_the_answer(value: Any) -> None:
    """Whatever object a span records, the answer is one text found in it, or nothing: never
    the object's serialization."""
    read = answer_value(json.dumps(value))
    if read is not None:
        text, _ = read
        assert text in json.dumps(value, ensure_ascii=False) or json.dumps(text)[1:-1] in (
            json.dumps(value))
        assert not isinstance(json_text(text), dict | list)
