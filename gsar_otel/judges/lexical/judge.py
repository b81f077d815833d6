"""``LexicalJudge`` and ``--judge lexical``: the former rule judge's name, kept for one release.

The rule judge and the staged judge are one offline judge now
(:class:`~gsar_otel.judges.staged.judge.StagedJudge`). This name builds that judge and warns
with a :class:`DeprecationWarning`; it will be removed in the next release.
"""

from __future__ import annotations

import warnings

from gsar_otel.judges.staged.judge import OfflineSettings, StagedJudge

DEPRECATION = ("the 'lexical' judge is now the one offline judge 'staged'; use StagedJudge() "
               "or --judge staged ('lexical' will be removed in the next release)")


class LexicalJudge(StagedJudge):
    """Deprecated alias of :class:`StagedJudge` (same verdicts; reports itself as ``staged``)."""

    def __init__(self, settings: OfflineSettings | None = None) -> None:
        warnings.warn(DEPRECATION, DeprecationWarning, stacklevel=2)
        super().__init__(settings)
