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
    "joins with no verb on the left": "cpu high and ",
    "joins with no content on the right": "and was the ",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_judging_grows_linearly_with_the_answer(shape: str) -> None:
    unit = SHAPES[shape]
    evidence = EvidenceSet.coerce(["host=db-prod-1 cpu_pct=97.2"])
    judge = LexicalJudge()

    def cost(n: int) -> float:
        return line_events(judge.judge_now, synthesis="CPU hit 97%.\n" + unit * n,
                           evidence=evidence)

    assert growth_exponent(cost, [150, 300, 600]) < 1.3


def _claims_and_rows(n: int) -> tuple[str, EvidenceSet]:
    """n answer sentences with a number, a time, a host and a quote each, against n rows of 20
    numbers each: the answer and the evidence grow together, so comparing every claim with
    every item would cost n squared."""
    synthesis = " ".join(f'Latency on db-{i} was {i}.5 ms at {i % 24}:{i % 60:02d} per "q{i}".'
                         for i in range(n))
    rows = [f"host=db-{i} latency_ms={i}.5 ts={i % 24}:{i % 60:02d} q{i} " + " ".join(
        f"m{j}={i * 20 + j}.25" for j in range(20)) for i in range(n)]
    return synthesis, EvidenceSet.coerce(rows, max_items=n)


def test_many_claims_against_many_items_grow_linearly() -> None:
    judge = LexicalJudge()

    def cost(n: int) -> float:
        synthesis, evidence = _claims_and_rows(n)
        return line_events(judge.judge_now, synthesis=synthesis, evidence=evidence)

    assert growth_exponent(cost, [50, 100, 200]) < 1.3


def test_the_value_index_finds_what_comparing_every_number_found() -> None:
    synthesis, evidence = _claims_and_rows(30)
    output = LexicalJudge().judge_now(synthesis=synthesis, evidence=evidence)
    assert len(output.grounded_claims) == 30
    assert all(claim.evidence_refs for claim in output.grounded_claims)


def test_many_evidence_numbers_are_looked_up_by_value() -> None:
    judge = LexicalJudge()

    def cost(n: int) -> float:
        synthesis = " ".join(f"v {i}.5 ms." for i in range(n))
        rows = [" ".join(f"{j}.25" for j in range(i * 20, (i + 1) * 20)) for i in range(n)]
        return line_events(judge.judge_now, synthesis=synthesis,
                           evidence=EvidenceSet.coerce(rows, max_items=n))

    assert growth_exponent(cost, [50, 100, 200]) < 1.3


EVIDENCE_SHAPES = {
    "hyphen run": "a-",
    "key characters": "a1-b_2.",
    "key=value pairs": "k=1.5 ",
    "sentences": "A. ",
    "spaces before a join": "   and ",
}


@pytest.mark.parametrize("shape", sorted(EVIDENCE_SHAPES))
def test_judging_grows_linearly_with_one_evidence_item(shape: str) -> None:
    """Counted in operations: Python line events plus the characters handed to the lexical
    and text modules' patterns, so a pattern re-reading a growing text is seen too."""
    import gsar_otel.judges.lexical.index
    import gsar_otel.judges.lexical.lexicon
    import gsar_otel.judges.lexical.segment
    from gsar_otel.core import text
    from tests.support.cost import operations

    modules = [text, gsar_otel.judges.lexical.lexicon, gsar_otel.judges.lexical.index,
               gsar_otel.judges.lexical.segment]
    judge = LexicalJudge()

    def cost(n: int) -> float:
        item = EVIDENCE_SHAPES[shape] * n
        evidence = EvidenceSet.coerce([item, "cpu_pct=97.2"], max_item_chars=len(item))
        return operations(judge.judge_now, synthesis="CPU hit 97%. It rose and fell.",
                          evidence=evidence, modules=modules)

    assert growth_exponent(cost, [500, 1000, 2000, 4000]) < 1.3
