"""Derived values passed over, unbuilt and uncompared: a percentage for a claim value no
percentage can match (:func:`meets_percents`), a number of no unit and no key for a value
written in a measure (:func:`meets_unkeyed`). That holds only if no such value ever matches,
which these tests check against the comparison itself and against the search for a derived
match as it was before it passed any over (kept here as the reference)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors, extract_anchors
from gsar_otel.judges.records.derive import (
    _SCALES,
    Entry,
    _bounds,
    _first,
    _in_measure,
    _pairs,
    meets_percents,
    meets_unkeyed,
)
from gsar_otel.judges.records.units import claim_measure, key_measure, measure_of, measures_differ

NUMBERS = st.sampled_from(["0", "1", "2", "12", "12.5", "3100", "0.5", "97.2", "100", "1,842",
                           "40", "3", "0.01", "66.7", "250"])
UNITS = st.sampled_from(["", "%", " %", " ms", "ms", " s", " seconds", " minutes", " GB",
                         " MB", " cores", "x", " percent", " requests", " per cent", "h"])
QUALIFIERS = st.sampled_from(["", "about ", "over ", "under ", "at least ", "nearly "])
CLAIMS = st.builds(lambda q, n, u: f"{q}{n}{u}", QUALIFIERS, NUMBERS, UNITS)


def _percentages(value: float) -> list[Anchor]:
    written = [a for a in extract_anchors(f"{value:.6g}%") if a.kind is AnchorKind.PERCENT]
    keyed = [a for a in extract_anchors(f"cpu_pct={value:.6g}%")
             if a.kind is AnchorKind.PERCENT]
    return [Anchor(AnchorKind.PERCENT, f"{value:.6g}%", value, "%", 0, 0, None, None),
            *written, *keyed]


@settings(max_examples=500, deadline=None)
@given(CLAIMS, st.floats(-1e4, 1e4, allow_nan=False) | NUMBERS.map(
    lambda n: float(n.replace(",", ""))))
def test_no_percentage_matches_a_value_that_meets_none(text: str, value: float) -> None:
    for claim in extract_anchors(text):
        if meets_percents(claim):
            continue
        for percentage in _percentages(value):
            assert compare_anchors(claim, percentage) is not Agreement.MATCH
            assert _in_measure(claim, percentage) is None


def test_a_duration_meets_no_percentage_and_a_share_or_a_bare_number_does() -> None:
    def first(text: str) -> Anchor:
        return extract_anchors(text)[0]

    assert not meets_percents(first("3100 ms"))
    assert not meets_percents(first("over 30 seconds"))
    assert meets_percents(first("12%"))
    assert meets_percents(first("12"))  # a bare number meets a percentage written alike
    assert compare_anchors(first("12"), first("12%")) is Agreement.MATCH


def _reference_first(anchor: Anchor, candidates: list[tuple[Anchor, str]]) -> str | None:
    """derive._first as it was before it passed any candidate over unseen."""
    bounds = _bounds(anchor)
    for candidate, how in candidates:
        if bounds is not None and candidate.unit in (None, "%") and isinstance(
                candidate.value, float) and not any(
                bounds[0] <= candidate.value * scale <= bounds[1] for scale in _SCALES):
            continue
        bare = (candidate.kind is AnchorKind.NUMBER and not candidate.unit
                and key_measure(candidate.key) != claim_measure(anchor))
        if not (bare and claim_measure(anchor)) and compare_anchors(
                anchor, candidate) is Agreement.MATCH:
            return how
        measured = _in_measure(anchor, candidate)
        if measured is not None and compare_anchors(anchor, measured) is Agreement.MATCH:
            return f"{how} in {measure_of(anchor)}"
    return None


KEYS = st.sampled_from([None, "", "p99_ms", "rt", "cpu_pct", "mem_bytes", "uptime", "count",
                        "error_ratio", "latency"])
CANDIDATE_UNITS = st.sampled_from([None, "", "ms", "s", "%", "GB", "MB"])


@st.composite
def _candidates(draw: st.DrawFn) -> list[tuple[Anchor, str]]:
    found = []
    for n in range(draw(st.integers(1, 12))):
        value = draw(st.floats(0, 5000, allow_nan=False) | NUMBERS.map(
            lambda t: float(t.replace(",", ""))))
        kind = draw(st.sampled_from([AnchorKind.NUMBER, AnchorKind.PERCENT,
                                     AnchorKind.DURATION]))
        unit = "%" if kind is AnchorKind.PERCENT else draw(CANDIDATE_UNITS)
        if kind is AnchorKind.DURATION:
            unit = draw(st.sampled_from(["s", "ms"]))
        text = f"{value:.6g}{unit or ''}"
        found.append((Anchor(kind, text, value, unit, 0, 0, draw(KEYS), None), f"how {n}"))
    return found


@settings(max_examples=600, deadline=None)
@given(CLAIMS, _candidates())
def test_the_first_derived_match_is_the_one_found_without_passing_any_over(
        text: str, candidates: list[tuple[Anchor, str]]) -> None:
    for claim in extract_anchors(text):
        assert _first(claim, candidates) == _reference_first(claim, candidates)


@settings(max_examples=200, deadline=None)
@given(CLAIMS, st.lists(st.floats(0.5, 5000, allow_nan=False), min_size=2, max_size=6),
       st.sampled_from([{"ratio"}, {"difference"}, {"ratio", "difference"}, {"sum"},
                        {"product", "ratio"}]))
def test_pairs_left_unbuilt_change_no_finding(text: str, numbers: list[float],
                                              asks: set[str]) -> None:
    pool = [Entry(n, Anchor(AnchorKind.NUMBER, f"{n:g}", n, None, 0, 0, "p99_ms", None),
                  "g\0p99_ms", row) for row, n in enumerate(numbers)]
    pool.append(Entry(numbers[0], Anchor(AnchorKind.NUMBER, f"{numbers[0]:g}", numbers[0],
                                         None, 0, 0, None, None), "", -1))
    for claim in extract_anchors(text):
        everything = list(_pairs(pool, asks))
        assert _first(claim, _pairs(pool, asks, percents=meets_percents(claim),
                                    unkeyed=meets_unkeyed(claim))) == _reference_first(
            claim, everything)


@settings(max_examples=300, deadline=None)
@given(CLAIMS, _candidates())
def test_a_claim_value_of_no_measure_differs_in_measure_from_no_held_value(
        text: str, held: list[tuple[Anchor, str]]) -> None:
    """RecordIndex.holding skips measures_differ for a claim value that names no measure."""
    for claim in extract_anchors(text):
        if not claim_measure(claim):
            assert not any(measures_differ(claim, anchor) for anchor, _ in held)
