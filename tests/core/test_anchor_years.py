"""Eras, ages and spans of years in the core: what a number states, and the guard's check of a
grounded claim stating one (the cited items' years must allow it)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchor.derived import stated_years, years_allow, years_in
from gsar_otel.core.anchors import extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import UNSUPPORTED_NUMBER, check_judge_output
from gsar_otel.core.model import Claim, JudgeOutput
from tests.core.guarded import guarded


def stated(text: str):
    found = [s for a in extract_anchors(text) if (s := stated_years(text, a)) is not None]
    return found[0] if len(found) == 1 else None


def test_what_each_phrasing_states() -> None:
    assert (stated("written in the 1980s").kind, stated("written in the 1980s").low,
            stated("written in the 1980s").high) == ("era", 1980, 1989)
    assert (stated("in the late 1990s").low, stated("in the late 1990s").high) == (1995, 1999)
    assert (stated("the 17th century").low, stated("the 17th century").high) == (1600, 1700)
    assert (stated("the 1900s").low, stated("the 1900s").high) == (1900, 1999)
    for text, low, high in (("in his 40s", 40, 49), ("in her early 30s", 30, 33),
                            ("when she was 42", 42, 42), ("aged 42", 42, 42),
                            ("at the age of 42", 42, 42), ("42 years old", 42, 42),
                            ("a 42-year-old", 42, 42)):
        found = stated(text)
        assert found is not None and (found.kind, found.low, found.high) == ("age", low, high)
    for text in ("for 44 years", "a 44-year career", "over 43 years"):
        found = stated(text)
        assert found is not None and (found.kind, found.low) == ("span", 44), text
    # "over 43" allows 44 and more


def test_plain_numbers_and_durations_state_no_years() -> None:
    for text in ("timeout after 40s", "40 requests", "44 years ago", "in 1987", "p99 was 1374",
                 "the 3rd attempt", "retried 3 times in 40s"):
        assert stated(text) is None, text


@settings(max_examples=60)
@given(birth=st.integers(1900, 1990), gap=st.integers(16, 80), step=st.integers(-3, 3))
@example(birth=1967, gap=42, step=0)
@example(birth=1967, gap=42, step=-2)
def test_the_guard_keeps_an_age_the_cited_years_allow_and_no_other(
        birth: int, gap: int, step: int) -> None:
    age = gap + step
    evidence = [f"Born: August 11, {birth}", f"Spouse: Jessica Ditzel (m. {birth + gap})"]
    assert guarded(f"He married when he was {age}.", evidence) == (age in (gap - 1, gap))


@settings(max_examples=60)
@given(year=st.integers(1000, 2099), step=st.integers(-3, 3))
@example(year=1982, step=0)
@example(year=1982, step=1)
def test_the_guard_keeps_an_era_holding_a_cited_year_and_no_other(year: int, step: int) -> None:
    decade = year // 10 * 10 + 10 * step
    inside = decade <= year <= decade + (99 if decade % 100 == 0 and decade < 2000 else 9)
    assert guarded(f"It was written in the {decade}s.",
                   [f"Current constitution: 4 December {year}"]) == inside


@settings(max_examples=60)
@given(start=st.integers(1900, 2000), length=st.integers(5, 60), step=st.integers(-4, 4))
@example(start=1969, length=44, step=0)
@example(start=1969, length=44, step=2)
def test_the_guard_keeps_a_span_within_a_year_and_no_other(
        start: int, length: int, step: int) -> None:
    evidence = [f"Years of service: {start}-{start + length}"]
    assert guarded(f"He served for {length + step} years.", evidence) == (abs(step) <= 1)


def test_years_allow_needs_the_years_it_is_read_from() -> None:
    age = stated("when she was 42")
    assert age is not None
    assert not years_allow(age, years_in(extract_anchors("Born: 1967")))
    assert years_allow(age, years_in(extract_anchors("Born: 1967; married 2009")))
    # a number with a separator, a unit or a currency is no year
    assert years_in(extract_anchors("$1,550 and 1,985 visitors, disk 1985 MB")) == frozenset()


def test_a_decimal_or_a_magnitude_is_no_age_or_span() -> None:
    for text in ("served for 4.5 years", "for 1.5 years", "when he was 4.2", "for 10k years",
                 "for 10million years", "in his 4.0s"):
        assert stated(text) is None, text


def test_a_qualifier_bounds_an_age_or_a_span() -> None:
    over, under = stated("for over 45 years"), stated("under 5 years old")
    assert over is not None and (over.low, over.kind) == (46, "span")
    assert under is not None and (under.high, under.kind) == (4, "age")
    assert not years_allow(over, frozenset({1969, 2013}))  # 44 years, within one: 45 at most
    assert years_allow(over, frozenset({1969, 2015}))


def test_the_2000s_is_a_decade_and_the_1900s_a_century() -> None:
    noughties, twentieth = stated("released in the 2000s"), stated("built in the 1900s")
    assert noughties is not None and (noughties.low, noughties.high) == (2000, 2009)
    assert twentieth is not None and (twentieth.low, twentieth.high) == (1900, 1999)


def test_the_guard_reads_many_cited_years_in_linear_time() -> None:
    # one item listing a century of years and many claims: no pairwise blow-up, no cap
    items = EvidenceSet.coerce([" ".join(str(y) for y in range(1000, 2101))])
    claims = tuple(Claim(f"He married when he was {n % 90 + 10}.", "specific_data",
                         [items.items[0].id]) for n in range(300))
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=claims)
    report = check_judge_output(output, synthesis=" ".join(c.text for c in claims),
                                evidence=items)
    assert not any(a.kind == UNSUPPORTED_NUMBER for a in report.adjustments)
