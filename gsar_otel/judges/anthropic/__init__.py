"""AnthropicJudge: Claude through the official ``anthropic`` SDK (imported on first use)."""

from gsar_otel.judges.anthropic.judge import AnthropicJudge

__all__ = ["AnthropicJudge"]
