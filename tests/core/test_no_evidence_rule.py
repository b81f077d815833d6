"""One no-evidence rule for every entry point: an answer given no evidence is not judged; the
evaluator returns an abstain degraded with the reason ``no_evidence`` (the judge never called).
The entry points over the evaluator are checked here and in tests/sidecar/test_no_evidence.py."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.cli import main
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.core.result import NO_EVIDENCE
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.measure.bench import judge_examples
from gsar_otel.measure.datasets import load_examples
from gsar_otel.measure.graded_input import judge_lines, parse_graded_line

ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02."
CASES = Path(__file__).resolve().parents[2] / "examples" / "incident" / "cases.jsonl"


class CountingJudge:
    """The staged judge, counting its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0
        self.inner = StagedJudge()

    async def judge(self, *, synthesis: str, evidence: Any) -> Any:
        self.calls += 1
        return await self.inner.judge(synthesis=synthesis, evidence=evidence)


@pytest.mark.parametrize("evidence", [None, [], "", EvidenceSet()])
def test_the_evaluator_abstains_no_evidence_without_calling_the_judge(evidence: Any) -> None:
    judge = CountingJudge()
    result = GSAREvaluator(judge).evaluate_sync(report_synthesis=ANSWER,
                                                evidence_corpus=evidence)
    assert judge.calls == 0
    assert result.final_decision is Decision.ABSTAIN
    assert result.degraded and result.degraded_reason == NO_EVIDENCE
    assert result.final_judge_output.abstain_reason.startswith("no_evidence: ")
    assert result.final_partition.is_empty
    assert result.judge_name == "counting"
    # The same answer with evidence is judged, once.
    judged = GSAREvaluator(judge).evaluate_sync(report_synthesis=ANSWER,
                                                evidence_corpus=["host=db-prod-1 cpu_pct=97.2"])
    assert judge.calls == 1 and judged.degraded_reason is None


def test_a_short_answer_with_no_evidence_does_not_proceed() -> None:
    # "x" has no claims: with evidence it would be judged; without, it never proceeds.
    result = GSAREvaluator(StagedJudge()).evaluate_sync(report_synthesis="x", evidence_corpus=[])
    assert result.final_decision is Decision.ABSTAIN
    assert result.degraded_reason == NO_EVIDENCE


def test_a_replan_fn_may_gather_the_evidence() -> None:
    def replan(synthesis: str, evidence: Any, output: Any) -> tuple[str, list[str]]:
        return synthesis, ["host=db-prod-1 cpu_pct=97.2 at=14:02:01"]

    judge = CountingJudge()
    result = GSAREvaluator(judge, replan_fn=replan).evaluate_sync(report_synthesis=ANSWER,
                                                                  evidence_corpus=[])
    assert judge.calls == 2
    assert result.final_decision is Decision.PROCEED


def test_bench_scores_an_example_without_evidence_as_the_abstain() -> None:
    [example] = [e for e in load_examples(CASES) if e.id == "incident-cpu-spike-grounded"]
    judge = CountingJudge()
    [outcome] = asyncio.run(judge_examples([replace(example, evidence="")], judge))
    assert judge.calls == 0
    assert outcome.decision is Decision.ABSTAIN


def test_calibrate_judges_a_graded_line_without_evidence_as_an_abstain() -> None:
    line = parse_graded_line(json.dumps({"synthesis": ANSWER, "evidence": [],
                                         "label": "not_ok"}), 1)
    judge = CountingJudge()
    judged = asyncio.run(judge_lines(judge, [line]))
    _, abstained, _ = judged[1]
    assert abstained and judge.calls == 0


def test_gsar_judge_with_an_empty_evidence_list_abstains(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["judge", "--synthesis", ANSWER, "--evidence", "[]", "--judge", "staged",
                 "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    assert result["final_decision"] == "abstain"
    assert result["degraded_reason"] == "no_evidence"
