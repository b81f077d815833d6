"""Durations written in parts are one duration; a key's unit suffix gives its value a unit.

Both classes were read wrongly before: ``19 minutes 38 seconds`` as two durations (the second
found in no row that writes ``19m38s``), and ``74`` in ``p50_ms=74 rps=2947`` as 74 req/s (the
next pair's key read as a unit), so ``74ms`` was not found.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.anchors import (
    Agreement,
    AnchorIndex,
    AnchorKind,
    compare_anchors,
    extract_anchors,
)

_SPELLINGS = {
    3600: ["h", "hr", "hour", "hours"],
    60: ["min", "mins", "minute", "minutes"],
    1: ["s", "sec", "second", "seconds"],
}


@st.composite
def compound(draw: st.DrawFn) -> tuple[str, int, str]:
    """A duration in 2-3 descending parts written with spaces, and its seconds and glued form."""
    units = draw(st.sampled_from([(3600, 60), (60, 1), (3600, 60, 1), (3600, 1)]))
    amounts = [draw(st.integers(1 if i == 0 else 0, 59)) for i in range(len(units))]
    joins = [draw(st.sampled_from([" ", ", ", " and ", ", and "])) for _ in units[1:]]
    glue = draw(st.booleans())  # "1h 5min" as well as "1 h 5 min"
    parts = [f"{a}{'' if glue else ' '}{draw(st.sampled_from(_SPELLINGS[u]))}"
             for a, u in zip(amounts, units, strict=True)]
    text = parts[0] + "".join(j + p for j, p in zip(joins, parts[1:], strict=True))
    seconds = sum(a * u for a, u in zip(amounts, units, strict=True))
    glued = f"{seconds // 3600}h{seconds % 3600 // 60}m{seconds % 60}s"
    return text, seconds, glued


@given(compound(), st.sampled_from(["The oldest message age was {}.", "It took {} to recover.",
                                    "{} was the checkpoint age."]))
def test_a_duration_in_parts_is_one_duration_a_row_supports(
        case: tuple[str, int, str], frame: str) -> None:
    text, seconds, glued = case
    durations = [a for a in extract_anchors(frame.format(text)) if a.kind is AnchorKind.DURATION]
    assert len(durations) == 1
    assert durations[0].value == seconds
    index = AnchorIndex(extract_anchors(f"queue=orders oldest_age={glued} depth=12"))
    assert index.supports(durations[0])
    wrong = AnchorIndex(extract_anchors(f"queue=orders oldest_age={seconds + 3600}s"))
    assert not wrong.supports(durations[0])


def test_a_zero_part_of_a_duration_is_a_part() -> None:
    (duration,) = extract_anchors("It stayed down for 2 minutes 0 seconds.")
    assert (duration.kind, duration.value, duration.text) == (
        AnchorKind.DURATION, 120.0, "2 minutes 0 seconds")


_UNIT_KEYS = [("ms", "{}ms", "{} ms"), ("gb", "{} GB", "{}GB"), ("mb", "{} MB", "{}MB"),
              ("bytes", "{} bytes", "{} bytes"), ("pct", "{}%", "{} percent"),
              ("percent", "{}%", "{} %"), ("s", "{}s", "{} seconds"),
              ("seconds", "{} seconds", "{}s")]
_NEXT_KEYS = ["rps", "ms", "gb", "pct", "bytes", "seconds", "qps", "cores", "host", "ts"]


@given(prefix=st.sampled_from(["p50", "latency_p99", "mem", "disk_used", "size", "rx",
                               "uptime", "gc"]),
       unit=st.sampled_from(_UNIT_KEYS), value=st.integers(1, 9999),
       following=st.sampled_from(_NEXT_KEYS), style=st.integers(1, 2),
       separator=st.sampled_from(["=", ": "]))
def test_a_value_with_a_unit_suffixed_key_supports_the_value_with_that_unit(
        prefix: str, unit: tuple[str, str, str], value: int, following: str, style: int,
        separator: str) -> None:
    suffix, *spellings = unit
    row = f"host=api-1 {prefix}_{suffix}{separator}{value} {following}{separator}7"
    claim = extract_anchors("It measured " + spellings[style - 1].format(value) + " there.")
    index = AnchorIndex(extract_anchors(row))
    assert claim
    assert all(index.supports(anchor) for anchor in claim), (row, claim)


@given(value=st.integers(1, 9999), other=st.sampled_from(["MB", "TB", "KB"]))
def test_a_key_unit_is_not_any_unit(value: int, other: str) -> None:
    (claim,) = extract_anchors(f"{value} {other}")
    assert not AnchorIndex(extract_anchors(f"mem_gb={value}")).supports(claim)


def test_a_key_per_a_time_is_a_rate_never_a_time() -> None:
    """iostat's ``w/s`` and ``rkB/s`` count per second: their values are no seconds (nor
    kilobytes), while ``took/s`` is no rate word and ``latency_s`` stays seconds."""
    from gsar_otel.core.anchor.units import key_parts

    for key in ("w/s", "r/s", "rkB/s", "req/min", "writes/sec"):
        assert key_parts(key)[-1] == "rate", key
        rate = extract_anchors(f"{key}=12.5")[-1]
        # not a time: another time neither conflicts with it nor is met by it in seconds
        assert compare_anchors(extract_anchors("took 3 seconds")[0], rate) is not \
            Agreement.CONFLICT, key
        assert compare_anchors(extract_anchors("took 12500 ms")[0], rate) is not \
            Agreement.MATCH, key
    seconds = extract_anchors("latency_s=12.5")[-1]
    assert compare_anchors(extract_anchors("took 3 seconds")[0], seconds) is Agreement.CONFLICT
    assert compare_anchors(extract_anchors("took 12500 ms")[0], seconds) is Agreement.MATCH
