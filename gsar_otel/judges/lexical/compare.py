"""Contradiction: a claim's value against the evidence's value for the same subject (tool-row
pairs, or a matching prose sentence's number of the same kind), absence claims against empty
results and what tool rows show, and a matching tool row of the opposite polarity.
"""

from __future__ import annotations

import math

from gsar_otel.core.model import EvidenceType
from gsar_otel.core.text import ClockTime, Number, number_matches, time_matches
from gsar_otel.judges.lexical.align import _content, _same_subject, _Support, _Verdict
from gsar_otel.judges.lexical.index import _EvidenceIndex, _Item, _Pair
from gsar_otel.judges.lexical.lexicon import (
    _LETTERS,
    _TIME_WORDS,
    COVERAGE_CONTRADICTS,
    negated_stems,
)
from gsar_otel.judges.lexical.segment import _ClaimFacts


def _number_kind(number: Number) -> str:
    if number.percent:
        return "pct"
    unit = number.raw[len(number.raw.rstrip(_LETTERS + "/")):]
    if unit:
        return unit.lower()
    if number.decimals == 0 and 1000 <= number.value <= 2100:
        return "year"
    return "plain"


def _value_contradiction(facts: _ClaimFacts, index: _EvidenceIndex) -> _Verdict | None:
    """The evidence gives the subject of one of the claim's values a different value."""
    written: list[tuple[Number | ClockTime, str]] = [
        *((n, n.raw) for n in facts.anchors.numbers),
        *((t, t.raw) for t in facts.anchors.times),
    ]
    for value, raw in written:
        slot = facts.slot_stems(raw)
        if not slot:
            continue
        # The pairs whose key names the slot, found through the index by key word (in item
        # and pair order) rather than by reading every pair of every item.
        keyed = sorted({found for slot_stem in slot
                        for found in index.pairs_by_stem.get(slot_stem, ())})
        related: list[tuple[_Item, _Pair]] = [
            (index.items[position], index.items[position].pairs[pair_index])
            for position, pair_index in keyed if _same_subject(facts, index.items[position])]
        if isinstance(value, Number):
            related = [(i, p) for i, p in related if p.anchors.numbers and not p.anchors.times]
            agrees = any(number_matches(value, n) for _, p in related for n in p.anchors.numbers)
        else:
            related = [(i, p) for i, p in related if p.anchors.times]
            agrees = any(time_matches(value, t) for _, p in related for t in p.anchors.times)
        if related and not agrees:
            item, pair = related[0]
            ref = item.evidence.id
            return _Verdict(
                "contradicted", item.evidence.type, [ref],
                f"says {raw}; {ref} has {pair.raw} for the same subject",
                contradiction=f"{facts.text!r} vs {ref}: {pair.raw}")
    return _prose_number_contradiction(facts, index)


def _prose_number_contradiction(facts: _ClaimFacts, index: _EvidenceIndex) -> _Verdict | None:
    """A sentence that matches the claim gives a different number of the same kind."""
    missing = [n for n in facts.anchors.numbers if not index.values.holds_number(n)]
    if not missing:
        return None
    content = _content(facts, index, anchored=True)
    if len(content) < 2:
        return None
    scores = index.candidates(content)
    for unit_index in sorted(scores, key=lambda u: (-scores[u], u))[:3]:
        unit = index.units[unit_index]
        if len(unit.stems & content) < COVERAGE_CONTRADICTS * len(content):
            continue
        for number in missing:
            kind = _number_kind(number)
            rival = next((c for c in unit.anchors.numbers if _number_kind(c) == kind), None)
            if rival is not None:
                ref = index.items[unit.item].evidence.id
                return _Verdict(
                    "contradicted", index.items[unit.item].evidence.type, [ref],
                    f"says {number.raw}; {ref} says {rival.raw}",
                    contradiction=f"{facts.text!r} vs {ref}: {rival.raw}")
    return None


def _absence(facts: _ClaimFacts, index: _EvidenceIndex, support: _Support) -> _Verdict | None:
    """An absence claim ("no errors in the last 5 minutes"): an empty result supports it."""
    subject = _content(facts, index, anchored=True) - _TIME_WORDS
    if not subject:
        return None
    for position in index.zero_result_items:
        item = index.items[position]
        if not (item.stems & subject) or not _same_subject(facts, item):
            continue
        refs = [item.evidence.id]
        missing = [n.raw for n in facts.anchors.numbers
                   if not any(number_matches(n, c) for c in item.anchors.numbers)]
        missing += [t.raw for t in facts.anchors.times
                    if not any(time_matches(t, c) for c in item.anchors.times)]
        if missing:
            continue
        return _Verdict("grounded", EvidenceType.NEG_EVIDENCE, refs,
                        f"{refs[0]} reports an empty result for {', '.join(sorted(subject))}")
    # The claim denies what a tool row or signal shows: only sentences holding a subject word
    # can, so only they are read (through the postings, in sentence order).
    for unit_index in sorted({u for word in subject for u in index.postings.get(word, ())}):
        unit = index.units[unit_index]
        item = index.items[unit.item]
        if (item.zero_result or unit.negated or not _same_subject(facts, item)
                or item.evidence.type not in (EvidenceType.TOOL_MATCH, EvidenceType.SIGNAL_MATCH)):
            continue
        if len(unit.stems & subject) >= max(1, math.ceil(COVERAGE_CONTRADICTS * len(subject))):
            ref = item.evidence.id
            if item.evidence.type is EvidenceType.SIGNAL_MATCH or item.pairs:
                return _Verdict("contradicted", item.evidence.type, [ref],
                                f"denies what {ref} shows",
                                contradiction=f"{facts.text!r} vs {ref}")
    return None


def _polarity_contradiction(
    facts: _ClaimFacts, index: _EvidenceIndex, support: _Support
) -> _Verdict | None:
    """The best-matching evidence sentence negates what the claim asserts, or the reverse."""
    if support.unmatched or not support.units:
        return None
    content = _content(facts, index, anchored=support.anchored)
    if len(content) < 3:
        return None
    unit = index.units[support.units[0]]
    if len(unit.stems & content) < COVERAGE_CONTRADICTS * len(content) or unit.zero_result:
        return None
    if not index.items[unit.item].structured:
        # In prose the negation is too often about another clause of the same sentence.
        return None
    claim_negated = index.resolve_all(negated_stems(facts.text)) if facts.negated else set()
    conflict = ((content & unit.negated_stems) - claim_negated) | (
        (claim_negated & unit.stems) - unit.negated_stems)
    if not conflict:
        return None
    ref = index.items[unit.item].evidence.id
    return _Verdict("contradicted", index.items[unit.item].evidence.type, [ref],
                    f"{ref} has the opposite polarity about {', '.join(sorted(conflict))}",
                    contradiction=f"{facts.text!r} vs {ref}")
