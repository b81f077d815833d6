"""Measuring a judge on labelled grounding data: loading, splits, metrics and the runner.

The data format (one JSON object per line) has ``id``, ``evidence``, ``synthesis``,
``answer_label`` (``faithful`` | ``unfaithful``) and optionally ``claims`` (``text`` and
``label``: grounded | ungrounded | contradicted | complementary | unclear | partially_supported).

An answer the judge lets **proceed** is predicted faithful; anything else (regenerate, replan,
abstain) is predicted unfaithful. Every metric here is plain arithmetic on those predictions, kept
apart from the runner so it can be checked by hand.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision, GSARThresholds
from gsar_otel.core.protocol import Judge
from gsar_otel.core.text import content_stems, words

AnswerLabel = Literal["faithful", "unfaithful"]
Split = Literal["dev", "heldout"]
SplitChoice = Literal["all", "dev", "heldout"]

ANSWER_LABELS: Final = ("faithful", "unfaithful")
CLAIM_LABELS: Final = (
    "grounded", "ungrounded", "contradicted", "complementary", "unclear", "partially_supported")
HELDOUT_PERCENT: Final = 30
"""Share of examples (by a hash of their id) kept out of tuning."""
BASELINE_GRID: Final = tuple(round(step / 100, 2) for step in range(101))
"""Fractions f the bag-of-words baseline tries."""
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


# -- data ----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LabelledClaim:
    """One human-labelled claim of an answer."""

    text: str
    label: str


@dataclass(frozen=True, slots=True)
class BenchExample:
    """One labelled answer with its evidence."""

    id: str
    evidence: str
    synthesis: str
    answer_label: AnswerLabel
    claims: tuple[LabelledClaim, ...] = ()

    @property
    def split(self) -> Split:
        """``dev`` or ``heldout``, fixed by the id (see :func:`split_of`)."""
        return split_of(self.id)

    @property
    def faithful(self) -> bool:
        """True when the answer is labelled faithful."""
        return self.answer_label == "faithful"


def split_of(example_id: str) -> Split:
    """The split of an example: a SHA-256 of its id puts about 30% into ``heldout``."""
    digest = hashlib.sha256(example_id.encode("utf-8")).digest()
    return "heldout" if int.from_bytes(digest[:8], "big") % 100 < HELDOUT_PERCENT else "dev"


def load_examples(path: str | Path) -> list[BenchExample]:
    """Read a ``.jsonl`` file of labelled examples.

    Raises:
        ValueError: a line is not JSON or lacks a field, naming the line and the field.
        OSError: the file cannot be read.
    """
    examples = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                examples.append(parse_example(line, where=f"{path}:{number}"))
    return examples


def parse_example(line: str, *, where: str = "input") -> BenchExample:
    """One example from one JSON line.

    Raises:
        ValueError: naming ``where`` and the bad field.
    """
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: each line must be a JSON object")
    for name in ("id", "evidence", "synthesis"):
        if not isinstance(data.get(name), str):
            raise ValueError(f"{where}: field {name!r} must be a string")
    label = data.get("answer_label")
    if label not in ANSWER_LABELS:
        raise ValueError(f"{where}: field 'answer_label' must be one of {list(ANSWER_LABELS)}, "
                         f"got {label!r}")
    claims = []
    raw_claims = data.get("claims") or []
    if not isinstance(raw_claims, list):
        raise ValueError(f"{where}: field 'claims' must be a list")
    for position, claim in enumerate(raw_claims):
        if not (isinstance(claim, dict) and isinstance(claim.get("text"), str)
                and claim.get("label") in CLAIM_LABELS):
            raise ValueError(f"{where}: claims[{position}] needs 'text' and a 'label' in "
                             f"{list(CLAIM_LABELS)}")
        claims.append(LabelledClaim(claim["text"], claim["label"]))
    return BenchExample(data["id"], data["evidence"], data["synthesis"], label, tuple(claims))


def select(examples: Sequence[BenchExample], split: SplitChoice,
           limit: int | None = None) -> list[BenchExample]:
    """The examples of ``split`` (all, dev or heldout), at most ``limit`` of them, in file order."""
    chosen = [e for e in examples if split == "all" or e.split == split]
    return chosen if limit is None else chosen[:limit]


# -- metrics -------------------------------------------------------------------------------------

class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Confusion(_Model):
    """Counts of (actual, predicted) answers. "Positive" is *unfaithful*: what a judge must catch.

    ``tp``: unfaithful, judged unfaithful; ``fn``: unfaithful, let through (proceed);
    ``fp``: faithful, held back; ``tn``: faithful, let through.
    """

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0

    @property
    def total(self) -> int:
        """All answers counted."""
        return self.tp + self.fn + self.fp + self.tn

    @property
    def recall_unfaithful(self) -> float | None:
        """Share of unfaithful answers the judge held back."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def precision_unfaithful(self) -> float | None:
        """Share of held-back answers that were unfaithful."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall_faithful(self) -> float | None:
        """Share of faithful answers the judge let through."""
        return _ratio(self.tn, self.tn + self.fp)

    @property
    def balanced_accuracy(self) -> float | None:
        """Mean of the two classes' recalls (of the classes present; None when empty)."""
        recalls = [r for r in (self.recall_unfaithful, self.recall_faithful) if r is not None]
        return math.fsum(recalls) / len(recalls) if recalls else None


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """The confusion matrix of ``(actually_faithful, predicted_faithful)`` pairs."""
    tp = fn = fp = tn = 0
    for actual, predicted in pairs:
        if not actual and not predicted:
            tp += 1
        elif not actual:
            fn += 1
        elif not predicted:
            fp += 1
        else:
            tn += 1
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


BOOTSTRAP_RESAMPLES: Final = 2000
BOOTSTRAP_SEED: Final = 20240601


def bootstrap_interval(pairs: Sequence[tuple[bool, bool]], *, level: float = 0.95,
                       resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """A percentile bootstrap interval for the balanced accuracy of ``pairs``.

    Each class is resampled on its own (a stratified bootstrap), so every resample keeps the
    class balance of the data. Deterministic for a given ``seed``. None when a class is missing.
    """
    faithful = [p for p in pairs if p[0]]
    unfaithful = [p for p in pairs if not p[0]]
    if not faithful or not unfaithful:
        return None
    rng = random.Random(seed)
    scores = []
    for _ in range(resamples):
        sample = rng.choices(faithful, k=len(faithful)) + rng.choices(unfaithful,
                                                                      k=len(unfaithful))
        score = confusion(sample).balanced_accuracy
        assert score is not None
        scores.append(score)
    scores.sort()
    tail = (1.0 - level) / 2
    low = scores[math.floor(tail * resamples)]
    high = scores[min(resamples - 1, math.ceil((1.0 - tail) * resamples) - 1)]
    return low, high


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
    """
    if len(coverages) != len(faithful):
        raise ValueError("coverages and faithful must have the same length")
    best_f, best_score = grid[0], None
    for fraction in grid:
        score = confusion(zip(faithful, (c >= fraction for c in coverages),
                              strict=True)).balanced_accuracy
        if score is not None and (best_score is None or score > best_score + 1e-12):
            best_f, best_score = fraction, score
    return best_f, best_score


def claim_overlap(a: str, b: str) -> float:
    """Share of the shorter text's words that the other shares (0 when either has none)."""
    left, right = set(words(a)), set(words(b))
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


def match_claims(labelled: Sequence[str],
                 predicted: Sequence[tuple[str, str]]) -> list[str | None]:
    """For each labelled claim, the worst bucket among the predicted claims that overlap it.

    ``predicted`` holds ``(claim text, bucket)``. None when no predicted claim overlaps.
    """
    matched: list[str | None] = []
    for text in labelled:
        buckets = [bucket for claim, bucket in predicted
                   if claim_overlap(text, claim) >= CLAIM_MATCH_OVERLAP]
        matched.append(max(buckets, key=lambda b: BUCKET_RANK[b]) if buckets else None)
    return matched


class ClaimAgreement(_Model):
    """How the judge placed the claims humans put in one bucket."""

    gold: str
    claims: int
    agree: int
    unmatched: int
    predicted: dict[str, int]

    @property
    def agreement(self) -> float | None:
        """Share of this bucket's claims the judge put in the same bucket."""
        return _ratio(self.agree, self.claims)


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
            evidence = EvidenceSet.coerce(example.evidence)
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
            baseline_coverage=content_coverage(example.synthesis, example.evidence),
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
    claim_agreement: list[ClaimAgreement]
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


def fit_baseline(examples: Sequence[BenchExample]) -> tuple[float, float | None]:
    """Fit f on the dev examples among ``examples``; ``(f, dev balanced accuracy)``."""
    dev = [e for e in examples if e.split == "dev"]
    return best_fraction([content_coverage(e.synthesis, e.evidence) for e in dev],
                         [e.faithful for e in dev])


def split_report(split: SplitChoice, outcomes: Sequence[Outcome], *, fraction: float,
                 dev_score: float | None) -> SplitReport:
    """The figures for ``outcomes`` (already restricted to ``split``)."""
    pairs = [(o.faithful, o.predicted_faithful) for o in outcomes]
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
        claim_agreement=claim_agreement(pair for o in outcomes for pair in o.claim_matches),
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
    names: list[SplitChoice] = ["all", "dev", "heldout"] if split == "all" else [split]
    reports = []
    for name in names:
        chosen = [o for o in outcomes if name == "all" or o.split == name]
        if chosen or name == split:
            reports.append(split_report(name, chosen, fraction=fraction, dev_score=dev_score))
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
