"""Properties of typed anchors over generated tokens of every kind: each is read as itself in
prose and in rows, a copied value matches, a changed one conflicts, kinds do not mix, the index
agrees with pairwise comparison, and the integrity guard never demotes a claim that copies
the values of the row it cites."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchor.times import date_numbers
from gsar_otel.core.anchors import (
    Agreement,
    Anchor,
    AnchorIndex,
    AnchorKind,
    compare_anchors,
    extract_anchors,
)
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.text import numbers
from tests.core.anchor_strategies import (
    ALL_KINDS,
    LOOSE_CROSS_KINDS,
    STRICT_CROSS_KINDS,
    Token,
)

SETTINGS = settings(max_examples=300, deadline=None)


def the_anchor(text: str, token: Token) -> Anchor:
    """The anchor of ``token``'s kind in ``text`` (there must be exactly one)."""
    found = [a for a in extract_anchors(text) if a.kind is token.kind]
    assert len(found) == 1, (text, extract_anchors(text))
    return found[0]


def row_of(token: Token) -> str:
    return f"[tool=metrics] {token.row} note=fine"


def row_anchor(token: Token) -> Anchor:
    return the_anchor(row_of(token), token)


@SETTINGS
@given(ALL_KINDS)
def test_a_token_is_read_as_its_kind_and_value(token: Token) -> None:
    found = extract_anchors(token.text)
    assert any(a.kind is token.kind and a.value == token.value for a in found), found
    if token.alone:
        assert len(found) == 1, found
        assert token.text[found[0].start:found[0].end] == found[0].text


@SETTINGS
@given(ALL_KINDS, st.sampled_from(["We saw {} there.", "Seen: {}.", "({})", "- {}\n",
                                   "It was {}, then more."]))
def test_a_token_keeps_its_kind_and_value_inside_a_sentence(token: Token, sentence: str) -> None:
    anchor = the_anchor(sentence.format(token.text), token)
    assert anchor.value == token.value
    assert sentence.format(token.text)[anchor.start:anchor.end] == anchor.text


@SETTINGS
@given(ALL_KINDS)
def test_a_token_keeps_its_kind_value_and_key_in_a_row(token: Token) -> None:
    anchor = row_anchor(token)
    assert (anchor.value, anchor.key) == (token.value, token.row_key)


@SETTINGS
@given(ALL_KINDS)
def test_a_claim_that_copies_a_row_value_matches_it(token: Token) -> None:
    claim = the_anchor(f"We saw {token.text} there.", token)
    assert compare_anchors(claim, row_anchor(token)) is Agreement.MATCH
    assert AnchorIndex(extract_anchors(row_of(token))).supports(claim)


@SETTINGS
@given(ALL_KINDS)
def test_a_claim_with_another_value_of_the_same_kind_conflicts(token: Token) -> None:
    claim = the_anchor(f"We saw {token.changed} there.", token)
    assert compare_anchors(claim, row_anchor(token)) is Agreement.CONFLICT


@SETTINGS
@given(ALL_KINDS, ALL_KINDS)
def test_anchors_of_different_kinds_are_unrelated(first: Token, second: Token) -> None:
    pair = frozenset({first.kind, second.kind})
    if first.kind is second.kind or pair in STRICT_CROSS_KINDS:
        return
    claim, evidence = the_anchor(first.text, first), the_anchor(second.text, second)
    agreement = compare_anchors(claim, evidence)
    if pair in LOOSE_CROSS_KINDS:
        assert agreement is not Agreement.CONFLICT
    elif claim.kind is AnchorKind.NUMBER and evidence.kind in _DATED:
        # a date's year and day stand for the numbers a claim may write them as ("in 2019",
        # "on the 7th"): those match, any other number is unrelated, as is a measure ("1 GB"
        # is no day)
        held = {Decimal(n) for n in date_numbers(evidence)}
        bare = not claim.unit
        assert agreement is (Agreement.MATCH if bare and Decimal(str(claim.value)) in held
                             else Agreement.UNRELATED), (claim, evidence)
    else:
        assert agreement is Agreement.UNRELATED, (claim, evidence)


_DATED = frozenset({AnchorKind.DATE, AnchorKind.TIMESTAMP})


def test_a_dates_year_and_day_stand_for_numbers_and_no_others() -> None:
    date = extract_anchors("2000-01-07")[0]
    for written, expected in (("7", Agreement.MATCH), ("2000", Agreement.MATCH),
                              ("1", Agreement.UNRELATED), ("8", Agreement.UNRELATED)):
        assert compare_anchors(extract_anchors(written)[0], date) is expected, written
        assert compare_anchors(date, extract_anchors(written)[0]) is Agreement.UNRELATED


_QUALIFIED = st.sampled_from(["", "about ", "over ", "under ", "nearly ", "at least ",
                              "at most ", "~"])


@SETTINGS
@given(st.lists(ALL_KINDS, min_size=1, max_size=6), ALL_KINDS, _QUALIFIED, st.booleans())
def test_the_index_agrees_with_comparing_every_pair(
        evidence: list[Token], claim: Token, qualifier: str, changed: bool) -> None:
    evidence_anchors = [a for token in evidence
                        for a in extract_anchors(f"{token.row} {token.text}")]
    written = claim.changed if changed else claim.text
    for anchor in extract_anchors(f"seen {qualifier}{written}"):
        pairwise = any(compare_anchors(anchor, e) is Agreement.MATCH for e in evidence_anchors)
        assert AnchorIndex(evidence_anchors).supports(anchor) is pairwise


@SETTINGS
@given(st.lists(ALL_KINDS, min_size=1, max_size=4))
def test_the_guard_never_demotes_a_claim_that_copies_its_cited_row(tokens: list[Token]) -> None:
    row = " ".join(f"{token.row_key}{i}={token.row_value}" for i, token in enumerate(tokens))
    # "1h and 1 ms" is one duration of 3600.001 s by design (core/anchor/units.py: parts in
    # descending units joined by nothing, a comma or "and"), which no row states: the values are
    # listed with a separator that never joins, so each claim value is one row value.
    claim = "We saw " + " and also ".join(token.text for token in tokens) + " there"
    output = JudgeOutput(grounding_score=1.0, is_grounded=True,
                         grounded_claims=[Claim(claim, "tool_match", ["E1"])])
    report = check_judge_output(output, synthesis=claim + ".", evidence=EvidenceSet.coerce([row]))
    assert report.adjustments == ()


_FRAGMENTS = st.sampled_from([
    *"0123456789 :.,-+/%=~\"`()[]\nxXpPvT", "ms", "GB", "UTC", "Z", "May", "March", "HTTP",
    "port", "status", "about", "over", "percent", "seconds", "edge-lb-", "cfg-", "::", "am",
    "٣", "é", "1990s", "2024-05-01", "10:15", "10.0.0.", "v2.", "5xx", "p99", "host=",
])
_ANY_TEXT = st.one_of(st.text(max_size=60), st.lists(_FRAGMENTS, max_size=30).map("".join))


@SETTINGS
@given(_ANY_TEXT)
def test_any_text_reads_as_ordered_anchors_that_match_themselves(value: str) -> None:
    found = extract_anchors(value)
    index = AnchorIndex(found)
    end = 0
    for anchor in found:
        assert end <= anchor.start < anchor.end <= len(value)
        assert value[anchor.start:anchor.end] == anchor.text
        end = anchor.end
        assert compare_anchors(anchor, anchor) is Agreement.MATCH, anchor
        assert index.supports(anchor), anchor
        for other in found:
            compare_anchors(anchor, other)


EXAMPLE_CLAIM = "The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC."
EXAMPLE_EVIDENCE = EvidenceSet.coerce([
    "host=edge-lb-3 http_5xx_rate=41.2%",
    "[tool=query_metrics row=10:15:32] host=edge-lb-3 window=1m",
])


def test_the_5xx_example_is_grounded_in_the_rows_it_cites() -> None:
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim(EXAMPLE_CLAIM.rstrip("."), "tool_match", ["E1", "E2"])])
    report = check_judge_output(output, synthesis=EXAMPLE_CLAIM, evidence=EXAMPLE_EVIDENCE)
    assert report.adjustments == ()
    assert report.output.grounded_claims == output.grounded_claims


def test_the_5xx_example_reads_no_bare_number_five() -> None:
    kinds = [(a.kind, a.text) for a in extract_anchors(EXAMPLE_CLAIM)]
    assert kinds == [(AnchorKind.HTTP_CLASS, "5xx"), (AnchorKind.HOST, "edge-lb-3"),
                     (AnchorKind.PERCENT, "41.2%"), (AnchorKind.CLOCK, "10:15:32 UTC")]
    assert [n.raw for n in numbers(EXAMPLE_CLAIM)] == ["41.2%"]


def test_the_5xx_example_still_needs_the_row_with_the_time() -> None:
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim(EXAMPLE_CLAIM.rstrip("."), "tool_match", ["E1"])])
    report = check_judge_output(output, synthesis=EXAMPLE_CLAIM, evidence=EXAMPLE_EVIDENCE)
    (adjustment,) = report.adjustments
    assert adjustment.kind == "unsupported_number"
    assert adjustment.reason.startswith("10:15:32 UTC appear(s) in none of the cited evidence")


_BOUNDS = st.sampled_from(["over", "under", "at least", "at most", "more than", "less than",
                           "above", "below"])
_BOUNDED_UNITS = st.sampled_from(["ms", "seconds", "s", "minutes", "hours", "%", " percent"])


@SETTINGS
@given(_BOUNDS, st.integers(min_value=1, max_value=500), _BOUNDED_UNITS,
       st.integers(min_value=0, max_value=100_000))
def test_a_bound_on_a_time_or_share_is_never_met_by_a_bare_number(
        bound: str, limit: int, unit: str, bare: int) -> None:
    """"took over 30 seconds" beside a log line's bare byte count (1432), "above 5%" beside a
    count of 248: a bare number is of no known unit, so it meets no bound on a time or a
    share, whichever side of the bound it lies."""
    claims = [a for a in extract_anchors(f"it took {bound} {limit}{unit} today")
              if a.kind in (AnchorKind.DURATION, AnchorKind.PERCENT)]
    assert len(claims) == 1, claims
    evidence = extract_anchors(f"sent {bare} to them")
    assert [a.kind for a in evidence] == [AnchorKind.NUMBER]
    assert compare_anchors(claims[0], evidence[0]) is not Agreement.MATCH
    assert not AnchorIndex(evidence).supports(claims[0])
    # the same bound against the same number with the claim's unit is decided by its value
    # (of the claim's kind: a four-digit count of seconds written "1730s" reads as a decade)
    with_unit = [a for a in extract_anchors(f"sent {bare}{unit} to them")
                 if a.kind is claims[0].kind]
    meets = {"over": bare > limit, "more than": bare > limit, "above": bare > limit,
             "at least": bare >= limit, "under": bare < limit, "less than": bare < limit,
             "below": bare < limit, "at most": bare <= limit}[bound]
    if meets and with_unit and abs(bare - limit) > 1:  # clear of the written rounding
        assert compare_anchors(claims[0], with_unit[-1]) is Agreement.MATCH


def test_a_number_as_written_may_still_be_its_time_or_share() -> None:
    """Only a bound is refused: "took 30 seconds" beside a bare 30 stays a match."""
    for claim, bare in (("took 30 seconds", "value 30 seen"), ("a rate of 12%", "value 12 seen")):
        anchor = next(a for a in extract_anchors(claim) if a.kind is not AnchorKind.NUMBER)
        assert compare_anchors(anchor, extract_anchors(bare)[0]) is Agreement.MATCH, claim
