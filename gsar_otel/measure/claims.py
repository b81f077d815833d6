"""Claim-level agreement for ``gsar bench``: matching labelled claims to the judge's claims.

Each human-labelled claim is matched to its best judged claim: the one sharing the largest share
of the shorter text's words (at least half), the earlier one on a tie. (Until 0.2 it took the
worst bucket of every judged claim sharing half its words, so one contradicted neighbour marked a
grounded claim contradicted.) ``partially_supported`` counts as
ungrounded; ``unclear`` claims are not scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from gsar_otel.core.text import words
from gsar_otel.measure.stats import ratio

GOLD_BUCKET: Final[Mapping[str, str]] = {
    "grounded": "grounded",
    "ungrounded": "ungrounded",
    "contradicted": "contradicted",
    "complementary": "complementary",
    "partially_supported": "ungrounded",
}
"""The bucket a labelled claim should land in; ``unclear`` claims are not scored."""
BUCKET_RANK: Final[Mapping[str, int]] = {
    "grounded": 0, "complementary": 0, "ungrounded": 1, "contradicted": 2}
CLAIM_MATCH_OVERLAP: Final = 0.5
"""Share of the shorter claim's words two claims must share to be the same claim."""


def claim_overlap(a: str, b: str) -> float:
    """Share of the shorter text's words that the other shares (0 when either has none)."""
    left, right = set(words(a)), set(words(b))
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


def best_match(text: str, predicted: Sequence[tuple[str, str]]) -> str | None:
    """The bucket of the judged claim that overlaps ``text`` most (the earliest on a tie).

    None when no judged claim shares at least ``CLAIM_MATCH_OVERLAP`` of the words.
    """
    best: str | None = None
    best_overlap = CLAIM_MATCH_OVERLAP
    for claim, bucket in predicted:
        overlap = claim_overlap(text, claim)
        if overlap > best_overlap or (best is None and overlap >= best_overlap):
            best, best_overlap = bucket, overlap
    return best


def match_claims(labelled: Sequence[str],
                 predicted: Sequence[tuple[str, str]]) -> list[str | None]:
    """For each labelled claim, the bucket of its best judged claim (see ``best_match``).

    ``predicted`` holds ``(claim text, bucket)``. None when no judged claim overlaps enough.
    """
    return [best_match(text, predicted) for text in labelled]


class ClaimAgreement(BaseModel):
    """How the judge placed the claims humans put in one bucket."""

    model_config = ConfigDict(frozen=True)

    gold: str
    claims: int
    agree: int
    unmatched: int
    predicted: dict[str, int]

    @property
    def agreement(self) -> float | None:
        """Share of this bucket's claims the judge put in the same bucket."""
        return ratio(self.agree, self.claims)


def claim_agreement(pairs: Iterable[tuple[str, str | None]]) -> list[ClaimAgreement]:
    """Per gold bucket, agreement of ``(gold label, predicted bucket or None)`` pairs.

    ``partially_supported`` counts as ungrounded; ``unclear`` claims are left out.
    """
    rows: dict[str, dict[str, int]] = {}
    for label, predicted in pairs:
        gold = GOLD_BUCKET.get(label)
        if gold is None:
            continue
        counts = rows.setdefault(gold, {})
        key = predicted or "unmatched"
        counts[key] = counts.get(key, 0) + 1
    out = []
    for gold in ("grounded", "ungrounded", "contradicted", "complementary"):
        if gold not in rows:
            continue
        counts = rows[gold]
        out.append(ClaimAgreement(
            gold=gold, claims=sum(counts.values()), agree=counts.get(gold, 0),
            unmatched=counts.get("unmatched", 0),
            predicted={k: v for k, v in sorted(counts.items()) if k != "unmatched"}))
    return out
