"""A small judgement without a deadline is checked by the integrity guard on the calling thread
(no pool job, counted as ``inline``); a deadline or a big judgement still goes through the pool.
The report is the same either way. Counts are asserted, never time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core import judge_round
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.core.judge_round import INLINE_GUARD_MAX_CHARS, small_judgement
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.scoring import resolve_weight_map
from gsar_otel.runtime import pool as pool_module
from gsar_otel.runtime.pool import WorkerPool
from tests.core.scripted import PROCEED

ANSWER = "CPU on db-prod-1 reached 97% at 14:02. Alert A-1234 fired at 14:02."
EVIDENCE = EvidenceSet.coerce(["[tool=query_metrics] host=db-prod-1 cpu_pct=97.2 at 14:02:01",
                               "[signal] alert_id=A-1234 fired_at=14:02:00"])


class QuickJudge:
    """An async judge that answers at once (as a replayed verdict does)."""

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return PROCEED(synthesis, evidence)


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> WorkerPool:
    fresh = WorkerPool(max_workers=1)
    monkeypatch.setattr(pool_module, "_pool", fresh)
    return fresh


def judged(synthesis: str, evidence: EvidenceSet, timeout_s: float | None) -> Any:
    return asyncio.run(judge_round.judge_and_check(
        QuickJudge(), synthesis, evidence, timeout_s=timeout_s,
        weight_map=resolve_weight_map(None), contradiction_penalty=0.5, default_unknown=0.5))


def test_a_small_judgement_without_a_deadline_is_checked_without_a_pool_job(
        pool: WorkerPool) -> None:
    verdict, report = judged(ANSWER, EVIDENCE, None)
    stats = pool.stats()
    assert (stats.submitted, stats.inline) == (0, 1)
    assert report == check_judge_output(verdict.output, synthesis=ANSWER, evidence=EVIDENCE)


def test_a_deadline_keeps_the_guard_on_the_pool(pool: WorkerPool) -> None:
    judged(ANSWER, EVIDENCE, 30.0)
    stats = pool.stats()
    assert (stats.submitted, stats.inline) == (1, 0)


def test_a_big_judgement_keeps_the_guard_on_the_pool(pool: WorkerPool) -> None:
    filler = "[tool=logs] " + "x" * INLINE_GUARD_MAX_CHARS
    big = EvidenceSet.coerce([*(item.content for item in EVIDENCE.items), filler])
    _, report = judged(ANSWER, big, None)
    stats = pool.stats()
    assert (stats.submitted, stats.inline) == (1, 0)
    assert not report.output.abstained


@settings(max_examples=200, deadline=None)
@given(answer=st.integers(min_value=0, max_value=2 * INLINE_GUARD_MAX_CHARS),
       items=st.lists(st.integers(min_value=1, max_value=INLINE_GUARD_MAX_CHARS), max_size=6))
def test_small_means_answer_and_evidence_within_the_limit(answer: int, items: list[int]) -> None:
    evidence = EvidenceSet.coerce(["e" * size for size in items]) if items else EvidenceSet()
    total = answer + sum(len(item.content) for item in evidence.items)
    assert small_judgement("a" * answer, evidence) is (total <= INLINE_GUARD_MAX_CHARS)
