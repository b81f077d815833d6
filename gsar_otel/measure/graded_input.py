"""The graded file ``gsar calibrate`` reads: parsing one line, judging the answers that need it,
and reducing every line to a :class:`~gsar_otel.measure.grades.GradedScore`.

Each line is one graded answer, a JSON object with a human ``label`` and either ``synthesis`` and
``evidence`` (an answer still to judge) or ``partition`` (an already judged Partition or a full
JudgeOutput, not judged again); an optional ``id`` names it. Reading the file, choosing the judge
and reporting problems with their line numbers is the command's job (``gsar_otel.cli``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from gsar_otel.core.evidence import coerce_evidence
from gsar_otel.core.json_input import JSONTooDeep, load_json
from gsar_otel.core.model import JudgeOutput, Partition
from gsar_otel.core.protocol import Judge
from gsar_otel.measure.grades import ALL_LABELS, GradedScore, normalize_label

JUDGE_CONCURRENCY: Final = 4
"""Answers judged at once: enough to hide a remote judge's latency, few enough for rate limits."""

_JUDGE_OUTPUT_KEYS = frozenset(
    {"grounded_claims", "ungrounded_claims", "contradicted_claims", "complementary_claims",
     "grounding_score", "decision_status"})

Judgement = tuple[Partition, bool, str | None]
"""A judged line: the final partition, whether the judge abstained, and its first error."""


@dataclass(frozen=True, slots=True)
class GradedLine:
    """One parsed line: its grade and either a partition or an answer still to judge."""

    number: int
    label: str
    answer_id: str | None
    partition: Partition | None = None
    abstained: bool = False
    synthesis: str | None = None
    evidence: Any = None


def parse_graded_line(raw: str, number: int) -> GradedLine:
    """Parse one line of GRADED.jsonl.

    Raises:
        ValueError: saying what is wrong with the line (without its number).
    """
    try:
        data = load_json(raw)
    except JSONTooDeep as error:
        raise ValueError(str(error)) from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if "label" not in data:
        raise ValueError(f"'label' is missing; allowed: {', '.join(ALL_LABELS)}")
    label = normalize_label(data["label"])
    answer_id = data.get("id")
    answer_id = None if answer_id is None else str(answer_id)
    if "partition" in data:
        partition, abstained = _parse_partition(data["partition"])
        return GradedLine(number, label, answer_id, partition=partition, abstained=abstained)
    if "synthesis" not in data:
        raise ValueError("give either 'partition' (a judged answer) or 'synthesis' and "
                         "'evidence' (an answer to judge)")
    synthesis = data["synthesis"]
    if not isinstance(synthesis, str):
        raise ValueError(f"'synthesis' must be a string, got {type(synthesis).__name__}")
    if "evidence" not in data:
        raise ValueError("'synthesis' needs 'evidence': a string, a list of strings, or a list "
                         "of {id, content} objects")
    try:
        evidence = coerce_evidence(data["evidence"])
    except (ValueError, TypeError) as error:
        raise ValueError(f"'evidence' is not usable: {_first_line(error)}") from None
    return GradedLine(number, label, answer_id, synthesis=synthesis, evidence=evidence)


def _parse_partition(value: object) -> tuple[Partition, bool]:
    if not isinstance(value, dict):
        raise ValueError(f"'partition' must be a JSON object with grounded / ungrounded / "
                         f"contradicted / complementary lists, got {type(value).__name__}")
    try:
        if _JUDGE_OUTPUT_KEYS & value.keys():
            output = JudgeOutput.model_validate(value)
            return output.to_partition(), output.abstained
        return Partition.model_validate(value), False
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'partition'}: {item['msg']}"
            for item in error.errors()[:3])
        raise ValueError(f"'partition' is not a valid Partition: {problems}") from None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


async def judge_lines(judge: Judge, lines: Sequence[GradedLine],
                      weight_map: Mapping[str, float] | None = None, *,
                      concurrency: int = JUDGE_CONCURRENCY) -> dict[int, Judgement]:
    """Judge each line's answer once, at most ``concurrency`` at a time; keyed by line number.

    Raises:
        ValueError: ``concurrency`` below 1.
    """
    from gsar_otel.core.evaluator import GSAREvaluator

    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency!r}")
    # One-shot: no recovery callbacks, so each answer is judged exactly once.
    evaluator = GSAREvaluator(judge, weight_map=weight_map)
    bound = asyncio.Semaphore(concurrency)

    async def one(line: GradedLine) -> tuple[int, Judgement]:
        async with bound:
            result = await evaluator.evaluate(report_synthesis=line.synthesis or "",
                                              evidence_corpus=line.evidence)
        errors = result.judge_errors
        return line.number, (result.final_partition, result.final_judge_output.abstained,
                             errors[0] if errors else None)

    return dict(await asyncio.gather(*(one(line) for line in lines)))


def graded_scores(lines: Sequence[GradedLine], judged: Mapping[int, Judgement],
                  weight_map: Mapping[str, float] | None = None,
                  policies: Mapping[str, str] | None = None) -> list[GradedScore]:
    """Every line reduced to a GradedScore, in input order.

    A line with a partition uses it; any other takes its judgement from ``judged``.

    Raises:
        KeyError: a line to judge has no entry in ``judged``.
    """
    examples: list[GradedScore] = []
    for line in lines:
        if line.partition is not None:
            partition, abstained = line.partition, line.abstained
        else:
            partition, abstained, _ = judged[line.number]
        examples.append(GradedScore.from_partition(partition, line.label, abstained=abstained,
                                                   weight_map=weight_map, policies=policies))
    return examples
