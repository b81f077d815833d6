"""The shared text helpers: numbers, identifiers, stems and words."""

from __future__ import annotations

import pytest

from gsar_otel.core.text import (
    anchors,
    content_stems,
    number_supported,
    numbers,
    split_sentences,
    stem,
    words,
)


def raw_numbers(text: str) -> list[str]:
    return [number.raw for number in numbers(text)]


def test_a_number_glued_to_the_next_sentence_is_still_read() -> None:
    assert raw_numbers("released on 17 March 2017.It was announced") == ["17", "2017"]
    assert anchors("in 2017.It was").identifiers == frozenset()


def test_a_number_with_a_hyphenated_unit_is_a_number_not_an_identifier() -> None:
    assert raw_numbers("a 3.45-mile freeway and a 21-year-old forward") == ["3.45-mile",
                                                                            "21-year-old"]
    assert anchors("a 21-year-old forward").identifiers == frozenset()


def test_a_fraction_is_two_numbers() -> None:
    assert raw_numbers("ready=6/6") == ["6", "6"]


def test_identifiers_and_plain_units_keep_their_meaning() -> None:
    found = anchors("host db-prod-1 alert A-9912 push cfg-4471 took 41.3 s at 97%")
    assert found.identifiers == {"db-prod-1", "a-9912", "cfg-4471"}
    assert [n.raw for n in found.numbers] == ["41.3", "97%"]


def test_a_rounded_percentage_is_supported_by_the_exact_value_or_a_ratio() -> None:
    written = numbers("97%")[0]
    assert number_supported(written, anchors("cpu_pct=97.2"))
    assert number_supported(numbers("2.1%")[0], anchors("error_ratio=0.021"))
    assert not number_supported(written, anchors("cpu_pct=79.2"))


@pytest.mark.parametrize(("left", "right"), [
    ("fire", "fired"), ("drop", "dropped"), ("query", "queries"),
    ("utilisation", "utilization"), ("child", "children"), ("give", "gave"), ("rate", "rates"),
])
def test_inflections_meet_at_one_stem(left: str, right: str) -> None:
    assert stem(left) == stem(right)


def test_words_keep_accented_letters_whole() -> None:
    assert words("Hygiène de l'assassin, Café") == ["hygiène", "de", "l", "assassin", "café"]
    assert "hygièn" in content_stems("Hygiène")


def test_an_abbreviation_or_an_initial_does_not_end_a_sentence() -> None:
    assert split_sentences("Land has a son Kai (b. 2001). The diorama is by L. M. Rendall. "
                           "It debuted at No. 1.") == [
        "Land has a son Kai (b. 2001).", "The diorama is by L. M. Rendall.", "It debuted at No. 1."]
