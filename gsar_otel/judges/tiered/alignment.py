"""The evidence a model needs for the claims escalated to it, and nothing else.

Each escalated claim is aligned to the items that speak of it: items the offline engine already
tied it to (its checks' refs), then items sharing its subject names (identifiers such as
``api-2``, ``db-prod-1``) and its content words (attribute and plain words, stemmed). Items are
taken in that order of strength, a few per claim, and the whole is bounded in items and bytes,
so an answer with one unverifiable sentence sends that sentence's items, not the whole tool
output. Item ids are kept, so the model's citations are the evidence's own ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.text import content_stem_set, identifiers

DEFAULT_MAX_ITEMS: Final = 8
"""Most evidence items sent to the model in one escalation."""
DEFAULT_MAX_BYTES: Final = 32_768
"""Most bytes of evidence text (UTF-8) sent to the model in one escalation."""
PER_CLAIM: Final = 3
"""Most items aligned to one claim."""
NAME_WEIGHT: Final = 4
"""A shared subject name counts as this many shared content words."""
_CUT_NOTE: Final = "\n[... cut to fit the escalation's byte budget]"


@dataclass(frozen=True, slots=True)
class Escalated:
    """One claim sent to the model: its text and the evidence ids the offline engine tied it to."""

    text: str
    refs: tuple[str, ...] = ()


def _score(claim_words: frozenset[str], claim_names: frozenset[str], words: frozenset[str],
           names_text: str) -> int:
    shared = len(claim_words & words)
    named = sum(1 for name in claim_names if name in names_text)
    return shared + NAME_WEIGHT * named


def align(claims: Sequence[Escalated], evidence: EvidenceSet, *,
          max_items: int = DEFAULT_MAX_ITEMS, max_bytes: int = DEFAULT_MAX_BYTES) -> EvidenceSet:
    """The items aligned to ``claims``, in evidence order, bounded by ``max_items`` and
    ``max_bytes`` (an item that alone passes the byte budget is cut, with a note)."""
    items = list(evidence.items)
    lowered = [item.content.lower() for item in items]
    stems = [content_stem_set(item.content) for item in items]
    ranked: list[list[int]] = []
    for claim in claims:
        words = content_stem_set(claim.text)
        names = frozenset(n for n in identifiers(claim.text) if len(n) >= 3)
        cited = [i for i, item in enumerate(items) if item.id in claim.refs]
        scored = sorted(((_score(words, names, stems[i], lowered[i]), i)
                         for i, item in enumerate(items) if i not in cited),
                        key=lambda pair: (-pair[0], pair[1]))
        ranked.append(cited + [i for score, i in scored if score > 0])
    chosen: list[int] = []
    # Round-robin over the claims: every claim's best item before any claim's second.
    for depth in range(PER_CLAIM):
        for order in ranked:
            if depth < len(order) and order[depth] not in chosen and len(chosen) < max_items:
                chosen.append(order[depth])
    kept: dict[int, Evidence] = {}
    budget = max_bytes
    for i in chosen:  # strongest first: the byte budget goes to the best-aligned items
        item = items[i]
        size = len(item.content.encode())
        if size <= budget:
            kept[i] = item
            budget -= size
        elif not kept and budget > len(_CUT_NOTE):
            text = item.content.encode()[:budget - len(_CUT_NOTE)].decode(errors="ignore")
            kept[i] = item.model_copy(update={"content": text + _CUT_NOTE})
            budget = 0
    return EvidenceSet(items=tuple(kept[i] for i in sorted(kept)))
