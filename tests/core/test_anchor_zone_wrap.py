"""A clock time in any named zone matches the UTC timestamp it stands for, across midnight too
(04:41 JST is 19:41 UTC of the day before)."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import example, given
from hypothesis import strategies as st

from gsar_otel.core.anchor.words import ZONES
from gsar_otel.core.anchors import Agreement, compare_anchors, extract_anchors

NAMED = sorted(zone.upper() for zone in ZONES if zone.isalpha() and zone.upper() != "Z")


@given(minute=st.integers(0, 24 * 60 - 1), zone=st.sampled_from(NAMED),
       shift=st.sampled_from([0, 7, 60]))
@example(minute=19 * 60 + 41, zone="JST", shift=0)
@example(minute=1 * 60 + 5, zone="PDT", shift=0)
@example(minute=19 * 60 + 41, zone="JST", shift=60)
def test_a_zoned_clock_time_matches_its_utc_timestamp_and_no_other(minute: int, zone: str,
                                                                   shift: int) -> None:
    utc = datetime(2026, 3, 14) + timedelta(minutes=minute)
    local = utc + timedelta(minutes=ZONES[zone.lower()] + shift)
    evidence = extract_anchors(f"finished_at={utc:%Y-%m-%dT%H:%M}:17Z")[0]
    claim = extract_anchors(f"finished at {local:%H:%M} {zone}")[0]
    expected = Agreement.MATCH if shift == 0 else Agreement.CONFLICT
    assert compare_anchors(claim, evidence) is expected, (claim.text, evidence.text)
