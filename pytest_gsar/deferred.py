"""A judge known by its identity alone, built only if a verdict must really be judged: lets
record mode ``none`` replay an API-backed judge's verdicts with no key and no SDK configured."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gsar_otel.core.evidence import EvidenceSet
    from gsar_otel.core.model import JudgeOutput
    from gsar_otel.core.protocol import Judge, JudgeVerdict

__all__ = ["DeferredJudge", "anthropic_identity"]


def anthropic_identity(model: str | None) -> dict[str, str]:
    """The identity an ``AnthropicJudge(model=model)`` has, without building one (no key, no SDK).

    Mirrors AnthropicJudge's own model default; a test keeps the two in step.
    """
    from gsar_otel import environment
    from gsar_otel.judges.anthropic.judge import DEFAULT_MODEL
    from gsar_otel.judges.anthropic.prompt import PROMPT_VERSION
    from gsar_otel.semconv import ENV_JUDGE_MODEL

    chosen = (model or "").strip() or environment.read(ENV_JUDGE_MODEL) or DEFAULT_MODEL
    return {"backend": "anthropic", "model": chosen, "prompt_version": PROMPT_VERSION}


class DeferredJudge:
    """A judge known by its identity, built only if a verdict must really be judged.

    Lets record mode ``none`` replay an API-backed judge's verdicts with no key configured.
    """

    def __init__(self, identity: dict[str, str], build: Callable[[], Judge]) -> None:
        self.identity = identity
        self._build = build
        self._judge: Judge | None = None

    @property
    def name(self) -> str:
        """The backend name."""
        return self.identity.get("backend", "deferred")

    @property
    def model(self) -> str | None:
        """The model, when the identity names one."""
        return self.identity.get("model") or None

    def _inner(self) -> Judge:
        if self._judge is None:
            self._judge = self._build()
        return self._judge

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Build the real judge and judge with it."""
        return await self._inner().judge(synthesis=synthesis, evidence=evidence)

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        """Build the real judge and run one round with it."""
        from gsar_otel.core.protocol import run_judge

        return await run_judge(self._inner(), synthesis=synthesis, evidence=evidence)
