"""Stage 3b: a claim aligned with the evidence units that state most of it.

Units are scored by the claim's content stems they hold (rarer stems weigh more), its names
(whole tokens only: "Georgetown" never matches "George") and its anchors that match; the best
unit leads and up to two more join it when they add words it lacks. Work per claim is bounded by
its words and anchors times the (capped) posting lists they hit.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final

from gsar_otel.judges.staged.anchoring import comparable
from gsar_otel.judges.staged.index import EvidenceIndex
from gsar_otel.judges.staged.textual import TextFacts

MAX_UNITS: Final = 3
"""Most units one claim is aligned with."""
MAX_POSTINGS: Final = 400
"""A stem in more units than this is too common to pick units by (it still counts as found)."""
MAX_ANCHOR_CANDIDATES: Final = 2000
"""Most matching evidence anchors one claim anchor adds units from."""
ANCHOR_WEIGHT: Final = 2.0
"""Score a matching anchor adds to a unit, against ~1-5 per shared stem."""



@dataclass(frozen=True, slots=True)
class Alignment:
    """The units that state a claim best and how much of the claim they cover."""

    units: tuple[int, ...]
    """Positions of the aligned units, best first."""
    coverage: float
    """Share of the claim's content stems the aligned units hold (1.0 with none)."""
    weighted_coverage: float
    """The same, each stem weighted by its rarity in the evidence."""
    anywhere: float
    """Share of the claim's content stems found in any unit."""
    lead_coverage: float
    """Share the best unit alone holds."""
    anchor_coverage: float
    """Share of the claim's anchors some unit matches (1.0 with none)."""
    names_missing: int
    """Names of the claim (capitalised tokens) no unit holds as a whole token."""
    names_total: int
    missing: tuple[str, ...]
    """Content stems of the claim no aligned unit holds."""
    anchor_units: frozenset[int]
    """Units holding a matching anchor."""
    pair_coverage: float
    """Share of the claim's adjacent word pairs adjacent in an aligned unit (1.0 with none)."""
    lead_pair_coverage: float
    """The same for the best unit alone."""
    anywhere_pair_coverage: float
    """The same for any unit."""
    value_units: frozenset[int] = frozenset()
    """Units that match every anchor of the claim some unit matches (empty when the claim has
    no matching anchor): where all of the claim's values can be read at once."""


def _idf(index: EvidenceIndex, stem_: str) -> float:
    frequency = index.frequency(stem_)
    return math.log(1.0 + (len(index.units) + 1) / (frequency + 0.5))


def align(claim: TextFacts, index: EvidenceIndex) -> Alignment:
    """Align ``claim`` with ``index``."""
    scores: dict[int, float] = {}
    # sorted: float sums in one order, so a claim's features are the same in every process
    weights = {s: _idf(index, s) for s in sorted(claim.stems)}
    for word, weight in weights.items():
        postings = index.by_stem.get(word, ())
        if len(postings) <= MAX_POSTINGS:
            for position in postings:
                scores[position] = scores.get(position, 0.0) + weight
    names_missing = 0
    for name in claim.names:
        postings = index.by_stem.get(name, ())
        if not postings:
            names_missing += 1
        elif len(postings) <= MAX_POSTINGS:
            for position in postings:
                scores[position] = scores.get(position, 0.0) + 1.0
    anchor_units: set[int] = set()
    value_units: set[int] | None = None
    matched = 0
    for spec in claim.anchors:
        hit = False
        holders: set[int] = set()
        # The evidence anchors that match, found by value in the index (never a scan of every
        # evidence anchor): the same matches agree() would find, at most MAX_ANCHOR_CANDIDATES.
        for at in index.anchor_index.matches(spec.raw, MAX_ANCHOR_CANDIDATES):
            position, other = index.anchors[at]
            if comparable(spec, other):
                hit = True
                holders.add(position)
                if position not in anchor_units:
                    anchor_units.add(position)
                    scores[position] = scores.get(position, 0.0) + ANCHOR_WEIGHT
        matched += hit
        if hit:
            value_units = holders if value_units is None else value_units & holders
    ranked = sorted(scores, key=lambda p: (-scores[p], p))[: MAX_UNITS * 4]
    chosen: list[int] = []
    held: set[str] = set()
    stems = set(claim.stems)
    for position in ranked:
        unit_stems = index.units[position].stems & stems
        if not chosen or (len(chosen) < MAX_UNITS and unit_stems - held):
            chosen.append(position)
            held |= unit_stems
    lead = index.units[chosen[0]].stems & stems if chosen else set()
    total = len(stems)
    total_weight = sum(weights.values()) or 1.0
    anywhere = sum(1 for s in stems if index.frequency(s)) / total if total else 1.0
    claim_pairs = claim.pairs
    aligned_pairs: set[tuple[str, str]] = set()
    for position in chosen:
        aligned_pairs |= index.units[position].facts.pairs & claim_pairs
    lead_pairs = index.units[chosen[0]].facts.pairs & claim_pairs if chosen else set()

    def pair_share(found: AbstractSet[tuple[str, str]]) -> float:
        return len(found) / len(claim_pairs) if claim_pairs else 1.0

    return Alignment(
        units=tuple(chosen),
        coverage=len(held) / total if total else 1.0,
        weighted_coverage=(sum(weights[s] for s in sorted(held)) / total_weight) if total else 1.0,
        anywhere=anywhere,
        lead_coverage=len(lead) / total if total else 1.0,
        anchor_coverage=matched / len(claim.anchors) if claim.anchors else 1.0,
        names_missing=names_missing,
        names_total=len(claim.names),
        missing=tuple(s for s in claim.stems if s not in held),
        anchor_units=frozenset(anchor_units),
        pair_coverage=pair_share(aligned_pairs),
        lead_pair_coverage=pair_share(lead_pairs),
        anywhere_pair_coverage=pair_share(claim_pairs & index.pairs),
        value_units=frozenset(value_units or ()),
    )
