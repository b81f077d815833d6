"""The records judge's cost is linear in claims plus rows: doubling both doubles the value
comparisons it makes (counted, not timed), where comparing every claim with every row would
quadruple them."""

from __future__ import annotations

import pytest

from gsar_otel.core.anchor import compare
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.records import derive, index, rules
from gsar_otel.judges.records.judge import RecordsJudge

pytestmark = pytest.mark.cost

HEADER = "NAME                 CPU_PCT   MEM_MB   RESTARTS"


def comparisons(n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    rows = [f"svc-{i:04d}-x{i % 7}   {i % 100}   {1000 + i}   {i % 13}" for i in range(n)]
    items = ["\n".join([HEADER, *rows[k:k + 250]]) for k in range(0, n, 250)]
    answer = " ".join(f"Pod svc-{i:04d}-x{i % 7} has {i % 13} restarts and {1000 + i} MB."
                      for i in range(n))
    count = [0]
    real_compare, real_matches = compare.compare_anchors, compare.AnchorIndex.matches

    def counted_compare(*args: object) -> object:
        count[0] += 1
        return real_compare(*args)  # type: ignore[arg-type]

    def counted_matches(self: object, *args: object) -> object:
        count[0] += 1
        return real_matches(self, *args)  # type: ignore[arg-type]

    for module in (rules, derive, index):
        monkeypatch.setattr(module, "compare_anchors", counted_compare)
    monkeypatch.setattr(compare.AnchorIndex, "matches", counted_matches)
    outcomes = RecordsJudge().explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    return count[0], sum(o.outcome == "verified" for o in outcomes)


def test_doubling_claims_and_rows_doubles_the_comparisons(monkeypatch: pytest.MonkeyPatch):
    small, verified_small = comparisons(250, monkeypatch)
    large, verified_large = comparisons(500, monkeypatch)
    assert (verified_small, verified_large) == (250, 500)
    assert large <= 2.3 * small
