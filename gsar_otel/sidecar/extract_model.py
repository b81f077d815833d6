"""What the per-convention extractors return, and the value helpers they share."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gsar_otel.sidecar.spans import json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly import ReadyRun
    from gsar_otel.sidecar.spans import SpanRecord

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


@dataclass(frozen=True, slots=True)
class Answer:
    """A candidate final answer and how much to trust that it is the final one."""

    text: str
    span_id: str
    rank: int
    end_ns: int
    convention: str


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one convention's extractor found."""

    answers: tuple[Answer, ...] = ()
    evidence: tuple[Found, ...] = ()


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


def unwrap_json_text(value: Any) -> str:
    """Text that may be JSON-encoded text (``"\\"hello\\""``) or a JSON object with one obvious
    text field; anything else as :func:`as_text`."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            value = json.loads(value)
        except ValueError:
            return str(value).strip()
    if isinstance(value, dict):
        for key in ("output", "text", "content", "result", "answer", "response"):
            inner = value.get(key)
            if isinstance(inner, str):
                return str(inner).strip()
    return as_text(value)


def gather(run: ReadyRun,
           items: Callable[[SpanRecord, bool], Iterable[Answer | Found]]) -> Extraction:
    """Every span's findings in span order: ``items(span, is_run_span)`` yields answers and
    evidence, which keep the order they were yielded in."""
    run_id = run.run_span.span_id if run.run_span is not None else ""
    answers: list[Answer] = []
    found: list[Found] = []
    for span in run.spans:
        for item in items(span, span.span_id == run_id):
            if isinstance(item, Answer):
                answers.append(item)
            else:
                found.append(item)
    return Extraction(answers=tuple(answers), evidence=tuple(found))


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
        yield Found(content=as_text(json_text(message.get(f"{prefix}content"))),
                    span_id=span.span_id, tool_name=str(name or "tool"),
                    call_id=str(message.get(f"{prefix}tool_call_id") or ""), order=1,
                    start_ns=span.start_ns)


def indexed_answer(messages: Sequence[Mapping[str, Any]], prefix: str = "") -> str | None:
    """The text of the last of flattened indexed output messages, or None when it asks for a
    tool (a ``{prefix}tool_calls.`` key) or has no text."""
    if not messages or any(k.startswith(f"{prefix}tool_calls.") for k in messages[-1]):
        return None
    text = messages[-1].get(f"{prefix}content")
    if isinstance(text, str) and text.strip():
        return text.strip()
    return None
