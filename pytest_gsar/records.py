"""One judgement made during a test, as plain JSON-able data.

Records travel from the process that ran the test to the one that reports (pytest-xdist sends
them inside the test report), so they hold strings and numbers only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Final

import pytest

REPORT_ATTRIBUTE: Final = "gsar_judgements"
"""Name of the test-report attribute that carries a test's records (a list of dicts)."""
DECISION_ORDER: Final = ("proceed", "regenerate", "replan", "abstain")
"""Decisions from best to worst, as summaries list them."""


@dataclass(slots=True)
class JudgementRecord:
    """What one ``assert_grounded`` call or one case produced, and how it compared."""

    key: str
    """Baseline key: the test's node id, with ``#2``, ``#3``... for later calls in one test."""
    nodeid: str
    passed: bool
    problems: list[str] = field(default_factory=list)
    score: float | None = None
    """S, or None when no verdict was available (a missing recording)."""
    decision: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    judge: str = ""
    missing: str | None = None
    """The explanation when the record mode forbade judging and nothing was recorded."""
    baseline_score: float | None = None
    baseline_decision: str | None = None
    regressed: bool = False
    unverified: bool = False
    """The judge abstained as ``unverified``: too few of the answer's claims were checkable."""
    details: dict[str, Any] | None = None
    """Answer, evidence and claims, kept only when an HTML report is requested."""

    @property
    def baseline_delta(self) -> float | None:
        """S minus the baseline's S, when both are known."""
        if self.score is None or self.baseline_score is None:
            return None
        return self.score - self.baseline_score

    def to_json(self) -> dict[str, Any]:
        """The record as a dict of JSON values (shallow: its lists and dicts are not copied)."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JudgementRecord:
        """The record :meth:`to_json` produced."""
        return cls(**data)


RECORDS_KEY = pytest.StashKey[list[JudgementRecord]]()
"""The judgements a test made, in order (in ``item.stash``; copied onto its call report)."""


_FIELDS: Final = tuple(f.name for f in fields(JudgementRecord))
