"""One invariant checked for one claim: what the checks (:mod:`.checks`, :mod:`.polarity`)
return and the verdicts (:mod:`.verdicts`) read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["MATCH", "CONFLICT", "ABSENT"]


@dataclass(frozen=True, slots=True)
class Check:
    """One invariant checked for one claim."""

    kind: str
    """subject, name, value, category, absence, polarity, modality or coverage."""
    status: Status
    reason: str
    ref: str | None = None
    position: int | None = None
    """The fact that matched or contradicted, by position."""
    trend: str | None = None
    """The direction a matched difference of two samples shows (``increased``)."""
