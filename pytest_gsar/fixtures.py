"""What the ``assert_grounded``, ``gsar_judge`` and ``gsar_evaluator`` fixtures return."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_gsar.errors import GroundingFailure
from pytest_gsar.judging import build_evaluator, judge_in_test

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.result import GSARResult
    from gsar_otel.judges.recorded.judge import RecordingJudge


class AssertGrounded:
    """``assert_grounded(synthesis, evidence, *, min_score=None, decision=None, judge=None,
    **evaluator_options)``: judge an answer and fail the test when it is not grounded enough.

    Returns the GSARResult. The failure message shows S, the decision and every claim that is
    not grounded, with its bucket, evidence type, cited evidence ids and the integrity guard's
    adjustments. ``evaluator_options`` go to GSAREvaluator (``thresholds``,
    ``contradiction_penalty``, ``weight_map``, ``regenerate_fn``, ``replan_fn``...).
    """

    def __init__(self, item: pytest.Item) -> None:
        self._item = item

    def __call__(self, synthesis: str, evidence: Any = None, *, min_score: float | None = None,
                 decision: str | None = None, judge: object = None,
                 **evaluator_options: Any) -> GSARResult:
        __tracebackhide__ = True
        return judge_in_test(self._item, synthesis, evidence, min_score=min_score,
                             decision=decision, judge=judge,
                             evaluator_options=evaluator_options)

    def __repr__(self) -> str:
        return f"<assert_grounded for {self._item.nodeid}>"


def evaluator_for(item: pytest.Item) -> tuple[GSAREvaluator, RecordingJudge | None]:
    """A GSAREvaluator with the test's judge (behind its cassette unless the judge is
    deterministic) and the GSAR_CONFIG settings, and the recording judge when there is one."""
    __tracebackhide__ = True
    return build_evaluator(item)


def finish_recordings(recording: RecordingJudge | None) -> None:
    """After a test that used ``gsar_judge`` / ``gsar_evaluator``: write what it recorded, and
    fail when a verdict it needed was not recorded (the evaluator turns a miss into an abstain).
    """
    __tracebackhide__ = True
    if recording is None:
        return
    recording.store.save()
    if recording.cassette_errors:
        raise GroundingFailure(str(recording.cassette_errors[0]))
    if recording.misses:
        raise GroundingFailure(recording.misses[0].message)
