"""``LexicalJudge``: a deprecated name of the one offline judge (``StagedJudge``)."""

from gsar_otel.judges.lexical.judge import LexicalJudge

__all__ = ["LexicalJudge"]
