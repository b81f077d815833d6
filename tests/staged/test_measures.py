"""A value is of the measure the claim names: a "p95 latency" is never grounded by a
``p99_latency_ms`` holding the same number, nor a read latency by a write latency, nor an
average by a maximum, whichever of a family the claim and the evidence name."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
FAMILIES = {
    "percentile": (("p50", "p50"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99"),
                   ("median", "p50")),
    "aggregate": (("average", "avg"), ("mean", "avg"), ("peak", "max"), ("maximum", "max"),
                  ("minimum", "min")),
    "direction": (("read", "read"), ("write", "write")),
    "traffic": (("received", "rx"), ("sent", "tx")),
}


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(family=st.sampled_from(sorted(FAMILIES)), data=st.data(), value=st.integers(100, 9000),
       host=st.integers(1, 99))
def test_a_value_of_another_measure_is_never_grounded(family: str, data: st.DataObject,
                                                      value: int, host: int) -> None:
    said, held = data.draw(st.permutations(FAMILIES[family]).map(lambda p: p[:2]))
    claim = f"The {said[0]} latency on db-{host} was {value} ms."
    item = f"host=db-{host} {held[1]}_latency_ms={value}"
    expected = "grounded" if said[1] == held[1] else "ungrounded"
    assert bucket(claim, [item]) == expected, (claim, item)
    # beside the named measure at another value, the claim is contradicted by it
    both = f"host=db-{host} {held[1]}_latency_ms={value} {said[1]}_latency_ms={value + 7}"
    if said[1] != held[1]:
        assert bucket(claim, [both]) == "contradicted", (claim, both)
