"""Stage 2: what a text says about itself (markers, names, stems) and the anchors adapter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.anchoring import agree, comparable, extract
from gsar_otel.judges.staged.textual import facts_of


@pytest.mark.parametrize("claim", [
    "The outage was caused by a config push.",
    "Latency rose due to the cache flush.",
    "The deploy led to the error spike.",
    "So the root cause is the new release.",
    "Errors rose because the pool was exhausted.",
    "The pool filled, which means the service stalled.",
    "Therefore the fix worked.",
    "The spike was likely caused by a runaway query.",
    "This probably indicates a leak.",
])
def test_conclusions(claim: str) -> None:
    assert facts_of(claim).conclusion


@pytest.mark.parametrize("claim", [
    "CPU on db-prod-1 reached 97% at 14:02 UTC.",
    "The team also thanked the reviewers.",
    "Due diligence was done in May.",
    "The rebalance led by two members finished.",
])
def test_observations_are_not_conclusions(claim: str) -> None:
    assert not facts_of(claim).conclusion


def test_negation_markers() -> None:
    assert facts_of("The job did not restart.").negated
    assert facts_of("No errors were logged.").negated
    assert facts_of("The pod failed to start.").negated
    assert not facts_of("The deploy failed on web-1.").negated


def test_names_are_whole_lowercased_tokens_not_the_first_word() -> None:
    facts = facts_of("Yesterday Stefani's manager met George in Georgetown.")
    assert facts.names == frozenset({"stefani", "george", "georgetown"})


def test_number_words_are_digits_among_the_stems() -> None:
    assert "3" in facts_of("three replicas restarted").stems


def test_adjacent_pairs() -> None:
    assert ("request", "rat") in facts_of("the request rate dropped").pairs


def test_anchor_specs_compare_across_formats() -> None:
    (claim,) = [s for s in extract("CPU hit 97%") if s.kind == "PERCENT"]
    (row,) = [s for s in extract("cpu_pct=97.2%") if s.kind == "PERCENT"]
    (other,) = [s for s in extract("cpu_pct=55.0%") if s.kind == "PERCENT"]
    assert comparable(claim, row)
    assert agree(claim, row) == "match"
    assert agree(claim, other) == "conflict"


CAUSES = ("Config push cfg-{p} took down the API on db-{h}.",
          "Config push cfg-{p} brought down the API on db-{h}.",
          "Config push cfg-{p} precipitated the errors on db-{h}.",
          "Config push cfg-{p} provoked the errors on db-{h}.",
          "Config push cfg-{p} is to blame for the errors on db-{h}.",
          "The errors on db-{h} stemmed from config push cfg-{p}.",
          "The errors on db-{h} originated from config push cfg-{p}.",
          "The errors on db-{h} were driven by config push cfg-{p}.",
          "The errors on db-{h} were induced by config push cfg-{p}.",
          "The errors on db-{h} were a consequence of config push cfg-{p}.",
          "The errors on db-{h} trace back to config push cfg-{p}.")


@given(form=st.sampled_from(CAUSES), host=st.integers(1, 99), push=st.integers(10, 999))
def test_every_phrasing_of_a_cause_is_a_cause(form: str, host: int, push: int) -> None:
    claim = form.format(p=push, h=host)
    assert facts_of(claim).causal, claim
    # and the judge does not ground a cause the evidence only sets side by side
    items = [f"2024-05-01T10:00:00Z INFO config push cfg-{push} applied to db-{host}",
             f"2024-05-01T10:01:00Z ERROR db-{host} upstream errors from the API"]
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert [v.bucket for v in verdicts] == ["ungrounded"], claim


@given(day=st.integers(1, 31), form=st.sampled_from(["on May {d}", "{d} May", "in May",
                                                     "since May {d}", "in early May"]))
def test_the_month_may_is_no_hedge(day: int, form: str) -> None:
    assert not facts_of(f"db-1 hit an OOM kill {form.format(d=day)}.").speculative
    assert facts_of(f"The OOM kill on db-{day} may be a memory leak.").speculative


@given(service=st.sampled_from(["checkout-api", "auth-service", "db-prod-2"]),
       octet=st.integers(1, 254), verb=st.sampled_from(["resolved", "resolves"]))
def test_a_name_resolved_to_an_address_is_no_alert_state(service: str, octet: int,
                                                         verb: str) -> None:
    items = EvidenceSet.coerce([f"service={service} ip=10.1.7.{octet}"])
    claim = f"{service} {verb} to 10.1.7.{octet}."
    assert [v.bucket for v in StagedJudge().explain(synthesis=claim, evidence=items)] \
        == ["grounded"], claim
