"""AnthropicJudge: the production GSAR judge, on Claude through the official ``anthropic`` SDK.

One judge round is one Messages API call (two when the first reply needs repair). The verdict
comes back as constrained JSON (structured output, the default) or as the input of a forced tool
call (``output_mode="tool"``, for models or gateways without structured output). The fixed system
prompt is sent as a cacheable prefix, and the usage the API reports is kept on every
:class:`~gsar_otel.core.protocol.JudgeVerdict`.

The judge never raises into the caller (``asyncio.CancelledError`` aside): a rate limit or
overload that outlasts the SDK's own retries, a server error, a timeout, a connection error, a
refusal, a reply cut at ``max_tokens``, invalid JSON or a schema violation all end in a safe
default (abstain) whose ``abstain_reason`` says what happened and whose ``error_type`` telemetry
counts. Invalid output first gets one repair attempt that shows the model its validation error;
if that fails too, the valid claims are salvaged when there are any.

The SDK records its own OpenTelemetry client span for each call; this module adds none. The API
key stays inside the SDK client: it is never logged, put in a reason or shown by ``repr``.

The SDK client (credentials, one per event loop, failure classification) is in
:mod:`~gsar_otel.judges.anthropic.client`; reading a reply is in
:mod:`~gsar_otel.judges.anthropic.reply`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import re
import time
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import environment
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput, check_unit_interval, safe_default_judge_output
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.judges.anthropic.client import (
    DEADLINE_EXCEEDED,
    DEFAULT_DEADLINE_S,
    DEFAULT_TIMEOUT_S,
    MISSING_KEY_MESSAGE,
    LoopClients,
    api_message,
    call_failure,
    prepare_client,
)
from gsar_otel.judges.anthropic.logs import install_log_redaction
from gsar_otel.judges.anthropic.payload import (
    ERROR_INVALID_JSON,
    ERROR_SCHEMA,
    VerdictProblem,
    salvage_verdict,
)
from gsar_otel.judges.anthropic.prompt import (
    CLAIMS_SYSTEM_PROMPT,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    VERDICT_TOOL_NAME,
    OutputMode,
    compact_verdict_schema,
    render_repair_prompt,
    render_user_prompt,
    verdict_schema,
    verdict_tool,
)
from gsar_otel.judges.anthropic.reply import RoundState, history, parse_reply, stop_failure
from gsar_otel.semconv import ENV_JUDGE_MODEL

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import Message

logger = logging.getLogger(__name__)

DEFAULT_MODEL: Final = "claude-sonnet-5-5"
"""The newest Claude Sonnet the installed SDK names (``anthropic.types.Model``)."""
DEFAULT_MAX_TOKENS: Final = 4096
DEFAULT_MAX_CONCURRENCY: Final = 4
OUTPUT_MODES: Final = ("structured", "tool")

SAMPLING_REMOVED_API_VERSION: Final = "2026-10-21"
"""From this Messages API version on, temperature / top_p / top_k are rejected with HTTP 400."""

_MODEL_VERSION: Final = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?!\d)")


class AnthropicJudge:
    """The GSAR judge on Claude: structured verdicts, cached prompt, retries and safe fallbacks.

    Args:
        model: Claude model id; default ``GSAR_JUDGE_MODEL``, else :data:`DEFAULT_MODEL`.
        client: An ``anthropic.AsyncAnthropic`` to use as is (any ``base_url``, auth, proxy).
            Without one the judge builds its own from ``ANTHROPIC_API_KEY`` (or
            ``ANTHROPIC_AUTH_TOKEN``) and ``ANTHROPIC_BASE_URL``, one per event loop.
        max_tokens: Output budget of one verdict.
        timeout: Seconds per API attempt (default 60 for an own client, else the client's).
        max_retries: SDK retries on 429/5xx/529/timeouts (default 2, else the client's).
        temperature: Sampling temperature, sent only where the API version and model accept one
            (API versions before 2026-10-21 and models before the 4.7 generation); None never
            sends it.
        system_prompt: Replaces the built-in judging rules (changes :attr:`identity`).
        prompt_caching: Mark the system prompt as a cacheable prefix (``cache_control``).
        max_concurrency: Most calls in flight at once, per event loop.
        output_mode: ``"structured"`` (constrained JSON) or ``"tool"`` (forced tool call).
        deadline_s: Seconds one judge round may take in all: waiting for a concurrency slot,
            every attempt, the SDK's retries and their back-off, including a ``retry-after``
            the API asks for (default :data:`DEFAULT_DEADLINE_S`; None: no bound). A round
            still running at its deadline is stopped and abstains with
            ``error_type="DeadlineExceeded"``.
        second_opinion: After the model grounds a claim, check its typed values against the
            records offline; a claim whose record holds another value for the attribute it
            names is marked ``disputed`` (the evaluator's ``dispute_policy`` decides the rest).

    Raises:
        ValueError: A bad argument (the message names it and the allowed values), or no client
            and no key in the environment.
    """

    name: Final = "anthropic"

    def __init__(
        self,
        model: str | None = None,
        *,
        client: AsyncAnthropic | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        timeout: float | None = None,
        max_retries: int | None = None,
        temperature: float | None = 0.0,
        system_prompt: str | None = None,
        prompt_caching: bool = True,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        output_mode: OutputMode = "structured",
        deadline_s: float | None = DEFAULT_DEADLINE_S,
        second_opinion: bool = True,
    ) -> None:
        if model is None:
            model = environment.read(ENV_JUDGE_MODEL) or DEFAULT_MODEL
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty Claude model id, got {model!r}")
        self.model: str = model.strip()
        self.max_tokens = _positive_int("max_tokens", max_tokens)
        self.max_concurrency = _positive_int("max_concurrency", max_concurrency)
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, int | float) or not timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds or None, "
                             f"got {timeout!r}")
        if max_retries is not None and (isinstance(max_retries, bool)
                                        or not isinstance(max_retries, int) or max_retries < 0):
            raise ValueError(f"max_retries must be an integer >= 0 or None, got {max_retries!r}")
        self.temperature = None if temperature is None else check_unit_interval("temperature",
                                                                                 temperature)
        if system_prompt is not None and (not isinstance(system_prompt, str)
                                          or not system_prompt.strip()):
            raise ValueError("system_prompt must be a non-empty string or None")
        self.system_prompt = system_prompt
        if output_mode not in OUTPUT_MODES:
            raise ValueError(f"output_mode must be one of {list(OUTPUT_MODES)}, "
                             f"got {output_mode!r}")
        self.output_mode: OutputMode = output_mode
        if deadline_s is not None and (isinstance(deadline_s, bool)
                                       or not isinstance(deadline_s, int | float)
                                       or not math.isfinite(deadline_s) or deadline_s <= 0):
            raise ValueError(f"deadline_s must be a positive number of seconds or None, "
                             f"got {deadline_s!r}")
        self.deadline_s: float | None = None if deadline_s is None else float(deadline_s)
        self.prompt_caching = bool(prompt_caching)
        self.second_opinion = bool(second_opinion)
        self._sampling_rejected = False
        install_log_redaction()  # the SDK logs request bodies at DEBUG
        self._client = prepare_client(client, timeout, max_retries)
        self._loops = LoopClients(self._client, given=client is not None)
        # None: a given client's own timeout applies.
        self.timeout: float | None = (float(timeout) if timeout is not None
                                      else None if client is not None else DEFAULT_TIMEOUT_S)
        self.max_retries: int = int(self._client.max_retries)

    # -- public surface ---------------------------------------------------------------------------

    @property
    def identity(self) -> dict[str, str]:
        """What decides this judge's verdicts: backend, model and prompt version (cassette keys)."""
        version = PROMPT_VERSION
        if self.system_prompt is not None:
            digest = hashlib.sha256(self.system_prompt.encode()).hexdigest()[:12]
            version = f"{PROMPT_VERSION}+system-{digest}"
        return {"backend": self.name, "model": self.model, "prompt_version": version}

    def __repr__(self) -> str:
        return (f"AnthropicJudge(model={self.model!r}, output_mode={self.output_mode!r}, "
                f"max_tokens={self.max_tokens}, prompt_caching={self.prompt_caching}, "
                f"max_concurrency={self.max_concurrency}, deadline_s={self.deadline_s})")

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence`` (the Judge protocol)."""
        return (await self.judge_verdict(synthesis=synthesis, evidence=evidence)).output

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        """One judge round with its usage, model, attempts and (on failure) error type, and the
        offline engine's second opinion on the claims it grounds (:meth:`review`).

        Never raises except ``asyncio.CancelledError``: every failure is a safe default.
        """
        verdict = await self.model_verdict(synthesis=synthesis, evidence=evidence)
        return await self.review(verdict, evidence)

    async def model_verdict(self, *, synthesis: str, evidence: EvidenceSet,
                            user_prompt: str | None = None,
                            compact_schema: bool = False) -> JudgeVerdict:
        """The model's own verdict (no second opinion): what a cassette records.

        ``user_prompt`` replaces the rendered user turn (the tiered judge's claim list);
        ``compact_schema`` says the claims are given: the system prompt's Step 1 says so and
        the verdict schema goes without its descriptions.
        """
        state = RoundState(compact=compact_schema)
        started = time.perf_counter()
        scope = asyncio.timeout(self.deadline_s)
        try:
            async with scope:
                output, error_type = await self._bounded_round(synthesis, evidence, state,
                                                               user_prompt)
        except TimeoutError:
            if not scope.expired():
                raise
            # The SDK honours any retry-after the API sends (an hour, if it says so): the
            # round's deadline is what caps that wait.
            output = safe_default_judge_output(
                f"judge model call did not finish within the judge's deadline of "
                f"{self.deadline_s:g} s (after {state.attempts} attempt(s); retries and "
                f"retry-after waits included)")
            error_type = DEADLINE_EXCEEDED
        return JudgeVerdict(output=output, usage=state.usage, model=state.model or self.model,
                            error_type=error_type, duration_s=time.perf_counter() - started,
                            attempts=max(state.attempts, 1))

    async def review(self, verdict: JudgeVerdict, evidence: EvidenceSet) -> JudgeVerdict:
        """``verdict`` with its claims marked ``judged_by="model"`` and, with ``second_opinion``
        on, each grounded claim the offline engine contradicts marked ``disputed``."""
        from gsar_otel.judges.tiered.dispute import mark_model_claims

        try:
            items = EvidenceSet.coerce(evidence)
        except (ValueError, TypeError):
            return verdict
        output = await asyncio.to_thread(mark_model_claims, verdict.output, items,
                                         check=self.second_opinion)
        return verdict.model_copy(update={"output": output})

    async def _bounded_round(self, synthesis: str, evidence: EvidenceSet, state: RoundState,
                             user_prompt: str | None = None) -> tuple[JudgeOutput, str | None]:
        async with self._loops.semaphore(self.max_concurrency):
            try:
                if not isinstance(synthesis, str):
                    raise TypeError(f"synthesis must be a str, got {type(synthesis).__name__}")
                items = EvidenceSet.coerce(evidence)
            except (ValueError, TypeError) as error:
                return safe_default_judge_output(f"input is not usable: {error}"), "InvalidInput"
            try:
                return await self._judge_round(synthesis, items, state, user_prompt)
            except Exception as error:  # a failed call abstains, never crashes
                return call_failure(error, self._client, self.max_retries)

    async def aclose(self) -> None:
        """Close the HTTP connections of the client this judge built for the current loop."""
        await self._loops.aclose()

    # -- one round --------------------------------------------------------------------------------

    async def _judge_round(self, synthesis: str, evidence: EvidenceSet, state: RoundState,
                           user_prompt: str | None) -> tuple[JudgeOutput, str | None]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": user_prompt or (
            render_user_prompt(synthesis, evidence, output_mode=self.output_mode))}]
        message = await self._call(messages, state)
        if (stopped := stop_failure(message, self.max_tokens)) is not None:
            return stopped
        try:
            return parse_reply(message, self.output_mode), None
        except VerdictProblem as problem:
            first = problem
        messages.append({"role": "assistant", "content": history(message)})
        messages.append({"role": "user", "content": self._repair_turn(first)})
        second: VerdictProblem | None = None
        try:
            repaired = await self._call(messages, state)
        except Exception as error:  # the repair is optional: salvage
            logger.debug("judge repair call failed: %s", type(error).__name__)
        else:
            if stop_failure(repaired, self.max_tokens) is None:
                try:
                    return parse_reply(repaired, self.output_mode), None
                except VerdictProblem as problem:
                    second = problem
        final = second or first
        for candidate in (second, first):
            salvaged = salvage_verdict(candidate.data if candidate else None, final.detail)
            if salvaged is not None:
                return salvaged, ERROR_SCHEMA
        return (safe_default_judge_output(
            f"judge output unusable after one repair attempt: {final.detail}"), final.kind)

    def _repair_turn(self, problem: VerdictProblem) -> list[dict[str, Any]]:
        text = render_repair_prompt(problem.detail, output_mode=self.output_mode)
        if problem.tool_use_id is None:
            return [{"type": "text", "text": text}]
        # A tool call must be answered by its tool_result before anything else.
        return [{"type": "tool_result", "tool_use_id": problem.tool_use_id, "is_error": True,
                 "content": problem.detail}, {"type": "text", "text": text}]

    async def _call(self, messages: list[dict[str, Any]], state: RoundState) -> Message:
        import anthropic

        client = self._loops.client()
        request = self._request(messages, client, compact=state.compact)
        state.attempts += 1
        try:
            message: Message = await client.messages.create(**request)
        except anthropic.BadRequestError as error:
            if "extra_body" not in request or "temperature" not in api_message(error).lower():
                raise
            # The API refused the sampling parameter (a newer model or API version): drop it for
            # good and ask again; the verdict does not depend on it.
            logger.info("the Messages API rejected temperature for %s; not sending it again",
                        self.model)
            self._sampling_rejected = True
            request.pop("extra_body")
            state.attempts += 1
            message = await client.messages.create(**request)
        state.add(message)
        return message

    def _request(self, messages: list[dict[str, Any]], client: AsyncAnthropic, *,
                 compact: bool = False) -> dict[str, Any]:
        system: dict[str, Any] = {"type": "text", "text": self.system_prompt or (
            CLAIMS_SYSTEM_PROMPT if compact else SYSTEM_PROMPT)}
        if self.prompt_caching:
            system["cache_control"] = {"type": "ephemeral"}
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                   "system": [system], "messages": messages}
        if self.output_mode == "structured":
            schema = compact_verdict_schema() if compact else verdict_schema()
            request["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        else:
            request["tools"] = [verdict_tool(compact=compact)]
            request["tool_choice"] = {"type": "tool", "name": VERDICT_TOOL_NAME,
                                      "disable_parallel_tool_use": True}
        if self._sends_temperature(client):
            # The installed SDK has no temperature parameter (its API version removed it), so
            # it travels as an extra body field, only where it is still accepted.
            request["extra_body"] = {"temperature": self.temperature}
        return request

    def _sends_temperature(self, client: AsyncAnthropic) -> bool:
        if self.temperature is None or self._sampling_rejected:
            return False
        version = str(client.default_headers.get("anthropic-version") or "")
        return version < SAMPLING_REMOVED_API_VERSION and model_accepts_sampling(self.model)


def model_accepts_sampling(model: str) -> bool:
    """False for Claude models that reject temperature/top_p/top_k (4.7 on, Fable, Mythos)."""
    lowered = model.lower()
    if "fable" in lowered or "mythos" in lowered:
        return False
    match = _MODEL_VERSION.search(lowered)
    if match is None:
        return True
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return (major, minor) < (4, 7)


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


__all__ = [
    "DEFAULT_MODEL", "ERROR_INVALID_JSON", "ERROR_SCHEMA", "MISSING_KEY_MESSAGE", "AnthropicJudge",
    "model_accepts_sampling",
]
