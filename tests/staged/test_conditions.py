"""A condition a claim diagnoses ("is leaking memory", "is rebalancing", "is deadlocked") needs
a record that states it of the claim's subject.

A process row, a consumer group's lag or a pod's restarts are measurements, not a diagnosis:
"orders-service is leaking memory" beside its ``RSS`` is never grounded, in any inflection of
any condition word; a log line stating the condition of that subject grounds it; one stating
it of another subject does not; and adding unrelated items or reordering them changes
nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()

CONDITIONS = [
    ("is leaking memory", "memory leak detected, heap grew {n} MB in 10m"),
    ("was deadlocked", "deadlock detected between {n} transactions"),
    ("is hung", "worker hung, no heartbeat for {n}s"),
    ("is being throttled", "requests throttled: {n} rejected by rate limiter"),
    ("is saturated", "connection pool saturated ({n} of {n} in use)"),
    ("is overloaded", "overloaded: queue length {n}"),
    ("is rebalancing", "rebalancing group after {n} members left"),
    ("is flapping", "health check flapping, {n} transitions in 5m"),
    ("was starved", "starved of CPU for {n}s"),
    ("is thrashing", "thrashing: {n} page faults/s"),
]
SERVICES = ["orders-service", "cart-api", "ledger-worker", "payments-api"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


def row(service: str, n: int) -> str:
    return f"service={service} rss_mb={n * 10} cpu_pct={n % 100}.5 restarts={n % 7}"


@settings(max_examples=40, deadline=None)
@given(condition=st.sampled_from(CONDITIONS), services=st.lists(
    st.sampled_from(SERVICES), min_size=2, max_size=2, unique=True), n=st.integers(2, 900),
       order=st.permutations(range(3)))
def test_a_condition_needs_a_record_stating_it(condition: tuple[str, str],
                                               services: list[str], n: int,
                                               order: list[int]) -> None:
    said, logged = condition
    own, other = services
    claim = f"{own} {said}."
    rows = [row(own, n), row(other, n + 1)]
    assert bucket(claim, rows) != "grounded", rows
    stated = f"2024-06-10T14:02:01Z WARN {own}: {logged.format(n=n)}"
    elsewhere = f"2024-06-10T14:02:01Z WARN {other}: {logged.format(n=n)}"
    assert bucket(claim, [*rows, stated]) == "grounded", stated
    assert bucket(claim, [*rows, elsewhere]) != "grounded", elsewhere
    # unrelated items, in any order, leave both verdicts alone
    noise = [f"2024-06-10T13:00:0{n % 10}Z INFO deploy-bot: rolled out web-{n} v1.{n}.0",
             "host=edge-lb-2 p99_ms=41"]
    items = [[*rows, stated][i] for i in order] + noise
    assert bucket(claim, items) == "grounded", items
    items = [[*rows, elsewhere][i] for i in order] + noise
    assert bucket(claim, items) != "grounded", items


def test_a_condition_named_as_an_event_is_read_as_the_event() -> None:
    """"The rebalance of X led to the backlog" names the event a root-cause record states; it
    is no condition of X the records must state as such."""
    items = ["2025-03-19 03:12:22 UTC INFO rca-bot: root cause: consumer group clicks-consumer "
             "rebalance",
             "ALERT QueueBacklogHigh firing for clicks-stream since 03:07:19 UTC"]
    assert bucket("The rebalance of clicks-consumer led to the queue backlog.", items) \
        == "grounded"
