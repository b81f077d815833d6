"""Relation features: names a claim joins that the evidence keeps apart, and a value put on
another name than the one the evidence gives it (FaithBench-style entity swaps)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.features import MAX_RELATION_NAMES, answer_context
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.judge import analyse
from gsar_otel.judges.staged.textual import facts_of

NAMES = st.sampled_from(["Alvarez", "Brennan", "Castillo", "Dumont", "Eriksen", "Fontaine",
                         "Gallagher", "Horvath"])
PLACES = st.sampled_from(["Paris", "Lisbon", "Oslo", "Vienna", "Dublin", "Prague"])


def named(claim: str, items: list[str]) -> dict[str, float]:
    index = build_index(EvidenceSet.coerce(items))
    return analyse(claim, index, answer_context(1, facts_of(claim), index)).vector.named()


@settings(max_examples=40, deadline=None)
@given(NAMES, NAMES, PLACES, PLACES)
def test_names_the_evidence_keeps_apart_are_a_relation_it_does_not_state(
        a: str, b: str, here: str, there: str) -> None:
    assume(len({a, b, here, there}) == 4)
    claim = f"Yesterday {a} met {b} in {here}."
    apart = named(claim, [f"Yesterday {a} arrived in {here}.", f"Later {b} flew to {there}."])
    together = named(claim, [f"Yesterday {a} met {b} in {here}.", f"Later {b} flew to {there}."])
    assert apart["name_pairs_apart"] > 0
    assert together["name_pairs_apart"] == 0


@settings(max_examples=40, deadline=None)
@given(NAMES, NAMES, st.integers(10, 49), st.integers(50, 99))
def test_a_value_put_on_another_name_is_apart_from_its_values(
        a: str, b: str, low: int, high: int) -> None:
    assume(a != b)
    evidence = [f"In the final {a} scored {low} points.", f"In the final {b} scored {high} points."]
    swapped = named(f"In the final {a} scored {high} points.", evidence)
    kept = named(f"In the final {a} scored {low} points.", evidence)
    assert swapped["names_apart_from_values"] == 1.0
    assert kept["names_apart_from_values"] == 0.0


def test_relation_work_is_bounded_by_the_claims_first_names() -> None:
    names = [f"Name{chr(65 + i)}x" for i in range(3 * MAX_RELATION_NAMES)]
    claim = "Then " + " and ".join(names) + " met."
    values = named(claim, ["Then " + " met. Then ".join(names) + " met."])
    assert 0.0 < values["name_pairs_apart"] <= 1.0
