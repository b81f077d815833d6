"""Each integrity guard triggers, with the Adjustment a user sees on the result."""

from __future__ import annotations

import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import (
    DUPLICATE_CLAIM,
    EMPTY_CLAIM,
    MISSING_EVIDENCE_REF,
    UNCOVERED_SENTENCE,
    UNKNOWN_EVIDENCE_REF,
    UNKNOWN_EVIDENCE_TYPE,
    UNSUPPORTED_NUMBER,
    Adjustment,
    check_judge_output,
    uncovered_claim_type,
)
from gsar_otel.core.model import Claim, EvidenceType, JudgeOutput, safe_default_judge_output
from gsar_otel.core.scoring import gsar_score

EVIDENCE = EvidenceSet.coerce(
    "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2\n"
    "[tool=query_metrics row=14:02:01] host=db-prod-1 rps=12.4\n"
    "[signal] alert_id=A-9912 fired_at=14:02:00 metric=cpu_pct severity=high\n"
    "[tool=billing] invoices_processed=1200 window=1h"
)


def verdict(**buckets: list[Claim]) -> JudgeOutput:
    return JudgeOutput(grounding_score=0.9, is_grounded=True,
                       **{f"{name}_claims": claims for name, claims in buckets.items()})


def check(output: JudgeOutput, synthesis: str | None = None, **kwargs: object):
    if synthesis is None:
        # Each claim is its own sentence, so coverage adds nothing unless a test wants it to.
        synthesis = " ".join(c.text.rstrip(".") + "." for c in output.to_partition().all_claims()
                             if c.text.strip())
    return check_judge_output(output, synthesis=synthesis, evidence=EVIDENCE, **kwargs)


def only(report, kind: str) -> Adjustment:
    found = [a for a in report.adjustments if a.kind == kind]
    assert len(found) == 1, report.adjustments
    return found[0]


def test_a_clean_verdict_passes_through_with_no_adjustments():
    output = verdict(grounded=[Claim("CPU on db-prod-1 reached 97%", "tool_match", ["E1"])],
                     ungrounded=[Claim("A runaway query is the likely cause", "inference")])
    report = check(output)
    assert report.adjustments == ()
    assert report.output == output


def test_an_abstained_verdict_passes_through_unchanged():
    output = safe_default_judge_output("judge raised TimeoutError")
    report = check_judge_output(output, synthesis="CPU hit 97%. Uncovered claim.",
                                evidence=EVIDENCE)
    assert report.output is output
    assert report.adjustments == ()


def test_an_unknown_evidence_type_is_kept_and_recorded():
    claim = Claim("CPU on db-prod-1 reached 97%", "observation", ["E1"])
    report = check(verdict(grounded=[claim]))
    assert report.output.grounded_claims == (claim,)
    adjustment = only(report, UNKNOWN_EVIDENCE_TYPE)
    assert (adjustment.claim, adjustment.from_bucket, adjustment.to_bucket) == (
        claim.text, "grounded", "grounded")
    assert "'observation'" in adjustment.reason
    assert "default_unknown 0.60" in adjustment.reason


def test_an_empty_claim_is_removed_and_recorded():
    report = check(verdict(ungrounded=[Claim("   ", "inference"),
                                       Claim("A runaway query", "inference")]))
    assert [c.text for c in report.output.ungrounded_claims] == ["A runaway query"]
    adjustment = only(report, EMPTY_CLAIM)
    assert (adjustment.from_bucket, adjustment.to_bucket) == ("ungrounded", None)
    assert adjustment.reason == "claim text is empty"


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ("grounded", "contradicted", "contradicted"),
        ("contradicted", "grounded", "contradicted"),
        ("grounded", "ungrounded", "ungrounded"),
        ("ungrounded", "contradicted", "contradicted"),
        ("complementary", "ungrounded", "ungrounded"),
        ("complementary", "contradicted", "contradicted"),
        ("grounded", "complementary", "grounded"),
    ],
)
def test_a_claim_in_two_buckets_keeps_only_the_worst(first, second, kept):
    text = "Request rate held steady at 12 RPS"
    output = verdict(**{first: [Claim(text, "tool_match", ["E2"])],
                        second: [Claim(text + ".", "tool_match", ["E2"])]})
    report = check(output, synthesis=text + ".")
    partition = report.output.to_partition()
    assert [name for name, claims in partition.buckets() if claims] == [kept]
    assert partition.total_claims == 1
    adjustment = only(report, DUPLICATE_CLAIM)
    assert adjustment.from_bucket == (second if kept == first else first)
    assert adjustment.to_bucket is None
    assert adjustment.reason == f"claim listed more than once; kept in {kept}"


def test_a_duplicate_within_one_bucket_is_listed_once():
    claim = Claim("CPU on db-prod-1 reached 97%", "tool_match", ["E1"])
    report = check(verdict(grounded=[claim, Claim(" cpu on DB-PROD-1 reached 97% ", "tool_match",
                                                  ["E1"])]))
    assert report.output.grounded_claims == (claim,)
    assert only(report, DUPLICATE_CLAIM).from_bucket == "grounded"


def test_a_grounded_claim_that_cites_nothing_becomes_ungrounded():
    claim = Claim("CPU on db-prod-1 reached 97%", "tool_match")
    report = check(verdict(grounded=[claim]))
    assert report.output.grounded_claims == ()
    assert report.output.ungrounded_claims == (claim,)
    assert only(report, MISSING_EVIDENCE_REF) == Adjustment(
        kind=MISSING_EVIDENCE_REF, claim=claim.text, from_bucket="grounded",
        to_bucket="ungrounded", reason="grounded claim cites no evidence id")


def test_a_grounded_claim_citing_an_unknown_id_becomes_ungrounded_naming_the_id():
    claim = Claim("CPU on db-prod-1 reached 97%", "tool_match", ["E42"])
    report = check(verdict(grounded=[claim]))
    assert report.output.ungrounded_claims == (claim,)
    adjustment = only(report, UNKNOWN_EVIDENCE_REF)
    assert (adjustment.from_bucket, adjustment.to_bucket) == ("grounded", "ungrounded")
    assert "E42" in adjustment.reason


def test_known_and_unknown_ids_together_keep_the_known_ones_and_record_the_rest():
    claim = Claim("CPU on db-prod-1 reached 97%", "tool_match", ["[e1]", "E42", " "])
    report = check(verdict(grounded=[claim]))
    (kept,) = report.output.grounded_claims
    assert kept.evidence_refs == ("E1",)
    adjustment = only(report, UNKNOWN_EVIDENCE_REF)
    assert (adjustment.from_bucket, adjustment.to_bucket) == ("grounded", "grounded")
    assert adjustment.reason == "dropped evidence ids not in the evidence: E42"


def test_refs_are_only_checked_for_grounded_claims():
    report = check(verdict(contradicted=[Claim("Request rate held at 4500 RPS", "tool_match",
                                               ["E99"])]))
    assert report.adjustments == ()


def test_a_grounded_number_missing_from_the_cited_evidence_becomes_ungrounded():
    claim = Claim("Request rate held steady at 4500 RPS", "tool_match", ["E2"])
    report = check(verdict(grounded=[claim]))
    assert report.output.ungrounded_claims == (claim,)
    adjustment = only(report, UNSUPPORTED_NUMBER)
    assert (adjustment.from_bucket, adjustment.to_bucket) == ("grounded", "ungrounded")
    assert "4500" in adjustment.reason
    assert "(E2)" in adjustment.reason


def test_a_number_found_only_in_an_item_the_claim_does_not_cite_is_unsupported():
    claim = Claim("CPU on db-prod-1 reached 97%", "tool_match", ["E2"])
    report = check(verdict(grounded=[claim]))
    assert only(report, UNSUPPORTED_NUMBER).claim == claim.text


def test_a_clock_time_missing_from_the_cited_evidence_becomes_ungrounded():
    claim = Claim("CPU on db-prod-1 reached 97% at 15:30 UTC", "tool_match", ["E1"])
    report = check(verdict(grounded=[claim]))
    assert "15:30" in only(report, UNSUPPORTED_NUMBER).reason


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("CPU on db-prod-1 reached 97%", ["E1"]),
        ("Request rate dropped to 12 RPS", ["E2"]),
        ("CPU on db-prod-1 spiked at 14:02 UTC", ["E1"]),
        ("The alert fired at 14:02:00", ["E3"]),
        ("The job processed 1,200 invoices", ["E4"]),
        ("CPU reached 97.2% while requests fell to 12.4 per second", ["E1", "E2"]),
    ],
)
def test_rounded_and_formatted_numbers_stay_grounded(text, refs):
    report = check(verdict(grounded=[Claim(text, "tool_match", refs)]))
    assert [a.kind for a in report.adjustments] == []
    assert report.output.grounded_claims[0].text == text


def test_an_uncovered_sentence_is_added_as_an_ungrounded_inference():
    synthesis = ("CPU on db-prod-1 reached 97% at 14:02 UTC. "
                 "The outage was caused by a failed power supply in rack 7B.")
    output = verdict(grounded=[Claim("CPU on db-prod-1 reached 97% at 14:02 UTC", "tool_match",
                                     ["E1"])])
    report = check(output, synthesis=synthesis)
    # A causal sentence the judge left out is added as a conclusion, so the cap still sees it.
    added = Claim("The outage was caused by a failed power supply in rack 7B.", "inference",
                  conclusion=True)
    assert report.output.ungrounded_claims == (added,)
    adjustment = only(report, UNCOVERED_SENTENCE)
    assert (adjustment.claim, adjustment.from_bucket, adjustment.to_bucket) == (
        added.text, None, "ungrounded")
    assert "7B" in adjustment.reason or "7b" in adjustment.reason


def test_a_paraphrased_claim_missing_a_specific_number_leaves_its_sentence_uncovered():
    synthesis = "The PSU was replaced at 03:15 UTC by technician T-218."
    output = verdict(ungrounded=[Claim("The PSU was replaced by a technician", "inference")])
    report = check(output, synthesis=synthesis)
    adjustment = only(report, UNCOVERED_SENTENCE)
    assert "03:15" in adjustment.reason
    assert "t-218" in adjustment.reason.lower()


def test_a_judge_that_drops_a_contradicted_claim_scores_no_higher_than_one_that_keeps_it():
    synthesis = ("CPU on db-prod-1 reached 97% at 14:02 UTC. "
                 "Request rate held steady at 4500 RPS throughout the spike. "
                 "An alert fired at 14:02 UTC.")
    grounded = [Claim("CPU on db-prod-1 reached 97% at 14:02 UTC", "tool_match", ["E1"]),
                Claim("An alert fired at 14:02 UTC", "signal_match", ["E3"])]
    contradicted = [Claim("Request rate held steady at 4500 RPS throughout the spike",
                          "tool_match", ["E2"])]
    for rho in (0.0, 0.5, 1.0):
        honest = check(verdict(grounded=grounded, contradicted=contradicted), synthesis=synthesis,
                       contradiction_penalty=rho)
        silent = check(verdict(grounded=grounded), synthesis=synthesis,
                       contradiction_penalty=rho)
        assert honest.adjustments == ()
        assert only(silent, UNCOVERED_SENTENCE).claim.startswith("Request rate held steady")
        kept = gsar_score(honest.output.to_partition(), contradiction_penalty=rho)
        dropped = gsar_score(silent.output.to_partition(), contradiction_penalty=rho)
        assert dropped <= kept


def test_the_uncovered_claim_type_is_inference_unless_a_contradiction_could_cost_more():
    assert uncovered_claim_type(None, 0.5, 0.6) is EvidenceType.INFERENCE
    # rho 1 with default weights: a contradicted tool_match costs 1.0 > 0.6 for an inference.
    assert uncovered_claim_type(None, 1.0, 0.6) is EvidenceType.TOOL_MATCH
    assert uncovered_claim_type({"tool_match": 0.6}, 1.0, 0.6) is EvidenceType.SPECIFIC_DATA
    assert uncovered_claim_type({"inference": 1.0}, 1.0, 0.6) is EvidenceType.INFERENCE


def test_the_uncovered_claim_type_outweighs_an_unknown_type_when_that_is_the_heaviest():
    light = {t.value: 0.1 for t in EvidenceType}
    added = uncovered_claim_type(light, 1.0, 0.9)
    assert added == "unverified"
    score = gsar_score(
        verdict(grounded=[Claim("x", "tool_match", ["E1"])],
                ungrounded=[Claim("y", added)]).to_partition(),
        weight_map=light, default_unknown=0.9)
    assert score == pytest.approx(0.1 / (0.1 + 0.9))


def test_adjustments_leave_the_rest_of_the_verdict_intact():
    output = JudgeOutput(grounding_score=0.8, is_grounded=True, gaps=["slow log"],
                         explanation="mostly grounded",
                         grounded_claims=[Claim("CPU on db-prod-1 reached 97%", "tool_match")])
    report = check(output)
    assert report.adjustments
    assert report.output.gaps == ("slow log",)
    assert report.output.explanation == "mostly grounded"
    assert report.output.grounding_score == 0.8


ROW = EvidenceSet.coerce([
    "host=edge-lb-3 addr=10.0.0.12:8080 change=cfg-7781 version=v2.3.1 http_5xx_rate=3.1 "
    "latency_p99_ms=950 at=2024-05-01T10:15:32Z",
    "[tool=logs] date=2024-05-02 time=08:00:01 msg=\"timeout after 30s\"",
])


def test_ids_hosts_classes_and_percentiles_are_not_numbers_the_evidence_must_hold():
    claim = Claim("After cfg-7781 rolled out v2.3.1 on edge-lb-3 (10.0.0.12:8080), the 5xx rate "
                  "reached 3.1% and p99 reached 950 ms", "tool_match", ["E1"])
    report = check_judge_output(verdict(grounded=[claim]), synthesis=claim.text + ".",
                                evidence=ROW)
    assert report.adjustments == ()


@pytest.mark.parametrize(("text", "missing"), [
    ("Version v2.3.2 was rolled out on edge-lb-3", "v2.3.2"),
    ("Traffic went to 10.0.0.13 on edge-lb-3", "10.0.0.13"),
    ("The 5xx rate on edge-lb-3 reached 4.1%", "4.1%"),
    ("p99 on edge-lb-3 reached 1.2 s", "1.2 s"),
    ("It started at 10:16 UTC on edge-lb-3", "10:16 UTC"),
])
def test_a_numbered_anchor_missing_from_the_cited_item_is_unsupported(text, missing):
    report = check_judge_output(verdict(grounded=[Claim(text, "tool_match", ["E1"])]),
                                synthesis=text + ".", evidence=ROW)
    assert only(report, UNSUPPORTED_NUMBER).reason.startswith(f"{missing} appear(s) in none")


def test_a_timestamp_is_supported_by_its_date_and_time_held_apart():
    claim = Claim("The timeout was logged at 2024-05-02 08:00:01", "tool_match", ["E2"])
    report = check_judge_output(verdict(grounded=[claim]), synthesis=claim.text + ".",
                                evidence=ROW)
    assert report.adjustments == ()


def test_a_number_inside_a_quote_is_still_checked():
    claim = Claim('The log says "timeout after 45s"', "tool_match", ["E2"])
    report = check_judge_output(verdict(grounded=[claim]), synthesis=claim.text + ".",
                                evidence=ROW)
    assert "45s" in only(report, UNSUPPORTED_NUMBER).reason
    quoted = Claim('The log says "timeout after 30s"', "tool_match", ["E2"])
    assert check_judge_output(verdict(grounded=[quoted]), synthesis=quoted.text + ".",
                              evidence=ROW).adjustments == ()


def test_a_judge_that_checks_values_itself_has_no_cited_item_read_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``check_values=False`` the guard keeps its reference checks but reads no cited
    item's values: a number the items lack stays grounded, and no item is indexed."""
    import gsar_otel.core.integrity as integrity

    items = {item.content for item in EVIDENCE}
    index_of = integrity._index_of

    def refuse(texts: tuple[str, ...], read: object) -> object:
        assert not items & set(texts), "a cited item was read"
        return index_of(texts, read)  # type: ignore[arg-type]

    claim = Claim(text="CPU on db-prod-1 hit 55%.", type=EvidenceType.TOOL_MATCH,
                  evidence_refs=["E1"])
    monkeypatch.setattr(integrity, "_index_of", refuse)
    report = check(verdict(grounded=[claim]), check_values=False)
    assert [c.text for c in report.output.grounded_claims] == [claim.text]
    monkeypatch.undo()
    checked = check(verdict(grounded=[claim]))
    assert [c.text for c in checked.output.grounded_claims] == []
