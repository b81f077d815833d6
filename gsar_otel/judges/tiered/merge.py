"""Matching a model's verdict back to the claims it was asked about.

The model judges exactly the claims it was sent, by their text. Each claim it returns under the
same text (whitespace, case and final punctuation aside) takes the model's bucket, type, refs
and conclusion. A claim it leaves out is ungrounded, with a note saying so; a claim it returns
that it was not sent (added, or reworded) is reported in a note and never merged, so neither an
omission nor a rewording can raise S.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from gsar_otel.core.integrity import Adjustment
from gsar_otel.core.model import Bucket, Claim, EvidenceType, JudgeOutput
from gsar_otel.core.text import content_stem_set

MODEL_OMITTED_CLAIM: Final = "model_omitted_claim"
"""Adjustment kind: the model did not return a claim it was sent; the claim is ungrounded."""
MODEL_RENAMED_CLAIM: Final = "model_renamed_claim"
"""Adjustment kind: the model returned a reworded claim; reported, not merged."""
MODEL_ADDED_CLAIM: Final = "model_added_claim"
"""Adjustment kind: the model returned a claim it was not sent; reported, not merged."""
MODEL_CONTEXT_CLAIM: Final = "model_context_claim"
"""Adjustment kind: the model judged a context claim (settled offline); ignored."""
ESCALATION_CAPPED: Final = "escalation_capped"
"""Adjustment kind: a claim left unverified because ``max_escalated_claims`` was reached."""
MODEL_TIER_FAILED: Final = "model_tier_failed"
"""Adjustment kind: the model call failed or abstained; the claims sent stay unverified."""
RENAMED_OVERLAP: Final = 0.5
"""Share of a sent claim's content words a returned claim must hold to read as its rewording."""
_SPACES: Final = re.compile(r"\s+")


def claim_key(text: str) -> str:
    """A claim's text for matching: whitespace collapsed, case folded, end punctuation cut."""
    return _SPACES.sub(" ", text.strip().lstrip("-*• ")).casefold().rstrip(".!?;: ")


@dataclass
class Matched:
    """The model's claims matched to the claims sent, and what could not be matched."""

    verdicts: list[tuple[Bucket, Claim] | None]
    """Per claim sent, in order: the model's bucket and claim, or None when it left it out."""
    notes: list[Adjustment] = field(default_factory=list)


def match(sent: Sequence[str], context: Sequence[str], output: JudgeOutput) -> Matched:
    """Match ``output``'s claims to the ``sent`` claims by text."""
    returned: dict[str, list[tuple[Bucket, Claim]]] = {}
    for bucket, claims in output.to_partition().buckets():
        for claim in claims:
            returned.setdefault(claim_key(claim.text), []).append((bucket, claim))
    verdicts: list[tuple[Bucket, Claim] | None] = []
    for text in sent:
        found = returned.get(claim_key(text))
        verdicts.append(found.pop(0) if found else None)
    matched = Matched(verdicts)
    missing = [text for text, verdict in zip(sent, verdicts, strict=True) if verdict is None]
    context_keys = {claim_key(text) for text in context}
    for key, rest in returned.items():
        for bucket, claim in rest:
            matched.notes.append(_unmatched(key, bucket, claim, missing, context_keys))
    for text in missing:
        matched.notes.append(Adjustment(
            kind=MODEL_OMITTED_CLAIM, claim=text, from_bucket=None, to_bucket="ungrounded",
            reason="the model judge did not return this claim: ungrounded"))
    return matched


def _unmatched(key: str, bucket: Bucket, claim: Claim, missing: Sequence[str],
               context_keys: set[str]) -> Adjustment:
    if key in context_keys:
        return Adjustment(kind=MODEL_CONTEXT_CLAIM, claim=claim.text, from_bucket=bucket,
                          to_bucket=None, reason="the model judged a context claim (settled "
                                                 "offline); its verdict is ignored")
    words = content_stem_set(claim.text)
    for text in missing:
        own = content_stem_set(text)
        if own and len(own & words) >= RENAMED_OVERLAP * len(own):
            return Adjustment(
                kind=MODEL_RENAMED_CLAIM, claim=text, from_bucket=bucket, to_bucket=None,
                reason=f"the model reworded this claim as {claim.text!r} ({bucket}); not "
                       f"merged: the claim as sent is ungrounded")
    return Adjustment(kind=MODEL_ADDED_CLAIM, claim=claim.text, from_bucket=bucket,
                      to_bucket=None, reason=f"the model returned a claim it was not sent "
                                             f"({bucket}); not merged")


def model_type(claim: Claim) -> EvidenceType:
    """The model's evidence type, or ``inference`` for a type string it invented."""
    return claim.type if isinstance(claim.type, EvidenceType) else EvidenceType.INFERENCE
