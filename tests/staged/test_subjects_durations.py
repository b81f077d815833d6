"""Stage 4, by class: a value is checked against the claim's own subject's row, and a duration
written in parts is one duration."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.align import align
from gsar_otel.judges.staged.anchoring import extract
from gsar_otel.judges.staged.compare import Comparison, compare
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.textual import facts_of

hosts = st.integers(1, 40).map(lambda n: f"edge-lb-{n}")


def check(claim: str, *evidence: str) -> Comparison:
    index = build_index(EvidenceSet.coerce(list(evidence)))
    facts = facts_of(claim)
    return compare(facts, align(facts, index), index)


@settings(max_examples=60, deadline=None)
@given(own=hosts, other=hosts, own_rate=st.integers(1, 40), other_rate=st.integers(50, 99))
def test_another_hosts_value_never_grounds_the_claims_own_host(
        own: str, other: str, own_rate: int, other_rate: int) -> None:
    """The claim gives its host the other host's value: its own row conflicts, however much
    better the other row matches."""
    if own == other:
        return
    result = check(f"The 5xx rate on {own} reached {other_rate}%.",
                   f"host={other} http_5xx_rate={other_rate}.0% rps=4979",
                   f"host={own} http_5xx_rate={own_rate}.0% rps=4598")
    (value,) = [c for c in result.checks if c.claim_value == f"{other_rate}%"]
    assert value.status == "CONFLICT"
    assert result.row_conflict


@settings(max_examples=60, deadline=None)
@given(own=hosts, rate=st.integers(1, 99))
def test_the_claims_own_row_grounds_it(own: str, rate: int) -> None:
    result = check(f"The 5xx rate on {own} reached {rate}%.",
                   f"host={own} http_5xx_rate={rate}.0% rps=4598")
    assert {c.status for c in result.checks if c.claim_value == f"{rate}%"} == {"MATCH"}
    assert not result.row_conflict


_UNITS = (("hours", "h", 3600), ("minutes", "m", 60), ("seconds", "s", 1))


@settings(max_examples=80, deadline=None)
@given(parts=st.lists(st.integers(1, 59), min_size=2, max_size=3), first=st.integers(0, 1),
       join=st.sampled_from([" ", " and ", ", "]))
def test_a_duration_in_parts_is_one_duration(parts: list[int], first: int, join: str) -> None:
    units = _UNITS[first:first + len(parts)]
    if len(units) < len(parts):
        return
    words = join.join(f"{n} {unit}" for n, (unit, _, _) in zip(parts, units, strict=False))
    compact = "".join(f"{n}{short}" for n, (_, short, _) in zip(parts, units, strict=False))
    seconds = sum(n * size for n, (_, _, size) in zip(parts, units, strict=False))
    (spec,) = [s for s in extract(f"The oldest message age was {words}.")
               if s.kind == "DURATION"]
    assert float(spec.value) == seconds
    result = check(f"The oldest message age of q-1 was {words}.",
                   f"queue=q-1 depth=10 oldest_age={compact}")
    assert [c.status for c in result.checks if c.kind == "DURATION"] == ["MATCH"]


def test_separate_durations_stay_separate() -> None:
    specs = [s.text for s in extract("It took 5 minutes, then 10 minutes more.")]
    assert specs == ["5 minutes", "10 minutes"]
