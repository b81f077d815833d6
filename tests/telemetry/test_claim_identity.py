"""Claim events identify their claim without its text (content capture off): character offsets
in the answer, a short hash, and ``<tool>@<evidence id>`` of the evidence it cites."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel import grounded, tool_evidence
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.otel.claim_identity import claim_hash, claim_span
from tests.telemetry.helpers import ANSWER, CPU_ROW, Otel, ScriptedJudge


@tool_evidence(source="query_metrics")
def query_metrics() -> str:
    return CPU_ROW


def test_claim_events_carry_offsets_hash_and_evidence_sources(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge())
    def agent() -> str:
        query_metrics()
        return ANSWER

    agent()
    events = [dict(e.attributes or {}) for e in otel.one_evaluate_span().events
              if e.name == "gsar.claim"]
    assert len(events) == 2
    for event in events:
        assert "gsar.claim.text" not in event  # content capture is off
        passage = ANSWER[event["gsar.claim.start"]:event["gsar.claim.end"]]
        assert event["gsar.claim.hash"] == claim_hash(passage)
    grounded_event, ungrounded_event = sorted(events, key=lambda e: e["gsar.claim.start"])
    assert ANSWER[grounded_event["gsar.claim.start"]:grounded_event["gsar.claim.end"]] == (
        "CPU on db-prod-1 reached 97% at 14:02")
    assert grounded_event["gsar.claim.evidence_sources"] == ("query_metrics@E1",)
    assert ungrounded_event["gsar.claim.evidence_sources"] == ()


def test_a_paraphrased_claim_has_a_hash_but_no_offsets(otel: Otel) -> None:
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim("db-prod-1 CPU hit 97 percent", "tool_match", ["E1", "E9"])])

    @grounded(judge=ScriptedJudge(outputs=[output]), evidence=lambda call: [CPU_ROW])
    def agent() -> str:
        return ANSWER

    agent()
    events = [dict(e.attributes or {}) for e in otel.one_evaluate_span().events
              if e.name == "gsar.claim"]
    # (The integrity guard adds the parts of the answer the judge left out as claims.)
    [event] = [e for e in events if e["gsar.claim.hash"] == claim_hash(
        "db-prod-1 CPU hit 97 percent")]
    assert "gsar.claim.start" not in event and "gsar.claim.end" not in event
    assert event["gsar.claim.hash"] == claim_hash("db-prod-1 CPU hit 97 percent")
    assert event["gsar.claim.evidence_sources"] == ("unknown@E1",)  # E9 is no item


def test_the_hash_ignores_spacing_and_case_and_tells_claims_apart() -> None:
    assert claim_hash("CPU  reached\n97%") == claim_hash("cpu reached 97%")
    assert claim_hash("CPU reached 97%") != claim_hash("CPU reached 96%")
    assert len(claim_hash("x")) == 16


@given(st.text(max_size=30), st.text(min_size=1, max_size=10), st.text(max_size=30))
def test_a_passage_of_the_answer_is_found_where_it_is(before: str, claim: str,
                                                      after: str) -> None:
    answer = before + claim + after
    span = claim_span(answer, claim)
    if not claim.strip():
        assert span is None
        return
    assert span is not None
    start, end = span
    assert answer[start:end].lower() == claim.strip().lower()
