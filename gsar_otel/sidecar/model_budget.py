"""The model-token budget of ``gsar sidecar --model-token-budget``: how many tokens a model
judge may use in any 60 seconds, past which runs are judged offline only.

The window slides: the tokens of every judged run are noted with the time its verdict came
back, and the budget is spent while the runs of the last :data:`WINDOW_S` seconds used at least
``--model-token-budget`` tokens (input, output, cache reads and cache writes, as the model's API
reported them). It is checked before each run: a run judged meanwhile is not cut off, so the
window can go over the budget by what the runs being judged at once (``--concurrency``) use.

While the budget is spent a run is judged offline only: a ``tiered`` judge without its model
tier (``gsar.judge.model_tier.skipped=budget_exhausted``, the claims it cannot check left
unverified), any other judge with a model (``anthropic``, a plugin's model judge) replaced by
the ``staged`` judge, the default offline judge. Either way the evaluate span carries
``gsar.judge.budget_exhausted=true`` and the run is counted
(``gsar_sidecar_model_budget_total{gsar_sidecar_reason="budget_exhausted"}``); the tokens spent are
counted too (``gsar_sidecar_model_tokens_total{gsar_sidecar_reason="spent"}``). A judge with no
model (``staged``, ``records``, ``tiered`` without an API key) is never affected.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from gsar_otel import semconv as sc
from gsar_otel.core.protocol import Judge, JudgeUsage, judge_model

WINDOW_S: Final = 60.0
"""The budget's window: the last minute."""
BUDGET_EXHAUSTED: Final = "budget_exhausted"
"""``gsar.judge.model_tier.skipped`` of a tiered judge past the budget, and the count's name."""


def usage_tokens(usage: JudgeUsage | None) -> int:
    """Every token one judgement used (0 when the judge reported none)."""
    if usage is None:
        return 0
    return (usage.input_tokens + usage.output_tokens + usage.cache_read_input_tokens
            + usage.cache_creation_input_tokens)


def offline_form(judge: Judge) -> Judge | None:
    """The judge to use while the budget is spent; None for a judge with no model (the budget
    does not apply to it)."""
    from gsar_otel.judges.tiered.judge import TieredJudge

    if isinstance(judge, TieredJudge):
        return judge.offline_only(BUDGET_EXHAUSTED) if judge.model_tier is not None else None
    if not judge_model(judge):
        return None
    from gsar_otel.judges.staged.judge import StagedJudge

    return StagedJudge()


class ModelTokenBudget:
    """Tokens used by a model judge in the last :data:`WINDOW_S` seconds, against a budget
    (``tokens`` 0: no budget). Thread-safe: runs are judged on the judging thread, counted from
    the loop."""

    def __init__(self, tokens: int, judge: Judge, *, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tokens, self.window_s, self._clock = tokens, window_s, clock
        self.offline = offline_form(judge) if tokens > 0 else None
        """The judge used while the budget is spent (None: the budget does not apply)."""
        self._spent: deque[tuple[float, int]] = deque()
        self._sum = 0
        self._lock = threading.Lock()

    def _forget(self, now: float) -> None:
        while self._spent and self._spent[0][0] <= now - self.window_s:
            self._sum -= self._spent.popleft()[1]

    def used(self) -> int:
        """Tokens used in the window now."""
        with self._lock:
            self._forget(self._clock())
            return self._sum

    def exhausted(self) -> bool:
        """True while the window's tokens reach the budget (never when it does not apply)."""
        return self.offline is not None and self.used() >= self.tokens

    def spend(self, usage: JudgeUsage | None) -> int:
        """Note one judgement's tokens now; returns how many."""
        tokens = usage_tokens(usage)
        if tokens:
            with self._lock:
                now = self._clock()
                self._forget(now)
                self._spent.append((now, tokens))
                self._sum += tokens
        return tokens

    def choose(self, judge: Judge) -> tuple[Judge, dict[str, Any]]:
        """The judge for the next run and the attributes its evaluate span gets: ``judge`` and
        none while the budget lasts, its offline form and ``gsar.judge.budget_exhausted=true``
        once it is spent."""
        if self.offline is not None and self.exhausted():
            return self.offline, {sc.GSAR_JUDGE_BUDGET_EXHAUSTED: True}
        return judge, {}
