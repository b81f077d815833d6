"""Choosing a judge by name: ``staged``, ``records``, ``tiered``, ``anthropic``, ``lexical``, or
one a plugin provides."""

from __future__ import annotations

from gsar_otel import environment
from gsar_otel.core.protocol import Judge
from gsar_otel.semconv import ENV_ANTHROPIC_API_KEY, ENV_JUDGE

BUILTIN_JUDGES = ("staged", "anthropic", "records", "tiered", "lexical")
"""Judges every installation has: ``staged`` (the offline judge, the default without a key),
``anthropic`` (Claude), ``records`` (the offline judge rebuilt on records, with three outcomes
and the ``unverified`` abstain; not yet the default), ``tiered`` (``records`` first, Claude for
the claims it leaves unverified; offline only without a key) and ``lexical`` (a deprecated name
of ``staged``, for one release)."""


def default_judge_name() -> str:
    """``GSAR_JUDGE`` if set, else ``anthropic`` when an API key is configured, else ``staged``."""
    configured: str | None = environment.read(ENV_JUDGE)
    if configured:
        return configured
    return "anthropic" if environment.raw(ENV_ANTHROPIC_API_KEY) else "staged"


def make_judge(name: str | None = None, *, model: str | None = None) -> Judge:
    """Build the judge called ``name`` (default: :func:`default_judge_name`).

    Raises:
        ValueError: no built-in judge or plugin answers to ``name``; the message lists the names.
    """
    chosen = (name or default_judge_name()).strip().lower()
    if chosen == "lexical":
        from gsar_otel.judges.lexical.judge import LexicalJudge

        return LexicalJudge()  # warns: the one offline judge is "staged"
    if chosen == "staged":
        from gsar_otel.judges.staged.judge import StagedJudge

        return StagedJudge()
    if chosen == "records":
        from gsar_otel.judges.records.judge import RecordsJudge

        return RecordsJudge()
    if chosen == "tiered":
        from gsar_otel.judges.tiered.judge import TieredJudge

        return TieredJudge(model=model)
    if chosen == "anthropic":
        from gsar_otel.judges.anthropic.judge import AnthropicJudge

        return AnthropicJudge(model=model)
    from gsar_otel.plugins import plugin_judge, plugin_judge_names

    judge = plugin_judge(chosen, model=model)
    if judge is None:
        names = [*BUILTIN_JUDGES, *plugin_judge_names()]
        raise ValueError(f"unknown judge {chosen!r}; available: {', '.join(names)}")
    return judge
