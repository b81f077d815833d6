"""A verdict recorded with the integrity guard's report replays to the same evaluation as a
replay that runs the guard again (``reuse_guard=False``, the ``--gsar-recheck`` path): same
adjustments, partition, S and decision, for random verdicts, answers, evidence and options;
and the memo path runs the guard zero times (counted, never timed)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings

from gsar_otel.core import judge_round
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import IntegrityReport
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.result import GSARResult
from gsar_otel.judges.recorded.judge import RecordingJudge
from gsar_otel.judges.recorded.store import CassetteStore, read_cassette
from tests.core.test_guard_memo import Round, rounds

IDENTITY = {"backend": "fixed", "model": "fixed-1", "prompt_version": "1"}


class FixedJudge:
    """Answers every judgement with one output (a paid judge's recorded reply)."""

    name = "fixed"
    deterministic = False

    def __init__(self, output: JudgeOutput) -> None:
        self.output = output

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.output


def evaluate(case: Round, path: Path, mode: str, *, reuse_guard: bool = True) -> GSARResult:
    judge = RecordingJudge(FixedJudge(case.output), CassetteStore(path), mode, identity=IDENTITY,
                           reuse_guard=reuse_guard)
    evaluator = GSAREvaluator(judge, k_max=0, max_regenerations=0, weight_map=case.weight_map,
                              contradiction_penalty=case.rho, default_unknown=case.unknown)
    result = asyncio.run(evaluator.evaluate(report_synthesis=case.synthesis,
                                            evidence_corpus=case.evidence))
    judge.store.save()
    return result


def summary(result: GSARResult) -> tuple[Any, ...]:
    return (result.adjustments, result.final_partition, result.final_score,
            result.final_decision, result.final_judge_output)


@given(rounds())
@settings(max_examples=60, deadline=None)
def test_a_replay_with_the_recorded_report_equals_one_that_checks_again(case: Round) -> None:
    assume(len(case.evidence) > 0)  # no evidence: the evaluator abstains, nothing is recorded
    calls: list[int] = []
    real = judge_round.check_judge_output

    def counting(*args: Any, **kwargs: Any) -> IntegrityReport:
        calls.append(1)
        return real(*args, **kwargs)

    with tempfile.TemporaryDirectory() as directory, pytest.MonkeyPatch.context() as patch:
        patch.setattr(judge_round, "check_judge_output", counting)
        path = Path(directory) / "cassette.json"
        recorded = evaluate(case, path, "once")
        guarded = bool(calls)  # an abstaining verdict has nothing to check
        entry = next(iter(read_cassette(path).values()))
        assert ("guard" in entry["verdict"]) == guarded
        del calls[:]
        replayed = evaluate(case, path, "none")
        assert calls == []
        rechecked = evaluate(case, path, "none", reuse_guard=False)
        assert len(calls) == int(guarded)
    assert summary(replayed) == summary(rechecked) == summary(recorded)
