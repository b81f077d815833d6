"""A range the claim states holds a value within it and is contradicted by one outside, in the
judge and in the product (the guard accepts both ends when a cited value lies within)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchor.derived import stated_ranges
from gsar_otel.core.anchors import extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from tests.core.guarded import guarded

judge = StagedJudge()
PERCENT = ("between {a} and {b}%", "between {a}% and {b}%", "{a}-{b}%", "in the {a}-{b}% range",
           "between {a} and {b} percent")
SECONDS = ("between {a} and {b} seconds", "between {a} s and {b} s")


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(low=st.integers(1, 80), width=st.integers(2, 19), value=st.integers(0, 100),
       form=st.sampled_from(PERCENT), host=st.integers(1, 99))
def test_a_percentage_range_holds_a_value_within_and_no_other(low: int, width: int, value: int,
                                                              form: str, host: int) -> None:
    high = low + width
    claim = f"CPU on api-{host} was {form.format(a=low, b=high)}."
    item = f"host=api-{host} cpu_pct={value}"
    within = low <= value <= high
    assert bucket(claim, [item]) == ("grounded" if within else "contradicted"), (claim, item)
    if within:  # and the guard keeps what the judge grounds
        assert guarded(claim, [item]), (claim, item)


@settings(max_examples=40)
@given(low=st.integers(1, 5), width=st.integers(1, 4), millis=st.integers(100, 9900),
       form=st.sampled_from(SECONDS))
def test_a_range_of_seconds_is_read_against_milliseconds(low: int, width: int, millis: int,
                                                          form: str) -> None:
    high = low + width
    claim = f"The p99 latency on api-1 was {form.format(a=low, b=high)}."
    item = f"host=api-1 p99_latency_ms={millis}"
    within = low * 1000 <= millis <= high * 1000
    assert bucket(claim, [item]) == ("grounded" if within else "contradicted"), (claim, item)
    if within:
        assert guarded(claim, [item])


def test_a_change_from_one_value_to_another_is_no_range() -> None:
    for text in ("CPU rose from 80 to 90%.", "p99 was 1-2 seconds.", "CPU was 80, then 90%."):
        assert stated_ranges(text, extract_anchors(text)) == {}, text


@settings(max_examples=60)
@given(before=st.integers(1, 30), after=st.integers(1, 30), swap=st.booleans(),
       shape=st.sampled_from([
           ("2024-05-01T10:00:00Z INFO deploy-bot: checkout-api upgraded from v1.{a}.0 to "
            "v1.{b}.0", "checkout-api was upgraded from v1.{x}.0 to v1.{y}.0."),
           ("3m Normal ScalingReplicaSet deployment/web Scaled replica set web-7f9 from {a} to "
            "{b}", "The web deployment was scaled from {x} to {y} replicas.")]))
def test_a_change_from_one_value_to_another_is_read_in_its_order(
        before: int, after: int, swap: bool, shape: tuple[str, str]) -> None:
    if before == after:
        return
    item, said = shape
    x, y = (after, before) if swap else (before, after)
    claim = said.format(x=x, y=y)
    evidence = item.format(a=before, b=after)
    assert bucket(claim, [evidence]) == ("contradicted" if swap else "grounded"), (claim, evidence)
