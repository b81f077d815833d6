"""Whether the integrity guard keeps a grounded claim: shared by the tests of the numbers it
reads another way (eras, ages and spans of years; differences)."""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import UNSUPPORTED_NUMBER, check_judge_output
from gsar_otel.core.model import Claim, JudgeOutput


def guarded(claim: str, evidence: list[str]) -> bool:
    """The guard keeps the claim grounded when it cites every item."""
    items = EvidenceSet.coerce(evidence)
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=(
        Claim(claim, "specific_data", [item.id for item in items]),))
    report = check_judge_output(output, synthesis=claim, evidence=items)
    return not any(a.kind == UNSUPPORTED_NUMBER for a in report.adjustments)
