"""What identifies a claim on a ``gsar.claim`` event without its text: where it stands in the
answer (character offsets), a short hash of it, and the sources of the evidence it cites
(``<tool>@<evidence id>``; the sidecar writes ``<tool>@<span id>``). With content capture off
(OpenTelemetry's GenAI default) these are how a reader finds "claim 2" in their own logs."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from gsar_otel import semconv as sc
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim

HASH_HEX_CHARS: Final = 16
"""Length of ``gsar.claim.hash``: the first 64 bits of a SHA-256, in hex."""
UNKNOWN_SOURCE: Final = "unknown"
"""The tool part of a source when the evidence item names none."""


def claim_hash(text: str) -> str:
    """A short, stable hash of a claim: SHA-256 of its words (whitespace collapsed,
    case folded), first :data:`HASH_HEX_CHARS` hex digits."""
    normal = " ".join(text.split()).casefold()
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX_CHARS]


def claim_span(answer: str, text: str) -> tuple[int, int] | None:
    """The ``[start, end)`` character offsets of ``text`` in ``answer``: an exact match, else
    one that ignores case; None when the claim is not a passage of the answer (a judge's
    paraphrase)."""
    stripped = text.strip()
    if not stripped:
        return None
    start = answer.find(stripped)
    if start < 0:
        folded = answer.lower()
        start = folded.find(stripped.lower()) if len(folded) == len(answer) else -1
    return None if start < 0 else (start, start + len(stripped))


def evidence_sources(claim: Claim, evidence: EvidenceSet) -> list[str]:
    """``<tool>@<evidence id>`` for each evidence item the claim cites that is in the set; the
    tool name masked as a name (:func:`gsar_otel.plugins.mask_name`), since it is exported with
    content capture off too."""
    from gsar_otel.plugins import mask_name

    sources = []
    for ref in claim.evidence_refs:
        item = evidence.get(ref)
        if item is not None:
            sources.append(mask_name(f"{item.source or UNKNOWN_SOURCE}@{item.id}"))
    return sources


def identity_attributes(claim: Claim, answer: str, evidence: EvidenceSet) -> dict[str, Any]:
    """The claim event's identifying attributes: offsets (when the claim is a passage of the
    answer), hash, evidence sources."""
    attributes: dict[str, Any] = {
        sc.GSAR_CLAIM_HASH: claim_hash(claim.text),
        sc.GSAR_CLAIM_EVIDENCE_SOURCES: evidence_sources(claim, evidence),
    }
    span = claim_span(answer, claim.text)
    if span is not None:
        attributes[sc.GSAR_CLAIM_START], attributes[sc.GSAR_CLAIM_END] = span
    return attributes
