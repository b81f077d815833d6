"""What a judgement inside a test must reach: the decision (``proceed`` unless the test names
another, or ``any`` for none) and, when given, ``min_score`` as well."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pytest_gsar.errors import GroundingFailure

if TYPE_CHECKING:
    from gsar_otel.core.result import GSARResult

DECISIONS: Final = ("proceed", "regenerate", "replan", "abstain")
ANY_DECISION: Final = "any"
"""``decision="any"`` (``"expect": "any"`` in a case file) turns the decision check off: only
``min_score`` (and that the judge did not abstain) is checked."""
NOT_PROCEED: Final = "not_proceed"
"""``decision="not_proceed"`` (``"expect": "not_proceed"``): any decision but proceed, for
fixtures of known-bad answers whose exact decision does not matter."""
EXPECTATIONS: Final = (*DECISIONS, ANY_DECISION, NOT_PROCEED)
_EPSILON: Final = 1e-9


def check_min_score(value: object, source: str) -> float | None:
    """``min_score`` as a float in [0, 1], or None when not given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise GroundingFailure(f"{source} must be a number between 0 and 1, got {value!r}")
    return float(value)


def check_decision(value: object, source: str) -> str | None:
    """A decision name or ``any``, lower-cased, or None when not given."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text not in EXPECTATIONS:
        raise GroundingFailure(f"{source} must be one of {', '.join(EXPECTATIONS)}, "
                               f"got {value!r}")
    return text


def unverified_abstain(result: GSARResult) -> bool:
    """True when the judge abstained because too few of the answer's claims could be checked
    against the evidence (the offline judge's ``unverified`` reason)."""
    from gsar_otel.judges.records.judge import UNVERIFIED_ABSTAIN

    reason = result.final_judge_output.abstain_reason or ""
    return str(result.final_decision) == "abstain" and reason.startswith(UNVERIFIED_ABSTAIN)


def expectation_problems(result: GSARResult, *, min_score: float | None,
                         decision: str | None, strict: bool = False) -> list[str]:
    """Why ``result`` misses the test's expectations; empty when it meets them.

    The decision must be ``decision`` (default ``proceed``; ``"any"`` checks none;
    ``"not_proceed"`` any but proceed) and S must
    reach ``min_score`` when one is given: both checks apply together. An ``unverified``
    abstain meets a ``proceed`` (or ``any``) expectation unless ``strict``: the offline judge
    could not check enough of the answer to refuse it, and every claim it could check held."""
    actual = str(result.final_decision)
    expected = "proceed" if decision is None else decision
    if not strict and expected in ("proceed", ANY_DECISION) and unverified_abstain(result):
        actual = expected
    problems = []
    if expected == NOT_PROCEED:
        if actual == "proceed":
            problems.append("decision is proceed, expected anything but proceed (not_proceed)")
    elif expected != ANY_DECISION and actual != expected:
        problem = f"decision is {actual}, expected {expected}"
        if min_score is not None and decision is None:
            problem += " (min_score adds to the decision check; decision='any' turns it off)"
        problems.append(problem)
    if min_score is not None and result.final_score < min_score - _EPSILON:
        problems.append(f"S = {result.final_score:.2f} is below min_score {min_score:.2f}")
    if actual == "abstain" and expected not in ("abstain", NOT_PROCEED) and (
            min_score is not None or expected == ANY_DECISION):
        reason = result.final_judge_output.abstain_reason or "no reason given"
        problems.append(f"the judge abstained ({reason})")
    return problems
