"""A plain word written as a name (a service before "service", a table before "table", who acted
before a verb of acting or after "by") must be a name of the evidence: another one, found
nowhere, is never grounded; the evidence's own is, and a describing word is no name."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
SERVICES = ["checkout", "search", "payments", "billing", "catalog"]
PEOPLE = ["alice", "bob", "carol", "dave", "erin"]
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


@settings(max_examples=80)
@given(held=st.lists(st.sampled_from(SERVICES), min_size=1, max_size=3, unique=True),
       said=st.sampled_from(SERVICES), noun=st.sampled_from(["service", "table", "queue"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2))
@example(held=["search"], said="checkout", noun="service", others=[])
def test_a_plain_name_before_its_noun_is_a_name_of_the_evidence(
        held: list[str], said: str, noun: str, others: list[str]) -> None:
    key = {"service": "service", "table": "table", "queue": "queue"}[noun]
    items = [f"{key}={name} p99_ms={850 + i} errors=3" for i, name in enumerate(held)]
    value = 850 + held.index(said) if said in held else 850
    claim = f"The {said} {noun} p99 was {value}ms."
    expected = ["grounded"] if said in held else ["ungrounded"]
    assert buckets(claim, [*items, *others]) == expected, (claim, items)


@settings(max_examples=30)
@given(word=st.sampled_from(["upstream", "affected", "primary", "backend"]))
def test_a_describing_word_is_no_name(word: str) -> None:
    items = ["service=search p99_ms=850 errors=3"]
    assert buckets(f"The {word} service p99 was 850ms.", items) == ["grounded"]


ACTOR_RECORDS = {
    "user": ("user={a} action=restart pod=api-7f9", "{b} restarted the pod."),
    "merged_by": ("pr=1234 merged_by={a} repo=shop", "PR 1234 was merged by {b}."),
    "acknowledged_by": ('incident=42 acknowledged_by="{A} Smith"', "{B} Smith acknowledged the "
                        "incident."),
}


@settings(max_examples=60)
@given(shape=st.sampled_from(sorted(ACTOR_RECORDS)), actor=st.sampled_from(PEOPLE),
       said=st.sampled_from(PEOPLE), others=st.lists(st.sampled_from(OTHER), unique=True,
                                                     max_size=2))
@example(shape="user", actor="alice", said="bob", others=[])
def test_who_acted_is_who_the_record_says(shape: str, actor: str, said: str,
                                          others: list[str]) -> None:
    record, phrase = ACTOR_RECORDS[shape]
    item = record.format(a=actor, A=actor.capitalize())
    claim = phrase.format(b=said, B=said.capitalize())
    verdict = buckets(claim, [*others, item])
    if said == actor:
        assert verdict == ["grounded"], (claim, item)
    else:
        assert verdict != ["grounded"], (claim, item)


@settings(max_examples=80)
@given(requests=st.lists(st.integers(100, 9999), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), other=st.integers(0, 4), csv=st.booleans())
@example(requests=[2712, 3387], pick=1, other=0, csv=True)
def test_a_plain_name_a_record_is_about_binds_the_claim_to_its_row(
        requests: list[int], pick: int, other: int, csv: bool) -> None:
    rows = list(zip(SERVICES, requests, strict=False))
    items = (["\n".join(["service,requests,errors", *(f"{s},{r},3" for s, r in rows)])] if csv
             else [f"service={s} requests={r} errors=3" for s, r in rows])
    chosen, held = rows[pick % len(rows)], rows[other % len(rows)]
    claim = f"{chosen[0]} served {held[1]} requests."
    expected = ["grounded"] if chosen == held else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


HIT = ('{{"hits": {{"hits": [{{"_source": {{"kubernetes": {{"namespace": "{ns}", "pod": '
       '{{"name": "{svc}-7f9c6d-x0"}}, "container": {{"name": "{svc}"}}}}, "log": {{"level": '
       '"error"}}, "message": "upstream connect error or disconnect/reset before headers"}}}}]}}}}')


@settings(max_examples=80)
@given(held=st.sampled_from(SERVICES), said=st.sampled_from(SERVICES),
       noun=st.sampled_from(["pod", "container"]), ns=st.sampled_from(["prod", "shop-prod"]),
       other_ns=st.sampled_from(["staging", "qa", "sandbox"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2))
@example(held="search", said="cart", noun="pod", ns="prod", other_ns="staging", others=[])
def test_a_kind_a_nested_key_names_is_a_name_of_the_evidence(
        held: str, said: str, noun: str, ns: str, other_ns: str, others: list[str]) -> None:
    items = [HIT.format(ns=ns, svc=held), *others]
    claim = f"The {said} {noun} logged an upstream connect error."
    expected = ["grounded"] if said == held else ["ungrounded"]
    assert buckets(claim, items) == expected, claim
    # a namespace the records are keyed by, named nowhere, with no subject in the claim
    claim = f"The {held} errors were in the {other_ns} namespace."
    assert buckets(claim, items) == ["ungrounded"], claim
