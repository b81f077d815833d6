"""``@grounded``: judge what an agent function returns, against the evidence it gathered.

::

    @grounded                                  # or @grounded(on_low="raise", k_max=1, ...)
    async def answer(question: str) -> str:
        rows = await query_metrics(question)   # a @tool_evidence tool: its result is evidence
        record_evidence(alert_text)            # or record evidence by hand
        return await llm(question, rows)

Every call is judged (in observe mode ``sample_rate`` and ``GSAR_SAMPLE_RATE`` can thin that out;
``raise`` and ``recover`` judge every call) and reported as
a ``gsar.evaluate`` span under the caller's span, with metrics (see :mod:`gsar_otel.otel.traced`).

What the decorated function returns or raises never changes because of judging or telemetry:
with ``on_low="observe"`` (the default) the caller gets the very same object back, and the same
exception, as without the decorator, even when the judge, the exporter or an extractor fails.
Two options change the outcome on purpose:

- ``on_low="raise"``: :class:`GroundingError` when the final decision is not ``proceed``. This
  gate fails closed: a round whose judge itself failed (e.g. the provider was down) or ran past
  the deadline is an ``abstain`` and raises too, with the judge's error type in
  ``error.result.judge_errors``; a call that could not be judged at all (a non-``str`` result
  without ``synthesis=``, an extractor that raised) raises :class:`GroundingError` with an
  abstain result that says why; invalid settings (``GSAR_PROCEED=2``, a ``GSAR_CONFIG`` naming
  a missing file ...) raise :class:`~gsar_otel.config.SettingsError` naming the variable and
  the allowed values, on every call, before the function runs. The answer never gets through
  unchecked.
- ``on_low="recover"``: the evaluator loop runs ``regenerate_fn`` / ``replan_fn`` until the answer
  proceeds or the budget ends, and the call returns the loop's final report (a ``str``). When the
  final report is the original answer (it proceeded at once, or nothing better was found) the
  original object is returned, so a function whose result is not a ``str`` (judged through
  ``synthesis=``) gets its own object back unless the loop produced a new text. Exceptions raised
  by ``regenerate_fn`` / ``replan_fn`` propagate unchanged: they are the caller's code. Like
  ``raise``, this gate fails closed when a call cannot be judged or the settings are invalid.

In ``observe`` mode invalid settings turn grounding off for the function (one WARNING) and every
call left unjudged is counted in ``gsar.evaluations.degraded`` (``gsar.degraded.reason=
invalid_settings``); a call that could not be judged returns as without the
decorator and its ``gsar.evaluate`` span carries ``error.type``.

Every evaluation has a deadline (``deadline_s``, default 120 s): judging and the integrity guard
stop waiting at it, and the round abstains with ``DeadlineExceeded`` (``gsar.degraded.reason=
deadline`` on the span). A synchronous judge (LexicalJudge, StagedJudge) runs on a bounded
worker pool, so an async host's event loop keeps running while it judges; work abandoned at
the deadline finishes in that pool (a thread cannot be killed) and its result is dropped (see
:mod:`gsar_otel.core.judge_round`).

Cancelling an async call cancels its judging too; the ``CancelledError`` propagates. No other
BaseException from judging or an extractor reaches the caller (a judge raising
``CancelledError`` by itself or ``GeneratorExit`` is an abstain naming it); only
``KeyboardInterrupt`` and ``SystemExit`` always propagate.

Decorating is cheap: the options are gathered into one
:class:`~gsar_otel.decorator.options.GroundedOptions`, checked once in plain Python, and pydantic,
asyncio, the settings, the evaluator and the OpenTelemetry SDK load on the first call.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar, overload

from gsar_otel.core import thresholds as core_thresholds
from gsar_otel.decorator.grounding import GroundedFunction
from gsar_otel.decorator.options import (
    CONTRADICTION_POLICIES,
    DEFAULT_DEADLINE_S,
    DISPUTE_POLICIES,
    MODES,
    ON_LOW,
    GroundedCall,
    GroundedOptions,
    GroundingError,
    Mode,
    OnLow,
    last_result,
)
from gsar_otel.decorator.running import merge_evidence
from gsar_otel.otel.background import flush

if TYPE_CHECKING:
    from gsar_otel.core.model import GSARThresholds
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.scoring import ContradictionPolicy, DisputePolicy

__all__ = ["CONTRADICTION_POLICIES", "DISPUTE_POLICIES", "MODES", "ON_LOW", "GroundedCall",
           "GroundedOptions", "GroundingError", "flush", "grounded", "last_result",
           "merge_evidence"]

P = ParamSpec("P")
R = TypeVar("R")

THRESHOLD_DEFAULTS: Final = core_thresholds.THRESHOLD_DEFAULTS
"""The defaults of :class:`~gsar_otel.core.model.GSARThresholds`, for a mapping with one key."""


def _wrap(fn: Callable[P, R], options: GroundedOptions) -> Callable[P, R]:
    if not callable(fn):
        raise TypeError(f"@grounded decorates a function, got {type(fn).__name__}")
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"@grounded cannot judge the generator function {fn.__qualname__}: "
                        "decorate the function that returns the final answer")
    function: str = (options.name or getattr(fn, "__qualname__", None)
                     or getattr(fn, "__name__", None) or "function")
    core = GroundedFunction(fn, options, function.strip())

    if inspect.iscoroutinefunction(fn):
        async_fn: Callable[..., Awaitable[Any]] = fn

        @functools.wraps(fn)
        async def async_shell(*args: Any, **kwargs: Any) -> Any:
            capture = core.start()
            if capture is None:
                return await async_fn(*args, **kwargs)
            try:
                result = await async_fn(*args, **kwargs)
            finally:
                core.stop(capture)
            if core.background:
                core.submit(result, args, kwargs, capture[0])
                return result
            return await core.judge_inline(result, args, kwargs, capture[0])

        async_shell.__gsar_grounded__ = core  # type: ignore[attr-defined]
        return async_shell  # type: ignore[return-value]

    @functools.wraps(fn)
    def shell(*args: Any, **kwargs: Any) -> Any:
        capture = core.start()
        if capture is None:
            return fn(*args, **kwargs)
        try:
            result = fn(*args, **kwargs)
        finally:
            core.stop(capture)
        if core.background:
            core.submit(result, args, kwargs, capture[0])
            return result
        return core.judge_inline_sync(result, args, kwargs, capture[0])

    shell.__gsar_grounded__ = core  # type: ignore[attr-defined]
    return shell


@overload
def grounded(judge: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def grounded(
    judge: Judge | str | None = None,
    evidence: Callable[[GroundedCall], Any] | None = None,
    synthesis: Callable[[Any], str] | None = None,
    mode: Mode = "inline",
    on_low: OnLow = "observe",
    regenerate_fn: Callable[..., Any] | None = None,
    replan_fn: Callable[..., Any] | None = None,
    thresholds: GSARThresholds | Mapping[str, float] | None = None,
    contradiction_penalty: float | None = None,
    k_max: int | None = None,
    sample_rate: float = 1.0,
    name: str | None = None,
    deadline_s: float | None = DEFAULT_DEADLINE_S,
    contradiction_policy: ContradictionPolicy | None = None,
    dispute_policy: DisputePolicy | None = None,
    capture: str | os.PathLike[str] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def grounded(
    judge: Any = None,
    evidence: Callable[[GroundedCall], Any] | None = None,
    synthesis: Callable[[Any], str] | None = None,
    mode: Mode = "inline",
    on_low: OnLow = "observe",
    regenerate_fn: Callable[..., Any] | None = None,
    replan_fn: Callable[..., Any] | None = None,
    thresholds: GSARThresholds | Mapping[str, float] | None = None,
    contradiction_penalty: float | None = None,
    k_max: int | None = None,
    sample_rate: float = 1.0,
    name: str | None = None,
    deadline_s: float | None = DEFAULT_DEADLINE_S,
    contradiction_policy: ContradictionPolicy | None = None,
    dispute_policy: DisputePolicy | None = None,
    capture: str | os.PathLike[str] | None = None,
) -> Any:
    """Judge every answer a function returns, and report it as OpenTelemetry.

    Usable bare (``@grounded``) or with options (``@grounded(...)``), on sync and async functions.

    Args:
        judge: a Judge, or a judge name (``staged``, ``lexical``, ``anthropic``, a plugin's);
            default: ``GSAR_JUDGE`` / the settings file, else ``anthropic`` when
            ``ANTHROPIC_API_KEY`` is set, else ``staged``. Built on first use, once.
        evidence: ``evidence(call) -> evidence`` where ``call`` has ``.args``, ``.kwargs``,
            ``.result`` and ``.collected``; added after the evidence recorded during the call
            (colliding ids are renumbered).
        synthesis: ``synthesis(result) -> str``: the text to judge when the result is not a str.
        mode: ``"inline"`` judges before returning; ``"background"`` returns at once and judges
            on a worker (extractors then run on the worker's thread).
        on_low: ``"observe"``, ``"raise"`` or ``"recover"`` (see the module docs).
        regenerate_fn: ``(synthesis, judge_output) -> str``, sync or async (``recover`` only).
        replan_fn: ``(synthesis, evidence, judge_output) -> (synthesis, evidence)`` (``recover``).
        thresholds: a GSARThresholds or ``{"proceed": .., "regenerate": ..}``.
        contradiction_penalty: rho in [0, 1].
        k_max: replan budget.
        sample_rate: share of calls judged, multiplied by ``GSAR_SAMPLE_RATE``.
        name: the name reported as ``gsar.function`` (default: the function's qualified name).
        deadline_s: seconds one evaluation may take (default 120; None: no bound); see above.
        contradiction_policy: ``"cap"``: a contradicted or unsupported tool-backed claim caps
            the decision at regenerate; ``"score"``: S alone decides (default:
            ``GSAR_CONTRADICTION_POLICY`` / the settings file, else ``"cap"``).
        dispute_policy: ``"flag"``: a claim a model judge grounded but the offline engine
            contradicts is reported and counted; ``"cap"``: it caps the decision at regenerate
            (default: ``GSAR_DISPUTE_POLICY`` / the settings file, else ``"flag"``).
        capture: a directory each judged call is written into as a case-file line the pytest
            plugin collects (default: ``GSAR_CAPTURE_DIR``, else none; created if missing).

    Explicit arguments beat ``GSAR_*`` variables, which beat the settings file.

    Raises:
        ValueError: an invalid option, at decoration time, naming it and the allowed values;
            with ``on_low="raise"`` / ``"recover"``, invalid settings at every call
            (:class:`~gsar_otel.config.SettingsError`).
        TypeError: decorating something that is not a plain or async function.
    """
    if callable(judge) and not callable(getattr(judge, "judge", None)) and evidence is None \
            and synthesis is None and mode == "inline" and on_low == "observe" \
            and regenerate_fn is None and replan_fn is None and thresholds is None \
            and contradiction_penalty is None and k_max is None and sample_rate == 1.0 \
            and name is None and deadline_s == DEFAULT_DEADLINE_S \
            and contradiction_policy is None and dispute_policy is None and capture is None:
        return _wrap(judge, GroundedOptions())  # bare @grounded: the function is `judge`
    options = GroundedOptions(
        judge=judge, evidence=evidence, synthesis=synthesis, mode=mode, on_low=on_low,
        regenerate_fn=regenerate_fn, replan_fn=replan_fn, thresholds=thresholds,
        contradiction_penalty=contradiction_penalty, k_max=k_max, sample_rate=sample_rate,
        name=name, deadline_s=deadline_s, contradiction_policy=contradiction_policy,
        dispute_policy=dispute_policy, capture=capture)

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        return _wrap(fn, options)

    return decorate
