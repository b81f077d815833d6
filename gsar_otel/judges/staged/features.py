"""Stage 5: one claim as a named, ordered feature vector.

The vector is what the classifier reads; its names (:data:`FEATURE_NAMES`) and
:data:`FEATURES_VERSION` are stored with the model, which refuses a vector of another version.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from gsar_otel.judges.staged.align import Alignment
from gsar_otel.judges.staged.anchoring import NAME_KINDS, NUMERIC_KINDS, TIME_KINDS
from gsar_otel.judges.staged.compare import Comparison
from gsar_otel.judges.staged.gate import is_table
from gsar_otel.judges.staged.index import EvidenceIndex
from gsar_otel.judges.staged.textual import TextFacts

FEATURES_VERSION: Final = "staged-features-7"

FEATURE_NAMES: Final = (
    "coverage", "weighted_coverage", "lead_coverage", "anywhere_coverage", "all_covered",
    "coverage_below_half", "missing_words", "names_missing_share", "names_missing_any",
    "has_anchors", "anchor_count", "anchor_match_share", "anchor_conflict_share",
    "anchor_absent_share", "numeric_conflict", "time_conflict", "name_absent",
    "numeric_absent", "negation_mismatch", "claim_negated", "causal", "speculative",
    "conclusion", "cause_stated", "conclusion_unstated", "quant_mismatch", "comparative",
    "other_subject", "claim_words", "content_words", "evidence_row", "evidence_prose",
    "aligned_units", "pair_coverage", "lead_pair_coverage",
    "anywhere_pair_coverage", "answer_claims", "answer_coverage", "answer_pair_coverage",
    "subject_absent", "cause_conflict", "time_absent", "evidence_table",
    "name_pairs_apart", "names_apart_from_values",
)
"""The features, in vector order."""


@dataclass(frozen=True, slots=True)
class FeatureVector:
    """A claim's features, in :data:`FEATURE_NAMES` order."""

    values: tuple[float, ...]

    def named(self) -> dict[str, float]:
        """The features by name."""
        return dict(zip(FEATURE_NAMES, self.values, strict=True))


@dataclass(frozen=True, slots=True)
class AnswerContext:
    """What the whole answer says about each of its claims: how many claims it makes, and how
    much of it (words, adjacent word pairs) the evidence holds anywhere."""

    claims: int
    coverage: float
    pair_coverage: float
    table: bool = False
    """The evidence is a table (:func:`.gate.is_table`), not tool output or prose."""


def answer_context(claims: int, answer: TextFacts, index: EvidenceIndex) -> AnswerContext:
    """The context of an answer of ``claims`` claims whose text has ``answer``'s facts."""
    stems = answer.stems
    coverage = sum(1 for s in stems if index.frequency(s)) / len(stems) if stems else 1.0
    pairs = answer.pairs
    pair_coverage = len(pairs & index.pairs) / len(pairs) if pairs else 1.0
    rows = sum(1 for unit in index.units if unit.kind == "row")
    return AnswerContext(claims, coverage, pair_coverage, is_table(len(index.units), rows))


def _flag(value: bool) -> float:
    return 1.0 if value else 0.0


def features(claim: TextFacts, alignment: Alignment, comparison: Comparison,
             index: EvidenceIndex, context: AnswerContext) -> FeatureVector:
    """The feature vector of one aligned, compared claim."""
    anchors = len(comparison.checks)
    share = (lambda n: n / anchors) if anchors else (lambda n: 0.0)
    match = comparison.count("MATCH")
    conflict = comparison.count("CONFLICT")
    absent = comparison.count("ABSENT")
    lead = index.units[alignment.units[0]] if alignment.units else None
    row = lead is not None and lead.kind != "prose"
    conclusion = claim.conclusion
    values = (
        alignment.coverage,
        alignment.weighted_coverage,
        alignment.lead_coverage,
        alignment.anywhere,
        _flag(alignment.coverage >= 0.999),
        _flag(alignment.coverage < 0.5),
        math.log1p(len(alignment.missing)),
        alignment.names_missing / alignment.names_total if alignment.names_total else 0.0,
        _flag(alignment.names_missing > 0),
        _flag(anchors > 0),
        math.log1p(anchors),
        share(match),
        share(conflict),
        share(absent),
        _flag(comparison.count("CONFLICT", NUMERIC_KINDS) > 0),
        _flag(comparison.count("CONFLICT", TIME_KINDS) > 0),
        _flag(comparison.count("ABSENT", NAME_KINDS) > 0),
        _flag(comparison.count("ABSENT", NUMERIC_KINDS | TIME_KINDS) > 0),
        _flag(comparison.negation_mismatch),
        _flag(claim.negated),
        _flag(claim.causal),
        _flag(claim.speculative),
        _flag(conclusion),
        _flag(comparison.cause_stated),
        _flag(conclusion and not comparison.cause_stated),
        _flag(comparison.quant_mismatch),
        _flag(claim.comparative),
        _flag(comparison.other_subject),
        math.log1p(claim.word_count),
        math.log1p(len(claim.stems)),
        _flag(row),
        _flag(lead is not None and not row),
        float(len(alignment.units)),
        alignment.pair_coverage,
        alignment.lead_pair_coverage,
        alignment.anywhere_pair_coverage,
        math.log1p(context.claims),
        context.coverage,
        context.pair_coverage,
        _flag(comparison.subject_absent),
        _flag(comparison.cause_conflict),
        _flag(comparison.count("ABSENT", TIME_KINDS) > 0),
        _flag(context.table),
        *_relations(claim, alignment, index),
    )
    return FeatureVector(values)


MAX_RELATION_NAMES: Final = 6
"""Most names of one claim whose pairings are checked (pairs grow with the square)."""
MAX_RELATION_POSTINGS: Final = 400
"""A name in more units than this is too common to place a relation by."""


def _relations(claim: TextFacts, alignment: Alignment,
               index: EvidenceIndex) -> tuple[float, float]:
    """How the claim's relations sit in the evidence: the share of pairs of its names (both
    found) that no unit holds together (an entity swapped between clauses: "A met B" where the
    evidence has A and B in different sentences), and the share of its found names that no
    unit with a matching value holds (a number put on the wrong entity). Bounded work: at most
    :data:`MAX_RELATION_NAMES` names, each posting list capped."""
    units: list[frozenset[int]] = []
    for name in sorted(claim.names)[:MAX_RELATION_NAMES]:
        postings = index.by_stem.get(name, ())
        if postings and len(postings) <= MAX_RELATION_POSTINGS:
            units.append(frozenset(postings))
    pairs = [(a, b) for i, a in enumerate(units) for b in units[i + 1:]]
    apart = sum(1 for a, b in pairs if not a & b) / len(pairs) if pairs else 0.0
    valued = alignment.anchor_units
    away = (sum(1 for u in units if not u & valued) / len(units)
            if units and valued else 0.0)
    return apart, away
