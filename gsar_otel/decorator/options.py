"""The records and errors of ``@grounded``: its validated options, what an ``evidence=``
extractor sees of a call, :class:`GroundingError`, and the stand-in for a judge that could not be
built. Cheap to import: nothing here loads pydantic or the evaluator."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from gsar_otel.core.thresholds import THRESHOLD_DEFAULTS, check_threshold_order, check_unit_interval
from gsar_otel.errors import GSARError

if TYPE_CHECKING:
    from gsar_otel.core.evidence import Evidence, EvidenceSet
    from gsar_otel.core.model import GSARThresholds, JudgeOutput
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult
    from gsar_otel.core.scoring import ContradictionPolicy, DisputePolicy

Mode = Literal["inline", "background"]
OnLow = Literal["observe", "raise", "recover"]
MODES: Final = ("inline", "background")
ON_LOW: Final = ("observe", "raise", "recover")
CONTRADICTION_POLICIES: Final = ("cap", "score")
""":data:`gsar_otel.core.scoring.CONTRADICTION_POLICIES`, without importing pydantic."""
DISPUTE_POLICIES: Final = ("flag", "cap")
""":data:`gsar_otel.core.scoring.DISPUTE_POLICIES`, without importing pydantic."""

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
    """The options of one decorated function: ``@grounded``'s keyword arguments, with its
    defaults, validated once when built (at decoration), in plain Python.

    Raises:
        ValueError: an invalid option, naming it and the allowed values (the messages
            ``grounded()`` documents).
    """

    judge: Judge | str | None = None
    evidence: Callable[[GroundedCall], Any] | None = None
    synthesis: Callable[[Any], str] | None = None
    mode: Mode = "inline"
    on_low: OnLow = "observe"
    regenerate_fn: Callable[..., Any] | None = None
    replan_fn: Callable[..., Any] | None = None
    thresholds: GSARThresholds | Mapping[str, float] | None = None
    """A GSARThresholds, or ``{"proceed": .., "regenerate": ..}`` checked here by the model's
    own rules (:mod:`gsar_otel.core.thresholds`) and built by :meth:`thresholds_model`."""
    contradiction_penalty: float | None = None
    k_max: int | None = None
    sample_rate: float = 1.0
    name: str | None = None
    """Reported as ``gsar.function``; None: the function's qualified name."""
    deadline_s: float | None = DEFAULT_DEADLINE_S
    contradiction_policy: ContradictionPolicy | None = None
    """None: the settings' policy."""
    dispute_policy: DisputePolicy | None = None
    """None: the settings' policy."""
    capture: str | os.PathLike[str] | None = None
    """Directory each judged call is written into as a case line, created here (None:
    ``GSAR_CAPTURE_DIR``); held as a ``str`` once checked."""

    def __post_init__(self) -> None:
        _check_judge(self.judge)
        for option in ("evidence", "synthesis", "regenerate_fn", "replan_fn"):
            _check_callable(option, getattr(self, option))
        _check_gate(self.mode, self.on_low, self.regenerate_fn, self.replan_fn)
        checked: dict[str, object] = {"thresholds": _thresholds(self.thresholds)}
        if self.contradiction_penalty is not None:
            checked["contradiction_penalty"] = check_unit_interval(
                "contradiction_penalty", self.contradiction_penalty)
        k_max: object = self.k_max
        if k_max is not None and (isinstance(k_max, bool) or not isinstance(k_max, int)
                                  or k_max < 0):
            raise ValueError(f"k_max must be an integer >= 0, got {k_max!r}")
        _check_choice("contradiction_policy", self.contradiction_policy, CONTRADICTION_POLICIES)
        _check_choice("dispute_policy", self.dispute_policy, DISPUTE_POLICIES)
        rate = checked["sample_rate"] = check_unit_interval("sample_rate", self.sample_rate)
        if self.on_low != "observe" and rate < 1.0:
            raise ValueError(f"sample_rate={self.sample_rate!r} cannot go with "
                             f"on_low={self.on_low!r}: a gate that samples lets unsampled "
                             "answers through unjudged (use 1.0)")
        name: object = self.name
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        deadline: object = self.deadline_s
        if deadline is not None:
            if (isinstance(deadline, bool) or not isinstance(deadline, int | float)
                    or not math.isfinite(deadline) or deadline <= 0):
                raise ValueError(f"deadline_s must be a positive number of seconds or None, "
                                 f"got {deadline!r}")
            checked["deadline_s"] = float(deadline)
        checked["capture"] = _capture_dir(self.capture)
        for field, value in checked.items():
            object.__setattr__(self, field, value)

    def thresholds_model(self) -> GSARThresholds | None:
        """``thresholds`` as a GSARThresholds (None when not given). A mapping was checked by
        the model's rules when these options were built, so it is not validated again."""
        option = self.thresholds
        if option is None:
            return None
        from gsar_otel.core.model import GSARThresholds

        if isinstance(option, GSARThresholds):
            return option
        return GSARThresholds.model_construct(None, **option)


def _check_judge(judge: object) -> None:
    if judge is not None and not isinstance(judge, str) and not callable(
            getattr(judge, "judge", None)):
        raise ValueError("judge must be None, a judge name, or an object with an async "
                         f"judge(*, synthesis, evidence) method; got {type(judge).__name__}")
    if isinstance(judge, str):
        from gsar_otel.judges.factory import BUILTIN_JUDGES
        from gsar_otel.plugins import plugin_judge_names

        known = [*BUILTIN_JUDGES, *plugin_judge_names()]
        if judge.strip().lower() not in known:
            raise ValueError(f"judge {judge!r} is unknown; available: {', '.join(known)}")


def _check_callable(name: str, value: object) -> None:
    if value is not None and not callable(value):
        raise ValueError(f"{name} must be callable or None, got {type(value).__name__}")


def _check_gate(mode: object, on_low: object, regenerate_fn: object, replan_fn: object) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    if on_low not in ON_LOW:
        raise ValueError(f"on_low must be one of {', '.join(map(repr, ON_LOW))}, got {on_low!r}")
    if on_low != "observe" and mode != "inline":
        raise ValueError(f"on_low={on_low!r} needs mode='inline' (a background evaluation "
                         "finishes after the call has returned)")
    if on_low == "recover" and regenerate_fn is None and replan_fn is None:
        raise ValueError("on_low='recover' needs regenerate_fn and/or replan_fn")
    if on_low != "recover" and (regenerate_fn is not None or replan_fn is not None):
        raise ValueError("regenerate_fn and replan_fn are only used with on_low='recover'")


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _thresholds(value: object) -> GSARThresholds | Mapping[str, float] | None:
    """``thresholds=`` checked by GSARThresholds' rules, without building one (pydantic)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        from gsar_otel.core.model import GSARThresholds

        if isinstance(value, GSARThresholds):
            return value
        raise ValueError("thresholds must be a GSARThresholds or a mapping with keys "
                         f"'proceed' and 'regenerate', got {type(value).__name__}")
    unknown = [key for key in value if key not in THRESHOLD_DEFAULTS]
    if unknown:
        raise ValueError(f"thresholds has unknown key {unknown[0]!r}; allowed: "
                         f"{', '.join(map(repr, THRESHOLD_DEFAULTS))}")
    checked = {key: check_unit_interval(f"thresholds.{key}", value[key]) for key in value}
    check_threshold_order(checked.get("proceed", THRESHOLD_DEFAULTS["proceed"]),
                          checked.get("regenerate", THRESHOLD_DEFAULTS["regenerate"]))
    return MappingProxyType(checked)


def _capture_dir(capture: object) -> str | None:
    """The ``capture=`` directory, created and checked at decoration (ValueError if unusable)."""
    if capture is None:
        return None
    if not isinstance(capture, str | os.PathLike) or not os.fspath(capture):
        raise ValueError(f"capture must be a directory path, got {capture!r}")
    from gsar_otel.measure.case_writer import CaptureError, check_directory

    try:
        return str(check_directory(capture))
    except CaptureError as error:
        raise ValueError(str(error)) from None


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
