"""The fields a captured case adds to a case-file line (``trace_id``, ``run_id``, ``sources``,
``recorded``; written by ``@grounded(capture=DIR)``, ``gsar sidecar --capture-cases`` and ``gsar
cases import``), checked at collection, and what they change when the case runs: without
``expect`` the case must reach the recorded decision, and a failure names the trace it came from
and what was recorded (a changed answer or judge reads as a regression against the recording)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel.measure.captured import CAPTURE_FIELDS, RECORDED_KEYS

__all__ = ["CAPTURE_FIELDS", "Recorded", "check_capture_fields"]

DECISIONS: Final = ("proceed", "regenerate", "replan", "abstain")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a captured case recorded: its trace and run, and the verdict at capture."""

    trace_id: str | None
    run_id: str | None
    decision: str | None
    score: float | None
    judge: str | None

    def describe(self) -> str:
        """One line for a failure: where the case came from and what was recorded."""
        parts = []
        if self.trace_id:
            parts.append(f"trace {self.trace_id}" + (f" run {self.run_id}" if self.run_id
                                                     else ""))
        verdict = []
        if self.decision:
            verdict.append(f"decision {self.decision}")
        if self.score is not None:
            verdict.append(f"S = {self.score:.2f}")
        if self.judge:
            verdict.append(f"judge {self.judge}")
        head = "recorded from " + " ".join(parts) if parts else "recorded"
        return f"{head}: {', '.join(verdict)}" if verdict else head


def check_capture_fields(data: Mapping[str, Any]) -> Recorded | None:
    """The capture fields of a parsed line (None when it has none).

    Raises:
        ValueError: a field of the wrong shape, saying which.
    """
    if not any(name in data for name in CAPTURE_FIELDS):
        return None
    ids = {}
    for name in ("trace_id", "run_id"):
        value = data.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()
                                  or len(value) > 128):
            raise ValueError(f"field {name!r} must be a non-empty string of at most 128 "
                             f"characters")
        ids[name] = value
    sources = data.get("sources")
    if sources is not None and not (isinstance(sources, list) and all(
            isinstance(s, dict) for s in sources)):
        raise ValueError("field 'sources' must be a list of objects")
    recorded = data.get("recorded", {})
    if not isinstance(recorded, dict):
        raise ValueError("field 'recorded' must be an object")
    unknown = sorted(set(recorded) - set(RECORDED_KEYS))
    if unknown:
        raise ValueError(f"field 'recorded' has unknown key(s) {', '.join(map(repr, unknown))}; "
                         f"allowed: {', '.join(RECORDED_KEYS)}")
    decision = recorded.get("decision")
    if decision is not None and decision not in DECISIONS:
        raise ValueError(f"field 'recorded': decision must be one of {', '.join(DECISIONS)}, "
                         f"got {decision!r}")
    score = recorded.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)
                              or not 0 <= score <= 1):
        raise ValueError(f"field 'recorded': score must be a number in [0, 1], got {score!r}")
    judge = recorded.get("judge")
    if judge is not None and not isinstance(judge, str):
        raise ValueError("field 'recorded': judge must be a string")
    return Recorded(trace_id=ids["trace_id"], run_id=ids["run_id"], decision=decision,
                    score=None if score is None else float(score), judge=judge)
