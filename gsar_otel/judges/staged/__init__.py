"""The staged offline judge: segment, align, compare, features, a learned classifier, assemble."""

from gsar_otel.judges.staged.judge import StagedJudge

__all__ = ["StagedJudge"]
