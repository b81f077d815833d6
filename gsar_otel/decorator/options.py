"""The records and errors of ``@grounded``: its validated options, what an ``evidence=``
extractor sees of a call, :class:`GroundingError`, and the stand-in for a judge that could not be
built. Cheap to import: nothing here loads pydantic or the evaluator."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from gsar_otel.errors import GSARError

if TYPE_CHECKING:
    from gsar_otel.core.evidence import Evidence, EvidenceSet
    from gsar_otel.core.model import GSARThresholds, JudgeOutput
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult
    from gsar_otel.core.scoring import ContradictionPolicy, DisputePolicy

Mode = Literal["inline", "background"]
OnLow = Literal["observe", "raise", "recover"]

DEFAULT_DEADLINE_S: Final = 120.0
"""Seconds one ``@grounded`` evaluation may take by default (all judge rounds, the integrity
guard and recovery callbacks). Above AnthropicJudge's own round deadline (100 s), so a slow
provider shows the judge's reason; a round cut off here abstains with ``DeadlineExceeded``."""


class GroundingError(GSARError):
    """Raised by ``@grounded(on_low="raise")`` when the final decision is not ``proceed``, and
    by ``raise`` and ``recover`` gates when the call could not be judged at all (the result is
    then an abstain whose reason says why, e.g. an extractor failed).

    Attributes:
        result: the :class:`~gsar_otel.core.evaluator.GSARResult` behind the decision.
        function: the name of the decorated function.
    """

    def __init__(self, result: GSARResult, function: str) -> None:
        self.result = result
        self.function = function
        super().__init__(grounding_error_message(result, function))


def grounding_error_message(result: GSARResult, function: str) -> str:
    """The decision and score, what capped the decision if a policy did, then every claim that
    is not grounded (bucket, evidence type, cited evidence, text) and the judge's abstain reason;
    secret-shaped text masked."""
    from gsar_otel.core.result import shortfall_lines
    from gsar_otel.plugins import mask

    head = (f"{function}: grounding decision {result.final_decision.value!r} "
            f"(score {result.final_score:.2f}) is not 'proceed'")
    lines = [head]
    output = result.final_judge_output
    if output.abstained and output.abstain_reason:
        lines[0] += f": {output.abstain_reason}"
    if result.cap_note:
        lines.append(result.cap_note)
    lines.extend(shortfall_lines(result.final_partition))
    # The message reaches logs and tracebacks, and claims quote the answer: the built-in
    # masking, then the gsar_redact plugins (a failing plugin hides the claim lines).
    message = mask("\n".join(lines), "explanation")
    return message if message is not None else f"{head} (details hidden: redaction failed)"


@dataclass(frozen=True, slots=True)
class GroundedCall:
    """What an ``evidence=`` extractor sees of one call."""

    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    result: Any
    collected: tuple[Evidence, ...]
    """Evidence recorded during the call (``record_evidence`` / ``@tool_evidence``)."""


@dataclass(frozen=True, slots=True)
class GroundedOptions:
    """The validated options of one decorated function."""

    judge: Judge | str | None
    evidence: Callable[[GroundedCall], Any] | None
    synthesis: Callable[[Any], str] | None
    mode: Mode
    on_low: OnLow
    regenerate_fn: Callable[..., Any] | None
    replan_fn: Callable[..., Any] | None
    thresholds: GSARThresholds | Mapping[str, float] | None
    """A GSARThresholds, or ``{"proceed": .., "regenerate": ..}`` already checked by the
    decorator (built into a GSARThresholds on the first judged call)."""
    contradiction_penalty: float | None
    k_max: int | None
    sample_rate: float
    deadline_s: float | None = DEFAULT_DEADLINE_S
    contradiction_policy: ContradictionPolicy | None = None
    """None: the settings' policy."""
    dispute_policy: DisputePolicy | None = None
    """None: the settings' policy."""
    capture: str | None = None
    """Directory each judged call is written into as a case line (None: ``GSAR_CAPTURE_DIR``)."""


_LAST_RESULT: ContextVar[GSARResult | None] = ContextVar("gsar_last_result", default=None)


def last_result() -> GSARResult | None:
    """The result of the last inline ``@grounded`` call this thread or task made (None before
    any): how code reads the verdict of an ``observe`` call, or the full report behind a
    ``recover`` call's text. A background call sets nothing (use the ``gsar_on_result`` hook).
    Each thread and each asyncio task sees its own calls."""
    return _LAST_RESULT.get()


def set_last_result(result: GSARResult | None) -> None:
    """Remember ``result`` as :func:`last_result` in the current context."""
    if result is not None:
        _LAST_RESULT.set(result)


class JudgeUnavailableError(RuntimeError, GSARError):
    """The configured judge could not be built (e.g. no API key): its calls abstain."""


class UnavailableJudge:
    """Stands in for a judge that could not be built; every round fails with the reason."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        raise JudgeUnavailableError(f"judge {self.name!r} is unavailable: {self.reason}")
