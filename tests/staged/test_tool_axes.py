"""States tool records hold as one of two poles, permission (allowed or denied), enablement
(enabled or disabled) and sync (in sync or out of sync): the other pole is contradicted, in every
record shape; a story's "was denied parole" is read as no record's permission."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
AXES = {
    "permission": (("allowed", "denied"), "result", "The request by frank to scale {s} was {p}."),
    "enablement": (("enabled", "disabled"), "state", "flag-7 is {p} for {s}."),
    "sync": (("Synced", "OutOfSync"), "sync_status", "{s} is {p}."),
}
SAID = {"Synced": "in sync", "OutOfSync": "out of sync"}
SHAPES = ["ts=2024-06-10T14:01:09Z service={s} flag=flag-7 {k}={v} user=frank",
          '{{"service": "{s}", "flag": "flag-7", "{k}": "{v}", "user": "frank"}}']


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(axis=st.sampled_from(sorted(AXES)), held=st.integers(0, 1), said=st.integers(0, 1),
       shape=st.sampled_from(SHAPES), service=st.sampled_from(["cart-api", "orders-api"]))
def test_the_other_pole_is_contradicted(axis: str, held: int, said: int, shape: str,
                                        service: str) -> None:
    poles, key, phrase = AXES[axis]
    item = shape.format(s=service, k=key, v=poles[held])
    claim = phrase.format(s=service, p=SAID.get(poles[said], poles[said]))
    expected = "grounded" if held == said else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@given(verb=st.sampled_from(["denied", "refused"]), other=st.sampled_from(["granted", "allowed"]))
def test_a_storys_permission_is_no_records(verb: str, other: str) -> None:
    story = [f"The court {other} John Smith parole on Tuesday after a short hearing."]
    assert bucket(f"John Smith was {verb} parole on Tuesday.", story) != "contradicted"
