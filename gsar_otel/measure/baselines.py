"""The baselines ``gsar bench`` reports beside the judge, each fitted on the ``dev`` split only
and then applied to every split.

- Bag of words: an answer is predicted faithful when at least a fraction f of its content words
  occur in the evidence (grid 0.00-1.00, best balanced accuracy, smallest f on ties).
- Length only: an answer is predicted faithful when it has at most (or at least) L words; where
  answer length alone separates a data set (HaluEval's short right and long hallucinated
  summaries), a judge must beat this too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.text import content_stems, words
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
    return best_fraction([content_coverage(e.synthesis, e.evidence_text) for e in dev],
                         [e.faithful for e in dev])


@dataclass(frozen=True, slots=True)
class LengthRule:
    """"Faithful when the answer has at most ``threshold`` words" (or at least, when
    ``shorter_is_faithful`` is False)."""

    threshold: int
    shorter_is_faithful: bool
    dev_balanced_accuracy: float | None

    def predicts_faithful(self, answer_words: int) -> bool:
        """The rule's prediction for an answer of ``answer_words`` words."""
        if self.shorter_is_faithful:
            return answer_words <= self.threshold
        return answer_words >= self.threshold


def answer_length(synthesis: str) -> int:
    """The number of words in an answer."""
    return len(words(synthesis))


def fit_length_baseline(examples: Sequence[BenchExample]) -> LengthRule:
    """The length rule with the best dev balanced accuracy (ties: shorter-is-faithful, then the
    smallest threshold)."""
    dev = [(answer_length(e.synthesis), e.faithful) for e in examples if e.split == "dev"]
    best = LengthRule(0, True, None)
    for shorter in (True, False):
        for threshold in sorted({length for length, _ in dev}):
            rule = LengthRule(threshold, shorter, None)
            score = Confusion.from_pairs(
                (faithful, rule.predicts_faithful(length)) for length, faithful in dev
            ).balanced_accuracy
            if score is not None and (best.dev_balanced_accuracy is None
                                      or score > best.dev_balanced_accuracy + 1e-12):
                best = LengthRule(threshold, shorter, score)
    return best
