"""Decades and centuries are ranges of years: a year inside the stated range grounds the claim,
a year outside it never does; and two readings of plain words as names that are none."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
TITLES = ("Josta", "Crimson Peak", "Cracovia", "Kauto Star")
FIELDS = (("Introduced", "was introduced"), ("Released", "was released"),
          ("Founded", "was founded"), ("Current constitution", "had its current constitution "
                                                               "written"))
DATES = ("{y}", "4 December {y}", "{y}-12-04", "March {y}")
"""A year as an infobox, a table or a log writes it."""


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


def infobox(title: str, key: str, date: str) -> str:
    return f"title: {title}\nStatus: active\n{key}: {date}\nCountry: Poland"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@settings(max_examples=60)
@given(year=st.integers(1000, 2099), title=st.sampled_from(TITLES),
       field=st.sampled_from(FIELDS), date=st.sampled_from(DATES), step=st.integers(-4, 4),
       written=st.sampled_from(["{d}s", "{d}'s"]))
@example(year=1982, title="Josta", field=FIELDS[3], date="4 December {y}", step=0,
         written="{d}s")
@example(year=1982, title="Josta", field=FIELDS[3], date="4 December {y}", step=-1,
         written="{d}s")
@example(year=1955, title="Josta", field=FIELDS[0], date="{y}", step=-5, written="{d}'s")
def test_a_decade_is_grounded_exactly_when_the_year_is_in_it(
        year: int, title: str, field: tuple[str, str], date: str, step: int,
        written: str) -> None:
    decade = year // 10 * 10 + 10 * step
    claim = f"{title} {field[1]} in the {written.format(d=decade)}."
    # a round hundred before 2000 ("the 1900s") is also read as its whole century; "the
    # 2000s" is the decade
    inside = decade <= year <= decade + (99 if decade % 100 == 0 and decade < 2000 else 9)
    got = buckets(claim, [infobox(title, field[0], date.format(y=year))])
    assert (got == ["grounded"]) == inside, (claim, year, got)


@settings(max_examples=40)
@given(year=st.integers(1000, 2099), title=st.sampled_from(TITLES),
       field=st.sampled_from(FIELDS), step=st.integers(-2, 2))
@example(year=1610, title="Cracovia", field=FIELDS[1], step=0)
@example(year=1700, title="Cracovia", field=FIELDS[1], step=-1)
def test_a_century_is_grounded_exactly_when_the_year_is_in_it(
        year: int, title: str, field: tuple[str, str], step: int) -> None:
    century = (year - 1) // 100 + 1 + step
    claim = f"{title} {field[1]} in the {ordinal(century)} century."
    # both ways of counting: the 17th century is 1601-1700 or 1600-1699
    inside = (century - 1) * 100 <= year <= century * 100
    got = buckets(claim, [infobox(title, field[0], f"4 December {year}")])
    assert (got == ["grounded"]) == inside, (claim, year, got)


@settings(max_examples=40)
@given(year=st.integers(1000, 2099).filter(lambda y: y // 10 % 10 != 0),
       title=st.sampled_from(TITLES), field=st.sampled_from(FIELDS))
@example(year=1998, title="Josta", field=FIELDS[2])
@example(year=1991, title="Josta", field=FIELDS[2])
def test_early_and_late_keep_their_part_of_the_decade(
        year: int, title: str, field: tuple[str, str]) -> None:
    decade, place = year // 10 * 10, year % 10
    evidence = [infobox(title, field[0], str(year))]
    early = buckets(f"{title} {field[1]} in the early {decade}s.", evidence)
    late = buckets(f"{title} {field[1]} in the late {decade}s.", evidence)
    if place <= 3:
        assert early == ["grounded"] and late != ["grounded"], (year, early, late)
    if place >= 6:
        assert late == ["grounded"] and early != ["grounded"], (year, early, late)


@given(first=st.integers(1910, 1949), second=st.integers(1960, 2019),
       title=st.sampled_from(TITLES))
@example(first=1912, second=1982, title="Josta")
def test_the_decade_of_another_field_is_contradicted(first: int, second: int,
                                                     title: str) -> None:
    """The claim names its field: another field's year in the decade grounds nothing."""
    evidence = [f"title: {title}\nFounded: {first}\nCurrent constitution: 4 December {second}"]
    claim = f"{title} had its current constitution written in the {first // 10 * 10}s."
    assert buckets(claim, evidence) == ["contradicted"], (claim, evidence)


@given(word=st.sampled_from(["multiple", "several", "various", "numerous", "different"]),
       noun=st.sampled_from(["ring names", "stage names", "aliases", "titles"]),
       title=st.sampled_from(TITLES))
@example(word="multiple", noun="ring names", title="Jinder Mahal")
def test_a_word_qualifying_a_noun_after_by_is_no_name(word: str, noun: str, title: str) -> None:
    """"known by multiple ring names" names no agent called "multiple"."""
    reasons = [v.reason for v in judge.explain(
        synthesis=f"{title} has been known by {word} {noun}.",
        evidence=EvidenceSet.coerce([f"title: {title}\n{noun.title()}: A; B; C"]))]
    assert not any(r.startswith(f"{word} appears") for r in reasons), reasons


@given(team=st.sampled_from(["netops", "sre-oncall", "dbadmins", "payments"]),
       other=st.sampled_from(["infra", "secops", "platform"]))
def test_who_did_it_is_still_checked(team: str, other: str) -> None:
    evidence = [f"Ticket 5 was closed by {team} after 6 hours."]
    assert buckets(f"Ticket 5 was closed by {team} after 6 hours.", evidence) == ["grounded"]
    assert buckets(f"Ticket 5 was closed by {other} after 6 hours.", evidence) != ["grounded"]


@given(name=st.sampled_from(["DailyMail.com", "GitHub.io", "BuzzFeed.com", "NodeSource.org"]),
       other=st.sampled_from(["TechCrunch.com", "YouTube.com"]))
def test_a_camel_case_name_with_a_domain_is_one_name(name: str, other: str) -> None:
    evidence = [f"{name} last weekend exposed Brady as a fan of raccoons; sources said he keeps "
                "a pet raccoon."]
    assert buckets(f"Sources told {name} he keeps a pet raccoon.", evidence) == ["grounded"]
    assert buckets(f"Sources told {other} he keeps a pet raccoon.", evidence) != ["grounded"]
