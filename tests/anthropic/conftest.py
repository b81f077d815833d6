"""Fixtures for the AnthropicJudge tests: the fake Messages API and judges pointed at it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from tests.support.fake_anthropic import FakeMessagesServer, fake_anthropic

__all__ = ["fake_anthropic"]

API_KEY = "sk-ant-test-4f1c9a7e2b5d8036-secret"
"""A key-shaped string that must never leave the auth header."""

INCIDENT_EVIDENCE = EvidenceSet.coerce([
    "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2",
    "[tool=query_metrics row=14:02:01] host=db-prod-1 rps=12.4",
    "[signal] alert_id=A-9912 fired_at=14:02:00 metric=cpu_pct severity=high",
])
INCIDENT_ANSWER = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. "
                   "Request rate dropped to 12 RPS at the same time.")

JudgeFactory = Callable[..., AnthropicJudge]


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests decide themselves which credentials and endpoint the judge sees.
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE", "GSAR_JUDGE_MODEL",
                 "GSAR_JUDGE"):
        monkeypatch.delenv(name, raising=False)


def sdk_client(server: FakeMessagesServer, **options: Any) -> anthropic.AsyncAnthropic:
    """A real SDK client aimed at the fake server, with fast retries by default."""
    options.setdefault("max_retries", 0)
    return anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.base_url, **options)


@pytest.fixture
def make_judge(fake_anthropic: FakeMessagesServer) -> JudgeFactory:
    """Build an AnthropicJudge whose SDK client talks to the fake server."""

    def build(*, client_options: dict[str, Any] | None = None,
              **judge_options: Any) -> AnthropicJudge:
        return AnthropicJudge(client=sdk_client(fake_anthropic, **(client_options or {})),
                              **judge_options)

    return build
