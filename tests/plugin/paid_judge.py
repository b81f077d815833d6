"""A judge that stands in for a paid API in the plugin's cassette tests: not deterministic, so
its verdicts go through cassettes, but offline, so the tests need no server."""

from __future__ import annotations

PAID_JUDGE_CONFTEST = """
from gsar_otel.core.model import Claim, JudgeOutput


class PaidJudge:
    name = "paid"
    model = "paid-1"
    deterministic = False

    async def judge(self, *, synthesis, evidence):
        claim = Claim(synthesis, evidence.items[0].type, [evidence.items[0].id])
        return JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[claim],
                           explanation="every sentence is in the evidence")


def pytest_gsar_make_judge(config):
    return PaidJudge()
"""
"""A ``conftest.py`` for inner sessions: every judgement goes to ``PaidJudge``."""


def host_case(n: int) -> dict[str, object]:
    """A case-file line whose answer is grounded in its one evidence row."""
    host = f"db-prod-{n}"
    return {"id": f"case-{n}", "synthesis": f"CPU on host {host} reached 97% at 14:02.",
            "evidence": [f"[tool=query_metrics row=14:02:01] host={host} cpu_pct=97.2"]}
