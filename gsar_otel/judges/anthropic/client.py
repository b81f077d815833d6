"""The SDK client behind an AnthropicJudge: credentials, one client per event loop, failures.

The ``anthropic`` SDK is imported inside the functions that use it, never at module level, so
importing the judge does not load the SDK. The API key stays inside the SDK client: it is never
logged, put in a reason or shown by ``repr``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from gsar_otel import environment
from gsar_otel.core.model import JudgeOutput, safe_default_judge_output
from gsar_otel.runtime.loop_resources import register_loop_closer
from gsar_otel.semconv import (
    ENV_ANTHROPIC_API_KEY,
    ENV_ANTHROPIC_AUTH_TOKEN,
    ENV_ANTHROPIC_BASE_URL,
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

logger = logging.getLogger("gsar_otel.judges.anthropic.judge")
"""The judge's logger: call failures are logged under the judge module's name, as before."""

DEFAULT_TIMEOUT_S: Final = 60.0
"""Seconds per API attempt for a client the judge builds itself."""
DEFAULT_MAX_RETRIES: Final = 2
DEFAULT_DEADLINE_S: Final = 100.0
"""Seconds one judge round may take in all (attempts, retries, back-off and retry-after waits):
one slow attempt and a retry fit, an hour-long ``retry-after`` does not. Below the default
deadline of ``@grounded`` (120 s), so the judge's own reason is what the span shows."""
DEADLINE_EXCEEDED: Final = "DeadlineExceeded"
"""``error_type`` of a round stopped at the judge's deadline (as the evaluator names it)."""

MISSING_KEY_MESSAGE: Final = (
    f"AnthropicJudge needs an Anthropic API key: set {ENV_ANTHROPIC_API_KEY} (or "
    f"{ENV_ANTHROPIC_AUTH_TOKEN}) in the environment, optionally with {ENV_ANTHROPIC_BASE_URL} "
    "for a gateway, or pass client=anthropic.AsyncAnthropic(...). To judge offline without a "
    "key, use StagedJudge() (or GSAR_JUDGE=staged / --judge staged)."
)


def prepare_client(client: AsyncAnthropic | None, timeout: float | None,
                   max_retries: int | None) -> AsyncAnthropic:
    """The client a judge uses: ``client`` with the given options, else one from the environment.

    Raises:
        ValueError: ``client`` is not an ``AsyncAnthropic``, or there is no client and no key.
    """
    import anthropic

    if client is None:
        if not (environment.raw(ENV_ANTHROPIC_API_KEY)
                or environment.raw(ENV_ANTHROPIC_AUTH_TOKEN)):
            raise ValueError(MISSING_KEY_MESSAGE)
        return anthropic.AsyncAnthropic(
            timeout=DEFAULT_TIMEOUT_S if timeout is None else timeout,
            max_retries=DEFAULT_MAX_RETRIES if max_retries is None else max_retries)
    if isinstance(client, anthropic.Anthropic) or not hasattr(client, "messages"):
        raise ValueError("client must be an anthropic.AsyncAnthropic (the judge is async), "
                         f"got {type(client).__name__}")
    options: dict[str, Any] = {}
    if timeout is not None:
        options["timeout"] = timeout
    if max_retries is not None:
        options["max_retries"] = max_retries
    return client.with_options(**options) if options else client


class LoopClients:
    """A judge's SDK client and concurrency semaphore for each event loop it runs on.

    An SDK client's connection pool belongs to the event loop that opened it, so a client the
    judge built itself is never shared between loops (``evaluate_sync`` runs a new loop per
    call): the first loop gets ``template``, each later one a copy with its own HTTP client. A
    client the caller gave (``given``) is used as given, on every loop.
    """

    def __init__(self, template: AsyncAnthropic, *, given: bool) -> None:
        self.template = template
        self.given = given
        self._lock = threading.Lock()
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                                    asyncio.Semaphore] = weakref.WeakKeyDictionary()
        self._own_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                                      AsyncAnthropic] = weakref.WeakKeyDictionary()
        self._template_taken = False

    def client(self) -> AsyncAnthropic:
        """The client for the running event loop."""
        if self.given:
            return self.template
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._own_clients.get(loop)
            if client is None:
                if not self._template_taken:
                    client, self._template_taken = self.template, True
                else:
                    import anthropic

                    client = self.template.copy(http_client=anthropic.DefaultAsyncHttpxClient())
                self._own_clients[loop] = client
                # The loop's owner (the background worker) closes it before the loop stops.
                register_loop_closer(loop, self.aclose)
            return client

    def semaphore(self, max_concurrency: int) -> asyncio.Semaphore:
        """The running loop's semaphore (made with ``max_concurrency`` slots on first use)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            semaphore = self._semaphores.get(loop)
            if semaphore is None:
                semaphore = self._semaphores[loop] = asyncio.Semaphore(max_concurrency)
            return semaphore

    async def aclose(self) -> None:
        """Close the HTTP connections of the client built for the running loop, if any."""
        if self.given:
            return
        with self._lock:
            client = self._own_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()


# -- failures ---------------------------------------------------------------------------------


def call_failure(error: Exception, client: AsyncAnthropic,
                 max_retries: int) -> tuple[JudgeOutput, str]:
    """The safe default (abstain) and ``error_type`` for a Messages API call that failed."""
    kind = type(error).__name__
    status = getattr(error, "status_code", None)
    reason = f"judge model call failed: {kind}"
    if isinstance(status, int):
        reason += f" (HTTP {status})"
    retryable = is_retryable(error, status)
    if retryable:
        reason += f" after {max_retries} retr{'y' if max_retries == 1 else 'ies'}"
    elif isinstance(status, int):
        detail = scrub_credentials(api_message(error), client)[:300]
        if detail:
            reason += f": {detail}"
    log = logger.debug if retryable else logger.warning
    log("anthropic judge call failed: %s%s", kind, f" (HTTP {status})" if status else "")
    return safe_default_judge_output(reason), kind


def scrub_credentials(text: str, client: AsyncAnthropic) -> str:
    """``text`` without the client's API key or auth token (defence in depth)."""
    for secret in (getattr(client, "api_key", None), getattr(client, "auth_token", None)):
        if isinstance(secret, str) and len(secret) >= 8:
            text = text.replace(secret, "[redacted]")
    return text


def is_retryable(error: Exception, status: object) -> bool:
    """True for failures the SDK retries: connection errors, timeouts, 408/409/429 and 5xx."""
    import anthropic

    if isinstance(error, anthropic.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def api_message(error: Exception) -> str:
    """The ``error.message`` of an API error's JSON body, or ``""``."""
    body = getattr(error, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return ""


__all__ = [
    "DEADLINE_EXCEEDED", "DEFAULT_DEADLINE_S", "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S",
    "ENV_ANTHROPIC_AUTH_TOKEN", "MISSING_KEY_MESSAGE", "LoopClients", "api_message",
    "call_failure", "is_retryable", "prepare_client", "scrub_credentials",
]
