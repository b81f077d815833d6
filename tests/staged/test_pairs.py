"""A part and a whole written as one value (``READY 1/3``) is compared as the pair: "3/3 ready"
or "3 of 3 ready" beside ``1/3`` is contradicted, however the row's other numbers read, and the
same pair is grounded."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
NAMES = ["search", "cart", "orders", "payments", "notifications"]
HEAD = "NAME            READY   UP-TO-DATE   AVAILABLE   AGE"
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


deployments = st.lists(st.tuples(st.integers(0, 8), st.integers(1, 8)), min_size=2,
                       max_size=len(NAMES))


@settings(max_examples=80)
@given(rows=deployments, pick=st.integers(0, 4), said=st.tuples(st.integers(0, 8),
                                                                st.integers(1, 8)),
       form=st.sampled_from(["The {n} deployment has {a}/{b} replicas ready.",
                             "{a} of {b} replicas of the {n} deployment are ready."]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2))
@example(rows=[(0, 2), (1, 3)], pick=1, said=(3, 3),
         form="The {n} deployment has {a}/{b} replicas ready.", others=[])
def test_a_part_of_a_whole_is_read_as_the_pair(rows: list[tuple[int, int]], pick: int,
                                              said: tuple[int, int], form: str,
                                              others: list[str]) -> None:
    rows = [(min(a, b), b) for a, b in rows]
    table = "\n".join([HEAD, *(f"{NAMES[i]:<16}{a}/{b:<6}{b:<13}{a:<12}{i + 3}d"
                               for i, (a, b) in enumerate(rows))])
    chosen = pick % len(rows)
    claim = form.format(n=NAMES[chosen], a=said[0], b=said[1])
    expected = ["grounded"] if said == rows[chosen] else ["contradicted"]
    assert buckets(claim, [table, *others]) == expected, (claim, table)
    assert buckets(claim, [*others, table]) == expected, (claim, table)
