"""A commit written short (``90c192c``) is the long hash it begins; a state a claim gives a
record is contradicted only by a word another record holds under the same key, never by a
state of another key of the same record (``health.status`` beside ``sync.status``)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


@settings(max_examples=60)
@given(sha=st.text("0123456789abcdef", min_size=40, max_size=40).filter(
    lambda s: any(c.isdigit() for c in s[:7]) and any(c.isalpha() for c in s[:7])),
       length=st.integers(7, 12), changed=st.booleans())
def test_a_short_hash_is_the_hash_it_begins(sha: str, length: int, changed: bool) -> None:
    item = json.dumps({"metadata": {"name": "payments-prod"},
                       "status": {"sync": {"status": "Synced", "revision": sha}}})
    said = sha[:length]
    if changed:
        said = said[:-1] + ("0" if said[-1] != "0" else "1")
    claim = f"payments-prod is synced to revision {said}."
    assert (buckets(claim, [item]) == ["grounded"]) == (not changed), (claim, item)


HEALTH = ["Healthy", "Degraded", "Progressing"]
SYNC = ["Synced", "OutOfSync"]


@settings(max_examples=60)
@given(health=st.sampled_from(HEALTH), sync=st.sampled_from(SYNC),
       phase=st.sampled_from(["Failed", "Succeeded", "Running"]))
def test_a_state_is_read_under_its_own_key(health: str, sync: str, phase: str) -> None:
    item = json.dumps({"metadata": {"name": "search-prod"},
                       "status": {"health": {"status": health}, "sync": {"status": sync},
                                  "operationState": {"phase": phase}}})
    claim = f"search-prod health is {health}."
    assert buckets(claim, [item]) != ["contradicted"], (claim, item)
