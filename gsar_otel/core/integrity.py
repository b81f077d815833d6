"""Deterministic checks and repairs of a judge's output, applied before scoring.

A judge can mislabel, invent or omit. The guard keeps what it can verify and repairs the rest,
recording every change as an :class:`Adjustment` that stays on the result and in telemetry:

- an unknown evidence-type string is kept (scored as ``default_unknown``), never fatal;
- empty claims are removed; a claim listed twice keeps only its worst bucket
  (contradicted > ungrounded > grounded / complementary);
- a grounded claim that cites no evidence id, or only ids the evidence does not have, becomes
  ungrounded; unknown ids next to known ones are dropped from the claim;
- a grounded claim with a number, time, date or other numbered anchor (see
  :data:`SUPPORT_CHECKED_KINDS`) that no anchor of its cited items matches becomes ungrounded
  (an era, age or span of years is matched by the years it is read from: "the 1980s" by 1982);
  Anchors are typed (:mod:`gsar_otel.core.anchors`): ``5xx``, ``p99``, ``v2.3.1`` or
  ``edge-lb-3`` are never read as numbers, a time never stands for a percentage, and numbers
  match within rounding (``97%`` is supported by ``cpu_pct=97.2``);
- a sentence of the answer that no claim covers is added as an ungrounded claim, so a judge
  that silently drops a claim can never raise S.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Final

from pydantic import Field

from gsar_otel.core.anchor.derived import derived_reader, numbers_by_key, years_in
from gsar_otel.core.anchors import (
    Anchor,
    AnchorIndex,
    AnchorKind,
    date_parts,
    extract_anchors,
    timestamp_parts,
    with_quoted_contents,
)
from gsar_otel.core.evidence import EvidenceSet, normalize_ref
from gsar_otel.core.model import (
    DEFAULT_UNKNOWN_WEIGHT,
    Bucket,
    Claim,
    EvidenceType,
    JudgeOutput,
    Partition,
    _Frozen,
)
from gsar_otel.core.scoring import WeightMapInput, resolve_weight_map
from gsar_otel.core.text import content_stem_set, split_sentences, states_conclusion

UNKNOWN_EVIDENCE_TYPE: Final = "unknown_evidence_type"
EMPTY_CLAIM: Final = "empty_claim"
DUPLICATE_CLAIM: Final = "duplicate_claim"
MISSING_EVIDENCE_REF: Final = "missing_evidence_ref"
UNKNOWN_EVIDENCE_REF: Final = "unknown_evidence_ref"
UNSUPPORTED_NUMBER: Final = "unsupported_number"
UNCOVERED_SENTENCE: Final = "uncovered_sentence"
SYNTHESIS_TRUNCATED: Final = "synthesis_truncated"
INVALID_CHARACTERS: Final = "invalid_characters"
"""Lone surrogates in the answer or evidence were replaced by U+FFFD before judging."""

ADJUSTMENT_KINDS: Final = (
    UNKNOWN_EVIDENCE_TYPE, EMPTY_CLAIM, DUPLICATE_CLAIM, MISSING_EVIDENCE_REF,
    UNKNOWN_EVIDENCE_REF, UNSUPPORTED_NUMBER, UNCOVERED_SENTENCE, SYNTHESIS_TRUNCATED,
    INVALID_CHARACTERS,
)

_BUCKET_RANK: Final[Mapping[str, int]] = {
    "grounded": 0, "complementary": 0, "ungrounded": 1, "contradicted": 2,
}

COVERAGE_THRESHOLD: Final = 0.5
"""Share of a sentence's content words that the claims about it must cover."""


class Adjustment(_Frozen):
    """One change the integrity guard made to a judge's output, and why."""

    kind: str = Field(description=f"One of {', '.join(ADJUSTMENT_KINDS)}.")
    claim: str = Field(description="The text of the claim concerned.")
    from_bucket: Bucket | None = Field(description="Bucket before (None for an added claim).")
    to_bucket: Bucket | None = Field(description="Bucket after (None for a removed claim).")
    reason: str


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """The repaired output and the adjustments that produced it."""

    output: JudgeOutput
    adjustments: tuple[Adjustment, ...]


_SPACES: Final = re.compile(r"\s+")
_Reader = Callable[[str], tuple[Anchor, ...]]


def _key(text: str) -> str:
    return _SPACES.sub(" ", text.strip().lower()).rstrip(".!?;: ")


def check_judge_output(
    output: JudgeOutput,
    *,
    synthesis: str,
    evidence: EvidenceSet,
    weight_map: WeightMapInput | None = None,
    contradiction_penalty: float = 0.5,
    default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
    check_values: bool = True,
) -> IntegrityReport:
    """Check and repair ``output`` against the answer and the evidence it was judged on.

    ``check_values=False`` skips the check that a grounded claim's numbers stand in its cited
    items, for a judge that checks (and derives) every typed value against the records itself.

    ``weight_map``, ``contradiction_penalty`` and ``default_unknown`` are those used for scoring;
    they choose the type of added claims so that omitting a claim never pays (see
    :func:`uncovered_claim_type`).
    """
    if output.abstained:
        return IntegrityReport(output, ())
    adjustments: list[Adjustment] = []
    buckets: dict[Bucket, list[Claim]] = {name: [] for name, _ in output.to_partition().buckets()}

    # Empty claims and unknown types.
    for name, claims in output.to_partition().buckets():
        for claim in claims:
            if not claim.text.strip():
                adjustments.append(Adjustment(kind=EMPTY_CLAIM, claim=claim.text, from_bucket=name,
                                              to_bucket=None, reason="claim text is empty"))
                continue
            if not claim.known_type:
                adjustments.append(Adjustment(
                    kind=UNKNOWN_EVIDENCE_TYPE, claim=claim.text, from_bucket=name, to_bucket=name,
                    reason=f"unknown evidence type {claim.type!r} kept, weighted as "
                           f"default_unknown {default_unknown:.2f}"))
            buckets[name].append(claim)

    _dedupe(buckets, adjustments)
    # Claims, answer sentences and evidence items often share a text: read each text once.
    read = _memo_reader()
    _check_grounded(buckets, evidence, adjustments, read, check_values)
    _check_coverage(buckets, synthesis, adjustments, read, weight_map, contradiction_penalty,
                    default_unknown)

    if not adjustments:
        return IntegrityReport(output, ())
    repaired = Partition(**{name: tuple(claims) for name, claims in buckets.items()})
    return IntegrityReport(output.with_partition(repaired), tuple(adjustments))


def _dedupe(buckets: dict[Bucket, list[Claim]], adjustments: list[Adjustment]) -> None:
    keys = {name: [_key(claim.text) for claim in claims] for name, claims in buckets.items()}
    best: dict[str, Bucket] = {}
    for name, claim_keys in keys.items():
        for key in claim_keys:
            if key not in best or _BUCKET_RANK[name] > _BUCKET_RANK[best[key]]:
                best[key] = name
    kept: set[str] = set()
    for name, claims in buckets.items():
        survivors = []
        for claim, key in zip(claims, keys[name], strict=True):
            if best[key] == name and key not in kept:
                kept.add(key)
                survivors.append(claim)
                continue
            adjustments.append(Adjustment(
                kind=DUPLICATE_CLAIM, claim=claim.text, from_bucket=name, to_bucket=None,
                reason=f"claim listed more than once; kept in {best[key]}"))
        claims[:] = survivors


def _check_grounded(
    buckets: dict[Bucket, list[Claim]], evidence: EvidenceSet, adjustments: list[Adjustment],
    read: _Reader, check_values: bool = True,
) -> None:
    known = {normalize_ref(item.id): item for item in evidence}
    # One index per set of cited items (judges cite the same few items again and again); each
    # claim anchor is then checked with a lookup, never against every evidence number.
    index_by_refs: dict[tuple[str, ...], AnchorIndex] = {}
    years_by_refs: dict[tuple[str, ...], frozenset[int]] = {}
    numbers_by_refs: dict[tuple[tuple[str, ...], bool], tuple[tuple[float, ...], ...]] = {}

    def cited_years(key: tuple[str, ...]) -> frozenset[int]:
        if key not in years_by_refs:
            years_by_refs[key] = years_in(a for ref in key for a in read(known[ref].content))
        return years_by_refs[key]

    def cited_numbers(key: tuple[str, ...], seconds: bool) -> tuple[tuple[float, ...], ...]:
        if (key, seconds) not in numbers_by_refs:
            numbers_by_refs[key, seconds] = numbers_by_key(
                (a for ref in key for a in read(known[ref].content)), seconds)
        return numbers_by_refs[key, seconds]

    keep: list[Claim] = []
    for claim in buckets["grounded"]:
        refs = [normalize_ref(ref) for ref in claim.evidence_refs if ref.strip()]
        valid = [ref for ref in dict.fromkeys(refs) if ref in known]
        unknown = [ref for ref in claim.evidence_refs
                   if ref.strip() and normalize_ref(ref) not in known]
        if not valid:
            kind = UNKNOWN_EVIDENCE_REF if refs else MISSING_EVIDENCE_REF
            reason = (f"cites evidence ids not in the evidence: {', '.join(unknown)}" if refs
                      else "grounded claim cites no evidence id")
            adjustments.append(Adjustment(kind=kind, claim=claim.text, from_bucket="grounded",
                                          to_bucket="ungrounded", reason=reason))
            buckets["ungrounded"].append(claim)
            continue
        if unknown:
            adjustments.append(Adjustment(
                kind=UNKNOWN_EVIDENCE_REF, claim=claim.text, from_bucket="grounded",
                to_bucket="grounded",
                reason=f"dropped evidence ids not in the evidence: {', '.join(unknown)}"))
        if list(claim.evidence_refs) != valid:
            claim = claim.model_copy(update={"evidence_refs": tuple(known[r].id for r in valid)})
        if not check_values:  # the judge checked the values itself: no item read again
            keep.append(claim)
            continue
        key = tuple(valid)
        if key not in index_by_refs:
            index_by_refs[key] = _index_of(tuple(known[ref].content for ref in valid), read)
        written = read(claim.text)
        missing = _unsupported(written, index_by_refs[key], SUPPORT_CHECKED_KINDS,
                               derived_reader(claim.text, written, partial(cited_years, key),
                                              partial(cited_numbers, key)))
        if missing:
            adjustments.append(Adjustment(
                kind=UNSUPPORTED_NUMBER, claim=claim.text, from_bucket="grounded",
                to_bucket="ungrounded",
                reason=f"{', '.join(missing)} appear(s) in none of the cited evidence "
                       f"({', '.join(known[r].id for r in valid)})"))
            buckets["ungrounded"].append(claim)
            continue
        keep.append(claim)
    buckets["grounded"] = keep


SUPPORT_CHECKED_KINDS: Final = frozenset({
    AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION, AnchorKind.CLOCK,
    AnchorKind.TIMESTAMP, AnchorKind.DATE, AnchorKind.HTTP_STATUS, AnchorKind.PORT,
    AnchorKind.VERSION, AnchorKind.IPV4, AnchorKind.IPV6,
})
"""Anchors a grounded claim may only state when a cited item holds them (numbers, times, dates,
and the numbered things: versions, addresses, ports, HTTP statuses). Identifiers, hosts,
classes like ``5xx`` and percentiles name a subject; the judge links the claim to it."""
COVERAGE_KINDS: Final = frozenset(AnchorKind) - {AnchorKind.QUOTED, AnchorKind.NAME}
"""Anchors of an answer's sentence that some claim must restate for the sentence to count as
covered."""


def _memo_reader() -> _Reader:
    """A reader that reads each text once per check (claims, sentences and items recur)."""
    seen: dict[str, tuple[Anchor, ...]] = {}

    def read(text: str) -> tuple[Anchor, ...]:
        found = seen.get(text)
        if found is None:
            found = seen[text] = _anchors_of(text)
        return found

    return read


INDEX_CACHE_CHARS: Final = 20_000
"""Indexes of texts up to this long in total are remembered: the evaluator's rounds re-check
the same evidence, and a service sees the same tool rows again."""
_INDEX_CACHE_SIZE: Final = 256
_INDEXES: dict[tuple[str, ...], AnchorIndex] = {}
_INDEX_LOCK: Final = threading.Lock()


def _index_of(texts: tuple[str, ...], read: _Reader) -> AnchorIndex:
    """The index of the anchors of ``texts``, remembered when they are short."""
    remember = sum(len(text) for text in texts) <= INDEX_CACHE_CHARS
    if remember:
        with _INDEX_LOCK:
            found = _INDEXES.get(texts)
        if found is not None:
            return found
    index = AnchorIndex(anchor for text in texts for anchor in read(text))
    if remember:
        with _INDEX_LOCK:
            _INDEXES[texts] = index
            if len(_INDEXES) > _INDEX_CACHE_SIZE:
                del _INDEXES[next(iter(_INDEXES))]
    return index


def _anchors_of(text: str) -> tuple[Anchor, ...]:
    """Typed anchors of a claim, sentence or evidence item, including those inside quotes."""
    return with_quoted_contents(extract_anchors(text))


def _unsupported(written: tuple[Anchor, ...], index: AnchorIndex, kinds: frozenset[AnchorKind],
                 derived: Callable[[Anchor], bool] = lambda _: False) -> list[str]:
    """Surface forms of the anchors of ``written`` (of ``kinds``) that nothing in ``index``
    matches. A timestamp is also supported by its date and its time held apart, a date by its
    year and day held as numbers (``/2015/09/23/``), and an era, age or span of years by the
    years it is read from (``derived``)."""
    missing: list[str] = []
    for anchor in written:
        if anchor.kind not in kinds or index.supports(anchor) or derived(anchor):
            continue
        parts: tuple[Anchor, ...] | None = None
        if anchor.kind is AnchorKind.TIMESTAMP:
            parts = timestamp_parts(anchor)
        elif anchor.kind is AnchorKind.DATE:
            parts = date_parts(anchor)
        if parts and all(index.supports(part) for part in parts):
            continue
        missing.append(anchor.text)
    return missing


UNVERIFIED_TYPE: Final = "unverified"
"""Type string of an added claim that must weigh ``default_unknown`` (see uncovered_claim_type)."""


def uncovered_claim_type(
    weight_map: WeightMapInput | None,
    contradiction_penalty: float,
    default_unknown: float,
) -> EvidenceType | str:
    """The type an uncovered sentence is added with: ``inference``, unless that could pay.

    An omitted claim re-enters as ungrounded with penalty w(type); had the judge listed it as
    contradicted it would cost rho * w, at most rho * max(max weight, default_unknown). When that
    can exceed w(inference) (a large rho or custom weights), the heaviest type is used instead, so
    omitting a claim never raises S. When ``default_unknown`` outweighs every type, the added
    claim gets the unknown type ``"unverified"``, which weighs exactly ``default_unknown``.
    """
    weights = resolve_weight_map(weight_map)
    heaviest = max(weights, key=lambda t: weights[t])
    worst_penalty = max(weights[heaviest], default_unknown)
    if contradiction_penalty * worst_penalty <= weights[EvidenceType.INFERENCE]:
        return EvidenceType.INFERENCE
    if weights[heaviest] >= worst_penalty:
        return heaviest
    return UNVERIFIED_TYPE


def _check_coverage(
    buckets: dict[Bucket, list[Claim]],
    synthesis: str,
    adjustments: list[Adjustment],
    read: _Reader,
    weight_map: WeightMapInput | None,
    contradiction_penalty: float,
    default_unknown: float,
) -> None:
    claims = [claim for claims in buckets.values() for claim in claims]
    claim_keys = {_key(claim.text) for claim in claims}
    claim_words = [content_stem_set(claim.text) for claim in claims]
    claims_with: dict[str, list[int]] = {}
    for index, stems in enumerate(claim_words):
        for word in stems:
            claims_with.setdefault(word, []).append(index)
    claim_index = _index_of(tuple(claim.text for claim in claims), read)
    added_type: EvidenceType | str | None = None
    sentences = split_sentences(synthesis)
    sentence_stems = [content_stem_set(sentence) for sentence in sentences]
    # A word several sentences share ("CPU", "12 RPS") says nothing about which sentence a claim
    # covers: a claim about one sentence must not make a sibling that shares words look covered.
    sentences_with = Counter(word for stems in sentence_stems for word in stems)
    for sentence, all_words in zip(sentences, sentence_stems, strict=True):
        if not all_words or _key(sentence) in claim_keys:
            continue  # nothing to cover, or a claim states the sentence verbatim
        sentence_words = {w for w in all_words if sentences_with[w] == 1} or all_words
        # Overlap of each claim with the sentence, via the word index (claims sharing no word
        # with the sentence are never looked at: long answers stay near-linear).
        overlap = Counter(i for word in sentence_words for i in claims_with.get(word, ()))
        covered = {word for i, shared in overlap.items()
                   if shared >= 0.5 * min(len(claim_words[i]), len(sentence_words))
                   for word in claim_words[i] & sentence_words}
        coverage = len(covered) / len(sentence_words)
        missing = _unsupported(read(sentence), claim_index, COVERAGE_KINDS)
        if coverage >= COVERAGE_THRESHOLD and not missing:
            continue
        if added_type is None:
            added_type = uncovered_claim_type(weight_map, contradiction_penalty, default_unknown)
        reason = (f"no claim covers this sentence's {', '.join(missing)}" if missing
                  else f"claims cover {coverage:.0%} of this sentence")
        added = Claim(text=sentence, type=added_type, conclusion=states_conclusion(sentence))
        buckets["ungrounded"].append(added)
        adjustments.append(Adjustment(kind=UNCOVERED_SENTENCE, claim=sentence, from_bucket=None,
                                      to_bucket="ungrounded", reason=reason))
