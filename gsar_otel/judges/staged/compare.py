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

from gsar_otel.judges.staged.align import MAX_ANCHOR_CANDIDATES, Alignment
from gsar_otel.judges.staged.anchoring import NAME_KINDS, SUBJECT_KINDS, Spec, agree, comparable
from gsar_otel.judges.staged.index import EvidenceIndex, Unit, key_stems
from gsar_otel.judges.staged.lexicon import KEY_UNITS
from gsar_otel.judges.staged.textual import TextFacts, facts_of

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
    subject_absent: bool
    """A host or id the claim names appears in no unit."""
    cause_conflict: bool
    """The evidence names a root cause, and it is not the claim's."""
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
    if spec.kind == "NUMBER":
        try:
            number = float(spec.value)
        except ValueError:
            return spec.kind
        if number.is_integer() and 1000 <= number <= 2100 and "." not in spec.text:
            return "year"
    return spec.kind


def _share(unit: Unit, claim: TextFacts) -> float:
    return len(unit.stems & set(claim.stems)) / len(claim.stems) if claim.stems else 0.0


def subjects_of(claim: TextFacts) -> frozenset[str]:
    """The hosts, addresses and host-like ids a claim names (``edge-lb-3``, ``10.0.0.7``)."""
    return frozenset(spec.text.lower() for spec in claim.anchors
                     if spec.kind in ("HOST", "IPV4", "IPV6") or (
                         spec.kind == "IDENTIFIER" and any(c.isalpha() for c in spec.text)
                         and any(c.isdigit() for c in spec.text)
                         and ("-" in spec.text or "." in spec.text)))


def _subject_ok(unit: Unit, claim_subjects: frozenset[str]) -> bool:
    return not claim_subjects or bool(claim_subjects & (unit.subjects | unit.tokens))


_UNIT_WORDS: Final = frozenset({"ms", "s", "sec", "pct", "percent", "gb", "mb", "kb", "byte",
                                "us", "ns", "per", "total", "num", "count"})
_CAUSE_KEY: Final = frozenset({"caus", "cause", "root", "reason"})


def _cause_in_rows(claim: TextFacts, index: EvidenceIndex) -> str | None:
    """``stated`` when a row names a cause (``root_cause=...``) that is the claim's (its value
    shares half its words with the claim), ``other`` when it names another one, else None."""
    own = (set(claim.stems) | {spec.text.lower() for spec in claim.anchors}) - _CAUSE_KEY
    verdict = None
    for key in ("caus", "cause"):
        for position in index.by_stem.get(key, ())[:50]:
            unit = index.units[position]
            lowered = unit.facts.text.lower()
            values = [pair.value for pair in unit.pairs if pair.key_stems & _CAUSE_KEY]
            if not unit.pairs and "root cause" in lowered:
                values.append(unit.facts.text[lowered.index("root cause") + 10:])
            for text in values:
                value = facts_of(text)
                value_words = set(value.stems) | {a.text.lower() for a in value.anchors}
                if value_words and len(value_words & own) * 2 >= len(value_words):
                    return "stated"
                verdict = "other"
    return verdict


def _key_overlap(key: frozenset[str], stems: set[str]) -> int:
    """Words of a row key the claim holds (unit words aside), or 0 when that is less than
    half of the key's words."""
    own = key - _UNIT_WORDS
    shared = len(own & stems)
    return shared if shared * 2 >= len(own) else 0


def _unit_keyed(spec: Spec, keyed: list[tuple[frozenset[str], Spec]],
                stems: set[str]) -> list[Spec]:
    """The row's values whose key is a word naming the unit of ``spec`` (``rps`` for
    ``req/s``), after words the claim holds; none when ``spec`` has no unit. A key with a word
    of its own (``p99_ms`` for "GC pause time ... 300 ms") names another metric."""
    unit = getattr(spec.raw, "unit", None)
    if not isinstance(unit, str) or not unit:
        return []
    unit = unit.lower()
    found = []
    for key, other in keyed:
        last = (other.key or "").lower().replace("-", "_").rsplit("_", 1)[-1]
        if (KEY_UNITS.get(last) == unit and comparable(spec, other)
                and not (key - {last} - stems)):
            found.append(other)
    return found


def _conflict(spec: Spec, unit: Unit, claim: TextFacts, claim_subjects: frozenset[str],
              share: float) -> Spec | None:
    if not _subject_ok(unit, claim_subjects):
        return None
    stems = set(claim.stems)
    if unit.pairs:
        keyed = [(key_stems(o.key), o) for o in unit.facts.anchors if o.key]
        if not keyed:
            keyed = [(pair.key_stems, o) for pair in unit.pairs for o in pair.anchors]
        # Only the keys that name most of what the claim names count (p50_ms, not p99_ms,
        # for "p50 latency"); a unit word in a key ("ms", "pct") names nothing; and a key
        # names the claim's metric only when the claim holds at least half of the key's own
        # words ("TCP retransmit rate" is not http_5xx_rate for sharing "rate").
        overlaps = [(n, o) for n, o in ((_key_overlap(k, stems), o) for k, o in keyed
                                        if comparable(spec, o)) if n]
        best = max((n for n, _ in overlaps), default=0)
        if best == 0:
            # No key shares the claim's words ("request rate" against rps): the one key of
            # the row whose last part names the claim value's unit names its metric.
            candidates = _unit_keyed(spec, keyed, stems)
            if len(candidates) != 1:
                return None
        else:
            candidates = [o for n, o in overlaps if n == best]
        if any(agree(spec, o) == "match" for o in candidates):
            return None
        return next((o for o in candidates if agree(spec, o) == "conflict"), None)
    if share < PROSE_CONFLICT_COVERAGE:
        return None
    for other in unit.facts.anchors:
        if (comparable(spec, other) and _shape(spec) == _shape(other)
                and agree(spec, other) == "conflict"):
            return other
    return None


MAX_SUBJECT_ROWS: Final = 8
"""Most rows of the claim's own subject checked for a conflict beside the aligned units."""


def _subject_rows(subjects: frozenset[str], alignment: Alignment,
                  index: EvidenceIndex) -> list[Unit]:
    """Tool rows, log lines and alerts of the claim's own subjects that alignment did not pick:
    a row of another host may hold the claim's value, while its own row holds another."""
    chosen = set(alignment.units)
    rows: dict[int, None] = {}
    for subject in sorted(subjects):
        for position in index.by_stem.get(subject, ())[:MAX_SUBJECT_ROWS]:
            if position not in chosen and index.units[position].kind != "prose":
                rows.setdefault(position, None)
    return [index.units[p] for p in list(rows)[:MAX_SUBJECT_ROWS]]


def _first_matches(spec: Spec, index: EvidenceIndex) -> dict[int, Spec]:
    """Per unit, its first anchor that matches ``spec``, found by value in the index (as
    :func:`.align.align` finds them), never by a scan of a unit's anchors: a unit of many
    numbers costs each claim value a lookup, not a pass over the unit."""
    first: dict[int, Spec] = {}
    for at in index.anchor_index.matches(spec.raw, MAX_ANCHOR_CANDIDATES):
        position, other = index.anchors[at]
        if position not in first and comparable(spec, other):
            first[position] = other
    return first


def compare(claim: TextFacts, alignment: Alignment, index: EvidenceIndex) -> Comparison:
    """Check ``claim`` against the units ``alignment`` chose."""
    units = [index.units[p] for p in alignment.units]
    shares = [_share(unit, claim) for unit in units]
    claim_subjects = subjects_of(claim)
    subject_rows = _subject_rows(claim_subjects, alignment, index)
    subject_shares = [_share(unit, claim) for unit in subject_rows]
    checks: list[ValueCheck] = []
    refs: dict[str, None] = {}
    row_conflict = False
    for spec in claim.anchors:
        found: ValueCheck | None = None
        first = _first_matches(spec, index)
        for position in sorted(alignment.anchor_units, key=lambda p: (p not in alignment.units,
                                                                        p))[:8]:
            unit = index.units[position]
            if unit.kind != "prose" and not _subject_ok(unit, claim_subjects):
                continue  # another host's row: its value is not this claim's
            other = first.get(position)
            if other is not None:
                found = ValueCheck(spec.kind, spec.text, other.text, unit.ref, "MATCH")
                break
        if found is None and (spec.kind in NAME_KINDS or spec.kind == "HTTP_CLASS"):
            text = spec.text.lower()
            holder = next((u for u in units if text in u.tokens or text in u.stems), None)
            if holder is not None:
                found = ValueCheck(spec.kind, spec.text, spec.text, holder.ref, "MATCH")
        if found is None and spec.kind not in SUBJECT_KINDS:
            for unit, share in zip(units + subject_rows, shares + subject_shares, strict=True):
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
    cause_row = _cause_in_rows(claim, index) if claim.causal or claim.concluding else None
    cause_stated = cause_stated or cause_row == "stated"
    cause_conflict = cause_row == "other" and not cause_stated
    quant = claim.quant_both or claim.quant_only
    quant_mismatch = bool(quant and lead is not None and not (
        (claim.quant_both and lead.facts.quant_both)
        or (claim.quant_only and lead.facts.quant_only)))
    other_subject = bool(claim_subjects) and not any(
        claim_subjects & (u.subjects | u.tokens) for u in units)
    subject_absent = bool(claim_subjects) and not all(
        index.by_stem.get(subject) for subject in claim_subjects)
    for unit in units:
        refs.setdefault(unit.ref, None)
    return Comparison(tuple(checks), negation_mismatch, cause_stated, other_subject,
                      subject_absent, cause_conflict, quant_mismatch, row_conflict, tuple(refs))
