"""A claim of every record of a kind, or of none, is read against every record of that kind:
one record agreeing never carries "all pods were Running" or "no pod restarted"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=60)
@given(count=st.integers(2, 6), odd=st.integers(0, 5), ok=st.booleans(),
       form=st.sampled_from(["All pods were Running.", "All the pods were Running.",
                             "Every pod was Running."]),
       shuffle=st.randoms(use_true_random=False))
def test_all_of_a_kind_is_every_record(count: int, odd: int, ok: bool, form: str,
                                       shuffle) -> None:
    rows = [f"pod=web-{n} phase=Running restarts=0" for n in range(count)]
    if not ok:
        rows[odd % count] = f"pod=web-{odd % count} phase=CrashLoopBackOff restarts=7"
    shuffle.shuffle(rows)
    assert bucket(form, rows) == ("grounded" if ok else "contradicted"), rows


@settings(max_examples=60)
@given(count=st.integers(2, 6), odd=st.integers(0, 5), ok=st.booleans(), restarts=st.integers(1, 9),
       form=st.sampled_from(["No pod restarted.", "None of the pods restarted.",
                             "Not a single pod restarted."]))
def test_none_of_a_kind_is_no_record(count: int, odd: int, ok: bool, restarts: int,
                                     form: str) -> None:
    rows = [f"pod=web-{n} phase=Running restarts=0" for n in range(count)]
    if not ok:
        rows[odd % count] = f"pod=web-{odd % count} phase=Running restarts={restarts}"
    assert bucket(form, rows) == ("grounded" if ok else "contradicted"), rows


@settings(max_examples=40)
@given(count=st.integers(2, 5), odd=st.integers(0, 4), ok=st.booleans(),
       said=st.sampled_from([("All hosts were up.", "up", "down"),
                             ("None of the hosts were down.", "up", "down"),
                             ("All deploys succeeded.", "succeeded", "failed")]))
def test_a_category_of_all_or_none_holds_of_every_record(
        count: int, odd: int, ok: bool, said: tuple[str, str, str]) -> None:
    claim, good, bad = said
    key = "deploy" if "deploy" in claim else "host"
    rows = [f"{key}={key}-{n} status={good}" for n in range(count)]
    if not ok:
        rows[odd % count] = f"{key}={key}-{odd % count} status={bad}"
    assert bucket(claim, rows) == ("grounded" if ok else "contradicted"), (claim, rows)


@settings(max_examples=60)
@given(restarts=st.lists(st.integers(0, 9), min_size=2, max_size=6), said=st.integers(0, 6),
       words=st.booleans())
def test_a_count_of_records_is_how_many_records_did_it(restarts: list[int], said: int,
                                                       words: bool) -> None:
    rows = [f"pod=web-{n} phase=Running restarts={r}" for n, r in enumerate(restarts)]
    did = sum(r > 0 for r in restarts)
    if said == 0:
        return  # "0 pods restarted" is "no pod restarted" (the test above)
    number = ("one two three four five six".split()[said - 1]) if words else str(said)
    claim = f"{number.capitalize()} pods restarted."
    verdict = bucket(claim, rows)
    # never grounded by one pod's restart count equal to the number; contradicted when wrong
    assert verdict == ("grounded" if did == said else "contradicted"), (claim, rows)
