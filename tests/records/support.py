"""What the records judge's table-driven tests share."""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.records.judge import RecordsJudge

judge = RecordsJudge()


def outcomes(answer: str, items: list[object]) -> list[str]:
    """Each claim's outcome, in order, for ``answer`` against ``items``."""
    return [o.outcome for o in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]
