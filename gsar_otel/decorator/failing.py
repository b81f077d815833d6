"""What ``@grounded`` does when it cannot judge a call: a ``raise`` or ``recover`` gate fails
closed (it raises, never lets the unchecked answer through); an ``observe`` call returns as
without the decorator, and the miss is counted in telemetry, not only logged.

Also here: running the caller's extractors so that no BaseException of theirs (other than
``KeyboardInterrupt`` / ``SystemExit``) reaches the host as anything but a recorded failure
(:class:`gsar_otel.runtime.guards.absorb`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import semconv as sc
from gsar_otel.errors import GSARError
from gsar_otel.runtime.guards import absorb

if TYPE_CHECKING:
    from gsar_otel.core.result import GSARResult

logger = logging.getLogger(__name__)


class ExtractorError(GSARError):
    """An ``evidence=`` or ``synthesis=`` extractor raised; ``kind`` names what it raised."""

    def __init__(self, which: str, error: BaseException) -> None:
        self.kind = type(error).__name__
        super().__init__(f"the {which} extractor raised {self.kind}")


def call_extractor(which: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; anything it raises but KeyboardInterrupt / SystemExit becomes
    :class:`ExtractorError` (a CancelledError raised by sync code is never a real cancellation).
    """
    # A CancelledError raised by sync code is the extractor's: no cancellation of the caller's.
    with absorb(cancellation=False) as caught:
        return fn(*args)
    assert caught.error is not None
    raise ExtractorError(which, caught.error) from caught.error


def reported(error: BaseException) -> BaseException:
    """What a span names for ``error``: what the extractor raised, not our wrapper of it."""
    cause = error.__cause__ if isinstance(error, ExtractorError) else None
    return cause or error


def failure_kind(error: BaseException) -> str:
    """The type name to report for a failure: the extractor's error, else the error's own."""
    return error.kind if isinstance(error, ExtractorError) else type(error).__name__


def failure_result(answer: object, reason: str, kind: str, judge: str = "") -> GSARResult:
    """An abstain result standing for a call that could not be judged (``judge_errors`` holds
    ``kind``), for the :class:`GroundingError` a failing-closed gate raises."""
    return _abstain(answer if isinstance(answer, str) else "", f"not judged: {reason}", judge,
                    judge_error=kind)


def _abstain(answer: str, explanation: str, judge: str, *, judge_error: str | None = None,
             degraded_reason: str | None = None) -> GSARResult:
    """One round that did not call the judge: an abstain with no claims and no evidence."""
    from gsar_otel.core.evidence import EvidenceSet
    from gsar_otel.core.model import Decision, safe_default_judge_output
    from gsar_otel.core.result import GSAREvaluation, GSARResult

    output = safe_default_judge_output(explanation)
    evidence = EvidenceSet()
    entry = GSAREvaluation(iteration=0, score=0.0, decision=Decision.ABSTAIN, judge_output=output,
                           report_synthesis=answer, evidence_corpus=evidence,
                           judge_error=judge_error)
    return GSARResult(final_report=answer, final_score=0.0, final_decision=Decision.ABSTAIN,
                      final_partition=output.to_partition(), final_judge_output=output,
                      final_evidence=evidence, trajectory=(entry,), judge_name=judge,
                      degraded=degraded_reason is not None, degraded_reason=degraded_reason)


NO_EVIDENCE_REASON: Final = (
    "no_evidence: the call recorded no evidence, so nothing was judged; give it evidence with "
    "a @tool_evidence tool called inside the decorated function, an evidence= extractor, or "
    "record_evidence()")
"""The abstain reason of a call judged against no evidence (in ``GroundingError`` too)."""


def count_skipped(function: str, reason: str) -> None:
    """Count one call left unjudged in ``gsar.evaluations.degraded`` with ``reason`` as its
    ``gsar.degraded.reason`` (never raises)."""
    try:
        from gsar_otel.otel.instruments import get_telemetry

        get_telemetry().instruments.degraded.add(
            1, {sc.GSAR_FUNCTION: function, sc.GSAR_DEGRADED_REASON: reason})
    except Exception:
        logger.debug("gsar: counting an unjudged call failed", exc_info=True)
