"""Linking, typing, contradiction, absence and causal over-reach in the offline judge."""

from __future__ import annotations

import json
import warnings

import pytest

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.core.model import EvidenceType
from gsar_otel.core.protocol import Judge
from gsar_otel.judges.lexical.judge import LexicalJudge
from gsar_otel.judges.staged.judge import StagedJudge
from tests.lexical.incident import (
    ALERT_ROW,
    CPU_ROW,
    EVIDENCE_A,
    PUSH_EVIDENCE,
    RPS_ROW,
    explain,
    judge,
    verdict,
)

INCIDENT_ANSWER = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC and request rate "
                   "dropped to 12 RPS. Alert A-9912 fired at 14:02 UTC with high severity. "
                   "A config push (cfg-4471) was applied to db-prod-1 at 14:01:30. "
                   "The outage was caused by the config push.")
INCIDENT_EVIDENCE = [CPU_ROW, RPS_ROW, PUSH_EVIDENCE[0],
                     "[tool=search_logs] 14:02:05 db-prod-1 postgres: checkpoint took 41.3 s",
                     ALERT_ROW + " host=db-prod-1"]


def test_the_offline_judge_implements_the_judge_protocol() -> None:
    judge_ = StagedJudge()
    assert isinstance(judge_, Judge)
    assert judge_.name == "staged"


def test_the_lexical_name_warns_and_judges_exactly_like_the_staged_judge() -> None:
    with pytest.warns(DeprecationWarning, match="'lexical' judge is now the one offline judge"):
        old = LexicalJudge()
    evidence = EvidenceSet.coerce(INCIDENT_EVIDENCE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # judging warns no more than once, at construction
        by_old = old.judge_now(synthesis=INCIDENT_ANSWER, evidence=evidence)
    assert isinstance(old, Judge)
    assert old.name == "staged"
    assert by_old == StagedJudge().judge_now(synthesis=INCIDENT_ANSWER, evidence=evidence)


def test_a_grounded_claim_cites_the_row_that_holds_its_numbers() -> None:
    cpu = verdict("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC.", EVIDENCE_A)
    rps = verdict("Request rate was 12 RPS.", EVIDENCE_A)
    assert (cpu.bucket, cpu.type, cpu.evidence_refs) == ("grounded", EvidenceType.TOOL_MATCH,
                                                         ("E1",))
    assert (rps.bucket, rps.evidence_refs, rps.reason) == ("grounded", ("E2",), "stated in E2")


def test_a_trend_from_a_single_sample_is_ungrounded() -> None:
    dropped = verdict("Request rate dropped to 12 RPS.", EVIDENCE_A)
    assert (dropped.bucket, dropped.rule, dropped.reason) == (
        "ungrounded", "category", "says decreased: a trend needs two values or a stated change, "
        "and no evidence item states one")


def test_an_alert_claim_takes_the_signal_type_of_the_alert_it_cites() -> None:
    alert = verdict("An alert fired at 14:02 UTC.", EVIDENCE_A)
    assert (alert.bucket, alert.type, alert.evidence_refs) == (
        "grounded", EvidenceType.SIGNAL_MATCH, ("E3",))


def test_the_evidence_items_own_type_decides_the_claim_type() -> None:
    evidence = EvidenceSet(items=(
        Evidence("M1", "host=db-prod-1 cpu_pct=97.2", EvidenceType.SPECIFIC_DATA),))
    cpu = verdict("CPU on db-prod-1 reached 97%.", evidence)
    assert (cpu.type, cpu.evidence_refs) == (EvidenceType.SPECIFIC_DATA, ("M1",))


def test_a_supported_absence_claim_is_grounded_negative_evidence() -> None:
    evidence = ["[tool=search_logs level=error service=checkout window=5m] 0 results"]
    absence = verdict("There were no errors in the last 5 minutes.", evidence)
    assert (absence.bucket, absence.type, absence.evidence_refs) == (
        "grounded", EvidenceType.NEG_EVIDENCE, ("E1",))


def test_an_absence_claim_that_an_alert_refutes_is_contradicted() -> None:
    evidence = [CPU_ROW, ALERT_ROW + " host=db-prod-1"]
    denial = verdict("No alerts fired for db-prod-1.", evidence)
    assert (denial.bucket, denial.evidence_refs) == ("contradicted", ("E2",))


def test_an_absence_claim_nothing_speaks_to_is_an_ungrounded_inference() -> None:
    absence = verdict("There were no deploys today.", [CPU_ROW])
    assert (absence.bucket, absence.type) == ("ungrounded", EvidenceType.INFERENCE)


@pytest.mark.parametrize(("claim", "ref"), [
    ("Request rate held steady at 4500 RPS throughout the spike.", "E2"),
    ("CPU was 40% on db-prod-1.", "E1"),
    ("Alert A-9912 fired at 14:10 UTC.", "E3"),
])
def test_another_value_for_the_same_subject_contradicts_the_claim(claim: str, ref: str) -> None:
    found = verdict(claim, EVIDENCE_A)
    assert (found.bucket, found.evidence_refs) == ("contradicted", (ref,))


def test_a_value_for_a_host_the_evidence_does_not_cover_is_ungrounded_not_contradicted() -> None:
    found = verdict("CPU on web-3 was 40%.", EVIDENCE_A)
    assert found.bucket == "ungrounded"
    assert "web-3" in found.reason


def test_a_different_amount_in_a_matching_prose_sentence_contradicts_the_claim() -> None:
    evidence = "Poseidon grossed $181,674,817 at the worldwide box office on a budget of $160M."
    found = verdict("Poseidon grossed $95,000,000 at the worldwide box office.", evidence)
    assert found.bucket == "contradicted"


def test_an_invented_identifier_leaves_the_claim_ungrounded() -> None:
    found = verdict("Alert A-9913 fired at 14:02 UTC.", EVIDENCE_A)
    assert found.bucket == "ungrounded"
    assert "a-9913" in found.reason


def test_a_causal_claim_the_evidence_does_not_state_is_an_ungrounded_inference() -> None:
    found = verdict("The outage was caused by the config push.", PUSH_EVIDENCE)
    assert (found.bucket, found.type) == ("ungrounded", EvidenceType.INFERENCE)
    assert (found.rule, found.reason) == ("modality", "cause: no evidence item states this cause")


@pytest.mark.parametrize("claim", [
    "The config push led to the outage.",
    "The outage happened because of the config push.",
    "The root cause of the outage was the config push.",
    "The outage was due to the config push.",
])
def test_every_causal_wording_needs_a_stated_cause(claim: str) -> None:
    assert verdict(claim, PUSH_EVIDENCE).bucket == "ungrounded"


def test_a_cause_the_evidence_states_is_grounded() -> None:
    evidence = ["[tool=incident_db] incident=INC-881 root_cause=expired TLS certificate on "
                "lb-edge-1"]
    found = verdict("The root cause of INC-881 was an expired TLS certificate on lb-edge-1.",
                    evidence)
    assert (found.bucket, found.evidence_refs) == ("grounded", ("E1",))


@pytest.mark.parametrize("claim", [
    "This likely indicates a runaway query.",
    "The spike was probably a memory leak.",
])
def test_speculation_beyond_the_evidence_is_ungrounded(claim: str) -> None:
    verdicts = explain(f"CPU on db-prod-1 reached 97%. {claim}", [CPU_ROW])
    assert [v.bucket for v in verdicts] == ["grounded", "ungrounded"]


def test_a_conclusion_that_only_restates_grounded_observations_is_complementary() -> None:
    verdicts = explain("CPU on db-prod-1 reached 97% at 14:02 UTC. Request rate was 12 RPS. "
                       "These two observations indicate the spike is real.", EVIDENCE_A)
    conclusion = verdicts[-1]
    assert (conclusion.bucket, conclusion.type) == ("complementary", EvidenceType.SYNTHESIS)
    assert (conclusion.rule, conclusion.reason) == ("synthesis",
                                                    "a synthesis of the claims before it")
    assert set(conclusion.evidence_refs) == {"E1", "E2"}


def test_a_conclusion_with_new_content_is_not_complementary() -> None:
    verdicts = explain("CPU on db-prod-1 reached 97%. This indicates a noisy neighbour.",
                       [CPU_ROW])
    assert verdicts[-1].bucket == "ungrounded"


def test_without_evidence_every_claim_is_ungrounded_and_the_judge_does_not_abstain() -> None:
    output = judge("CPU on db-prod-1 reached 97%. The database restarted.", [])
    assert not output.abstained
    assert len(output.ungrounded_claims) == 2
    assert output.verification_needed
    assert output.gaps


def test_the_verdict_is_deterministic() -> None:
    first = judge(INCIDENT_ANSWER, INCIDENT_EVIDENCE)
    second = judge(INCIDENT_ANSWER, INCIDENT_EVIDENCE)
    assert first == second


def test_its_own_score_and_verdict_follow_the_partition() -> None:
    output = judge(INCIDENT_ANSWER, INCIDENT_EVIDENCE)
    # Grounded: the CPU row (E1, tool 1.0), the alert (E5, signal 0.9), the config push (E3,
    # tool 1.0). Ungrounded: "request rate dropped" (one rps sample, no stated change; a claimed
    # tool fact, 1.0) and the unstated cause (inference, 0.6).
    assert [(c.text, c.evidence_refs) for c in output.grounded_claims] == [
        ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC", ("E1",)),
        ("Alert A-9912 fired at 14:02 UTC with high severity.", ("E5",)),
        ("A config push (cfg-4471) was applied to db-prod-1 at 14:01:30.", ("E3",))]
    assert [c.text for c in output.ungrounded_claims] == [
        "request rate dropped to 12 RPS.", "The outage was caused by the config push."]
    assert output.grounding_score == pytest.approx(2.9 / 4.5)
    assert not output.is_grounded
    assert output.gaps == (
        "request rate dropped to 12 RPS.: says decreased: a trend needs two values or a stated "
        "change, and no evidence item states one",
        "The outage was caused by the config push.: cause: no evidence item states this cause")


def test_the_integrity_guard_keeps_a_correct_verdict_unchanged() -> None:
    evidence = EvidenceSet.coerce(INCIDENT_EVIDENCE)
    output = judge(INCIDENT_ANSWER, evidence)
    report = check_judge_output(output, synthesis=INCIDENT_ANSWER, evidence=evidence)
    assert report.adjustments == ()
    assert report.output == output


def test_the_bundled_incident_example_passes_the_integrity_guard_unchanged() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "incident"
    answer = (folder / "answer.txt").read_text()
    evidence = EvidenceSet.coerce(json.loads((folder / "evidence.json").read_text()))
    report = check_judge_output(judge(answer, evidence), synthesis=answer, evidence=evidence)
    assert report.adjustments == ()
    # Every fact is grounded ("dropped" has its row's value before and change); the unstated
    # cause is not.
    assert [c.text for c in report.output.ungrounded_claims] == [
        "The outage was caused by the config push."]


def test_a_claim_gets_the_same_verdict_alone_and_inside_a_summary() -> None:
    evidence = EvidenceSet.coerce([
        "Maria Lopez joined the city opera orchestra as principal cellist.",
        "The orchestra toured the northern provinces with a new production.",
    ])
    claim = "Maria Lopez, principal cellist of the city opera orchestra, was widely admired."
    summary = "The orchestra toured the northern provinces with a new production. " + claim
    judge_ = StagedJudge()

    alone = judge_.explain(synthesis=claim, evidence=evidence)
    in_summary = judge_.explain(synthesis=summary, evidence=evidence)

    # The claim states one subject (Maria Lopez) that E1 holds, no typed or categorical value,
    # and most of its words are in E1: no invariant holds it back, alone or in a summary.
    assert [(v.bucket, v.reason) for v in alone] == [("grounded", "stated in E1")]
    assert [(v.text, v.bucket, v.reason) for v in in_summary] == [
        ("The orchestra toured the northern provinces with a new production.", "grounded",
         "stated in E2"),
        (claim, "grounded", "stated in E1")]
