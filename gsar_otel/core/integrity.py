"""Deterministic checks and repairs of a judge's output, applied before scoring.

A judge can mislabel, invent or omit. The guard keeps what it can verify and repairs the rest,
recording every change as an :class:`Adjustment` that stays on the result and in telemetry:

- an unknown evidence-type string is kept (scored as ``default_unknown``), never fatal;
- empty claims are removed; a claim listed twice keeps only its worst bucket
  (contradicted > ungrounded > grounded / complementary);
- a grounded claim that cites no evidence id, or only ids the evidence does not have, becomes
  ungrounded; unknown ids next to known ones are dropped from the claim;
- a grounded claim with a number or clock time that none of its cited items contains (allowing
  rounding and formatting) becomes ungrounded;
- a sentence of the answer that no claim covers is added as an ungrounded claim, so a judge
  that silently drops a claim can never raise S.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pydantic import Field

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
from gsar_otel.core.text import (
    Anchors,
    anchors,
    content_stem_set,
    merge_anchors,
    number_supported,
    split_sentences,
    time_supported,
)

UNKNOWN_EVIDENCE_TYPE: Final = "unknown_evidence_type"
EMPTY_CLAIM: Final = "empty_claim"
DUPLICATE_CLAIM: Final = "duplicate_claim"
MISSING_EVIDENCE_REF: Final = "missing_evidence_ref"
UNKNOWN_EVIDENCE_REF: Final = "unknown_evidence_ref"
UNSUPPORTED_NUMBER: Final = "unsupported_number"
UNCOVERED_SENTENCE: Final = "uncovered_sentence"
SYNTHESIS_TRUNCATED: Final = "synthesis_truncated"

ADJUSTMENT_KINDS: Final = (
    UNKNOWN_EVIDENCE_TYPE, EMPTY_CLAIM, DUPLICATE_CLAIM, MISSING_EVIDENCE_REF,
    UNKNOWN_EVIDENCE_REF, UNSUPPORTED_NUMBER, UNCOVERED_SENTENCE, SYNTHESIS_TRUNCATED,
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
) -> IntegrityReport:
    """Check and repair ``output`` against the answer and the evidence it was judged on.

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
    _check_grounded(buckets, evidence, adjustments)
    _check_coverage(buckets, synthesis, adjustments, weight_map, contradiction_penalty,
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
    buckets: dict[Bucket, list[Claim]], evidence: EvidenceSet, adjustments: list[Adjustment]
) -> None:
    known = {normalize_ref(item.id): item for item in evidence}
    # Anchors of each cited item, found once and merged per claim: the same as the anchors of
    # the items' joined text (see merge_anchors), without reading an item twice.
    item_anchors: dict[str, Anchors] = {}
    anchors_by_id: dict[tuple[str, ...], Anchors] = {}
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
        key = tuple(valid)
        if key not in anchors_by_id:
            for ref in valid:
                if ref not in item_anchors:
                    item_anchors[ref] = anchors(known[ref].content)
            anchors_by_id[key] = merge_anchors(item_anchors[ref] for ref in valid)
        cited_anchors = anchors_by_id[key]
        claim_anchors = anchors(claim.text)
        missing = [n.raw for n in claim_anchors.numbers if not number_supported(n, cited_anchors)]
        missing += [t.raw for t in claim_anchors.times if not time_supported(t, cited_anchors)]
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
    all_claim_anchors = merge_anchors(anchors(claim.text) for claim in claims)
    claim_values = {number.value for number in all_claim_anchors.numbers}
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
        sentence_anchors = anchors(sentence)
        missing = [n.raw for n in sentence_anchors.numbers if n.value not in claim_values]
        missing += [t.raw for t in sentence_anchors.times
                    if not time_supported(t, all_claim_anchors)]
        missing += sorted(sentence_anchors.identifiers - all_claim_anchors.identifiers)
        if coverage >= COVERAGE_THRESHOLD and not missing:
            continue
        if added_type is None:
            added_type = uncovered_claim_type(weight_map, contradiction_penalty, default_unknown)
        reason = (f"no claim covers this sentence's {', '.join(missing)}" if missing
                  else f"claims cover {coverage:.0%} of this sentence")
        added = Claim(text=sentence, type=added_type)
        buckets["ungrounded"].append(added)
        adjustments.append(Adjustment(kind=UNCOVERED_SENTENCE, claim=sentence, from_bucket=None,
                                      to_bucket="ungrounded", reason=reason))
