"""A claim of scope ("only", "always", "all his life", "the busiest") says something of every
other member or time, which one record never shows: it is grounded only where a fact it is
aligned to states the word, or where records of one kind decide it. "Only" before a measured
value, a denied scope ("not only") and a measure's peak whose value a record holds are no
scope."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()

PEOPLE = ("Julian Assange", "Kate Micucci", "David Cook", "Maria Lindqvist", "Tomas Brandt")
PLACES = ("Australia", "Michigan", "Ontario", "Bavaria", "Tasmania")
LABELS = ("Columbia Records", "Island Records", "Wagram Music", "Sub Pop")
# (evidence lines, the plain claim, the claim with the scope word) per fact
FACTS = {
    "residence": ("Residence: {place}", "{name} lived in {place}.",
                  ("{name} has always lived in {place}.", "{name} lived in {place} all her life.",
                   "{name} lived in {place} for her entire life.",
                   "{name} lived only in {place}.", "{name} has lived in {place} forever.")),
    "label": ("Labels: {label}", "{name} released music on {label}.",
              ("{name} released music only on {label}.",
               "{name} released music exclusively on {label}.",
               "{name} has always released music on {label}.",
               "{name} released music solely on {label}.")),
}
SUPERLATIVES = ("the busiest", "the largest", "the most famous", "the oldest",
                "its best-selling", "the second largest", "the least known")


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


def infobox(name: str, line: str) -> str:
    return f"Name: {name}\n{line}\nOccupation: Singer songwriter"


@settings(max_examples=80)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       label=st.sampled_from(LABELS), fact=st.sampled_from(sorted(FACTS)), form=st.integers(0, 4))
def test_a_scope_no_fact_states_is_never_grounded(name: str, place: str, label: str, fact: str,
                                                  form: int) -> None:
    line, plain, scoped = FACTS[fact]
    values = {"name": name, "place": place, "label": label}
    items = [infobox(name, line.format(**values))]
    assert buckets(plain.format(**values), items) == ["grounded"]
    claim = scoped[form % len(scoped)].format(**values)
    assert buckets(claim, items) == ["ungrounded"], claim
    # the evidence stating the scope grounds it
    stated = line.format(**values) + (" (only)" if " only " in claim or "ly on" in claim
                                      else " (always, for her entire life)")
    if "solely" in claim or "exclusively" in claim:
        stated = line.format(**values) + " (solely, exclusively)"
    assert buckets(claim, [infobox(name, stated)]) == ["grounded"], claim


@settings(max_examples=60)
@given(name=st.sampled_from(("Broadgreen", "Karachi", "Lindholm", "Westerby")),
       sup=st.sampled_from(SUPERLATIVES), noun=st.sampled_from(("station", "city", "port")),
       place=st.sampled_from(PLACES))
def test_a_superlative_no_fact_states_is_never_grounded(name: str, sup: str, noun: str,
                                                        place: str) -> None:
    items = [f"Name: {name}\nType: {noun}\nLocation: {place}"]
    assert buckets(f"{name} is a {noun} in {place}.", items) == ["grounded"]
    claim = f"{name} is {sup} {noun} in {place}."
    assert buckets(claim, items) == ["ungrounded"], claim
    word = sup.split(maxsplit=1)[1]
    said = [f"Name: {name}\nType: {noun}\nLocation: {place}\nRank: {word} {noun} in {place}"]
    assert buckets(claim, said) == ["grounded"], claim


@settings(max_examples=60)
@given(value=st.integers(1, 59), off=st.sampled_from([0, 0, 40]),
       form=st.sampled_from(("The error rate on api-1 was only {v}%.",
                             "api-1 had an error rate of only {v}%.",
                             "api-1 saw an error rate of only about {v}%.")))
def test_only_before_a_measured_value_is_the_value(value: int, off: int, form: str) -> None:
    items = [f"host=api-1 error_pct={value} status=200"]
    claim = form.format(v=value + off)
    assert buckets(claim, items) == (["grounded"] if off == 0 else ["contradicted"]), claim


@settings(max_examples=40)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       form=st.sampled_from(("{name} has not always lived in {place}.",
                             "{name} lived not only in {place}.")))
def test_a_denied_scope_is_no_scope(name: str, place: str, form: str) -> None:
    items = [infobox(name, f"Residence: {place}")]
    verdict = judge.explain(synthesis=form.format(name=name, place=place),
                            evidence=EvidenceSet.coerce(items))
    assert all(c.kind != "scope" for v in verdict for c in v.checks)


@settings(max_examples=60)
@given(restarts=st.lists(st.integers(0, 4), min_size=2, max_size=5),
       order=st.booleans())
def test_records_of_a_kind_decide_only(restarts: list[int], order: bool) -> None:
    items = [f"pod=api-{i} restarts={n} node=ip-10-0-3-{i}" for i, n in enumerate(restarts)]
    if order:
        items.reverse()
    claim = "Only api-0 restarted."
    if restarts[0] == 0:
        return
    expected = ["grounded"] if not any(restarts[1:]) else ["contradicted"]
    assert buckets(claim, items) == expected, items


@settings(max_examples=60)
@given(pause=st.integers(60, 4000), off=st.sampled_from([0, 0, 250]),
       host=st.sampled_from(("search-prod-37", "batch-3", "api-7")),
       sup=st.sampled_from(("longest", "highest", "worst")))
def test_a_peak_a_record_holds_is_its_value(pause: int, off: int, host: str, sup: str) -> None:
    items = [f"host={host} gc_pause_ms={pause} heap_used_mb=812"]
    claim = f"The {sup} GC pause on {host} was {pause + off} ms."
    assert buckets(claim, items) == (["grounded"] if off == 0 else ["contradicted"]), claim


UNRELATED = ["2024-05-01T10:30:00Z INFO cache-1 flushed 42 keys",
             "host=db-9 cpu_pct=12.5 status=ok", "name=cache-1 cpu_pct=12.5 status=ok",
             "Name: worker-3\nType: batch"]
CLAIMS = ("{name} has always lived in {place}.", "{name} lived only in {place}.",
          "{name} is the most famous person in {place}.")


@settings(max_examples=60)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       extra=st.lists(st.sampled_from(UNRELATED), unique=True, min_size=1, max_size=3),
       first=st.booleans(), form=st.sampled_from(CLAIMS))
def test_unrelated_items_never_change_a_scope_verdict(name: str, place: str, extra: list[str],
                                                      first: bool, form: str) -> None:
    own = infobox(name, f"Residence: {place}")
    claim = form.format(name=name, place=place)
    alone = buckets(claim, [own])
    assert buckets(claim, [*extra, own] if first else [own, *extra]) == alone == ["ungrounded"]
