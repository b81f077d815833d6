"""Time and places in a sequence: ages, spans, decades and centuries are ranges read off the
years a record holds, and an ordinal place is the value of the field numbering the sequence.

Its sections cover ages and spans of years read off one record, decades and centuries as
ranges of years, and ordinals ("the third attempt") against run and build numbers.

Its tables: ``AGE_AND_SPAN_ROWS`` (claims of an age or a span against one record, with the
bucket each must get).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

# ================================================================================================
# Ages and spans of years are read off two years of one record: a stated age or span the
# record allows grounds the claim, any other is never grounded; and a year is compared with the
# year of a date, never with the age written beside it.
# ================================================================================================

judge = StagedJudge()
PEOPLE = ("Joe Rogan", "Kate Micucci", "Jim Mattis", "Karen Gillan")
BORN = ("{d} ({iso}) {month} {day}, {y} (age {now})", "{day} {month} {y}", "{y}")
"""A birth as an infobox writes it (with today's age beside it, or without)."""
EVENTS = (("Spouse(s)", "Jessica Ditzel ( m. {y})", "got married"),
          ("Awards", "IEEE Edison Medal ({y})", "was awarded the IEEE Edison Medal"),
          ("Spouse", "Jake Sinclair (m. {y})", "married"))
AGES = ("when {p} was {n}", "at the age of {n}", "aged {n}", "at {n} years old",
        "as a {n}-year-old")
DECADES = {"": (0, 9), "early ": (0, 3), "mid ": (3, 6), "late ": (6, 9)}
RANGES = ("{a}-{b}", "{a} - {b}", "{a}\u2013{b}", "{a} to {b}")


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


def record(person: str, born: str, birth: int, key: str, value: str) -> list[str]:
    """An infobox as one record (its ``Key: value`` lines in one item)."""
    written = born.format(d="", iso=f"{birth}-08-11", month="August", day=11, y=birth,
                          now=2018 - birth)
    return ["\n".join([f"title: {person}", f"Born: {written}", "Occupation: comedian; actor",
                       f"{key}: {value}", "Children: 2"])]


@settings(max_examples=80)
@given(person=st.sampled_from(PEOPLE), born=st.sampled_from(BORN),
       birth=st.integers(1900, 1990), gap=st.integers(16, 80), event=st.sampled_from(EVENTS),
       said=st.sampled_from(AGES), step=st.integers(-3, 3))
@example(person="Joe Rogan", born=BORN[0], birth=1967, gap=42, event=EVENTS[0],
         said=AGES[0], step=0)
@example(person="Joe Rogan", born=BORN[0], birth=1967, gap=42, event=EVENTS[0],
         said=AGES[0], step=-2)
@example(person="Joe Rogan", born=BORN[0], birth=1967, gap=42, event=EVENTS[0],
         said=AGES[2], step=1)
def test_an_age_is_grounded_exactly_when_the_record_allows_it(
        person: str, born: str, birth: int, gap: int, event: tuple[str, str, str], said: str,
        step: int) -> None:
    key, value, verb = event
    age = gap + step
    claim = f"{person} {verb} {said.format(p='he', n=age)}."
    got = buckets(claim, record(person, born, birth, key, value.format(y=birth + gap)))
    # the birthday may fall before or after the event: gap - 1 or gap
    assert (got == ["grounded"]) == (age in (gap - 1, gap)), (claim, birth, gap, got)


@settings(max_examples=60)
@given(person=st.sampled_from(PEOPLE), birth=st.integers(1900, 1990),
       gap=st.integers(16, 80), part=st.sampled_from(sorted(DECADES)),
       decade=st.sampled_from([20, 30, 40, 50, 60, 70]), owner=st.sampled_from(["his", "her"]))
@example(person="Kate Micucci", birth=1980, gap=38, part="", decade=30, owner="her")
@example(person="Kate Micucci", birth=1980, gap=38, part="early ", decade=30, owner="her")
@example(person="Kate Micucci", birth=1980, gap=38, part="", decade=40, owner="her")
def test_a_decade_of_age_is_grounded_exactly_when_an_allowed_age_is_in_it(
        person: str, birth: int, gap: int, part: str, decade: int, owner: str) -> None:
    pronoun = "he was" if owner == "his" else "she was"
    claim = f"{person} got married when {pronoun} in {owner} {part}{decade}s."
    low, high = DECADES[part]
    got = buckets(claim, record(person, BORN[1], birth, "Spouse(s)",
                                f"Jessica Ditzel ( m. {birth + gap})"))
    inside = any(decade + low <= age <= decade + high for age in (gap - 1, gap))
    assert (got == ["grounded"]) == inside, (claim, birth, gap, got)


@settings(max_examples=60)
@given(person=st.sampled_from(PEOPLE), start=st.integers(1900, 2000),
       length=st.integers(5, 50), written=st.sampled_from(RANGES), step=st.integers(-4, 4),
       said=st.sampled_from(["for {n} years", "for over {n} years", "a {n}-year career"]))
@example(person="Jim Mattis", start=1969, length=44, written=RANGES[0], step=0,
         said="for {n} years")
@example(person="Jim Mattis", start=1969, length=44, written=RANGES[0], step=3,
         said="for {n} years")
def test_a_span_is_grounded_exactly_when_within_a_year_of_the_range(
        person: str, start: int, length: int, written: str, step: int, said: str) -> None:
    stated = length + step
    claim = f"{person} served in the military {said.format(n=stated)}." if "career" not in said \
        else f"{person} had {said.format(n=stated)} of service in the military."
    evidence = [f"title: {person}", "Nickname(s): Chaos",
                f"Years of service: {written.format(a=start, b=start + length)}",
                "Battles/wars: Persian Gulf War"]
    got = buckets(claim, evidence)
    # the record gives years, not days: a year either way of the difference; "over" N needs
    # more than N
    allowed = step <= 0 if "over" in said else abs(step) <= 1
    assert (got == ["grounded"]) == allowed, (claim, got)


@settings(max_examples=40)
@given(first=st.integers(1900, 1990), second=st.integers(1900, 1990), gap=st.integers(16, 60),
       other_gap=st.integers(16, 60), order=st.booleans())
@example(first=1967, second=1987, gap=42, other_gap=32, order=True)
def test_an_age_is_read_off_its_own_record_never_another_persons(
        first: int, second: int, gap: int, other_gap: int, order: bool) -> None:
    joe = f"title: Joe Rogan\nBorn: {first}\nSpouse(s): Jessica Ditzel (m. {first + gap})"
    karen = f"title: Karen Gillan\nBorn: {second}\nSpouse(s): Nick Kocher (m. {second + other_gap})"
    evidence = [joe, karen] if order else [karen, joe]
    for age in range(10, 90):
        claim = f"Karen Gillan got married when she was {age}."
        got = buckets(claim, evidence)
        assert (got == ["grounded"]) == (age in (other_gap - 1, other_gap)), (claim, got)


def test_another_persons_birth_year_never_dates_an_age() -> None:
    joe = ["title: Joe Rogan", "Spouse(s): Jessica Ditzel (m. 2009)"]
    claim = "Joe Rogan got married when he was 42."
    alone = buckets(claim, joe)
    assert alone != ["grounded"]
    assert buckets(claim, [*joe, "title: Karen Gillan\nBorn: 1967"]) == alone


def test_a_birth_year_never_dates_another_event_of_the_era() -> None:
    evidence = ["title: Karen Gillan\nBorn: 28 November 1987\nOccupation: Actress"]
    assert buckets("Karen Gillan died in the 1980s.", evidence) != ["grounded"]
    assert buckets("Karen Gillan was born in the 1980s.", evidence) == ["grounded"]
    # and another person's record never places this one's era
    joe = "title: Joe Rogan\nBorn: 1967\nOccupation: comedian"
    alone = buckets("Karen Gillan was born in the 1960s.", evidence)
    assert alone != ["grounded"]
    assert buckets("Karen Gillan was born in the 1960s.", [*evidence, joe]) == alone


def test_a_list_of_dates_is_no_span() -> None:
    evidence = ["title: Atari 2600", "Release date: NA: September 11, 1977; EU: 1978; JP: 1983",
                "Discontinued: January 1, 1992"]
    got = judge.explain(synthesis="The Atari 2600 was discontinued 14 years after its release.",
                        evidence=EvidenceSet.coerce(evidence))
    assert "6 years" not in got[0].reason and got[0].bucket != "contradicted", got[0]


# (claim, evidence, expected): a bucket, or "not <bucket>" for any other verdict
AGE_AND_SPAN_ROWS = [
    # an age needs the record to name its event: nothing in the record is a marriage, so the
    # age is a plain number, found nowhere
    pytest.param("Joe Rogan got married when he was 27.",
                 record("Joe Rogan", BORN[0], 1967, "Medium", "Stand-up; podcast (1994)"),
                 "not grounded", id="an-age-needs-its-event"),
    # an age with no birth year about the claim is no plain number to contradict
    pytest.param("Joe Rogan got married when he was 42.",
                 ["title: Joe Rogan\nBorn: August 11\nSpouse: Jessica Ditzel (m. 2009)"],
                 "ungrounded", id="an-age-without-a-birth-year"),
    # a decimal is no span
    pytest.param("Joe Smith served for 4.5 years.",
                 ["title: Joe Smith\nYears of service: 1969-2013"], "not grounded",
                 id="a-decimal-is-no-span-4.5"),
    pytest.param("Joe Smith served for 4.4 years.",
                 ["title: Joe Smith\nYears of service: 1969-2013"], "not grounded",
                 id="a-decimal-is-no-span-4.4"),
    # a season is no name: "the Summer of 1817" is the year of the date
    pytest.param("Jane Austen died in the Summer of 1817.",
                 ["title: Jane Austen", "Died: 18 July 1817 (1817-07-18) (aged 41) Winchester",
                  "Occupation: Novelist"], "grounded", id="a-season-is-no-name"),
]


@pytest.mark.parametrize(("claim", "evidence", "expected"), AGE_AND_SPAN_ROWS)
def test_an_age_or_span_is_judged_as_its_record_allows(claim: str, evidence: list[str],
                                                       expected: str) -> None:
    got = buckets(claim, evidence)
    if expected.startswith("not "):
        assert got != [expected.removeprefix("not ")], (claim, got)
    else:
        assert got == [expected], (claim, got)


@settings(max_examples=60)
@given(person=st.sampled_from(PEOPLE), birth=st.integers(1900, 2010), step=st.integers(-3, 3),
       born=st.sampled_from(BORN), verb=st.sampled_from(["was born", "died"]))
@example(person="Karen Gillan", birth=1987, step=0, born=BORN[0], verb="was born")
@example(person="Karen Gillan", birth=1987, step=1, born=BORN[0], verb="was born")
def test_a_year_is_compared_with_the_year_of_a_date_not_the_age_beside_it(
        person: str, birth: int, step: int, born: str, verb: str) -> None:
    key = "Born" if verb == "was born" else "Died"
    written = born.format(d="", iso=f"{birth}-11-28", month="November", day=28, y=birth,
                          now=31)
    lines = [f"title: {person}", f"{key}: {written} Inverness, Scotland", "Occupation: Actress"]
    claim = f"{person} {verb} in {birth + step}."
    whole, per_line = buckets(claim, ["\n".join(lines)]), buckets(claim, lines)
    if step == 0:
        assert whole == per_line == ["grounded"], (born, whole, per_line)
    else:  # one record: another year of its key; a line apart from the name: never grounded
        assert whole == ["contradicted"] and per_line != ["grounded"], (born, whole, per_line)


# ================================================================================================
# Decades and centuries are ranges of years: a year inside the stated range grounds the claim,
# a year outside it never does; and two readings of plain words as names that are none.
# ================================================================================================

TITLES = ("Josta", "Crimson Peak", "Cracovia", "Kauto Star")
FIELDS = (("Introduced", "was introduced"), ("Released", "was released"),
          ("Founded", "was founded"), ("Current constitution", "had its current constitution "
                                                               "written"))
DATES = ("{y}", "4 December {y}", "{y}-12-04", "March {y}")
"""A year as an infobox, a table or a log writes it."""


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


# ================================================================================================
# A place a claim names with an ordinal ("the third attempt", "the 2nd build") is the value of
# the field numbering that sequence (``run_attempt``, ``build_number``): another place is
# contradicted; a count (``attempts``, ``retry_count``) and a zero-based place (a partition) are
# no such field.
# ================================================================================================

WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
         "tenth")
PLACES = {"run_attempt": "attempt", "attempt": "attempt", "run_number": "run",
          "revision": "revision", "retry": "retry", "build_number": "build",
          "iteration": "iteration", "round": "round"}
"""A field numbering a one-based sequence, and the noun a claim gives it."""
UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02",
             "host=db-1 cpu_pct=12.5 conn_count=40"]


def _ordinal(place: int, digits: bool) -> str:
    if not digits:
        return WORDS[place - 1]
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place % 10 if place % 100 not in (11, 12, 13)
                                             else 0, "th")
    return f"{place}{suffix}"


def _record(key: str, value: int, shape: str) -> str:
    if shape == "json":
        return json.dumps({"id": 8812, "name": "deploy-prod", key: value, "status": "completed"})
    return f"pipeline=deploy-prod {key}={value} status=success duration_s=184"


def _bucket(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=80, deadline=None)
@given(key=st.sampled_from(sorted(PLACES)), place=st.integers(1, 10), other=st.integers(1, 10),
       digits=st.booleans(), shape=st.sampled_from(["json", "row"]),
       unrelated=st.permutations(UNRELATED), where=st.integers(0, 3))
@example(key="run_attempt", place=2, other=3, digits=False, shape="json", unrelated=UNRELATED,
         where=0)
def test_an_ordinal_place_is_the_field_numbering_it(key: str, place: int, other: int,
                                                    digits: bool, shape: str,
                                                    unrelated: list[str], where: int) -> None:
    record = _record(key, place, shape)
    items = [*unrelated[:where], record, *unrelated[where:]]
    noun = PLACES[key]
    said = f"deploy-prod was on its {_ordinal(place, digits)} {noun}."
    assert _bucket(said, [record]) == "grounded", (said, record)
    assert _bucket(said, items) == "grounded", (said, items)
    if other != place:
        wrong = f"deploy-prod was on its {_ordinal(other, digits)} {noun}."
        assert _bucket(wrong, [record]) == "contradicted", (wrong, record)
        assert _bucket(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 9), place=st.integers(1, 10),
       key=st.sampled_from(["attempts", "retries", "retry_count", "builds"]))
def test_a_count_is_no_place(count: int, place: int, key: str) -> None:
    # "the third retry" beside ``retries: 5``: the count holds that place, or says nothing of it
    noun = {"attempts": "attempt", "retries": "retry", "retry_count": "retry",
            "builds": "build"}[key]
    record = json.dumps({"id": 8812, "name": "deploy-prod", key: count, "status": "completed"})
    said = f"deploy-prod was on its {WORDS[place - 1]} {noun}."
    assert _bucket(said, [record]) != "contradicted", (said, record)


def test_the_first_partition_is_partition_zero() -> None:
    record = "topic=orders partition=0 leader=2 isr=2,3 lag=0"
    assert _bucket("The first partition of orders has a lag of 0.", [record]) != "contradicted"
