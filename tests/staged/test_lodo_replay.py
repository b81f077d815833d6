"""``benchmarks/lodo.py`` replays the judge's tunables on claims judged once; its decision for the
shipped tunables must be the product's decision (judge, integrity guard, scoring, both caps), or
the table it prints measures another judge."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import Decision
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.checks import COVERAGE_BACKSTOP
from gsar_otel.judges.staged.verdicts import PARAPHRASE_BUDGET, SENTENCE_BUDGET
from gsar_otel.measure.datasets import BenchExample, load_examples

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from benchmarks.lodo import judge_all, proceeds  # noqa: E402

RECORD = ["title: Joe Rogan", "Born: ( 1967-08-11 ) August 11, 1967 (age 51) Newark",
          "Years of service: 1969-2013", "Spouse: Jessica Ditzel ( m. 2009)",
          "Current constitution: 4 December 1982", "Children: 2"]
WRITTEN = [
    # eras, ages and spans: the guard must accept what the judge reads off the years
    "Joe Rogan got married when he was in his 40s.", "Joe Rogan married at the age of 42.",
    "Joe Rogan served for 44 years.", "The constitution was written in the 1980s.",
    "Joe Rogan got married when he was in his 30s.", "Joe Rogan served for 30 years.",
    # a sentence with nothing to check, beside claims the record states
    "Joe Rogan was born in 1967. She said: 'Couldn't be.' He has 2 children.",
    "Joe Rogan was born in 1967. Totally unrelated words appear here.",
    # the paraphrase budgets: one sentence adding a few words, then a second adding two
    "Joe Rogan, the famed podcast host, was born in 1967. He has 2 children.",
    "Joe Rogan, the famed podcast host, was born in 1967. He married Jessica Ditzel in 2009 "
    "in a private ceremony.",
    "Joe Rogan was born in 1967. He married Jessica Ditzel in 2009 in a private ceremony.",
]


def _examples() -> list[BenchExample]:
    written = [BenchExample(id=f"w{n}", evidence="\n".join(RECORD), synthesis=text,
                            answer_label="faithful") for n, text in enumerate(WRITTEN)]
    incidents = [e for e in load_examples(ROOT / "benchmarks" / "synthetic_incidents.jsonl")
                 if e.split == "dev"][:80]
    return written + incidents


@pytest.mark.parametrize("example", _examples(), ids=lambda e: e.id)
def test_the_replay_decides_as_the_product_does(example: BenchExample) -> None:
    replayed = proceeds(judge_all([example])[0], COVERAGE_BACKSTOP, PARAPHRASE_BUDGET,
                        SENTENCE_BUDGET)
    result = GSAREvaluator(StagedJudge()).evaluate_sync(
        report_synthesis=example.synthesis, evidence_corpus=example.evidence_set)
    assert replayed == (result.final_decision is Decision.PROCEED), (
        example.synthesis, result.final_partition, result.final_judge_output.adjustments
        if hasattr(result.final_judge_output, "adjustments") else None)
