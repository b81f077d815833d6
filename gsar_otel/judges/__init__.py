"""Judges: the offline LexicalJudge, the Claude-backed AnthropicJudge, and recorded verdicts."""

from gsar_otel.judges.base import Judge, JudgeUsage, JudgeVerdict, run_judge

__all__ = ["Judge", "JudgeUsage", "JudgeVerdict", "run_judge"]
