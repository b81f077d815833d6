"""What the per-convention extractors return, and the value helpers they share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

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
