"""The offline judge's work grows linearly with its input, counted in Python line events (not
seconds), on the shapes that used to make it quadratic: many clause joins in one sentence, many
numbers in one claim, long hyphen runs."""

from __future__ import annotations

import pytest

from gsar_otel import EvidenceSet, LexicalJudge
from tests.support.cost import growth_exponent, line_events

SHAPES = {
    "clause joins": "cpu rose and ",
    "numbers in one claim": "12 ",
    "hyphen runs of digits": "1-",
    "sentences": "A. ",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_judging_grows_linearly_with_the_answer(shape: str) -> None:
    unit = SHAPES[shape]
    evidence = EvidenceSet.coerce(["host=db-prod-1 cpu_pct=97.2"])
    judge = LexicalJudge()

    def cost(n: int) -> float:
        return line_events(judge.judge_now, synthesis="CPU hit 97%. " + unit * n,
                           evidence=evidence)

    assert growth_exponent(cost, [150, 300, 600]) < 1.3
