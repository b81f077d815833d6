"""Claims, partitions and the judge's verdict (Appendix C) as a user constructs and reads them."""

from __future__ import annotations

import json

import pytest

from gsar_otel.core.model import (
    Claim,
    Decision,
    EvidenceType,
    JudgeOutput,
    Partition,
    safe_default_judge_output,
)

# --- Claim ---------------------------------------------------------------------------------------


def test_a_claim_can_be_built_positionally_or_by_keyword_and_both_are_equal():
    positional = Claim("CPU hit 97%", "tool_match", ["E1"])
    keyword = Claim(text="CPU hit 97%", type=EvidenceType.TOOL_MATCH, evidence_refs=("E1",))
    assert positional == keyword
    assert positional.type is EvidenceType.TOOL_MATCH
    assert positional.evidence_refs == ("E1",)


def test_a_claim_without_refs_has_an_empty_tuple():
    assert Claim("x", "inference").evidence_refs == ()
    assert Claim("x", "inference", None).evidence_refs == ()


@pytest.mark.parametrize("raw", ["Tool-Match", " TOOL_MATCH ", "tool match", "tool_match"])
def test_claim_type_strings_are_normalised_to_the_enum(raw):
    claim = Claim("x", raw)
    assert claim.type is EvidenceType.TOOL_MATCH
    assert claim.known_type


def test_an_unknown_type_string_is_kept_as_a_plain_string():
    claim = Claim("x", "  gut feeling ")
    assert claim.type == "gut feeling"
    assert not isinstance(claim.type, EvidenceType)
    assert not claim.known_type


@pytest.mark.parametrize("bad", ["", "   ", None, 3])
def test_an_empty_or_non_string_type_is_rejected_listing_the_allowed_types(bad):
    with pytest.raises(ValueError, match=r"claim type must be a non-empty string.*tool_match"):
        Claim("x", bad)


def test_evidence_refs_given_as_a_comma_string_are_split_and_trimmed():
    assert Claim("x", "tool_match", "E1, E2,,  E3 ").evidence_refs == ("E1", "E2", "E3")


def test_a_claim_refuses_too_many_or_duplicate_arguments():
    with pytest.raises(TypeError, match="at most 3"):
        Claim("x", "tool_match", [], "extra")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="two values for 'text'"):
        Claim("x", text="y", type="tool_match")  # type: ignore[misc]


def test_a_claim_is_frozen():
    claim = Claim("x", "tool_match")
    with pytest.raises(ValueError):
        claim.text = "y"  # type: ignore[misc]


def test_a_claim_rejects_a_misspelt_keyword():
    with pytest.raises(ValueError, match="evidence_ref"):
        Claim(text="x", type="tool_match", evidence_ref=["E1"])  # type: ignore[call-arg]


# --- Partition -----------------------------------------------------------------------------------


def test_a_partition_counts_and_lists_its_claims_in_bucket_order():
    g, u, x, k = (Claim(t, "tool_match") for t in "guxk")
    p = Partition(grounded=[g], ungrounded=[u], contradicted=[x], complementary=[k])
    assert p.total_claims == 4
    assert not p.is_empty
    assert p.all_claims() == [g, u, x, k]
    assert p.counts() == {"grounded": 1, "ungrounded": 1, "contradicted": 1, "complementary": 1}
    assert Partition().is_empty


# --- JudgeOutput ---------------------------------------------------------------------------------


def full_output() -> JudgeOutput:
    return JudgeOutput(
        grounding_score=0.75,
        is_grounded=False,
        grounded_claims=[Claim("CPU hit 97%", "tool_match", ["E1"])],
        ungrounded_claims=[Claim("a query ran away", "inference"),
                           Claim("the planner chose a bad index", "hunch")],
        contradicted_claims=[Claim("rps held at 4500", "tool_match", ["E2"])],
        complementary_claims=[Claim("an alert fired too", "complementary_finding", ["E3"])],
        gaps=["no query log"],
        contradictions=["rps 4500 vs 12.4"],
        verification_needed=True,
        verification_reason="query the slow log",
        explanation="one claim refuted",
    )


def test_a_judge_output_round_trips_through_json_unchanged():
    output = full_output()
    again = JudgeOutput.model_validate_json(output.model_dump_json())
    assert again == output
    assert json.loads(again.model_dump_json()) == json.loads(output.model_dump_json())


def test_the_json_uses_appendix_c_field_names():
    assert set(json.loads(full_output().model_dump_json())) == {
        "grounding_score", "is_grounded", "grounded_claims", "ungrounded_claims",
        "contradicted_claims", "complementary_claims", "gaps", "contradictions",
        "verification_needed", "verification_reason", "explanation", "decision_status",
        "abstain_reason",
    }


def test_to_partition_copies_the_four_claim_lists():
    output = full_output()
    p = output.to_partition()
    assert p.grounded == output.grounded_claims
    assert p.ungrounded == output.ungrounded_claims
    assert p.contradicted == output.contradicted_claims
    assert p.complementary == output.complementary_claims


def test_abstaining_requires_a_reason():
    with pytest.raises(ValueError, match="abstain_reason must be a non-empty string"):
        JudgeOutput(grounding_score=0.5, is_grounded=False, decision_status="abstain")
    with pytest.raises(ValueError, match="abstain_reason"):
        JudgeOutput(grounding_score=0.5, is_grounded=False, decision_status="abstain",
                    abstain_reason="   ")
    ok = JudgeOutput(grounding_score=0.5, is_grounded=False, decision_status="abstain",
                     abstain_reason="evidence unreadable")
    assert ok.abstained


def test_an_unknown_decision_status_is_rejected():
    with pytest.raises(ValueError, match="decision_status"):
        JudgeOutput(grounding_score=0.5, is_grounded=False, decision_status="maybe")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.1, 1.5, "high"])
def test_a_grounding_score_that_is_not_a_finite_unit_number_is_rejected_clearly(bad):
    with pytest.raises(ValueError, match=r"grounding_score must be a (finite )?number in \[0, 1\]"):
        JudgeOutput(grounding_score=bad, is_grounded=True)


def test_a_nan_grounding_score_in_json_is_rejected():
    with pytest.raises(ValueError, match="grounding_score"):
        JudgeOutput.model_validate_json('{"grounding_score": NaN, "is_grounded": true}')


def test_extra_keys_from_a_judge_are_ignored_at_every_level():
    payload = {
        "grounding_score": 0.9, "is_grounded": True, "model_notes": "extra",
        "grounded_claims": [{"text": "CPU hit 97%", "type": "tool_match",
                             "evidence_refs": ["E1"], "confidence": 0.8}],
    }
    output = JudgeOutput.model_validate(payload)
    assert output.grounded_claims == (Claim("CPU hit 97%", "tool_match", ["E1"]),)
    assert not hasattr(output, "model_notes")


def test_null_lists_and_explanation_from_a_judge_read_as_empty():
    output = JudgeOutput.model_validate({
        "grounding_score": 0.9, "is_grounded": True, "gaps": None, "contradictions": None,
        "ungrounded_claims": None, "explanation": None,
    })
    assert output.gaps == output.contradictions == output.ungrounded_claims == ()
    assert output.explanation == ""


def test_an_unknown_claim_type_in_a_judge_payload_keeps_the_rest_of_the_verdict():
    output = JudgeOutput.model_validate({
        "grounding_score": 0.9, "is_grounded": True,
        "grounded_claims": [{"text": "a", "type": "observation", "evidence_refs": ["E1"]},
                            {"text": "b", "type": "Signal-Match", "evidence_refs": ["E2"]}],
    })
    assert [c.type for c in output.grounded_claims] == ["observation", EvidenceType.SIGNAL_MATCH]


def test_with_partition_replaces_only_the_claim_lists():
    output = full_output()
    replaced = output.with_partition(Partition(ungrounded=[Claim("z", "domain")]))
    assert replaced.grounded_claims == ()
    assert replaced.ungrounded_claims == (Claim("z", "domain"),)
    assert replaced.gaps == output.gaps
    assert replaced.explanation == output.explanation


# --- safe default --------------------------------------------------------------------------------


def test_the_safe_default_abstains_with_no_claims_and_a_neutral_score():
    output = safe_default_judge_output()
    assert output.abstained
    assert output.decision_status == "abstain"
    assert output.abstain_reason == "judge produced malformed output"
    assert output.explanation == "Safe default: judge produced malformed output"
    assert output.grounding_score == 0.5
    assert output.is_grounded is False
    assert output.to_partition().is_empty


def test_the_safe_default_carries_the_given_reason_and_falls_back_on_a_blank_one():
    assert safe_default_judge_output("timeout").abstain_reason == "timeout"
    assert safe_default_judge_output("  ").abstain_reason == "judge produced malformed output"


def test_decision_values_are_the_four_strings():
    assert [d.value for d in Decision] == ["proceed", "regenerate", "replan", "abstain"]


def test_thresholds_accept_positional_arguments_like_the_reference() -> None:
    from gsar_otel.core.model import GSARThresholds

    assert GSARThresholds(0.9, 0.7) == GSARThresholds(proceed=0.9, regenerate=0.7)
    with pytest.raises(TypeError, match="two values for 'proceed'"):
        GSARThresholds(0.9, proceed=0.8)
