"""A claim about several subjects at once is the claim about each: a value or category that
holds of one listed subject and not of another is never grounded, whatever the list's form."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
FORMS = ("{a} and {b}", "{a}, {b}", "{a}, and {b}", "{a} & {b}", "Both {a} and {b}")


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


def listed(hosts: list[str], form: str) -> str:
    head = ", ".join(hosts[:-1]) if "," in form else " and ".join(hosts[:-1])
    return form.format(a=head, b=hosts[-1])


@settings(max_examples=80)
@given(count=st.integers(2, 4), form=st.sampled_from(FORMS), cpu=st.integers(50, 99),
       odd=st.integers(0, 3), other=st.integers(1, 45), shuffle=st.randoms(use_true_random=False))
def test_a_value_said_of_a_list_holds_of_each_subject(count: int, form: str, cpu: int, odd: int,
                                                      other: int, shuffle) -> None:
    hosts = [f"api-{n}" for n in range(1, count + 1)]
    rows = [f"host={h} cpu_pct={cpu}" for h in hosts]
    claim = f"{listed(hosts, form)} had {cpu}% CPU."
    shuffle.shuffle(rows)
    assert bucket(claim, rows) == "grounded", (claim, rows)
    # one of them at another value: the claim is not of every subject it lists
    wrong = [r.replace(f"={cpu}", f"={cpu - other}") if r.startswith(f"host={hosts[odd % count]} ")
             else r for r in rows]
    assert bucket(claim, wrong) == "contradicted", (claim, wrong)
    # and a subject found nowhere is not carried by the others
    assert bucket(claim, [r for r in rows if not r.startswith(f"host={hosts[odd % count]} ")]) \
        != "grounded"


@settings(max_examples=60)
@given(count=st.integers(2, 4), form=st.sampled_from(FORMS), odd=st.integers(0, 3),
       outcome=st.sampled_from([("succeeded", "failed"), ("failed", "succeeded"),
                                ("rolled back", "succeeded")]))
def test_a_category_said_of_a_list_holds_of_each_subject(
        count: int, form: str, odd: int, outcome: tuple[str, str]) -> None:
    said, other = outcome
    deploys = [f"dep-{n}{n}" for n in range(1, count + 1)]
    status = said.replace(" ", "_")
    records = [f'{{"deploy_id": "{d}", "status": "{status}"}}' for d in deploys]
    claim = f"Deploys {listed(deploys, form)} {said}."
    assert bucket(claim, records) == "grounded", (claim, records)
    records[odd % count] = f'{{"deploy_id": "{deploys[odd % count]}", "status": "{other}"}}'
    assert bucket(claim, records) == "contradicted", (claim, records)


def test_a_relation_of_the_subjects_is_not_said_of_each() -> None:
    rows = EvidenceSet.coerce(["host=api-1 cpu_pct=60", "host=api-2 cpu_pct=35"])
    for claim in ("CPU was split between api-1 and api-2.",
                  "api-1 and api-2 had a combined CPU of 95%.",
                  "api-1 and api-2 had 60% and 35% CPU respectively."):
        checks = [c for v in judge.explain(synthesis=claim, evidence=rows) for c in v.checks]
        assert not [c for c in checks if c.reason.startswith("of api-")], claim
