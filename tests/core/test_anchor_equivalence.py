"""The one-pass anchor reader agrees with a plain reading, and merged anchors with joined text.

``text.anchors`` finds clock times, numbers and identifiers in one pass over the time-blanked
text, and the integrity guard merges the anchors of single items instead of reading their joined
text. Both are shortcuts: these tests hold them to the straightforward definitions.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core import text
from gsar_otel.core.text import Anchors, ClockTime, Number, anchors, merge_anchors

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
]

_ALPHABET = st.sampled_from([*"0123456789:.,-+/%$€ aAzZéx_=;\n()", "ms", "GB", "٣"])
_TEXTS = st.lists(_ALPHABET, max_size=40).map("".join)


def _plain_numbers(value: str) -> list[Number]:
    found: list[Number] = []
    for token in text._TOKEN_SPLIT.split(text._TIME.sub(" ", value)):
        if not token or token[0] not in "0123456789+-$€£¥":
            continue
        token = token.rstrip(".:!?").lstrip("$€£¥")
        match = text._NUMBER.match(token)
        if not match or not text._UNIT.match(token[match.end():]):
            continue
        digits = match.group(0).replace(",", "").lstrip("+")
        try:
            number = Decimal(digits)
        except InvalidOperation:
            continue
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        found.append(Number(number, decimals, token.endswith("%"), token))
    return found


def _plain_times(value: str) -> list[ClockTime]:
    return [ClockTime(int(m.group(1)), int(m.group(2)), m.group(3), m.group(0))
            for m in text._TIME.finditer(value) if int(m.group(1)) < 24 and int(m.group(2)) < 60]


def _plain_identifiers(value: str) -> frozenset[str]:
    value = text._GLUED_SENTENCE.sub(". ", text._TIME.sub(" ", value))
    found = set()
    for match in text._IDENTIFIER.finditer(value):
        token = match.group(0).lower()
        number = text._NUMBER.match(token)
        if not (number and text._UNIT.match(token[number.end():])):
            found.add(token)
    return frozenset(found)


def _plain_anchors(value: str) -> Anchors:
    return Anchors(tuple(_plain_numbers(value)), tuple(_plain_times(value)),
                   _plain_identifiers(value))


def _fresh_anchors(value: str) -> Anchors:
    return text._find_anchors(value)


@settings(max_examples=300)
@given(_TEXTS)
def test_one_pass_anchors_equal_three_plain_passes(value: str) -> None:
    assert _fresh_anchors(value) == _plain_anchors(value)
    assert anchors(value) == _plain_anchors(value)


def test_one_pass_anchors_equal_plain_passes_on_tricky_texts() -> None:
    for value in TRICKY:
        assert _fresh_anchors(value) == _plain_anchors(value), value
        assert tuple(text.numbers(value)) == tuple(_plain_numbers(value)), value
        assert tuple(text.clock_times(value)) == tuple(_plain_times(value)), value
        assert text.identifiers(value) == _plain_identifiers(value), value


def test_tricky_texts_do_hold_every_anchor_kind() -> None:
    found = [_plain_anchors(value) for value in TRICKY]
    assert any(a.numbers for a in found)
    assert any(a.times for a in found)
    assert any(a.identifiers for a in found)


@settings(max_examples=300)
@given(st.lists(_TEXTS, max_size=4))
@example(["ends at 14", ":32 starts"])
@example(["host-", "7 x"])
@example(["1,", "000"])
@example(["in 2017.", "It was"])
def test_merged_anchors_equal_the_anchors_of_the_joined_text(parts: list[str]) -> None:
    merged = merge_anchors(_fresh_anchors(part) for part in parts)
    assert merged == _plain_anchors(" \n".join(parts))


@settings(max_examples=200)
@given(_TEXTS)
def test_remembered_stem_set_equals_fresh_content_stems(value: str) -> None:
    assert text.content_stem_set(value) == text._find_stems(value)
    assert text.content_stems(value) == set(text._find_stems(value))
