"""One reader of anchors: the offline judge's view (``text.anchors``) is read from the typed
anchors, remembered results equal fresh ones, and anchors of joined text are the anchors of
its parts.

The integrity guard indexes the anchors of single items instead of reading their joined text,
and the judge merges the anchors of items: both shortcuts rest on no anchor spanning a line
break, which these tests hold to the straightforward definitions.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core import anchors as typed
from gsar_otel.core import text
from gsar_otel.core.anchor.scan import extract_anchors as read_fresh
from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors, with_quoted_contents
from gsar_otel.core.text import anchors, legacy_anchors, merge_anchors

K = AnchorKind
TRICKY = [
    "",
    "no digits at all, just words.",
    "[tool=query_metrics row=14:32:01] host=cache-7 mem_pct=52.0",
    "[signal] alert_id=A-7634 fired_at=14:32:00 metric=mem_pct severity=high",
    "memory on host cache-7 reached 52.0% at 14:32.",
    "It grossed $181,674,817 in 2017.It was 3.45-mile long, 6/6 and 21-year-old.",
    "25:61 is no time, 9:05:07.25 is; 1:2:3 and 12:345 are neither.",
    "ab1.Cd2 x.Yz 10:00.Next A-9912 T-218 v1.2.3 500ms 2GB -3.5 +4 1,000,0000",
    "abc.1é ab٣ ٣٤ 12:3٤ ١٢:٣٤ é1a",
    "only other digits: at ١٢:٣٤ and ٣٤",
    "times glued to ids: A-14:32-7 x14:32y v2.14:32.5",
    "trailing: 12, 13. 14! 15? 16: (17) [18] {19} <20> |21| `22` 'x9' \"y8\"",
    'The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC; p99 was 250 ms on v2.3.1.',
    'error "timeout after 30s on port 5432" from 10.0.0.12:8080 at 2024-05-01T10:15:32Z',
    "May 1, 2024 and 1 May 2024 and 05/01/2024 and HTTP 503 and 3m20s",
]

_ALPHABET = st.sampled_from([*"0123456789:.,-+/%$€ aAzZéx_=;\n()\"`pvT", "ms", "GB", "٣",
                             "UTC", "May", "HTTP", "xx", "percent"])
_TEXTS = st.lists(_ALPHABET, max_size=40).map("".join)
_ONE_NUMBER = {K.NUMBER, K.PERCENT, K.HTTP_STATUS}


def _one_reading(value: str) -> text.Anchors:
    """The judge's view straight from a fresh typed reading, with no cache or shortcut."""
    return legacy_anchors(with_quoted_contents(read_fresh(value)))


@settings(max_examples=300)
@given(_TEXTS)
def test_the_judges_view_is_read_from_the_typed_anchors(value: str) -> None:
    assert text._find_anchors(value) == _one_reading(value)
    assert anchors(value) == _one_reading(value)
    assert extract_anchors(value) == read_fresh(value)


def _numbers_read(value: str) -> int:
    """How many numbers the judge's view must hold: one per plain number, percentage, HTTP
    status, port named as such (not the ``:8080`` of an address) and duration in one unit, and
    the numbers of a date written with words or slashes. Nothing else (no ``5xx``, ``p99``,
    ``v2.3.1``, ``edge-lb-3`` or ``10.0.0.12``) gives one."""
    count = 0
    for anchor in with_quoted_contents(read_fresh(value)):
        if anchor.kind in _ONE_NUMBER or (
                anchor.kind is K.PORT and not anchor.text.startswith(":")) or (
                anchor.kind is K.DURATION and sum(ch.isalpha() for ch in anchor.text) and
                len(re.findall(r"\d+(?:\.\d+)?", anchor.text.replace(",", ""))) == 1):
            count += 1
        elif anchor.kind is K.DATE and anchor.text[4:5] != "-":
            count += len(re.findall(r"\d+", anchor.text))
    return count


def _check_no_number_comes_from_a_named_anchor(value: str) -> None:
    assert len(text.numbers(value)) == _numbers_read(value), (value, text.numbers(value))


@settings(max_examples=300)
@given(_TEXTS)
def test_every_number_of_the_judges_view_is_a_typed_number(value: str) -> None:
    _check_no_number_comes_from_a_named_anchor(value)


def test_tricky_texts_read_the_same_through_every_path() -> None:
    for value in TRICKY:
        assert anchors(value) == _one_reading(value), value
        assert tuple(text.numbers(value)) == _one_reading(value).numbers, value
        assert tuple(text.clock_times(value)) == _one_reading(value).times, value
        assert text.identifiers(value) == _one_reading(value).identifiers, value
        _check_no_number_comes_from_a_named_anchor(value)


def test_tricky_texts_do_hold_every_anchor_kind_of_the_judges_view() -> None:
    found = [_one_reading(value) for value in TRICKY]
    assert any(a.numbers for a in found)
    assert any(a.times for a in found)
    assert any(a.identifiers for a in found)


def test_the_judges_view_of_the_5xx_example() -> None:
    view = anchors(TRICKY[12])
    assert [n.raw for n in view.numbers] == ["41.2%", "250"]
    assert [t.raw for t in view.times] == ["10:15:32"]
    assert view.identifiers == {"5xx", "edge-lb-3", "p99", "v2.3.1"}


def _shifted(found: tuple[Anchor, ...], by: int) -> list[Anchor]:
    return [Anchor(a.kind, a.text, a.value, a.unit, a.start + by, a.end + by, a.key, a.qualifier)
            for a in found]


@settings(max_examples=300)
@given(st.lists(_TEXTS, max_size=4))
@example(["ends at 14", ":32 starts"])
@example(["host-", "7 x"])
@example(["1,", "000"])
@example(["in 2017.", "It was"])
@example(["cpu_pct", "=97.2"])
@example(['say "a', 'b" now'])
@example(["97", "%"])
@example(["May 1,", "2024"])
@example(["0 ms=", "0"])  # a unit word before "=" ends its line: no pair spans lines
def test_anchors_of_joined_text_are_the_anchors_of_its_parts(parts: list[str]) -> None:
    merged = merge_anchors(_one_reading(part) for part in parts)
    assert merged == _one_reading(" \n".join(parts))
    expected: list[Anchor] = []
    offset = 0
    for part in parts:
        expected += _shifted(read_fresh(part), offset)
        offset += len(part) + 2
    assert read_fresh(" \n".join(parts)) == tuple(expected)


def test_remembered_typed_anchors_are_the_fresh_ones_and_long_texts_are_not_kept() -> None:
    short, long = TRICKY[12], TRICKY[12] * 200
    assert extract_anchors(short) is extract_anchors(short)
    assert extract_anchors(long) == read_fresh(long)
    assert len(long) > typed.CACHE_CHARS


@settings(max_examples=200)
@given(_TEXTS)
def test_remembered_stem_set_equals_fresh_content_stems(value: str) -> None:
    assert text.content_stem_set(value) == text._find_stems(value)
    assert text.content_stems(value) == set(text._find_stems(value))
