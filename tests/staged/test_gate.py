"""Stage 8: the answer gate moves an answer across the proceed line with the fewest claims, and
never lets an unstated conclusion through."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import Evidence, EvidenceSet, EvidenceType
from gsar_otel.core.model import JudgeOutput
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.classify import load_model
from gsar_otel.judges.staged.gate import (
    GATE_FEATURES,
    GATE_REGIMES,
    AnswerShape,
    Gate,
    GateInput,
    Move,
    expanded_names,
    plan_moves,
    proceeds,
    regime_of_answer,
)

N = len(expanded_names())


def fixed_gate(demote: float, promote: float) -> Gate:
    """A gate whose P(faithful) is always 0.5: only its thresholds decide."""
    zero, one = (0.0,) * N, (1.0,) * N
    return Gate(zero, one, zero, 0.0, dict.fromkeys(GATE_REGIMES, demote),
                dict.fromkeys(GATE_REGIMES, promote))


GATE_IN = GateInput("tool", (0.0,) * len(GATE_FEATURES))
ALWAYS_DEMOTE = fixed_gate(2.0, 2.0)
ALWAYS_PROMOTE = fixed_gate(-1.0, -1.0)
NEVER = fixed_gate(0.0, 1.01)


def share_rule(buckets: list[str]):  # type: ignore[no-untyped-def]
    """Proceeds when at least 80% of the claims are grounded after the moves."""
    def would_proceed(moves: list[Move]) -> bool:
        now = list(buckets)
        for move in moves:
            now[move.position] = move.bucket
        return sum(b == "grounded" for b in now) >= 0.8 * len(now)
    return would_proceed


buckets_st = st.lists(st.sampled_from(["grounded", "ungrounded", "contradicted"]),
                      min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(buckets=buckets_st, data=st.data())
def test_demotion_is_the_shortest_prefix_weakest_first(buckets: list[str],
                                                       data: st.DataObject) -> None:
    supports = data.draw(st.lists(st.floats(0, 1), min_size=len(buckets),
                                  max_size=len(buckets)))
    rule = share_rule(buckets)
    moves = plan_moves(ALWAYS_DEMOTE, GATE_IN, buckets, supports, [True] * len(buckets), rule)
    if not rule([]):
        assert moves == []
        return
    assert moves and not rule(moves) and rule(moves[:-1])
    assert all(buckets[m.position] == "grounded" and m.bucket == "ungrounded" for m in moves)
    moved = {m.position for m in moves}
    weakest_kept = min((supports[i] for i, b in enumerate(buckets)
                        if b == "grounded" and i not in moved), default=2.0)
    assert all(supports[m.position] <= weakest_kept for m in moves)


@settings(max_examples=150, deadline=None)
@given(buckets=buckets_st, data=st.data())
def test_promotion_moves_only_promotable_ungrounded_claims(buckets: list[str],
                                                           data: st.DataObject) -> None:
    supports = data.draw(st.lists(st.floats(0, 1), min_size=len(buckets),
                                  max_size=len(buckets)))
    promotable = data.draw(st.lists(st.booleans(), min_size=len(buckets),
                                    max_size=len(buckets)))
    rule = share_rule(buckets)
    moves = plan_moves(ALWAYS_PROMOTE, GATE_IN, buckets, supports, promotable, rule)
    assert all(buckets[m.position] == "ungrounded" and promotable[m.position]
               and m.bucket == "grounded" for m in moves)
    if moves:
        assert rule(moves) and not rule(moves[:-1])
    assert plan_moves(NEVER, GATE_IN, buckets, supports, promotable, rule) == []


def shape(**changes: int | float) -> AnswerShape:
    base = AnswerShape(answer_words=20, evidence_words=200, coverage=1.0, pair_coverage=1.0,
                       names_missing=0, names_total=0, anchors_absent=0, anchors_conflict=0,
                       anchors_total=0, claims=1, rows_led=0, evidence_units=10,
                       evidence_rows=0, evidence_tool=0, sentences=1)
    return dataclasses.replace(base, **changes)


def test_regimes_follow_the_evidence_then_the_answer() -> None:
    assert regime_of_answer(shape(evidence_rows=9, evidence_tool=9)) == "table"
    assert regime_of_answer(shape(evidence_rows=3, evidence_tool=7)) == "tool"
    assert regime_of_answer(shape(claims=2)) == "prose_single"
    assert regime_of_answer(shape(claims=5)) == "prose_single"  # one sentence, five clauses
    assert regime_of_answer(shape(claims=2, sentences=2)) == "prose_multi"


def test_a_gate_of_another_version_is_refused() -> None:
    with pytest.raises(ValueError, match="retrain"):
        Gate.from_json({"version": "gate-0", "feature_names": list(GATE_FEATURES)})


SEED = EvidenceSet(items=(
    Evidence("E1", "2024-05-01 10:14:30 UTC INFO deploy-bot: config push cfg-7781 to edge-lb-3"),
    Evidence("E2", "[signal] alert_id=A-1 fired_at=10:15:00 outage on edge-lb-3",
             EvidenceType.SIGNAL_MATCH),
    Evidence("E3", "host=edge-lb-3 http_5xx_rate=41.2% p99_ms=850 ts=2024-05-01T10:15:32Z"),
))


def judge_with(gate: Gate, synthesis: str) -> JudgeOutput:
    judge = StagedJudge()
    judge._model = dataclasses.replace(load_model(), gate=gate)
    return asyncio.run(judge.judge(synthesis=synthesis, evidence=SEED))


@pytest.mark.parametrize("facts", ["", "The 5xx rate on edge-lb-3 reached 41.2%. "
                                       "The p99 latency on edge-lb-3 was 850 ms. "])
def test_a_gate_sure_of_the_answer_never_lets_the_seeds_cause_through(facts: str) -> None:
    output = judge_with(ALWAYS_PROMOTE, facts + "The outage was caused by a config push.")
    assert not proceeds(output)
    assert [c.conclusion for c in output.ungrounded_claims] == [True]


def test_a_gate_sure_the_answer_is_wrong_holds_it_back_visibly() -> None:
    judge = StagedJudge()
    judge._model = dataclasses.replace(load_model(), gate=ALWAYS_DEMOTE)
    verdicts = judge.explain(synthesis="The 5xx rate on edge-lb-3 reached 41.2%.", evidence=SEED)
    assert [v.rule for v in verdicts] == ["answer_gate"]
    assert [v.bucket for v in verdicts] == ["ungrounded"]


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.sampled_from(["41.2%", "12.5%", "850 ms", "900 ms"]), min_size=1,
                       max_size=3))
def test_a_deferring_regime_returns_the_rule_judges_claims(values: list[str]) -> None:
    from gsar_otel.judges.lexical.judge import LexicalJudge

    synthesis = " ".join(f"A value on edge-lb-3 was {v}." for v in values)
    gate = dataclasses.replace(NEVER, defer=frozenset(GATE_REGIMES))
    output = judge_with(gate, synthesis)
    lexical = LexicalJudge().judge_now(synthesis=synthesis, evidence=SEED)
    for bucket in ("grounded_claims", "ungrounded_claims", "contradicted_claims",
                   "complementary_claims"):
        assert [c.text for c in getattr(output, bucket)] == [
            c.text for c in getattr(lexical, bucket)]
    assert output.grounding_score == lexical.grounding_score


def test_two_metric_rows_are_tool_output_not_a_table() -> None:
    assert regime_of_answer(shape(evidence_units=2, evidence_rows=2, evidence_tool=2)) == "tool"


def test_a_long_answer_still_reads_the_rule_judge() -> None:
    # Until the rule judge's clause joins were made linear, answers over 4,000 characters were
    # judged without it; its cost is linear now (test_cost.py), so no size limit remains.
    sentence = "The 5xx rate on edge-lb-3 reached 41.2%. "
    synthesis = sentence * (4_000 // len(sentence) + 1)
    gate = dataclasses.replace(NEVER, defer=frozenset(GATE_REGIMES))
    judge = StagedJudge()
    judge._model = dataclasses.replace(load_model(), gate=gate)
    output = judge.judge_now(synthesis=synthesis, evidence=SEED)
    assert "read no rule-judge verdict" not in (output.explanation or "")
    assert any(v.rule == "lexical" for v in judge.explain(synthesis=synthesis, evidence=SEED))
