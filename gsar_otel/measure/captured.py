"""A judged run as one line of a case file: what ``@grounded(capture=DIR)``, ``gsar sidecar
--capture-cases DIR`` and ``gsar cases import`` write, and what the pytest plugin collects
(``gsar_*.jsonl``; see docs/pytest.md)::

    {"id": "4bf92f35...-00f067aa0ba902b7", "synthesis": "CPU on db-prod-1 reached 97%.",
     "evidence": [{"id": "E1", "content": "host=db-prod-1 cpu_pct=97.2", "type": "tool_match",
                   "source": "get_metrics@53995c3f42cd8ad8"}],
     "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "run_id": "00f067aa0ba902b7",
     "sources": [{"id": "E1", "tool": "get_metrics", "span_id": "53995c3f42cd8ad8"}],
     "recorded": {"decision": "proceed", "score": 0.8667, "judge": "staged",
                  "agent": "incident-bot", "origin": "sidecar", "at": "2026-12-07T11:52:03Z"}}

The line has no ``expect``: the plugin expects the recorded decision (``gsar cases expect``
sets another). Every text is masked as span text is (:func:`gsar_otel.plugins.mask`: the
built-in secret masking, then the ``gsar_redact`` plugins), whatever the content-capture
setting: a case is the answer and its evidence, so capture is an explicit opt-in that writes
them, masked. A text a plugin failed to mask is written as ``[REDACTED]`` (fails closed).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from gsar_otel.core.evidence import EvidenceSet
    from gsar_otel.core.result import GSARResult

CAPTURE_FIELDS: Final = ("trace_id", "run_id", "sources", "recorded")
"""The fields a captured line adds to the plugin's case format (all optional there)."""
RECORDED_KEYS: Final = ("decision", "score", "judge", "agent", "origin", "at", "degraded")
"""What ``recorded`` holds: the verdict, S and the judge at capture, and where it came from."""
ORIGINS: Final = ("decorator", "sidecar", "import")
KIND_EVIDENCE: Final = "evidence"


def _mask(text: str, kind: str) -> str:
    from gsar_otel.core.redact import REDACTED
    from gsar_otel.plugins import mask

    masked = mask(text, kind)
    return REDACTED if masked is None else masked


def split_source(source: str | None) -> tuple[str, str]:
    """``tool@span_id`` (the sidecar's evidence source, maybe marked ``#retry``) as
    ``(tool, span id)``; a plain name as ``(name, "")``."""
    text = (source or "").split("#", 1)[0]
    tool, _, span = text.rpartition("@")
    if tool and len(span) == 16 and all(c in "0123456789abcdef" for c in span):
        return tool, span
    return text, ""


def case_id(trace_id: str, run_id: str) -> str:
    """The case's id: its trace and run (``<trace id>-<run span id>``)."""
    return f"{trace_id}-{run_id}"


def content_digest(synthesis: str, evidence: Sequence[Any]) -> str:
    """What identifies a case's content for deduplication: SHA-256 of the answer and every
    evidence item's text (whitespace collapsed), first 16 hex digits."""
    texts = [synthesis, *(item.get("content", "") if isinstance(item, Mapping) else str(item)
                          for item in evidence)]
    normal = "\x1e".join(" ".join(str(text).split()) for text in texts)
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def utc_stamp(seconds: float | None = None) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if seconds is None
                                                           else seconds))


def evidence_entries(evidence: EvidenceSet) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The evidence items (masked) and their sources (tool and span id)."""
    from gsar_otel.plugins import mask_name

    items: list[dict[str, Any]] = []
    sources: list[dict[str, str]] = []
    for item in evidence.items:
        entry: dict[str, Any] = {"id": item.id, "content": _mask(item.content, KIND_EVIDENCE),
                                 "type": str(item.type)}
        if item.source:
            entry["source"] = mask_name(item.source)
            tool, span = split_source(item.source)
            source = {"id": item.id, "tool": mask_name(tool)}
            if span:
                source["span_id"] = span
            sources.append(source)
        items.append(entry)
    return items, sources


def case_line(result: GSARResult, *, trace_id: str, run_id: str, origin: str,
              agent: str = "", at: str | None = None) -> dict[str, Any]:
    """The case line of a judged run: the final answer and the evidence it was judged against,
    the verdict as the recorded expectation, the trace for a link back.

    Raises:
        ValueError: an unknown ``origin``.
    """
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {', '.join(ORIGINS)}, got {origin!r}")
    from gsar_otel.plugins import mask_name

    evidence, sources = evidence_entries(result.final_evidence)
    judge = result.judge_name + (f" ({result.judge_model})" if result.judge_model else "")
    recorded: dict[str, Any] = {"decision": str(result.final_decision),
                                "score": round(result.final_score, 4),
                                "judge": mask_name(judge), "origin": origin,
                                "at": at or utc_stamp()}
    if agent:
        recorded["agent"] = mask_name(agent)
    if result.degraded_reason:
        recorded["degraded"] = result.degraded_reason
    line: dict[str, Any] = {
        "id": case_id(trace_id, run_id),
        "synthesis": _mask(result.final_report, "synthesis") or "-",
        "evidence": evidence, "trace_id": trace_id, "run_id": run_id, "sources": sources,
        "recorded": recorded}
    return line


def encode_line(line: Mapping[str, Any]) -> bytes:
    """One case as one line of UTF-8 JSON ending in ``\\n`` (non-ASCII kept; a line break in a
    text is escaped by JSON, so the line is one line)."""
    return (json.dumps(line, ensure_ascii=False, separators=(", ", ": ")) + "\n").encode(
        "utf-8", "replace")
