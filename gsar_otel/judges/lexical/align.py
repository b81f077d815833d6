"""Linking one claim to the evidence: the items holding its anchors, the few evidence sentences
that cover most of its content words, the ids it cites; and the records the rules pass on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gsar_otel.core.model import Bucket, EvidenceType
from gsar_otel.core.text import words
from gsar_otel.judges.lexical.index import _EvidenceIndex, _Item
from gsar_otel.judges.lexical.lexicon import (
    _COUNT_WORDS,
    _LIGHT,
    _META,
    _VALUE_WORDS,
    LEAD_WORDS,
    MAX_LINKED_UNITS,
)
from gsar_otel.judges.lexical.segment import _ClaimFacts


@dataclass(slots=True)
class _Verdict:
    bucket: Bucket
    type: EvidenceType
    refs: list[str]
    reason: str
    gap: str | None = None
    contradiction: str | None = None


@dataclass(slots=True)
class _Support:
    """What the evidence offers one claim: linked sentences and anchor matches."""

    units: list[int] = field(default_factory=list)
    coverage: float = 0.0
    missing: set[str] = field(default_factory=set)
    anchored: bool = False
    prose_anchored: bool = False
    lead_coverage: float = 0.0
    refs: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


# -- linking -------------------------------------------------------------------------------------

def _content(facts: _ClaimFacts, index: _EvidenceIndex, *, anchored: bool) -> set[str]:
    content = set(facts.stems) - _META - _LIGHT - _COUNT_WORDS - facts.markers
    if anchored:
        content -= _VALUE_WORDS
    return index.resolve_all(content)


def _holders(facts: _ClaimFacts, index: _EvidenceIndex) -> tuple[list[list[int]], list[str]]:
    """For each anchor of the claim, the items holding it; and the anchors no item holds."""
    holders: list[list[int]] = []
    unmatched: list[str] = []

    def record(raw: str, found: list[int]) -> None:
        if found:
            holders.append(found)
        else:
            unmatched.append(raw)

    # Each look-up goes through the index (by value, word or identifier), never through every
    # item: many claims against many items would otherwise cost their product.
    for number in facts.anchors.numbers:
        record(number.raw, list(index.values.items_with_number(number)))
    for clock in facts.anchors.times:
        record(clock.raw, list(index.values.items_with_time(clock)))
    for identifier in sorted(facts.identifiers):
        spaced = " ".join(words(identifier.replace("-", " ")))
        record(identifier, sorted({*index.identifier_items.get(identifier, ()),
                                   *index.phrase_items(identifier),
                                   *index.phrase_items(spaced)}))
    for quote in facts.quotes:
        record(f'"{quote}"', index.phrase_items(quote))
    unmatched += [name for name in sorted(facts.names) if index.resolve(name) is None]
    return holders, unmatched


def _support(facts: _ClaimFacts, index: _EvidenceIndex) -> _Support:
    support = _Support()
    holders, support.unmatched = _holders(facts, index)
    # Anchors vouch for a claim against tool rows, whose words are keys ("cpu_pct") rather
    # than the answer's words ("CPU utilisation reached"); prose must match on its words.
    support.anchored = any(index.items[i].structured for found in holders for i in found)
    support.prose_anchored = bool(holders) and not support.anchored
    content = _content(facts, index, anchored=support.anchored)
    scores = index.candidates(content)
    held: dict[int, int] = {}
    for found in holders:
        for item in found:
            held[item] = held.get(item, 0) + 1
    for item_position, count in held.items():
        for unit_index in index.units_of_item[item_position]:
            scores[unit_index] = scores.get(unit_index, 0.0) + 2.0 * count
    covered: set[str] = set()
    ranked = sorted(scores, key=lambda u: (-scores[u], u))[: 4 * MAX_LINKED_UNITS + 8]
    chosen: list[int] = []
    while len(chosen) < MAX_LINKED_UNITS:
        best, best_gain = None, 0.0
        for unit_index in ranked:
            if unit_index in chosen:
                continue
            new = (index.units[unit_index].stems & content) - covered
            # Sorted: a float sum over a set would depend on the process's hash seed.
            gain = math.fsum(index.weight(s) for s in sorted(new))
            if not chosen:
                gain = scores[unit_index]
            if gain > best_gain:
                best, best_gain = unit_index, gain
        if best is None:
            break
        chosen.append(best)
        covered |= index.units[best].stems & content
    support.units = chosen
    if chosen and content:
        lead = len(index.units[chosen[0]].stems & content)
        support.lead_coverage = max(lead / len(content), 1.0 if lead >= LEAD_WORDS else 0.0)
    elif not content:
        support.lead_coverage = 1.0
    support.coverage = len(covered) / len(content) if content else (1.0 if holders else 0.0)
    support.missing = content - covered

    cited = [index.units[u].item for u in chosen]
    for found in holders:
        if not set(found) & set(cited):
            # Cite the holder that shares most with the claim.
            cited.append(max(found, key=lambda i: (len(index.items[i].stems & content), -i)))
    support.refs = [index.items[i].evidence.id for i in dict.fromkeys(cited)]
    return support


def _item_type(index: _EvidenceIndex, support: _Support) -> EvidenceType:
    lead = support.refs[0]
    for item in index.items:
        if item.evidence.id == lead:
            return item.evidence.type
    return EvidenceType.TOOL_MATCH


def _same_subject(facts: _ClaimFacts, item: _Item) -> bool:
    """A claim naming hosts or ids is about an item only when the item names one of them too."""
    if not facts.identifiers or not item.identifiers:
        return True
    return bool(facts.identifiers & item.identifiers)
