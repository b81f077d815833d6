"""How the LexicalJudge cuts an answer into atomic claims."""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.judges.lexical.segment import split_claims
from tests.lexical.incident import EVIDENCE_A, explain, judge


def test_conjoined_clauses_with_their_own_verbs_become_two_claims() -> None:
    claims = split_claims("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC and request "
                          "rate dropped to 12 RPS.")
    assert claims == ["CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC",
                      "request rate dropped to 12 RPS."]


def test_a_semicolon_between_statements_splits_them() -> None:
    assert split_claims("The push was applied at 14:01:30; the alert fired at 14:02.") == [
        "The push was applied at 14:01:30", "the alert fired at 14:02."]


def test_a_shared_verb_keeps_a_conjunction_in_one_claim() -> None:
    assert split_claims("CPU and memory on db-prod-1 reached 97%.") == [
        "CPU and memory on db-prod-1 reached 97%."]


def test_a_list_continued_by_a_relative_clause_stays_one_claim() -> None:
    sentence = ("She was an American film, stage, and television actress who appeared in over "
                "fifty films.")
    assert split_claims(sentence) == [sentence]


def test_clause_joins_inside_brackets_and_quotes_do_not_split() -> None:
    sentence = 'The alert (which fired and cleared twice) said "disk full and rising" at 03:00.'
    assert split_claims(sentence) == [sentence]


def test_sentences_and_bullets_are_separate_claims() -> None:
    assert split_claims("- CPU reached 97%.\n- Request rate dropped to 12 RPS. Alert fired.") == [
        "CPU reached 97%.", "Request rate dropped to 12 RPS.", "Alert fired."]


def test_a_framing_sentence_joins_the_claim_after_it_and_adds_no_weight() -> None:
    answer = "Here is a concise summary of the findings:\nCPU on db-prod-1 reached 97%."
    verdicts = explain(answer, EVIDENCE_A)
    assert [(v.text, v.bucket) for v in verdicts] == [
        ("Here is a concise summary of the findings: CPU on db-prod-1 reached 97%.", "grounded")]
    report = check_judge_output(judge(answer, EVIDENCE_A), synthesis=answer,
                                evidence=EvidenceSet.coerce(EVIDENCE_A))
    assert report.adjustments == ()
