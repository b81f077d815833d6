"""The shapes frameworks wrap text in, as data, and the rules that read them.

Instrumentations record what a framework hands them: a tool's result or a run's output is often
not text but the framework's object around it, serialized. These tables say which objects are
only a wrapper around one text, so that every convention unwraps them the same way:

- :data:`ENVELOPES`: a wrapper is an object holding one text field and, beside it, only keys a
  framework adds about the call (never data): ``{"output": ..., "kwargs": ...}`` (OpenLLMetry's
  entity output), ``{"outputs": {"output": ...}}`` (a LangChain chain's outputs),
  ``{"blocks": [{"text": ...}], "raw_output": ...}`` (a LlamaIndex ``ToolOutput``),
  ``{"content": [{"type": "text", "text": ...}], "isError": ...}`` (an MCP ``CallToolResult``),
  ``{"raw": ..., "tasks_output": ...}`` (a CrewAI ``CrewOutput`` / ``TaskOutput``), and the one
  field objects ``{"result": ...}``, ``{"response": ...}``, ``{"text": ...}``.
- A LangChain message (``{"lc": 1, "kwargs": {...}}``, ``{"type", "data"}``) is its content;
  a ``ToolMessage`` also gives its call id.
- :data:`REPR_SHAPES`: a language's rendering of an object (``StopEvent(result=...)``,
  ``content='...' additional_kwargs={}``, ``<Foo object at 0x...>``) is never text to judge.
- :data:`ACKNOWLEDGEMENT_WORDS`: a short output made only of these words, one of them an action
  word, and no digit, is a fixed acknowledgement with no data (``Completed.``, ``Message has been
  sent``): a tool answering only that is the framework's control flow, not evidence (see
  :func:`is_control`).

Anything else stays what it is: an object that is not a wrapper is data, kept as compact JSON
for evidence; for an answer it is not text, and the answer is looked for elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel.sidecar.intake.spans import json_text


@dataclass(frozen=True, slots=True)
class Envelope:
    """An object that only wraps the text under ``key``: any other key it holds is in
    ``beside`` (an empty ``beside``: the key is the object's only one)."""

    key: str
    beside: frozenset[str] = frozenset()
    shape: str = ""
    """Where the shape comes from (documentation only)."""


_CALL_KEYS = frozenset({"kwargs", "args", "inputs", "input", "tags", "metadata", "run_id",
                        "parent_run_id"})
_MCP_KEYS = frozenset({"isError", "is_error", "structuredContent", "type", "_meta", "meta"})
_LLAMAINDEX_KEYS = frozenset({"raw_output", "raw_input", "tool_name", "is_error", "content",
                              "tool_call_id", "return_direct"})
_CREWAI_KEYS = frozenset({"pydantic", "json_dict", "tasks_output", "token_usage", "description",
                          "name", "expected_output", "summary", "agent", "output_format",
                          "messages"})

ENVELOPES: Final[tuple[Envelope, ...]] = (
    Envelope("output", _CALL_KEYS, "OpenLLMetry entity output {output, kwargs}"),
    Envelope("outputs", _CALL_KEYS, "OpenLLMetry LangChain chain {outputs, kwargs}"),
    Envelope("blocks", _LLAMAINDEX_KEYS, "LlamaIndex ToolOutput {blocks, raw_output}"),
    Envelope("content", _MCP_KEYS, "MCP CallToolResult {content: [{type, text}]}"),
    Envelope("raw", _CREWAI_KEYS, "CrewAI CrewOutput / TaskOutput {raw, tasks_output}"),
    Envelope("result", frozenset(), "one-field {result}"),
    Envelope("response", frozenset(), "one-field {response}"),
    Envelope("text", frozenset({"type"}), "a text block {type: text, text}"),
)
"""Wrapper objects, tried in order; the first whose key and neighbours fit is taken off."""

ANSWER_FIELDS: Final = ("raw", "output", "result", "text", "content", "answer", "response",
                        "final_output")
"""Text fields an answer object may hold: the answer is the one of them that holds text, when
exactly one does (or all that do hold the same text)."""

REPR_SHAPES: Final[tuple[re.Pattern[str], ...]] = (
    re.compile(r"^[A-Za-z_][\w.]*\((?:[A-Za-z_]\w*=|['\"\[{(]|\)$)"),  # Foo(a=..., Foo('x'
    re.compile(r"^[A-Za-z_]\w*=['\"][\s\S]*['\"\]}]\s+[A-Za-z_]\w*="),  # content='x' extra={}
    re.compile(r"^<[\w.]+(?: object)? at 0x[0-9a-fA-F]+>$"),          # <Foo object at 0x...>
    re.compile(r"^\{'[^']*': "),                                      # {'role': 'assistant', ...
    re.compile(r"^\[\{'[^']*': "),
)
"""A language's rendering of an object (Python ``repr`` / pydantic ``str``), cut or whole."""

ACKNOWLEDGEMENT_WORDS: Final = frozenset({
    "done", "completed", "complete", "finished", "sent", "submitted", "delivered",
    "acknowledged", "received", "recorded", "noted", "processed", "success", "succeeded",
    "successful", "successfully"})
"""Action words of a fixed acknowledgement; one of them must be in it."""
ACKNOWLEDGEMENT_FILLER: Final = frozenset({
    "the", "a", "an", "message", "task", "answer", "final", "response", "result", "has", "have",
    "been", "was", "is", "your", "my", "request", "it", "and", "tool", "call", "output", "ok",
    "okay", "all", "user", "to", "reply", "work"})
"""Words an acknowledgement may hold beside its action word."""
ACKNOWLEDGEMENT_MAX_WORDS: Final = 8
ANSWER_IN_INPUT_MIN_CHARS: Final = 12
"""A run's answer shorter than this is not looked for in tool inputs (too likely by chance)."""
ARGUMENT_METADATA_KEYS: Final = frozenset({
    "tags", "metadata", "run_id", "parent_run_id", "callbacks", "config", "name", "tool_name",
    "id", "type", "tool_call_id"})
"""Keys of a recorded tool input that describe the call, not the data it was given."""

_WORD = re.compile(r"[a-z']+")
_JSON_START = re.compile(r'^(?:\{\s*"|\[\s*[{\["\d-])')


# --- unwrapping --------------------------------------------------------------------------------


def lc_message(value: Any) -> dict[str, Any] | None:
    """A LangChain message as a plain dict: its serialized forms (``{"lc": 1, "kwargs": ...}``,
    ``{"type": ..., "data": ...}``) unwrapped; None for anything that is not a message."""
    if not isinstance(value, dict):
        return None
    kwargs = value.get("kwargs")
    if isinstance(kwargs, dict) and value.get("lc") is not None:
        ids = value.get("id")
        kind = ids[-1] if isinstance(ids, list) and ids else None
        return {"type": kwargs.get("type") or kind, **kwargs}
    data = value.get("data")
    if isinstance(data, dict) and isinstance(value.get("type"), str) and "content" in data:
        return {**data, "type": data.get("type") or value["type"]}  # messages_to_dict form
    if "content" in value and ("type" in value or "role" in value) and set(value) <= _MESSAGE_KEYS:
        return value
    return None


_MESSAGE_KEYS = frozenset({"role", "type", "content", "tool_call_id", "name", "id", "status",
                           "additional_kwargs", "response_metadata", "artifact", "example",
                           "tool_calls", "invalid_tool_calls", "usage_metadata"})
"""Keys of a plain chat message (``{"role": "tool", "content": ...}``): an object with any other
key is data, not a message."""
_AI_TYPES = frozenset({"ai", "AIMessage", "AIMessageChunk", "assistant"})


def history_answer(value: Any) -> str | None:
    """When ``value`` is a message history (a graph's state ``{"messages": [...]}``, or a list
    of messages): the last AI message's text ('' when it asks for a tool); else None."""
    history = value.get("messages") if isinstance(value, dict) else value
    if not (isinstance(history, list) and history
            and all(lc_message(m) is not None for m in history)):
        return None
    for raw in reversed(history):
        message = lc_message(raw) or {}
        if (message.get("type") or message.get("role")) not in _AI_TYPES:
            continue
        if message.get("tool_calls"):
            return ""
        text = unwrap(message.get("content")).value
        if isinstance(text, list):  # content blocks with fields beside their text
            text = "\n".join(b["text"].strip() for b in text if isinstance(b, dict)
                             and isinstance(b.get("text"), str) and b.get("type", "text") == "text")
        return text if isinstance(text, str) else ""
    return ""


def _blocks_text(value: list[Any]) -> str | None:
    """Content blocks (``[{"text": ...}]``, with ``type`` / ``block_type`` beside) as text."""
    if not value or not all(isinstance(b, dict) and isinstance(b.get("text"), str)
                            and set(b) <= {"text", "type", "block_type"} for b in value):
        return None
    return "\n".join(b["text"].strip() for b in value if b["text"].strip())


def _envelope(value: dict[str, Any]) -> Envelope | None:
    for envelope in ENVELOPES:
        if envelope.key in value and set(value) - {envelope.key} <= envelope.beside:
            return envelope
    return None


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """A value with its wrappers taken off: text when it was text inside, else the value."""

    value: Any
    path: str = ""
    """The wrapper fields taken off, dotted (``outputs.output``); '' when none."""
    call_id: str = ""
    """The call id a LangChain ``ToolMessage`` carried."""


def unwrap(value: Any, max_depth: int = 6) -> Unwrapped:
    """``value`` with every wrapper of :data:`ENVELOPES`, LangChain messages, content blocks
    and JSON encoding taken off, as far as they go."""
    path: list[str] = []
    call_id = ""
    value = json_text(value)
    for _ in range(max_depth):
        if isinstance(value, list):
            text = _blocks_text(value)
            if text is not None:
                value = text
            break
        if not isinstance(value, dict):
            break
        message = lc_message(value)
        if message is not None and "content" in message and not message.get("tool_calls"):
            if (message.get("type") or message.get("role")) in ("tool", "ToolMessage"):
                call_id = call_id or str(message.get("tool_call_id") or "")
            value = json_text(message.get("content"))
            path.append("content")
            continue
        envelope = _envelope(value)
        if envelope is None:
            break
        value = json_text(value[envelope.key])
        path.append(envelope.key)
    return Unwrapped(value.strip() if isinstance(value, str) else value, ".".join(path), call_id)


def looks_serialized(text: str) -> bool:
    """Whether ``text`` is an object rendered as text (JSON that did not parse, a language's
    repr) rather than prose."""
    text = text.strip()
    if _JSON_START.match(text) and text[-1:] not in ("}", "]"):
        return True  # JSON cut short
    return any(shape.match(text) for shape in REPR_SHAPES)


def answer_value(value: Any) -> tuple[str, str] | None:
    """An answer candidate as (text, the field it was read from), or None when it is a
    serialized object with no unambiguous text field (never judged)."""
    unwrapped = unwrap(value)
    inner, path = unwrapped.value, unwrapped.path
    from_history = history_answer(inner)
    if from_history is not None:
        inner, path = from_history, ".".join(p for p in (path, "messages") if p)
    elif isinstance(inner, dict):
        texts = {key: unwrap(inner[key]).value for key in ANSWER_FIELDS if key in inner}
        found = {k: v for k, v in texts.items() if isinstance(v, str) and v.strip()}
        if not found or len(set(found.values())) != 1:
            return None
        key = next(iter(found))
        inner, path = found[key], ".".join(p for p in (path, key) if p)
    if not isinstance(inner, str) or not inner.strip():
        return None
    if looks_serialized(inner):
        return None
    return inner.strip(), path


# --- control tools -----------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def is_acknowledgement(text: str) -> bool:
    """A short fixed acknowledgement with no data: at most
    :data:`ACKNOWLEDGEMENT_MAX_WORDS` words, no digit, every word an action word or filler, at
    least one action word."""
    if not text or any(c.isdigit() for c in text):
        return False
    words = _WORD.findall(text.casefold())
    if not words or len(words) > ACKNOWLEDGEMENT_MAX_WORDS:
        return False
    if len("".join(words)) < len("".join(c for c in text.casefold() if c.isalpha())):
        return False
    return (any(w in ACKNOWLEDGEMENT_WORDS for w in words)
            and all(w in ACKNOWLEDGEMENT_WORDS or w in ACKNOWLEDGEMENT_FILLER for w in words))


def _leaves(value: Any, depth: int = 0) -> Iterator[str]:
    """The data a recorded tool input holds: its scalar leaves, call metadata left out."""
    if depth > 8:
        return
    value = json_text(value)
    if isinstance(value, dict):
        for key, inner in value.items():
            if key not in ARGUMENT_METADATA_KEYS:
                yield from _leaves(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner, depth + 1)
    elif value is not None and not isinstance(value, bool) and str(value).strip():
        yield str(value)


def is_control(output: str, arguments: str | None, answers: Iterable[str]) -> bool:
    """Whether a tool call is the framework's control flow rather than a source of facts: its
    input contains the run's answer (a ``final_answer(answer=...)`` tool), or its output is a
    fixed acknowledgement (:func:`is_acknowledgement`) and its input, when recorded, holds no
    data (``finish()`` answering ``Completed.``; ``restart(host=...)`` answering ``Done`` is
    evidence that the action was done)."""
    leaves = [_normal(leaf) for leaf in _leaves(arguments)] if arguments is not None else []
    keys = [_normal(a) for a in answers if len(_normal(a)) >= ANSWER_IN_INPUT_MIN_CHARS]
    if any(key in leaf for key in keys for leaf in leaves):
        return True
    return is_acknowledgement(output) and not leaves
