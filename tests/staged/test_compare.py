"""Stage 4: typed value checks, subjects, negation, quantifiers and causes."""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.align import align
from gsar_otel.judges.staged.compare import Comparison, compare
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.textual import facts_of


def check(claim: str, *evidence: str) -> Comparison:
    index = build_index(EvidenceSet.coerce(list(evidence)))
    facts = facts_of(claim)
    return compare(facts, align(facts, index), index)


def statuses(result: Comparison) -> dict[str, str]:
    return {c.claim_value: c.status for c in result.checks}


def test_the_rows_value_matches() -> None:
    result = check("CPU on db-prod-1 reached 97%.", "host=db-prod-1 cpu_pct=97.2")
    assert statuses(result)["97%"] == "MATCH"
    assert result.refs == ("E1",)


def test_another_value_of_the_same_key_and_subject_conflicts() -> None:
    result = check("CPU on db-prod-1 reached 40%.", "host=db-prod-1 cpu_pct=97.2")
    assert statuses(result)["40%"] == "CONFLICT"
    assert result.row_conflict


def test_a_value_of_another_host_is_not_a_conflict() -> None:
    result = check("CPU on db-prod-2 reached 40%.", "host=db-prod-1 cpu_pct=97.2")
    assert statuses(result)["40%"] == "ABSENT"
    assert result.subject_absent
    assert not result.row_conflict


def test_a_value_of_another_key_is_not_a_conflict() -> None:
    result = check("Disk on db-prod-1 was at 40%.", "host=db-prod-1 cpu_pct=97.2")
    assert statuses(result)["40%"] == "ABSENT"


def test_prose_conflicts_only_when_the_sentence_states_the_claim() -> None:
    conflict = check("The film was released in 2004 in Paris.",
                     "The film was released in 2006 in Paris.")
    assert statuses(conflict)["2004"] == "CONFLICT"
    unrelated = check("The film was released in 2004 in Paris.", "Rain fell in 1999.")
    assert statuses(unrelated)["2004"] == "ABSENT"


def test_negation_mismatch() -> None:
    assert check("The deploy did not fail on web-1.", "The deploy failed on web-1.")\
        .negation_mismatch
    assert not check("The deploy failed on web-1.", "The deploy failed on web-1.")\
        .negation_mismatch


def test_quantifier_mismatch() -> None:
    assert check("Both replicas restarted at noon.", "A replica restarted at noon.")\
        .quant_mismatch


def test_a_cause_the_evidence_states() -> None:
    stated = check("The outage was caused by a config push.",
                   "The outage was caused by a config push at 10:14.")
    assert stated.cause_stated
    unstated = check("The outage was caused by a config push.",
                     "10:14:30 INFO config push deployed", "alert fired_at=10:15:00 outage")
    assert not unstated.cause_stated


def test_a_root_cause_row_names_the_cause_or_another_one() -> None:
    row = '{"incident": "INC-1", "root_cause": "I/O errors on pg-main-8"}'
    assert check("I/O errors on pg-main-8 caused the failover.", row).cause_stated
    assert check("The deploy on pg-main-8 caused the failover.", row).cause_conflict


def test_only_the_key_that_names_the_claim_counts() -> None:
    row = "host=api-1 p50_ms=45 p99_ms=850"
    assert statuses(check("The p50 latency on api-1 was 45 ms.", row))["45 ms"] == "MATCH"
    assert check("The p50 latency on api-1 was 45 ms.", row).row_conflict is False
    assert check("The p50 latency on api-1 was 60 ms.", row).row_conflict
