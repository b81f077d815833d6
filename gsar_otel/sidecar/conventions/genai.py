"""The OpenTelemetry GenAI semantic conventions (v1.41.0, and the <= v1.36 event form).

- ``execute_tool`` spans: ``gen_ai.tool.call.result`` (an object, or its JSON text),
  ``gen_ai.tool.name``, ``gen_ai.tool.call.id``.
- ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON text on spans, structured on the
  ``gen_ai.client.inference.operation.details`` event): ``ChatMessage{role, parts[]}``; a
  ``tool_call_response`` part carries ``response`` (the schema) or ``result`` (the attribute
  table's example), ``server_tool_call_response`` its own field.
- ``invoke_agent`` / ``invoke_workflow`` output messages are the answer; else the last ``chat``
  whose output has no ``tool_call`` part.
- Deprecated per-message events ``gen_ai.choice`` (``message{content, tool_calls}``, or a
  Gemini ``Content``; OpenLLMetry puts ``tool_calls`` beside the message) and
  ``gen_ai.tool.message`` (``content, id``), as span events (Strands) or as log records tied to
  the span (Semantic Kernel, Google ADK, OpenLLMetry). On an ``execute_tool`` span the choice is
  the tool's result and the tool message the call's arguments (Strands), never a result.
  Result blocks (Anthropic ``tool_result``, Bedrock ``toolResult``) inside any
  ``gen_ai.*.message`` are results read from a history.
- Every tool call the model asks for (output messages, choices) is reported, so that results
  read from a history can be checked against the calls the trace shows (see :mod:`extract`).
- Agent runs: ``invoke_agent`` / ``invoke_workflow`` spans.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from gsar_otel.sidecar.conventions.shared import (
    RANK_AGENT,
    RANK_INFERENCE,
    RANK_RUN_SPAN,
    Answer,
    Call,
    Convention,
    Extraction,
    Found,
    arguments_text,
    as_text,
    gather,
    result_and_call,
    result_text,
)
from gsar_otel.sidecar.intake.spans import SpanRecord, json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun

# --- names -------------------------------------------------------------------------------------
CONVENTION_GENAI: Final = "genai"
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
GEN_AI_TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
GEN_AI_RETRIEVAL_DOCUMENTS: Final = "gen_ai.retrieval.documents"
EVENT_OPERATION_DETAILS: Final = "gen_ai.client.inference.operation.details"
EVENT_CHOICE: Final = "gen_ai.choice"
EVENT_TOOL_MESSAGE: Final = "gen_ai.tool.message"


def run_kind(span: SpanRecord) -> str | None:
    """``genai`` for an ``invoke_agent`` / ``invoke_workflow`` span (an agent run), else None."""
    if span.attributes.get(GEN_AI_OPERATION_NAME) in (OP_INVOKE_AGENT, OP_INVOKE_WORKFLOW):
        return CONVENTION_GENAI
    return None


def may_hold_evidence(span: SpanRecord) -> bool:
    """An ``execute_tool`` span, a tool result, or a model call's input history."""
    attributes = span.attributes
    return (attributes.get(GEN_AI_OPERATION_NAME) == OP_EXECUTE_TOOL
            or GEN_AI_TOOL_CALL_RESULT in attributes or GEN_AI_INPUT_MESSAGES in attributes)


_RESPONSE_PARTS = {"tool_call_response": ("response", "result"),
                   "server_tool_call_response": ("server_tool_call_response", "response")}


def messages(value: Any) -> list[dict[str, Any]]:
    """A messages attribute (JSON text or structured) as a list of message dicts."""
    decoded = json_text(value)
    if isinstance(decoded, dict):
        decoded = [decoded]
    if not isinstance(decoded, list):
        return []
    return [m for m in decoded if isinstance(m, dict)]


def parts(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A message's parts; the older flat form ``{role, content, tool_call_id}`` as one part."""
    found = message.get("parts")
    if isinstance(found, list):
        return [p for p in found if isinstance(p, dict)]
    content = message.get("content")
    if content is None:
        return []
    if message.get("role") == "tool":
        call_id = message.get("tool_call_id", message.get("id", ""))
        return [{"type": "tool_call_response", "id": call_id, "response": content}]
    return [{"type": "text", "content": plain_text(content)}]


def plain_text(value: Any) -> str:
    """Text out of a content value: a string, JSON text, or a list of blocks with ``text``."""
    value = json_text(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        texts = [plain_text(v) for v in value if isinstance(v, str | dict)]
        return "\n".join(t for t in texts if t)
    if isinstance(value, dict):
        for key in ("text", "content"):
            if isinstance(value.get(key), str | list):
                return plain_text(value[key])
        return ""
    return ""


def block_text(value: Any) -> str:
    """A tool result that may be content blocks (``[{"text": ...}]``, Bedrock's
    ``{"toolResult": {"content": [...]}}``) as their text; anything else as compact JSON."""
    value = json_text(value)
    if isinstance(value, dict) and isinstance(value.get("toolResult"), dict):
        value = value["toolResult"].get("content")
    if isinstance(value, list) and value and all(
            isinstance(b, dict) and (isinstance(b.get("text"), str) or "toolResult" in b)
            for b in value):
        return "\n".join(block_text(b) if "toolResult" in b else b["text"].strip()
                         for b in value)
    return as_text(value)


def answer_text(output: list[dict[str, Any]]) -> str | None:
    """The assistant text of output messages, or None when they ask for a tool."""
    texts: list[str] = []
    for message in output:
        if message.get("tool_calls"):
            return None
        for part in parts(message):
            kind = part.get("type")
            if kind == "tool_call":
                return None
            if kind == "text" and isinstance(part.get("content"), str):
                texts.append(part["content"].strip())
    text = "\n".join(t for t in texts if t)
    return text or None


def _tool_names(run: ReadyRun) -> dict[str, str]:
    """Tool-call id -> tool name, from every ``tool_call`` part in the trace."""
    names: dict[str, str] = {}
    for span in run.spans:
        for key in (GEN_AI_INPUT_MESSAGES, GEN_AI_OUTPUT_MESSAGES):
            if key not in span.attributes:
                continue
            for message in messages(span.attributes[key]):
                for part in parts(message):
                    if part.get("type") == "tool_call" and part.get("id") and part.get("name"):
                        names[str(part["id"])] = str(part["name"])
    return names


def _responses(span: SpanRecord, history: list[dict[str, Any]],
               names: Mapping[str, str], *, own: bool = False) -> Iterator[Found]:
    """``tool_call_response`` parts; ``own``: the tool span's own output, not a history."""
    names = {**names, **{str(part["id"]): str(part["name"]) for message in history
                         for part in parts(message) if part.get("type") == "tool_call"
                         and part.get("id") and part.get("name")}}
    for message in history:
        for part in parts(message):
            fields = _RESPONSE_PARTS.get(str(part.get("type")))
            if fields is None:
                continue
            value = next((part[f] for f in fields if f in part), None)
            call_id = str(part.get("id") or "")
            yield Found(content=result_text(value), span_id=span.span_id,
                        tool_name=names.get(call_id) or str(message.get("name") or "tool"),
                        call_id=call_id, order=0 if own else 1, start_ns=span.start_ns,
                        from_history=not own)


def _calls(span: SpanRecord, output: list[dict[str, Any]]) -> Iterator[Call]:
    """The tool calls the model asked for in its output messages."""
    for message in output:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and (call.get("id") or call.get("function")):
                function = call.get("function")
                name = function.get("name") if isinstance(function, dict) else call.get("name")
                yield Call(str(call.get("id") or ""), span.start_ns, str(name or ""))
        for part in parts(message):
            if part.get("type") == "tool_call":
                yield Call(str(part.get("id") or ""), span.start_ns, str(part.get("name") or ""))


def _payloads(run: ReadyRun, span: SpanRecord) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(event name, payload) of the span's events and of the log records tied to it."""
    for event in span.events:
        yield event.name, event.attributes
    for record in run.logs:
        if record.span_id != span.span_id:
            continue
        body = record.body if isinstance(record.body, dict) else {"content": record.body}
        yield record.event_name, {**record.attributes, **body}


def extract(run: ReadyRun) -> Extraction:
    """Answers and evidence under the GenAI conventions."""
    return gather(run, partial(_span_items, run, _tool_names(run)))


def _span_items(run: ReadyRun, names: Mapping[str, str], span: SpanRecord,
                is_run_span: bool) -> Iterator[Answer | Found | Call]:
    attributes = span.attributes
    operation = attributes.get(GEN_AI_OPERATION_NAME)
    is_agent = operation in (OP_INVOKE_AGENT, OP_INVOKE_WORKFLOW)
    is_tool = operation == OP_EXECUTE_TOOL
    rank = RANK_RUN_SPAN if is_run_span else (RANK_AGENT if is_agent else RANK_INFERENCE)
    tool_name = str(attributes.get(GEN_AI_TOOL_NAME) or span.name.removeprefix(
        OP_EXECUTE_TOOL).strip() or "tool")
    tool_call_id = str(attributes.get(GEN_AI_TOOL_CALL_ID) or "")
    if is_tool and GEN_AI_TOOL_CALL_RESULT in attributes:
        content, wrapped_id = result_and_call(attributes[GEN_AI_TOOL_CALL_RESULT])
        yield Found(content=content, span_id=span.span_id, tool_name=tool_name,
                    call_id=tool_call_id or wrapped_id, start_ns=span.start_ns,
                    arguments=arguments_text(attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS)))
    sources: list[Mapping[str, Any]] = [attributes]
    for name, payload in _payloads(run, span):
        if name == EVENT_OPERATION_DETAILS:
            sources.append(payload)
        elif is_tool:
            # On an execute_tool span a tool message is the call's input (Strands writes the
            # arguments there) and the choice is the tool's output.
            if name == EVENT_CHOICE and GEN_AI_TOOL_CALL_RESULT not in attributes:
                yield Found(content=result_text(payload.get("message", payload.get("content"))),
                            span_id=span.span_id, tool_name=tool_name,
                            call_id=str(payload.get("id") or tool_call_id),
                            start_ns=span.start_ns)
        elif name == EVENT_CHOICE:
            yield from _choice_calls(span, payload)
            text = _choice_text(payload)
            if text:
                yield Answer(text, span.span_id, rank, span.end_ns, CONVENTION_GENAI)
        elif name.startswith("gen_ai.") and name.endswith(".message"):
            yield from _message_results(span, names, name, payload)
    for source in sources:
        yield from _responses(span, messages(source.get(GEN_AI_INPUT_MESSAGES)), names,
                              own=is_tool)
        output = messages(source.get(GEN_AI_OUTPUT_MESSAGES))
        if is_tool:
            yield from _responses(span, output, names, own=True)
            continue
        yield from _calls(span, output)
        if operation is None and source is attributes:
            continue
        text = answer_text(output)
        if text:
            yield Answer(text, span.span_id, rank, span.end_ns, CONVENTION_GENAI)


def _message_results(span: SpanRecord, names: Mapping[str, str], event: str,
                     payload: Mapping[str, Any]) -> Iterator[Found]:
    """Tool results in a deprecated per-message event or log record: the whole content of a
    ``gen_ai.tool.message``, or the result blocks (Anthropic ``tool_result``, Bedrock
    ``toolResult``) inside any message's content."""
    content = json_text(payload.get("content", payload.get("message")))
    blocks = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, dict)
               and (b.get("type") == "tool_result" or "toolResult" in b)]
    if not results:
        if event != EVENT_TOOL_MESSAGE:
            return
        call_id = str(payload.get("id") or payload.get("tool_call_id") or "")
        yield Found(content=block_text(content), span_id=span.span_id,
                    tool_name=str(payload.get("name") or names.get(call_id) or "tool"),
                    call_id=call_id, order=1, start_ns=span.start_ns, from_history=True)
        return
    for block in results:
        inner = block.get("toolResult", block)
        call_id = str(inner.get("tool_use_id") or inner.get("toolUseId") or "")
        yield Found(content=result_text(inner.get("content")), span_id=span.span_id,
                    tool_name=names.get(call_id) or "tool", call_id=call_id, order=1,
                    start_ns=span.start_ns, from_history=True)


def _choice_message(payload: Mapping[str, Any]) -> Any:
    return json_text(payload.get("message", payload.get("content")))


def _choice_calls(span: SpanRecord, payload: Mapping[str, Any]) -> Iterator[Call]:
    message = _choice_message(payload)
    # OpenLLMetry's log records put the calls beside the message, not in it.
    outer = json_text(payload.get("tool_calls"))
    blocks: list[Any] = list(outer) if isinstance(outer, list) else []
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        for part in message["parts"]:
            call = part.get("function_call") if isinstance(part, dict) else None
            if isinstance(call, dict):
                yield Call(str(call.get("id") or ""), span.start_ns, str(call.get("name") or ""))
    elif isinstance(message, dict):
        blocks += list(message.get("tool_calls") or ())
        content = json_text(message.get("content"))
        blocks += content if isinstance(content, list) else []
    elif isinstance(message, list):
        blocks += message
    for block in blocks:
        if not isinstance(block, dict):
            continue
        use: dict[str, Any] = block["toolUse"] if isinstance(block.get("toolUse"), dict) else block
        if not ("toolUseId" in use or use.get("type") in ("tool_use", "tool_call", "function")
                or "function" in use):
            continue
        function = use.get("function")
        name = function.get("name") if isinstance(function, dict) else use.get("name")
        yield Call(str(use.get("toolUseId") or use.get("id") or ""), span.start_ns,
                   str(name or ""))


def _content_text(content_parts: list[Any]) -> str | None:
    """The text of a Gemini ``Content``'s parts; None when one of them calls a function."""
    texts: list[str] = []
    for part in content_parts:
        if not isinstance(part, dict):
            continue
        if part.get("function_call") or part.get("functionCall"):
            return None
        if isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"].strip())
    return "\n".join(t for t in texts if t) or None


def _is_call_block(block: Any) -> bool:
    return isinstance(block, dict) and (
        "toolUse" in block or block.get("type") in ("tool_call", "tool_use"))


def _choice_text(payload: Mapping[str, Any]) -> str | None:
    if json_text(payload.get("tool_calls")):
        return None
    message = _choice_message(payload)
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return _content_text(message["parts"])  # a Gemini Content (Google ADK)
    if isinstance(message, dict):
        if message.get("tool_calls"):
            return None
        content = json_text(message.get("content"))
        if isinstance(content, list) and any(_is_call_block(b) for b in content):
            return None
        return plain_text(content) or None
    if isinstance(message, list):
        if any(_is_call_block(b) for b in message):
            return None
        return plain_text(message) or None
    if isinstance(message, str):
        return message.strip() or None
    return None


__all__ = ["answer_text", "extract", "messages", "parts", "plain_text"]


CONVENTION = Convention("genai", run_kind, may_hold_evidence, extract)
