"""A relative clause is said of the subject just before it: "..., but cart-worker, which was
at 26.4%, had p99 604ms" is read against cart-worker's row, never another's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
SERVICES = ["search-api", "cart-worker", "payments-api", "orders-worker"]


@settings(max_examples=60)
@given(p99=st.lists(st.integers(100, 3000), min_size=2, max_size=2, unique=True),
       errors=st.lists(st.integers(1, 300), min_size=2, max_size=2, unique=True),
       pair=st.sampled_from([(0, 1), (1, 0), (2, 3), (3, 2)]), own=st.booleans())
def test_a_relative_clause_is_said_of_its_antecedent(p99: list[int], errors: list[int],
                                                     pair: tuple[int, int], own: bool) -> None:
    first, second = SERVICES[pair[0]], SERVICES[pair[1]]
    items = [f"service={first} p99_ms={p99[0]} error_rate_pct={errors[0] / 10}",
             f"service={second} p99_ms={p99[1]} error_rate_pct={errors[1] / 10}"]
    said = p99[1] if own else p99[0]
    claim = (f"{first} was at {errors[0] / 10}% errors, but {second}, which was at "
             f"{errors[1] / 10}%, had p99 {said}ms.")
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    grounded = all(v.bucket == "grounded" for v in verdicts)
    assert grounded == own, (claim, [(v.text, v.bucket, v.reason) for v in verdicts])
