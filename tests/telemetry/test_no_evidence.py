"""A ``@grounded`` call that gathered no evidence abstains with reason ``no_evidence`` without
calling the judge: on the span, in ``gsar.decisions`` and ``gsar.evaluations.degraded``, and in
the ``GroundingError`` text. Each of the three wirings gives the call evidence and is judged."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel import GroundingError, grounded, record_evidence, tool_evidence
from gsar_otel.decorator.api import GroundedCall
from tests.telemetry.helpers import ANSWER, CPU_ROW, Otel, ScriptedJudge


def test_a_call_without_evidence_abstains_with_no_evidence(otel: Otel) -> None:
    judge = ScriptedJudge()

    @grounded(judge=judge)
    def agent() -> str:
        return ANSWER

    assert agent() == ANSWER
    assert judge.seen == []  # a verdict against nothing would be about the wiring
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert attributes["gsar.decision"] == "abstain"
    assert attributes["gsar.degraded"] is True
    assert attributes["gsar.degraded.reason"] == "no_evidence"
    assert attributes["gsar.evidence.count"] == 0
    assert otel.spans("gsar.judge") == []
    degraded = {dict(key)["gsar.degraded.reason"]: point.value
                for key, point in otel.points("gsar.evaluations.degraded").items()}
    assert degraded == {"no_evidence": 1}
    decisions = {dict(key)["gsar.decision"]: point.value
                 for key, point in otel.points("gsar.decisions").items()}
    assert decisions == {"abstain": 1}


def test_the_grounding_error_says_no_evidence_and_how_to_wire_it(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), on_low="raise")
    async def agent() -> str:
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        asyncio.run(agent())
    first = str(raised.value).splitlines()[0]
    assert "grounding decision 'abstain'" in first
    assert "no_evidence: the call recorded no evidence" in first
    for wiring in ("@tool_evidence", "evidence=", "record_evidence()"):
        assert wiring in first
    assert raised.value.result.degraded_reason == "no_evidence"


@tool_evidence
def query_metrics() -> str:
    return CPU_ROW


def _inside() -> str:
    query_metrics()
    return ANSWER


def _extractor() -> str:
    return ANSWER


def _recorded() -> str:
    record_evidence(CPU_ROW, source="query_metrics")
    return ANSWER


@pytest.mark.parametrize(("body", "extract"), [
    (_inside, None),
    (_extractor, lambda call: [CPU_ROW]),
    (_recorded, None),
], ids=["tool-inside-the-call", "evidence-extractor", "record-evidence"])
def test_each_wiring_gives_the_judge_evidence(otel: Otel, body: object,
                                              extract: object) -> None:
    judge = ScriptedJudge()

    def evidence(call: GroundedCall) -> object:
        assert callable(extract)
        return extract(call)

    agent = grounded(judge=judge, evidence=evidence if extract else None)(body)  # type: ignore[arg-type]
    assert agent() == ANSWER
    assert [[item.content for item in seen] for _, seen in judge.seen] == [[CPU_ROW]]
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert "gsar.degraded.reason" not in attributes
