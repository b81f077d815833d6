"""Typed anchors by example: what each token is read as, its key and qualifier, and how a
claim's anchor compares with evidence."""

from __future__ import annotations

import itertools

import pytest

from gsar_otel.core.anchors import (
    Agreement,
    Anchor,
    AnchorIndex,
    AnchorKind,
    compare_anchors,
    extract_anchors,
    inner_anchors,
    timestamp_parts,
)

K = AnchorKind


def only(text: str) -> Anchor:
    found = extract_anchors(text)
    assert len(found) == 1, found
    return found[0]


def kinds_and_values(text: str) -> list[tuple[AnchorKind, object]]:
    return [(a.kind, a.value) for a in extract_anchors(text)]


@pytest.mark.parametrize(("text", "kind", "value", "unit"), [
    ("42", K.NUMBER, 42.0, None),
    ("-7", K.NUMBER, -7.0, None),
    ("3.5 GB", K.NUMBER, 3.5, "gb"),
    ("1,024 req/s", K.NUMBER, 1024.0, "req/s"),
    ("12 RPS", K.NUMBER, 12.0, "req/s"),
    ("12.4 per second", K.NUMBER, 12.4, "/s"),
    ("3.45-mile", K.NUMBER, 3.45, "mile"),
    ("$160", K.NUMBER, 160.0, "$"),
    ("41.2%", K.PERCENT, 41.2, "%"),
    ("97 %", K.PERCENT, 97.0, "%"),
    ("41.2 percent", K.PERCENT, 41.2, "%"),
    ("10:15", K.CLOCK, 36900.0, None),
    ("10:15:32", K.CLOCK, 36932.0, None),
    ("10:15:32.120", K.CLOCK, 36932.12, None),
    ("10:15:32 UTC", K.CLOCK, 36932.0, "UTC"),
    ("10:15:32Z", K.CLOCK, 36932.0, "Z"),
    ("10:15:32+02:00", K.CLOCK, 36932.0, "+02:00"),
    ("10:15 pm", K.CLOCK, 80100.0, None),
    ("2024-05-01T10:15:32Z", K.TIMESTAMP, "2024-05-01T10:15:32Z", "Z"),
    ("2024-05-01 10:15:32 UTC", K.TIMESTAMP, "2024-05-01T10:15:32Z", "UTC"),
    ("2024-05-01T01:15:32+02:00", K.TIMESTAMP, "2024-04-30T23:15:32Z", "+02:00"),
    ("2024-05-01T10:15", K.TIMESTAMP, "2024-05-01T10:15", None),
    ("2024-05-01", K.DATE, "2024-05-01", None),
    ("May 1, 2024", K.DATE, "2024-05-01", None),
    ("1 May 2024", K.DATE, "2024-05-01", None),
    ("05/01/2024", K.DATE, "2024-05-01", None),
    ("March 5", K.DATE, "--03-05", None),
    ("3m20s", K.DURATION, 200.0, None),
    ("250 ms", K.DURATION, 0.25, "ms"),
    ("2h", K.DURATION, 7200.0, "h"),
    ("1.5 seconds", K.DURATION, 1.5, "seconds"),
    ("30s", K.DURATION, 30.0, "s"),
    ("5-minute", K.DURATION, 300.0, "minute"),
    ("v2.3.1", K.VERSION, (2, 3, 1, ""), None),
    ("2.3.1", K.VERSION, (2, 3, 1, ""), None),
    ("1.28.0-rc1", K.VERSION, (1, 28, 0, "rc1"), None),
    ("10.0.0.12", K.IPV4, "10.0.0.12", None),
    ("2001:db8::1", K.IPV6, "2001:db8::1", None),
    ("port 5432", K.PORT, "5432", None),
    ("HTTP 503", K.HTTP_STATUS, "503", None),
    ("5xx", K.HTTP_CLASS, "5xx", None),
    ("4XX", K.HTTP_CLASS, "4xx", None),
    ("p99", K.PERCENTILE, "p99", None),
    ("P99.9", K.PERCENTILE, "p99.9", None),
    ("99th percentile", K.PERCENTILE, "p99", None),
    ("cfg-7781", K.IDENTIFIER, "cfg-7781", None),
    ("A-5520", K.IDENTIFIER, "a-5520", None),
    ("INC-123", K.IDENTIFIER, "inc-123", None),
    ("0b3f2c1a-1234-4abc-8def-0123456789ab", K.IDENTIFIER,
     "0b3f2c1a-1234-4abc-8def-0123456789ab", None),
    ("a1b2c3d", K.IDENTIFIER, "a1b2c3d", None),
    ("edge-lb-3", K.HOST, "edge-lb-3", None),
    ("db-prod-1.example.com", K.HOST, "db-prod-1.example.com", None),
    ("api.internal", K.HOST, "api.internal", None),
    ('"connection refused"', K.QUOTED, "connection refused", None),
    ("`kubectl get pods`", K.QUOTED, "kubectl get pods", None),
])
def test_each_kind_is_read_with_its_normalised_value(text, kind, value, unit):
    anchor = only(text)
    assert (anchor.kind, anchor.value, anchor.unit) == (kind, value, unit)
    # "port" and "HTTP" give the number its kind but are not part of it.
    written = text.split()[-1] if kind in (K.PORT, K.HTTP_STATUS) else text
    assert (anchor.text, anchor.start, anchor.end) == (written, len(text) - len(written),
                                                       len(text))


@pytest.mark.parametrize("token", ["5xx", "p99", "v2.3.1", "edge-lb-3", "10.0.0.12:8080",
                                   "cfg-7781", "http_5xx_rate", "latency_p99_ms", "1.28.0-rc1"])
def test_a_token_that_holds_digits_is_not_read_as_a_bare_number(token):
    found = extract_anchors(f"saw {token} today")
    assert found
    assert all(a.kind is not K.NUMBER for a in found), found


def test_an_address_with_a_port_is_an_address_and_a_port():
    assert kinds_and_values("10.0.0.12:8080 and [::1]:443 and db:5432") == [
        (K.IPV4, "10.0.0.12"), (K.PORT, "8080"), (K.IPV6, "::1"), (K.PORT, "443"),
        (K.HOST, "db"), (K.PORT, "5432")]


def test_a_number_is_an_http_status_only_next_to_http_words():
    assert kinds_and_values("HTTP 503, status 404, 500 errors, error 502") == [
        (K.HTTP_STATUS, "503"), (K.HTTP_STATUS, "404"), (K.HTTP_STATUS, "500"),
        (K.HTTP_STATUS, "502")]
    assert kinds_and_values("processed 503 invoices") == [(K.NUMBER, 503.0)]
    assert kinds_and_values("status=503 exit_code=137") == [(K.HTTP_STATUS, "503"),
                                                             (K.NUMBER, 137.0)]


def test_values_carry_their_key_in_rows_and_json_but_not_across_lines():
    row = extract_anchors("[tool=query_metrics row=14:02:01] host=edge-lb-3 cpu_pct=97.2")
    assert [(a.kind, a.key) for a in row] == [(K.CLOCK, "row"), (K.HOST, "host"),
                                              (K.NUMBER, "cpu_pct")]
    json = extract_anchors('{"cpu_pct":97.2, "msg": "connection refused", "latency_ms": 250}')
    assert [(a.kind, a.key) for a in json] == [(K.NUMBER, "cpu_pct"), (K.QUOTED, "msg"),
                                               (K.NUMBER, "latency_ms")]
    assert only("Released: May 1, 2024").key == "released"
    assert only("cpu_pct\n=97.2").key is None


def test_a_host_before_a_colon_is_a_host_not_a_key():
    found = extract_anchors("db-prod-1: 97%")
    assert [(a.kind, a.key) for a in found] == [(K.HOST, None), (K.PERCENT, None)]


def test_a_key_names_a_host_or_an_id_even_without_digits():
    assert [(a.kind, a.value) for a in extract_anchors("host=api request_id=abcxyz")] == [
        (K.HOST, "api"), (K.IDENTIFIER, "abcxyz")]


def test_a_key_holding_a_class_or_percentile_gives_them_as_anchors():
    found = extract_anchors("host=edge-lb-3 http_5xx_rate=41.2% latency_p99_ms=250")
    assert [(a.kind, a.text, a.key) for a in found] == [
        (K.HOST, "edge-lb-3", "host"), (K.HTTP_CLASS, "5xx", None),
        (K.PERCENT, "41.2%", "http_5xx_rate"), (K.PERCENTILE, "p99", None),
        (K.NUMBER, "250", "latency_p99_ms")]


@pytest.mark.parametrize(("text", "qualifier"), [
    ("about 40%", "about"), ("~40%", "about"), ("nearly 40%", "nearly"), ("over 40%", "over"),
    ("more than 40%", "over"), ("> 40%", "over"), ("less than 5 ms", "under"),
    ("under 5 minutes", "under"), ("over 5 minutes", "over"),
    ("at least 3 GB", "at_least"), ("at most 12 RPS", "at_most"),
    ("up to 12", "at_most"), ("40%", None),
])
def test_qualifiers_before_a_number_are_kept(text, qualifier):
    assert extract_anchors(text)[-1].qualifier == qualifier


def test_names_are_capitalised_runs_not_at_a_sentence_start():
    found = extract_anchors("The report from Acme Corp came in. Acme Corp agreed.")
    assert [(a.kind, a.value) for a in found] == [(K.NAME, "acme corp")]


def test_glued_sentences_ranges_and_fractions_split_into_their_numbers():
    assert kinds_and_values("in 2017.It was 6/6 and 10-20") == [
        (K.NUMBER, 2017.0), (K.NUMBER, 6.0), (K.NUMBER, 6.0), (K.NUMBER, 10.0),
        (K.NUMBER, 20.0)]
    assert kinds_and_values("from 10:15-10:20") == [(K.CLOCK, 36900.0), (K.CLOCK, 37200.0)]


def test_anchors_are_left_to_right_and_do_not_overlap():
    text = ('At 2024-05-01 10:15:32 UTC edge-lb-3 (10.0.0.12:8080) served "GET /a 503" '
            "with p99 250 ms, 5xx rate 41.2% and v2.3.1; May 1, 2024; 3m20s.")
    found = extract_anchors(text)
    assert len(found) >= 10
    for before, after in itertools.pairwise(found):
        assert before.end <= after.start
    for anchor in found:
        assert text[anchor.start:anchor.end] == anchor.text


def test_the_anchors_inside_a_quote_are_at_their_place_in_the_text():
    text = 'error "timeout after 30s on port 5432"'
    (quoted,) = extract_anchors(text)
    inner = inner_anchors(quoted)
    assert [(a.kind, a.text) for a in inner] == [(K.DURATION, "30s"), (K.PORT, "5432")]
    assert all(text[a.start:a.end] == a.text for a in inner)


def test_a_timestamp_splits_into_its_date_and_time():
    parts = timestamp_parts(only("2024-05-01 10:15:32 UTC"))
    assert parts is not None
    day, clock = parts
    assert (day.kind, day.value, clock.kind, clock.value, clock.unit) == (
        K.DATE, "2024-05-01", K.CLOCK, 36932.0, "UTC")


@pytest.mark.parametrize(("claim", "evidence", "expected"), [
    ("97%", "cpu_pct=97.2", Agreement.MATCH),
    ("97%", "cpu_pct=96.6", Agreement.MATCH),
    ("97%", "cpu_pct=95.0", Agreement.CONFLICT),
    ("41%", "mem_pct=41.2", Agreement.MATCH),
    ("41.2%", "rate=41.5%", Agreement.CONFLICT),
    ("41.2%", "error_rate=0.412", Agreement.MATCH),
    ("2.1%", "error_ratio=0.021", Agreement.MATCH),
    ("97", "cpu_pct=97.2", Agreement.MATCH),
    ("10:15:32 UTC", "41.2%", Agreement.UNRELATED),
    ("12 RPS", "rps=12.4", Agreement.MATCH),
    ("3.5 GB", "3.5 ms", Agreement.UNRELATED),
    ("3.5 GB", "3.6 GB", Agreement.CONFLICT),
    ("1,200", "invoices=1200", Agreement.MATCH),
    ("about 40%", "cpu_pct=43", Agreement.MATCH),
    ("about 40%", "cpu_pct=45", Agreement.CONFLICT),
    ("nearly 100%", "cpu_pct=97.2", Agreement.MATCH),
    ("over 40%", "cpu_pct=41.2", Agreement.MATCH),
    ("over 40%", "cpu_pct=39", Agreement.CONFLICT),
    ("under 5 minutes", "took 250s", Agreement.MATCH),
    ("rose over 5 minutes", "window=5m", Agreement.MATCH),
    ("more than 5 minutes", "window=4m", Agreement.CONFLICT),
    ("over 600", "more than 600 firefighters", Agreement.MATCH),
    ("over £6", "upwards of £ 6 million", Agreement.MATCH),
    ("under 40%", "cpu_pct=40.4", Agreement.MATCH),
    ("under 40%", "cpu_pct=41", Agreement.CONFLICT),
    ("3D", "in 3d", Agreement.MATCH),
    ("250 ms", "latency_ms=250", Agreement.MATCH),
    ("0.25 s", "latency_ms=250", Agreement.MATCH),
    ("3m20s", "took 200s", Agreement.MATCH),
    ("2h", "7300 s", Agreement.MATCH),
    ("1.5 seconds", "1.6 seconds", Agreement.CONFLICT),
    ("10:15", "2024-05-01T10:15:32Z", Agreement.MATCH),
    ("10:15:32", "10:15", Agreement.MATCH),
    ("10:15:33", "10:15:32", Agreement.CONFLICT),
    ("12:15 CEST", "10:15Z", Agreement.MATCH),
    ("May 1, 2024", "2024-05-01T23:00:00Z", Agreement.MATCH),
    ("May 2, 2024", "2024-05-01", Agreement.CONFLICT),
    ("March 5", "2023-03-05", Agreement.MATCH),
    ("2024-05-01 10:15:32 UTC", "ts=2024-05-01T12:15:32+02:00", Agreement.MATCH),
    ("v2.3.1", "version=2.3.1", Agreement.MATCH),
    ("v2.3", "2.3.0", Agreement.MATCH),
    ("v2.3.1", "2.3.2", Agreement.CONFLICT),
    ("5xx", "status=503", Agreement.MATCH),
    ("5xx", "status=404", Agreement.CONFLICT),
    ("HTTP 503", "status=503", Agreement.MATCH),
    ("HTTP 503", "status=502", Agreement.CONFLICT),
    ("HTTP 503", "5xx", Agreement.MATCH),
    ("503", "status=503", Agreement.MATCH),
    ("p99", "latency_p99_ms=250", Agreement.MATCH),
    ("p99", "p50", Agreement.CONFLICT),
    ("edge-lb-3", "host=EDGE-LB-3", Agreement.MATCH),
    ("edge-lb-3", "host=edge-lb-4", Agreement.CONFLICT),
    ("cfg-7781", "change=CFG-7781", Agreement.MATCH),
    ("10.0.0.12", "addr=10.0.0.12:8080", Agreement.MATCH),
    ("port 8080", "10.0.0.12:8080", Agreement.MATCH),
    ("port 8080", "port=8081", Agreement.CONFLICT),
])
def test_a_claim_anchor_compares_with_evidence(claim, evidence, expected):
    written = only(claim)
    found = [compare_anchors(written, e) for e in extract_anchors(evidence)]
    agreement = (Agreement.MATCH if Agreement.MATCH in found else
                 Agreement.CONFLICT if Agreement.CONFLICT in found else Agreement.UNRELATED)
    assert agreement is expected
    assert AnchorIndex(extract_anchors(evidence)).supports(written) is (
        expected is Agreement.MATCH)


def test_a_time_never_contradicts_a_percentage_or_a_number():
    clock = only("10:15")
    for other in ("41.2%", "10.15", "1015", "615 s", "v10.15.0", "p10"):
        assert compare_anchors(clock, only(other)) is Agreement.UNRELATED, other
        assert compare_anchors(only(other), clock) is Agreement.UNRELATED, other


def test_a_bare_number_matches_a_percentage_of_that_value_but_never_conflicts_with_one():
    assert compare_anchors(only("97"), only("97%")) is Agreement.MATCH
    assert compare_anchors(only("3"), only("97%")) is Agreement.UNRELATED


def test_the_index_returns_the_anchor_that_matches():
    evidence = extract_anchors("host=db-1 cpu_pct=97.2 rps=12.4 at 14:02:01")
    index = AnchorIndex(evidence)
    assert index.find(only("12 RPS")) == evidence[2]
    assert index.find(only("14:02")) == evidence[3]
    assert index.find(only("4500 RPS")) is None


@pytest.mark.parametrize("magnitude", ["thousand", "million", "billion", "trillion", "Million"])
@pytest.mark.parametrize("currency", ["", "£", "$", "€"])
def test_a_magnitude_word_glued_to_a_number_is_that_number_not_an_identifier(
        magnitude: str, currency: str) -> None:
    text = f"United will field offers of {currency}10{magnitude} from the club."
    found = [(a.kind, a.value) for a in extract_anchors(text)]
    assert found == [(AnchorKind.NUMBER, 10.0)], found
    # and a word that only begins with one is not read as a number
    assert [a.kind for a in extract_anchors(f"10{magnitude}aires")] != [AnchorKind.NUMBER]
