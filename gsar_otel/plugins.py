"""Plugin hooks (placeholder until the plugin manager lands)."""

from __future__ import annotations

from gsar_otel.judges.base import Judge


def plugin_judge(name: str, *, model: str | None = None) -> Judge | None:
    """The judge a plugin builds for ``name``, or None."""
    return None


def plugin_judge_names() -> list[str]:
    """Judge names that installed plugins offer."""
    return []
