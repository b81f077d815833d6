"""The judge protocol, and the record of one judge round.

A judge is anything with ``async judge(*, synthesis, evidence) -> JudgeOutput``. A judge that
can say more about a round (tokens used, the model that answered, why it fell back to a safe
default) also implements ``async judge_verdict(...) -> JudgeVerdict``; the evaluator prefers it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import ValidationError

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import Adjustment
from gsar_otel.core.model import JudgeOutput, _Frozen, safe_default_judge_output


@runtime_checkable
class Judge(Protocol):
    """Splits an answer into claims and sorts them into G, U, X and K against the evidence."""

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence``."""
        ...


class JudgeUsage(_Frozen):
    """Tokens one judge round used, as the provider reported them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: JudgeUsage) -> JudgeUsage:
        return JudgeUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            cache_creation_input_tokens=(
                self.cache_creation_input_tokens + other.cache_creation_input_tokens
            ),
        )

    @property
    def total_tokens(self) -> int:
        """All tokens billed for the round."""
        return (self.input_tokens + self.output_tokens + self.cache_read_input_tokens
                + self.cache_creation_input_tokens)


class GuardMemo(_Frozen):
    """The integrity guard's report on a verdict, recorded beside it (in a cassette).

    Kept as JSON data, read only when :mod:`gsar_otel.core.guard_memo` finds that ``digest``
    matches the verdict, answer, evidence, guard options and guard code of the round at hand;
    any other memo is ignored and the guard runs.
    """

    digest: str
    adjustments: tuple[dict[str, Any], ...] = ()
    """The guard's adjustments, as JSON data."""
    output: dict[str, Any] | None = None
    """The repaired output, as JSON data; only when there are adjustments."""


class TierCounts(_Frozen):
    """How a tiered judge settled one answer's claims (``gsar.judge.claims``)."""

    settled: int = 0
    """Claims the offline tier settled (verified, contradicted, absent, advice)."""
    escalated: int = 0
    """Claims sent to the model tier (in one call)."""
    over_cap: int = 0
    """Claims left unverified because ``max_escalated_claims`` was reached."""
    no_model: int = 0
    """Claims left unverified because no model tier is configured (no API key)."""
    model_tier: str = ""
    """Why the model tier was not called, when it was not: ``no_api_key``, ``all_settled``."""


class JudgeVerdict(_Frozen):
    """One judge round: the output and what is known about how it was produced."""

    output: JudgeOutput
    usage: JudgeUsage | None = None
    model: str | None = None
    error_type: str | None = None
    """Set when the output is a safe default standing in for a failure (e.g. 'RateLimitError')."""
    duration_s: float = 0.0
    attempts: int = 1
    guard_memo: GuardMemo | None = None
    """The guard's recorded report on ``output``, when the verdict was replayed with one."""
    notes: tuple[Adjustment, ...] = ()
    """What the judge itself changed or reports about its output (a tiered judge: a claim the
    model left out, renamed or added); kept with the integrity guard's adjustments."""
    tiers: TierCounts | None = None
    """A tiered judge's split of the claims between its tiers."""


def judge_name(judge: object) -> str:
    """A short, stable name for a judge: its ``name`` attribute, else its class name."""
    name = getattr(judge, "name", None)
    return name if isinstance(name, str) and name else type(judge).__name__


def judge_model(judge: object) -> str | None:
    """The model behind a judge, when it has one."""
    model = getattr(judge, "model", None)
    return model if isinstance(model, str) and model else None


@dataclass(frozen=True, slots=True)
class _Timer:
    start: float

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


async def run_judge(judge: Judge, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
    """Run one judge round; a judge that raises or returns garbage yields an abstain verdict.

    ``asyncio.CancelledError`` and other BaseExceptions propagate: cancellation is the caller's.
    """
    timer = _Timer(time.perf_counter())
    try:
        verdict_fn = getattr(judge, "judge_verdict", None)
        if callable(verdict_fn):
            verdict = await verdict_fn(synthesis=synthesis, evidence=evidence)
            if isinstance(verdict, JudgeVerdict):
                if verdict.duration_s:
                    return verdict
                return verdict.model_copy(update={"duration_s": timer.elapsed()})
            result: object = verdict
        else:
            result = await judge.judge(synthesis=synthesis, evidence=evidence)
    except Exception as error:  # a failing judge is an abstain, not a crash
        kind = type(error).__name__
        return JudgeVerdict(
            output=safe_default_judge_output(f"judge raised {kind}"),
            model=judge_model(judge),
            error_type=kind,
            duration_s=timer.elapsed(),
        )
    if not isinstance(result, JudgeOutput):
        kind = type(result).__name__
        return _invalid(judge, f"judge returned {kind}, not a JudgeOutput", timer)
    try:
        # A JudgeOutput built with model_construct() skipped validation (a NaN score, an abstain
        # without a reason): check it once more so nothing unvalidated reaches scoring.
        result = JudgeOutput.model_validate(result.model_dump())
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'output'}: {e['msg']}"
                             for e in error.errors())
        return _invalid(judge, f"judge returned an invalid JudgeOutput: {problems}", timer)
    return JudgeVerdict(output=result, model=judge_model(judge), duration_s=timer.elapsed())


def _invalid(judge: object, reason: str, timer: _Timer) -> JudgeVerdict:
    return JudgeVerdict(
        output=safe_default_judge_output(reason),
        model=judge_model(judge),
        error_type="InvalidJudgeOutput",
        duration_s=timer.elapsed(),
    )
