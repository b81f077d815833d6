"""LexicalJudge: the offline, deterministic judge (no key, no network)."""

from gsar_otel.judges.lexical.judge import LexicalJudge

__all__ = ["LexicalJudge"]
