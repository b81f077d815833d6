"""Ages and spans of years are read off two years of one record: a stated age or span the
record allows grounds the claim, any other is never grounded; and a year is compared with the
year of a date, never with the age written beside it."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

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


def test_an_age_needs_the_record_to_name_its_event() -> None:
    # nothing in the record is a marriage: the age is a plain number, found nowhere
    evidence = record("Joe Rogan", BORN[0], 1967, "Medium", "Stand-up; podcast (1994)")
    assert buckets("Joe Rogan got married when he was 27.", evidence) != ["grounded"]
    # an age with no birth year about the claim is no plain number to contradict
    no_year = ["title: Joe Rogan\nBorn: August 11\nSpouse: Jessica Ditzel (m. 2009)"]
    assert buckets("Joe Rogan got married when he was 42.", no_year) == ["ungrounded"]


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


def test_a_decimal_is_no_span() -> None:
    evidence = ["title: Joe Smith\nYears of service: 1969-2013"]
    for claim in ("Joe Smith served for 4.5 years.", "Joe Smith served for 4.4 years."):
        assert buckets(claim, evidence) != ["grounded"], claim


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


def test_a_season_is_no_name() -> None:
    evidence = ["title: Jane Austen", "Died: 18 July 1817 (1817-07-18) (aged 41) Winchester",
                "Occupation: Novelist"]
    assert buckets("Jane Austen died in the Summer of 1817.", evidence) == ["grounded"]
