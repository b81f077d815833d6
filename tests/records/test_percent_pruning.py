"""A derived percentage is passed over, unbuilt and uncompared, for a claim value no
percentage can match (:func:`meets_percents`): that holds only if no percentage ever matches
such a value, which is what these tests check against the comparison itself."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors, extract_anchors
from gsar_otel.judges.records.derive import _in_measure, meets_percents

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
