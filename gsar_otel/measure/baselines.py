"""The bag-of-words baseline ``gsar bench`` reports beside the judge.

An answer is predicted faithful when at least a fraction f of its content words occur in the
evidence; f is fitted on the ``dev`` split (grid 0.00-1.00, best balanced accuracy, smallest f on
ties) and then applied to every split.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gsar_otel.core.text import content_stems
from gsar_otel.measure.datasets import BenchExample
from gsar_otel.measure.stats import Confusion

BASELINE_GRID: Final = tuple(round(step / 100, 2) for step in range(101))
"""Fractions f the bag-of-words baseline tries."""


def content_coverage(synthesis: str, evidence: str) -> float:
    """Share of the answer's content words that occur in the evidence (1.0 with none)."""
    answer = content_stems(synthesis)
    if not answer:
        return 1.0
    return len(answer & content_stems(evidence)) / len(answer)


def best_fraction(coverages: Sequence[float], faithful: Sequence[bool],
                  grid: Sequence[float] = BASELINE_GRID) -> tuple[float, float | None]:
    """The fraction f of the grid with the best balanced accuracy for "faithful iff coverage >= f".

    Ties go to the smallest f. Returns ``(f, balanced accuracy)``.

    Raises:
        ValueError: ``coverages`` and ``faithful`` differ in length.
    """
    if len(coverages) != len(faithful):
        raise ValueError("coverages and faithful must have the same length")
    best_f, best_score = grid[0], None
    for fraction in grid:
        # Balanced accuracy is the same whichever class is called positive.
        score = Confusion.from_pairs(zip(faithful, (c >= fraction for c in coverages),
                                         strict=True)).balanced_accuracy
        if score is not None and (best_score is None or score > best_score + 1e-12):
            best_f, best_score = fraction, score
    return best_f, best_score


def fit_baseline(examples: Sequence[BenchExample]) -> tuple[float, float | None]:
    """Fit f on the dev examples among ``examples``; ``(f, dev balanced accuracy)``."""
    dev = [e for e in examples if e.split == "dev"]
    return best_fraction([content_coverage(e.synthesis, e.evidence) for e in dev],
                         [e.faithful for e in dev])
