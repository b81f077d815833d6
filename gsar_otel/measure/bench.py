"""``gsar bench``: run a judge over labelled grounding data and report how it did.

An answer the judge lets **proceed** is predicted faithful; anything else (regenerate, replan,
abstain) is predicted unfaithful. Every figure is plain arithmetic on those predictions, kept
apart from the runner so it can be checked by hand: the data and its splits are in
:mod:`gsar_otel.measure.datasets`, the bag-of-words baseline in
:mod:`gsar_otel.measure.baselines`, claim agreement in :mod:`gsar_otel.measure.claims` and the
statistics in :mod:`gsar_otel.measure.stats`.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from gsar_otel.core.model import Decision, GSARThresholds
from gsar_otel.core.protocol import Judge
from gsar_otel.measure import stats
from gsar_otel.measure.baselines import (
    LengthRule,
    answer_length,
    content_coverage,
    fit_baseline,
    fit_length_baseline,
)
from gsar_otel.measure.claims import ClaimAgreement, claim_agreement, match_claims
from gsar_otel.measure.datasets import BenchExample, Split, SplitChoice

BOOTSTRAP_RESAMPLES: Final = 2000
BOOTSTRAP_SEED: Final = 20240601


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- answer-level metrics ------------------------------------------------------------------------

class Confusion(stats.Confusion):
    """Counts of (actual, predicted) answers. "Positive" is *unfaithful*: what a judge must catch.

    ``tp``: unfaithful, judged unfaithful; ``fn``: unfaithful, let through (proceed);
    ``fp``: faithful, held back; ``tn``: faithful, let through.
    """

    @property
    def recall_unfaithful(self) -> float | None:
        """Share of unfaithful answers the judge held back."""
        return self.recall

    @property
    def precision_unfaithful(self) -> float | None:
        """Share of held-back answers that were unfaithful."""
        return self.precision

    @property
    def recall_faithful(self) -> float | None:
        """Share of faithful answers the judge let through."""
        return self.specificity


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """The confusion matrix of ``(actually_faithful, predicted_faithful)`` pairs."""
    return Confusion.from_pairs((not actual, not predicted) for actual, predicted in pairs)


def bootstrap_interval(pairs: Sequence[tuple[bool, bool]], *, level: float = 0.95,
                       resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """A percentile bootstrap interval for the balanced accuracy of ``pairs``.

    Each class is resampled on its own (a stratified bootstrap, :func:`stats.bootstrap`), so
    every resample keeps the class balance of the data; the ends are linear-interpolation
    quantiles (:func:`stats.quantile`). Deterministic for a given ``seed``. None when a class
    is missing.

    Raises:
        ValueError: ``resamples`` < 1 or ``level`` not in (0, 1).
    """
    faithful = [p for p in pairs if p[0]]
    unfaithful = [p for p in pairs if not p[0]]
    if not faithful or not unfaithful:
        return None
    ordered = faithful + unfaithful
    interval = stats.bootstrap(ordered, _balanced_accuracy, resamples=resamples,
                               confidence=level, seed=seed,
                               strata=[actual for actual, _ in ordered])["balanced_accuracy"]
    return interval.low, interval.high


def _balanced_accuracy(pairs: Sequence[tuple[bool, bool]]) -> dict[str, float]:
    score = confusion(pairs).balanced_accuracy
    if score is None:  # only for no pairs at all, which a bootstrap never draws
        raise ValueError("balanced accuracy of no answers")
    return {"balanced_accuracy": score}


# -- running -------------------------------------------------------------------------------------

class Outcome(_Model):
    """One judged example."""

    id: str
    split: Split
    faithful: bool
    decision: Decision
    score: float
    claims: list[tuple[str, str]]
    """The final partition's ``(claim text, bucket)``, after the integrity guard."""
    claim_matches: list[tuple[str, str | None]]
    """``(gold label, predicted bucket)`` for each labelled claim."""
    duration_s: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    judge_error: str | None = None
    baseline_coverage: float
    answer_words: int = 0

    @property
    def predicted_faithful(self) -> bool:
        """The judge let the answer proceed."""
        return self.decision is Decision.PROCEED


async def judge_examples(
    examples: Sequence[BenchExample],
    judge: Judge,
    *,
    thresholds: GSARThresholds | None = None,
    contradiction_penalty: float = 0.5,
    concurrency: int = 4,
    progress: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Judge every example once (no recovery), at most ``concurrency`` at a time, in input order.

    Raises:
        ValueError: ``concurrency`` below 1.
    """
    from gsar_otel.core.evaluator import GSAREvaluator

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    evaluator = GSAREvaluator(judge, thresholds=thresholds,
                              contradiction_penalty=contradiction_penalty)
    gate = asyncio.Semaphore(concurrency)
    done = 0
    results: list[Outcome | None] = [None] * len(examples)

    async def one(position: int, example: BenchExample) -> None:
        nonlocal done
        async with gate:
            evidence = example.evidence_set
            result = await evaluator.evaluate(report_synthesis=example.synthesis,
                                              evidence_corpus=evidence)
            # A judge that blocks the loop (a CPU-bound one) still lets progress be drawn.
            await asyncio.sleep(0)
        entry = result.trajectory[0]
        claims = [(claim.text, bucket) for bucket, items in result.final_partition.buckets()
                  for claim in items]
        matched = match_claims([c.text for c in example.claims], claims)
        usage = entry.judge_usage
        results[position] = Outcome(
            id=example.id, split=example.split, faithful=example.faithful,
            decision=result.final_decision, score=result.final_score, claims=claims,
            claim_matches=[(c.label, m) for c, m in zip(example.claims, matched, strict=True)],
            duration_s=entry.judge_duration_s,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            judge_error=entry.judge_error,
            baseline_coverage=content_coverage(example.synthesis, example.evidence_text),
            answer_words=answer_length(example.synthesis),
        )
        done += 1
        if progress is not None:
            progress(done, len(examples))

    await asyncio.gather(*(one(i, e) for i, e in enumerate(examples)))
    return [r for r in results if r is not None]


# -- the report ----------------------------------------------------------------------------------

class Baseline(_Model):
    """The bag-of-words baseline: faithful when a share >= f of the answer's words are in the
    evidence, with f fitted on the dev split."""

    fraction: float
    dev_balanced_accuracy: float | None
    confusion: Confusion
    balanced_accuracy: float | None


class LengthBaseline(_Model):
    """The length-only baseline: faithful when the answer has at most (or at least) L words,
    with L and the direction fitted on the dev split."""

    threshold: int
    shorter_is_faithful: bool
    dev_balanced_accuracy: float | None
    balanced_accuracy: float | None


class SplitReport(_Model):
    """Every figure for one split."""

    split: SplitChoice
    examples: int
    confusion: Confusion
    balanced_accuracy: float | None
    balanced_accuracy_ci95: tuple[float, float] | None
    """Stratified bootstrap interval (2,000 resamples, fixed seed)."""
    precision_unfaithful: float | None
    recall_unfaithful: float | None
    baseline: Baseline
    length_baseline: LengthBaseline | None = None
    claim_agreement: list[ClaimAgreement]
    claim_accuracy: float | None = None
    """Share of the labelled claims (unclear ones aside) the judge put in their gold bucket;
    a labelled claim the judge did not produce counts as missed."""
    seconds_per_judgement: float | None
    median_seconds_per_judgement: float | None
    input_tokens_per_judgement: float | None
    output_tokens_per_judgement: float | None
    judge_errors: int


class BenchReport(_Model):
    """The result of one ``gsar bench`` run."""

    data: str
    judge: str
    thresholds: GSARThresholds
    contradiction_penalty: float
    wall_seconds: float
    splits: list[SplitReport]


def split_report(split: SplitChoice, outcomes: Sequence[Outcome], *, fraction: float,
                 dev_score: float | None, length: LengthRule | None = None) -> SplitReport:
    """The figures for ``outcomes`` (already restricted to ``split``)."""
    pairs = [(o.faithful, o.predicted_faithful) for o in outcomes]
    agreement = claim_agreement(pair for o in outcomes for pair in o.claim_matches)
    labelled = sum(row.claims for row in agreement)
    length_report = None if length is None else LengthBaseline(
        threshold=length.threshold, shorter_is_faithful=length.shorter_is_faithful,
        dev_balanced_accuracy=length.dev_balanced_accuracy,
        balanced_accuracy=confusion((o.faithful, length.predicts_faithful(o.answer_words))
                                    for o in outcomes).balanced_accuracy)
    matrix = confusion(pairs)
    base = confusion((o.faithful, o.baseline_coverage >= fraction) for o in outcomes)
    durations = [o.duration_s for o in outcomes]
    inputs = [o.input_tokens for o in outcomes if o.input_tokens is not None]
    outputs = [o.output_tokens for o in outcomes if o.output_tokens is not None]
    return SplitReport(
        split=split, examples=len(outcomes), confusion=matrix,
        balanced_accuracy=matrix.balanced_accuracy,
        balanced_accuracy_ci95=bootstrap_interval(pairs),
        precision_unfaithful=matrix.precision_unfaithful,
        recall_unfaithful=matrix.recall_unfaithful,
        baseline=Baseline(fraction=fraction, dev_balanced_accuracy=dev_score, confusion=base,
                          balanced_accuracy=base.balanced_accuracy),
        length_baseline=length_report,
        claim_agreement=agreement,
        claim_accuracy=sum(row.agree for row in agreement) / labelled if labelled else None,
        seconds_per_judgement=statistics.fmean(durations) if durations else None,
        median_seconds_per_judgement=statistics.median(durations) if durations else None,
        input_tokens_per_judgement=statistics.fmean(inputs) if inputs else None,
        output_tokens_per_judgement=statistics.fmean(outputs) if outputs else None,
        judge_errors=sum(1 for o in outcomes if o.judge_error),
    )


def build_report(
    *,
    data: str,
    judge: str,
    examples: Sequence[BenchExample],
    outcomes: Sequence[Outcome],
    split: SplitChoice,
    thresholds: GSARThresholds,
    contradiction_penalty: float,
    wall_seconds: float,
) -> BenchReport:
    """Figures for the judged outcomes: all of them and each split, beside the baseline.

    The baseline's f is fitted on the dev examples of ``examples`` (the whole file), so it is
    the same whichever split was judged.
    """
    fraction, dev_score = fit_baseline(examples)
    length = fit_length_baseline(examples)
    names: list[SplitChoice] = ["all", "dev", "heldout"] if split == "all" else [split]
    reports = []
    for name in names:
        chosen = [o for o in outcomes if name == "all" or o.split == name]
        if chosen or name == split:
            reports.append(split_report(name, chosen, fraction=fraction, dev_score=dev_score,
                                        length=length))
    return BenchReport(data=data, judge=judge, thresholds=thresholds,
                       contradiction_penalty=contradiction_penalty,
                       wall_seconds=wall_seconds, splits=reports)


class Stopwatch:
    """Wall time since construction."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        """Seconds elapsed."""
        return time.perf_counter() - self.start
