"""A scripted judge (a test double for the Judge protocol) and verdicts that fit any answer.

Verdicts are built from the answer actually judged, one claim per sentence, so the integrity
guard finds nothing to repair and the score lands where the test says:

- ``PROCEED``: every sentence grounded (tool_match, citing the first evidence item): S = 1.0
- ``REGENERATE``: as PROCEED plus one contradicted inference per sentence: S = 1 / 1.3 = 0.769
- ``REPLAN``: every sentence an ungrounded inference: S = 0.0
- ``ABSTAIN``: the safe default.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput, safe_default_judge_output
from gsar_otel.core.text import split_sentences

Verdict = Callable[[str, EvidenceSet], JudgeOutput]


def _claims(synthesis: str, kind: str, refs: tuple[str, ...]) -> list[Claim]:
    return [Claim(sentence.rstrip("."), kind, refs) for sentence in split_sentences(synthesis)]


def PROCEED(synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
    refs = evidence.ids[:1]
    return JudgeOutput(grounding_score=1.0, is_grounded=True,
                       grounded_claims=_claims(synthesis, "tool_match", refs))


def REGENERATE(synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
    grounded = PROCEED(synthesis, evidence).grounded_claims
    refuted = [Claim(f"refuted detail {i}", "inference") for i in range(len(grounded))]
    return JudgeOutput(grounding_score=0.7, is_grounded=False, grounded_claims=grounded,
                       contradicted_claims=refuted, explanation="some details are refuted")


def REPLAN(synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
    return JudgeOutput(grounding_score=0.1, is_grounded=False,
                       ungrounded_claims=_claims(synthesis, "inference", ()),
                       gaps=["no evidence for any claim"], explanation="nothing is supported")


def ABSTAIN(synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
    return safe_default_judge_output("judge could not read the evidence")


class ScriptedJudge:
    """Plays its script one step per call, then repeats the last step.

    A step is a verdict builder, a JudgeOutput, an exception to raise, or any other object
    to return as is (to test a judge that returns garbage).
    """

    name = "scripted"

    def __init__(self, *steps: Any, delay_s: float = 0.0) -> None:
        if not steps:
            raise ValueError("a scripted judge needs at least one step")
        self.steps = list(steps)
        self.delay_s = delay_s
        self.calls: list[tuple[str, EvidenceSet]] = []

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> Any:
        step = self.steps[min(len(self.calls), len(self.steps) - 1)]
        self.calls.append((synthesis, evidence))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            return step(synthesis, evidence)
        return step


@dataclass
class Recorder:
    """Recovery callbacks that record their calls; sync or async, returning scripted values."""

    regenerate_returns: list[str] = field(default_factory=list)
    replan_returns: list[tuple[str, Any]] = field(default_factory=list)
    regenerate_calls: list[tuple[str, JudgeOutput]] = field(default_factory=list)
    replan_calls: list[tuple[str, EvidenceSet, JudgeOutput]] = field(default_factory=list)

    def regenerate(self, synthesis: str, judge_output: JudgeOutput) -> str:
        self.regenerate_calls.append((synthesis, judge_output))
        index = min(len(self.regenerate_calls), len(self.regenerate_returns)) - 1
        return self.regenerate_returns[index]

    def replan(self, synthesis: str, evidence: EvidenceSet,
               judge_output: JudgeOutput) -> tuple[str, Any]:
        self.replan_calls.append((synthesis, evidence, judge_output))
        index = min(len(self.replan_calls), len(self.replan_returns)) - 1
        return self.replan_returns[index]

    async def regenerate_async(self, synthesis: str, judge_output: JudgeOutput) -> str:
        await asyncio.sleep(0)
        return self.regenerate(synthesis, judge_output)

    async def replan_async(self, synthesis: str, evidence: EvidenceSet,
                           judge_output: JudgeOutput) -> tuple[str, Any]:
        await asyncio.sleep(0)
        return self.replan(synthesis, evidence, judge_output)
