"""Stage 1: sentences, clauses, framing, and what does not end a sentence."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.judges.staged.segment import (
    claim_sentences,
    clause_spans,
    is_framing,
    segment,
    sentence_spans,
)


def texts(answer: str) -> list[str]:
    return [span.text for span in segment(answer)]


def test_sentences_split_at_full_stops_before_capitals() -> None:
    assert texts("CPU rose to 97%. Memory stayed flat.") == ["CPU rose to 97%.",
                                                             "Memory stayed flat."]


def test_glued_sentences_split() -> None:
    assert texts("He co-founded the band.Jimmie joined in 1990.") == [
        "He co-founded the band.", "Jimmie joined in 1990."]


def test_abbreviations_initials_decimals_versions_and_ips_do_not_end_sentences() -> None:
    answer = "Dr. J. Smith deployed v1.2.3 to 10.0.0.1 at 41.2% load, e.g. on Mon. Then it held."
    assert texts(answer) == ["Dr. J. Smith deployed v1.2.3 to 10.0.0.1 at 41.2% load, e.g. on Mon.",
                             "Then it held."]


def test_clauses_split_where_each_side_is_a_fact() -> None:
    assert texts("CPU on db-1 reached 97% and request rate dropped to 12 RPS.") == [
        "CPU on db-1 reached 97%", "request rate dropped to 12 RPS."]


def test_a_list_of_nouns_is_one_claim() -> None:
    assert texts("The team included Alice and Bob.") == ["The team included Alice and Bob."]


def test_conclusion_clause_keeps_its_marker() -> None:
    assert texts("The push landed at 10:14, so the root cause is the push.")[1].startswith("so ")


def test_framing_sentence_is_no_claim_but_leads_the_next() -> None:
    answer = "Here is what I found:\n- CPU rose to 97%."
    spans = segment(answer)
    assert [s.text for s in spans] == ["CPU rose to 97%."]
    assert answer[spans[0].lead_start:spans[0].end] == answer
    assert is_framing("Here is what I found:")
    assert not is_framing("CPU rose to 97% at 14:02:")


def test_inline_framing_before_a_colon() -> None:
    spans = segment("Here is what I found: CPU rose to 97%.")
    assert [s.text for s in spans] == ["CPU rose to 97%."]
    assert spans[0].lead_start == 0


def test_bullets_and_lines_are_sentences() -> None:
    assert len(sentence_spans("- a fact here\n* another fact\n1. third fact")) == 3


def test_clause_spans_without_joiner_is_the_sentence() -> None:
    assert clause_spans("CPU rose.", 0, 9) == [(0, 9)]


@given(st.text(alphabet="Ab1. \n,-:%", max_size=80))
def test_spans_point_into_the_answer(answer: str) -> None:
    for span in segment(answer):
        assert answer[span.start:span.end] == span.text
        assert 0 <= span.lead_start <= span.start < span.end <= len(answer)


def test_claim_sentences_count_sentences_not_clauses() -> None:
    one = "CPU on db-1 reached 97%, memory held at 60% and request rate dropped to 12 RPS."
    assert len(segment(one)) >= 2
    assert claim_sentences(one, segment(one)) == 1
    two = "CPU rose to 97%. Memory stayed flat."
    assert claim_sentences(two, segment(two)) == 2
    framed = "Here is what I found:\n- CPU rose to 97% and memory stayed flat."
    assert claim_sentences(framed, segment(framed)) == 1  # the framing line holds no claim
    assert claim_sentences("", segment("")) == 0


@given(st.lists(st.sampled_from(["CPU rose to 97%", "memory held at 60%", "the rate fell to 12 RPS",
                                 "db-1 restarted at 10:14"]), min_size=1, max_size=4),
       st.integers(min_value=1, max_value=4))
def test_claim_sentences_equal_the_sentences_written(clauses: list[str], sentences: int) -> None:
    # each sentence joins its clauses with "and": splitting clauses never adds a sentence
    body = " and ".join(clauses)
    answer = " ".join(body[0].upper() + body[1:] + "." for _ in range(sentences))
    assert claim_sentences(answer, segment(answer)) == sentences
