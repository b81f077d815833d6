"""Stage 4: the claim's typed values against the aligned units, and its polarity, quantity and
causal markers against theirs.

A value the evidence states is a MATCH; another value of the same kind for the same subject and
key (``cpu_pct=97.2`` against "CPU was 40%"), or in a prose sentence that otherwise states the
claim, is a CONFLICT; anything else is ABSENT. A value of another subject (another host) is
never a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.judges.staged.align import Alignment
from gsar_otel.judges.staged.anchoring import SUBJECT_KINDS, Spec, agree, comparable
from gsar_otel.judges.staged.index import EvidenceIndex, Unit
from gsar_otel.judges.staged.textual import TextFacts

Status = Literal["MATCH", "CONFLICT", "ABSENT"]

PROSE_CONFLICT_COVERAGE: Final = 0.5
"""Share of a claim's words a prose unit must hold before its other value conflicts."""
STATED_COVERAGE: Final = 0.5
"""Share of a claim's words a unit must hold to state the claim's cause or polarity."""


@dataclass(frozen=True, slots=True)
class ValueCheck:
    """One typed value of the claim, checked against the evidence."""

    kind: str
    claim_value: str
    evidence_value: str | None
    ref: str | None
    status: Status


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every check of one claim."""

    checks: tuple[ValueCheck, ...]
    negation_mismatch: bool
    cause_stated: bool
    other_subject: bool
    quant_mismatch: bool
    row_conflict: bool
    """A conflicting value sits in a tool row, log line or alert (not prose)."""
    refs: tuple[str, ...]
    """Ids of the items whose units match or contradict the claim's values."""

    def count(self, status: Status, kinds: frozenset[str] | None = None) -> int:
        """Checks with ``status`` (of ``kinds`` when given)."""
        return sum(1 for c in self.checks
                   if c.status == status and (kinds is None or c.kind in kinds))


def _shape(spec: Spec) -> str:
    """Year-like numbers only conflict with year-like numbers, others with others."""
    if spec.kind == "NUMBER" and spec.value.isdigit() and 1000 <= int(spec.value) <= 2100:
        return "year"
    return spec.kind


def _share(unit: Unit, claim: TextFacts) -> float:
    return len(unit.stems & set(claim.stems)) / len(claim.stems) if claim.stems else 0.0


def _subject_ok(unit: Unit, claim_subjects: frozenset[str]) -> bool:
    return not claim_subjects or not unit.subjects or bool(claim_subjects & unit.subjects)


def _conflict(spec: Spec, unit: Unit, claim: TextFacts, claim_subjects: frozenset[str],
              share: float) -> Spec | None:
    if not _subject_ok(unit, claim_subjects):
        return None
    stems = set(claim.stems)
    if unit.pairs:
        for pair in unit.pairs:
            if not pair.key_stems & stems:
                continue
            for other in pair.anchors:
                if (comparable(spec, other) and _shape(spec) == _shape(other)
                        and agree(spec, other) == "conflict"):
                    return other
        return None
    if share < PROSE_CONFLICT_COVERAGE:
        return None
    for other in unit.facts.anchors:
        if (comparable(spec, other) and _shape(spec) == _shape(other)
                and agree(spec, other) == "conflict"):
            return other
    return None


def compare(claim: TextFacts, alignment: Alignment, index: EvidenceIndex) -> Comparison:
    """Check ``claim`` against the units ``alignment`` chose."""
    units = [index.units[p] for p in alignment.units]
    shares = [_share(unit, claim) for unit in units]
    claim_tokens = {s.text.lower() for s in claim.anchors} | set(claim.names)
    claim_subjects = frozenset(t for t in claim_tokens if t in index.subjects)
    checks: list[ValueCheck] = []
    refs: dict[str, None] = {}
    row_conflict = False
    for spec in claim.anchors:
        found: ValueCheck | None = None
        for position in sorted(alignment.anchor_units, key=lambda p: (p not in alignment.units,
                                                                        p))[:8]:
            unit = index.units[position]
            other = next((o for o in unit.facts.anchors
                          if comparable(spec, o) and agree(spec, o) == "match"), None)
            if other is not None:
                found = ValueCheck(spec.kind, spec.text, other.text, unit.ref, "MATCH")
                break
        if found is None and spec.kind not in SUBJECT_KINDS:
            for unit, share in zip(units, shares, strict=True):
                other = _conflict(spec, unit, claim, claim_subjects, share)
                if other is not None:
                    found = ValueCheck(spec.kind, spec.text, other.text, unit.ref, "CONFLICT")
                    row_conflict = row_conflict or unit.kind != "prose"
                    break
        if found is None:
            found = ValueCheck(spec.kind, spec.text, None, None, "ABSENT")
        elif found.ref is not None:
            refs.setdefault(found.ref, None)
        checks.append(found)
    lead = units[0] if units else None
    lead_share = shares[0] if shares else 0.0
    negation_mismatch = bool(lead is not None and lead_share >= STATED_COVERAGE
                             and lead.facts.negated != claim.negated)
    cause_stated = any((u.facts.causal or u.facts.concluding) and s >= STATED_COVERAGE
                       for u, s in zip(units, shares, strict=True))
    quant = claim.quant_both or claim.quant_only
    quant_mismatch = bool(quant and lead is not None and not (
        (claim.quant_both and lead.facts.quant_both)
        or (claim.quant_only and lead.facts.quant_only)))
    other_subject = bool(claim_subjects) and not any(
        u.subjects & claim_subjects or claim_subjects & u.tokens for u in units)
    for unit in units:
        refs.setdefault(unit.ref, None)
    return Comparison(tuple(checks), negation_mismatch, cause_stated, other_subject,
                      quant_mismatch, row_conflict, tuple(refs))
