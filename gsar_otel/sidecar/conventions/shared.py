"""What the per-convention extractors return, and the value helpers they share."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gsar_otel.sidecar.conventions.shapes import unwrap
from gsar_otel.sidecar.intake.spans import json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun
    from gsar_otel.sidecar.intake.spans import SpanRecord

RANK_RUN_SPAN = 0
"""An answer written on the run span itself."""
RANK_AGENT = 1
"""An answer on another agent span (the latest wins)."""
RANK_INFERENCE = 2
"""The output of an inference without a tool call (the latest wins)."""

@dataclass(frozen=True, slots=True)
class Found:
    """One evidence item found in the trace."""

    content: str
    span_id: str
    tool_name: str
    call_id: str = ""
    order: int = 0
    """Sort key: tool spans first (0), then message-borne results (1), retrieval (2)."""
    start_ns: int = 0
    from_history: bool = False
    """Read from a message history a client can write (``role: tool`` input messages): it is
    evidence only when the trace shows the tool call it answers (see :mod:`extract`)."""
    retry: bool = False
    """A later, different result for a call id already answered (a retried call)."""
    verified: bool = True
    """False: a history result with no call in the trace, kept only on request."""
    arguments: str | None = None
    """The call's recorded input (None: the span records none), for telling control tools
    (:func:`~gsar_otel.sidecar.conventions.shapes.is_control`) from sources of facts."""


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call the model itself asked for (an output message of an inference span)."""

    call_id: str
    start_ns: int = 0
    name: str = ""
    """The tool's name, when the call names it."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A candidate final answer and how much to trust that it is the final one."""

    text: str
    span_id: str
    rank: int
    end_ns: int
    convention: str
    field: str = ""
    """The envelope field the text was read from ('' when the value was text)."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one convention's extractor found."""

    answers: tuple[Answer, ...] = ()
    evidence: tuple[Found, ...] = ()
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True, slots=True)
class Convention:
    """One convention as :data:`~gsar_otel.sidecar.conventions.registry.CONVENTIONS` lists it."""

    name: str
    run_kind: Callable[[SpanRecord], str | None]
    """The run kind a span is an agent run (or a candidate for one) under, or None."""
    may_hold_evidence: Callable[[SpanRecord], bool]
    """Whether a span is a tool call or may carry a tool result under this convention."""
    extract: Callable[[ReadyRun], Extraction]
    """Answers, evidence and the model's tool calls in a finished run."""


# --- helpers shared by the extractors ------------------------------------------------------------


def as_text(value: Any) -> str:
    """A result value as judge text: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                          default=str)
    except (TypeError, ValueError):
        return str(value)


def result_text(value: Any) -> str:
    """A tool result as judge text, its wrappers taken off (the envelopes of
    :data:`~gsar_otel.sidecar.conventions.shapes.ENVELOPES`, content blocks, LangChain
    messages, JSON-encoded text). Anything else (a structured row) stays compact JSON."""
    return as_text(unwrap(value).value)


def result_and_call(value: Any) -> tuple[str, str]:
    """:func:`result_text` and the call id a wrapper carried (a LangChain ``ToolMessage``'s
    ``tool_call_id``; '' when none did)."""
    unwrapped = unwrap(value)
    return as_text(unwrapped.value), unwrapped.call_id


def arguments_text(value: Any) -> str | None:
    """A tool call's recorded input as text, None when the span records none."""
    return None if value is None else as_text(json_text(value))


def gather(run: ReadyRun,
           items: Callable[[SpanRecord, bool], Iterable[Answer | Found | Call]]) -> Extraction:
    """Every span's findings in span order: ``items(span, is_run_span)`` yields answers,
    evidence and the model's tool calls, which keep the order they were yielded in."""
    run_id = run.run_span.span_id if run.run_span is not None else ""
    answers: list[Answer] = []
    found: list[Found] = []
    calls: list[Call] = []
    for span in run.spans:
        for item in items(span, span.span_id == run_id):
            if isinstance(item, Answer):
                answers.append(item)
            elif isinstance(item, Call):
                calls.append(item)
            else:
                found.append(item)
    return Extraction(answers=tuple(answers), evidence=tuple(found), calls=tuple(calls))


def agent_rank(is_run_span: bool) -> int:
    """The rank of an answer on an agent span: highest on the run span itself."""
    return RANK_RUN_SPAN if is_run_span else RANK_AGENT


def indexed_tool_results(span: SpanRecord, messages: Iterable[Mapping[str, Any]], prefix: str = "",
                         name_key: str | None = None) -> Iterator[Found]:
    """The ``role: tool`` messages of flattened indexed attributes (keys ``{prefix}role``,
    ``{prefix}content``, ``{prefix}tool_call_id``) as evidence, named by ``name_key`` if given."""
    for message in messages:
        if message.get(f"{prefix}role") != "tool":
            continue
        name = message.get(name_key) if name_key is not None else None
        yield Found(content=result_text(message.get(f"{prefix}content")),
                    span_id=span.span_id, tool_name=str(name or "tool"),
                    call_id=str(message.get(f"{prefix}tool_call_id") or ""), order=1,
                    start_ns=span.start_ns, from_history=True)


def indexed_calls(span: SpanRecord, attributes: Mapping[str, Any], prefix: str) -> Iterator[Call]:
    """The ids of tool calls in flattened output messages (keys ``{prefix}.{i}...tool_calls.{j}
    ...id``): the calls the model asked for."""
    start = prefix + "."
    for key, value in attributes.items():
        if key.startswith(start) and ".tool_calls." in key and key.endswith(".id") and value:
            yield Call(str(value), span.start_ns)


def indexed_answer(messages: Sequence[Mapping[str, Any]], prefix: str = "") -> str | None:
    """The text of the last of flattened indexed output messages, or None when it asks for a
    tool (a ``{prefix}tool_calls.`` key) or has no text."""
    if not messages or any(k.startswith(f"{prefix}tool_calls.") for k in messages[-1]):
        return None
    text = messages[-1].get(f"{prefix}content")
    if isinstance(text, str) and text.strip():
        return text.strip()
    return None


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
