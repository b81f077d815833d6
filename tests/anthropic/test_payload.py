"""Reading model-written verdicts: lenient JSON, validation, salvage."""

from __future__ import annotations

import pytest

from gsar_otel.core.model import EvidenceType
from gsar_otel.judges.anthropic.payload import (
    ERROR_INVALID_JSON,
    ERROR_SCHEMA,
    VerdictProblem,
    parse_json_text,
    salvage_verdict,
    verdict_from_payload,
)
from tests.support.fake_anthropic import claim, verdict


@pytest.mark.parametrize("text", [
    '{"a": 1}',
    'Sure:\n```json\n{"a": 1}\n```',
    'Here: ```\n{"a": 1}\n``` done',
    'The verdict is {"a": 1} as requested.',
])
def test_json_is_found_in_the_shapes_models_reply_with(text: str) -> None:
    assert parse_json_text(text) == {"a": 1}


@pytest.mark.parametrize("text", ["", "   ", "grounded!", '{"a": '])
def test_text_without_json_is_an_invalid_json_problem(text: str) -> None:
    with pytest.raises(VerdictProblem) as raised:
        parse_json_text(text)
    assert raised.value.kind == ERROR_INVALID_JSON


def test_extra_claim_fields_and_null_lists_are_tolerated() -> None:
    data = verdict(grounded=[{**claim("CPU hit 97%."), "confidence": 0.9}], gaps=None)
    data["ungrounded_claims"] = None
    output = verdict_from_payload(data)
    assert output.grounded_claims[0].type is EvidenceType.TOOL_MATCH
    assert output.ungrounded_claims == () and output.gaps == ()


@pytest.mark.parametrize(("data", "named"), [
    ([1, 2], "JSON object"),
    (verdict(grounding_score=1.7), "grounding_score"),
    (verdict(decision_status="abstain", abstain_reason=""), "abstain_reason"),
    (verdict(grounded=[{"text": "x"}]), "grounded_claims.0.type"),
])
def test_a_payload_that_is_not_a_verdict_names_what_is_wrong(data: object, named: str) -> None:
    with pytest.raises(VerdictProblem) as raised:
        verdict_from_payload(data)
    assert raised.value.kind == ERROR_SCHEMA
    assert named in raised.value.detail
    assert raised.value.data == data


def test_salvage_keeps_valid_claims_and_fields_and_says_what_it_dropped() -> None:
    data = verdict(grounded=[claim("A."), {"type": "tool_match"}], contradicted="oops",
                   is_grounded="no", explanation="Mostly fine.")
    output = salvage_verdict(data, "schema violation: x")
    assert output is not None
    assert [c.text for c in output.grounded_claims] == ["A."]
    assert output.contradicted_claims == () and output.is_grounded is False
    assert output.explanation.startswith("Mostly fine. [Salvaged after schema violation: x;")
    for dropped in ("grounded_claims[1]", "contradicted_claims", "is_grounded"):
        assert dropped in output.explanation


def test_salvage_gives_an_abstain_without_a_reason_one() -> None:
    output = salvage_verdict(verdict(decision_status="abstain", abstain_reason=None), "problem")
    assert output is not None and output.abstained
    assert output.abstain_reason == "the judge abstained without giving a reason"


@pytest.mark.parametrize("data", [None, "text", [claim("A.")], verdict()])
def test_salvage_gives_up_when_nothing_is_worth_keeping(data: object) -> None:
    assert salvage_verdict(data, "problem") is None
