"""The offline judge: evidence as facts, claims as slots, explicit alignment and invariants."""

from gsar_otel.judges.staged.judge import StagedJudge

__all__ = ["StagedJudge"]
