"""Stage 2: what a text says about itself (markers, names, stems) and the anchors adapter."""

from __future__ import annotations

import pytest

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
