"""A time written in a zone is that moment: "14:02 PST" is 22:02 UTC, never 14:02Z; "9:15 PM" is
21:15. A claim's zoned time is compared in UTC with zoned evidence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import compare_anchors, extract_anchors

ZONES = {"UTC": 0, "PST": -8, "PDT": -7, "EST": -5, "EDT": -4, "CET": 1, "JST": 9}


def clock(text: str):
    return next(a for a in extract_anchors(f"at {text} the pod") if a.kind.name == "CLOCK")


def stamp(hour: int, minute: int):
    return extract_anchors(f"2024-05-01T{hour:02d}:{minute:02d}:11Z ERROR db-1")[0]


@settings(max_examples=80)
@given(hour=st.integers(0, 23), minute=st.integers(0, 59), zone=st.sampled_from(sorted(ZONES)))
def test_a_zoned_time_matches_its_moment_in_utc_and_no_other(hour: int, minute: int,
                                                            zone: str) -> None:
    said = clock(f"{hour:02d}:{minute:02d} {zone}")
    utc = (hour - ZONES[zone]) % 24
    assert compare_anchors(said, stamp(utc, minute)) == "match"
    if ZONES[zone]:  # the same digits in UTC are another moment
        assert compare_anchors(said, stamp(hour, minute)) == "conflict"


@settings(max_examples=40)
@given(hour=st.integers(1, 12), minute=st.integers(0, 59), pm=st.booleans())
def test_a_twelve_hour_time_is_its_moment(hour: int, minute: int, pm: bool) -> None:
    said = clock(f"{hour}:{minute:02d} {'PM' if pm else 'AM'} UTC")
    moment = hour % 12 + (12 if pm else 0)
    assert compare_anchors(said, stamp(moment, minute)) == "match"
    assert compare_anchors(said, stamp((moment + 12) % 24, minute)) == "conflict"
