"""The realistic incident cases: deterministic, every kind present, labels true to the evidence.

The checks read the evidence with their own regular expressions and arithmetic, not with the
generator's code: a grounded sentence's numbers and times are found in the items it is about
(equal, rounded at the precision written, in another unit or another time zone), and a false
sentence's value is shown not to be that field's value there.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cache

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.worlds.incidents import (
    FAITHFUL_KINDS,
    FALSE_LABEL,
    KINDS,
    UNFAITHFUL_KINDS,
    IncidentCase,
    LabelledClaim,
    generate,
    make_case,
)
from gsar_otel.core.evidence import EvidenceSet

ZONES = {"UTC": 0, "CET": 60, "EDT": -240, "CDT": -300, "PDT": -420, "JST": 540, "IST": 330}
CLOCK = re.compile(r"\b(\d{2}):(\d{2})(?::(\d{2}))? ([A-Z]{3})\b")
ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
NAME = re.compile(r"(?<![\w.-])(?:[A-Za-z][\w]*(?:[-.][\w]+)*-[\w]+(?:[-.][\w]+)*"
                  r"|[a-z]+\.[a-z]+)(?![\w-])")
UNKNOWN_NAMES = {"unknown_service", "unknown_host", "unknown_actor", "wrong_alert_id",
                 "wrong_alert_name"}
STATUS_OF = {"succeeded": "succeeded", "completed successfully": "succeeded", "failed": "failed",
             "did not complete": "failed", "was rolled back": "rolled_back",
             "got reverted": "rolled_back"}
STATE_OF = {"firing": "firing", "still firing": "firing", "active": "firing",
            "resolved": "resolved", "cleared": "resolved"}
RISE = re.compile(r"\b(?:rose|increased|went up|climbed)\b")
CAUSE_WORDS = re.compile(r"caus|because|root cause|triggered|due to", re.IGNORECASE)


@cache
def cases_at(items: int, per_kind: int = 10, seed: int = 11) -> tuple[IncidentCase, ...]:
    return tuple(generate(seed=seed, cases_per_kind=per_kind, items=items))


# -- reading the evidence, independently of the generator ---------------------------------------


def text_of(case: IncidentCase, ids: tuple[str, ...]) -> str:
    return "\n".join(item.content for item in case.evidence if item.id in ids)


def precision(written: str) -> Decimal:
    """Half the step a number is written to: 0.05 for 9.9, 5 for 130, 0.5 for 97."""
    whole, _, decimals = written.partition(".")
    if decimals:
        return Decimal(1).scaleb(-len(decimals)) / 2
    zeros = len(whole) - len(whole.rstrip("0")) if whole != "0" else 0
    return Decimal(10) ** min(zeros, len(whole) - 1) / 2


def claim_numbers(text: str) -> list[str]:
    """Plain numbers of a sentence, not those inside times, names, ids or versions."""
    text = CLOCK.sub(" ", ISO.sub(" ", text))
    found = []
    for token in text.split():
        match = re.fullmatch(r"(\d+(?:\.\d+)?)%?", token.strip(".,;:()"))
        if match:
            found.append(match.group(1))
    return found


def utc_minute(match: re.Match[str]) -> tuple[int, int | None]:
    """(minute of the day in UTC, seconds or None) of a CLOCK or ISO match."""
    if match.re is ISO:
        zone = match.group(5)
        offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (
            int(zone[1:3]) * 60 + int(zone[4:6]))
        hour, minute = int(match.group(2)), int(match.group(3))
        second: int | None = int(match.group(4))
    else:
        offset = ZONES[match.group(4)]
        hour, minute = int(match.group(1)), int(match.group(2))
        second = int(match.group(3)) if match.group(3) else None
    return (hour * 60 + minute - offset) % 1440, second


def claim_times(text: str) -> list[tuple[int, int | None]]:
    return [utc_minute(m) for m in (*ISO.finditer(text), *CLOCK.finditer(text))]


def evidence_times(text: str) -> set[tuple[int, int | None]]:
    """Times of the evidence (UTC stamps and ``12:04 UTC`` in notes) as (minute, seconds)."""
    return {utc_minute(m) for m in (*ISO.finditer(text), *CLOCK.finditer(text))}


def minutes_apart(a: int, b: int) -> int:
    return min((a - b) % 1440, (b - a) % 1440)


def field_value(fragment: str) -> str:
    """``cpu_pct=97.2`` / ``cpu_pct: 97.2`` -> ``97.2``."""
    return re.split(r"=|: ", fragment, maxsplit=1)[1].strip('"')


def samples(support: tuple[str, ...], text: str) -> tuple[Decimal, Decimal]:
    """The two values of a change's fragments, earlier first by the timestamp of their line."""
    stamped = []
    for fragment in support:
        line = next(line for line in text.splitlines() if line.endswith(fragment))
        stamped.append((ISO.search(line).group(0), Decimal(field_value(fragment).rstrip("%"))))
    (_, before), (_, after) = sorted(stamped)
    return before, after


def occurs(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


# -- the checks ---------------------------------------------------------------------------------


def assert_value_holds(case: IncidentCase, claim: LabelledClaim) -> None:
    """A grounded sentence's numbers and times are in the items it is about."""
    text = text_of(case, claim.evidence_ids)
    numbers = {Decimal(n) for n in NUMBER.findall(text)}
    for written in claim_numbers(claim.text):
        value, half = Decimal(written), precision(written)
        if claim.kind == "rounding":
            assert any(abs(x - value) <= half for x in numbers), (case.id, claim.text, text)
        elif claim.kind == "stated_change":  # the gap of the two samples, in time order
            before, after = samples(claim.support, text)
            assert abs(after - before) == value, (case.id, claim.text, text)
            assert (RISE.search(claim.text) is not None) == (after > before), \
                (case.id, claim.text, text)
        elif claim.kind == "unit_conversion":
            factors = (Decimal(1), Decimal("0.001"), Decimal(1) / 60, Decimal(1) / 3600,
                       Decimal(100))
            assert any(abs(x * f - value) <= half for x in numbers for f in factors), \
                (case.id, claim.text, text)
        else:
            assert value in numbers, (case.id, claim.text, text)
    stamps = evidence_times(text)
    for minute, second in claim_times(claim.text):
        assert any((minute == m and None in (second, s)) or (minute, second) == (m, s)
                   for m, s in stamps), \
            (case.id, claim.text, text)


def assert_false_value(case: IncidentCase, claim: LabelledClaim) -> None:
    """The false sentence's value is not what the evidence says of that field."""
    kind, stated, everything = claim.kind, claim.stated, text_of(case, tuple(
        item.id for item in case.evidence))
    subject = text_of(case, claim.evidence_ids[:1])
    if kind in UNKNOWN_NAMES:
        assert not occurs(stated, everything), (case.id, stated)
    if kind in ("wrong_value", "other_field_value") and stated[0].isdigit():
        truth = Decimal(field_value(claim.support[0]).rstrip("%"))
        written = stated.split()[0].rstrip("%")
        assert abs(Decimal(written) - truth) > precision(written), (case.id, claim.text)
    elif kind == "other_field_value" and stated.startswith("below"):
        assert Decimal(stated.split()[1]) < Decimal(field_value(claim.support[0]))
    elif kind == "other_field_value":
        assert stated == "error-free" and int(field_value(claim.support[0])) > 0
    elif kind == "wrong_change":
        before, after = samples(claim.support, text_of(case, claim.evidence_ids))
        amount = Decimal(stated.split()[0])
        rose = RISE.search(claim.text) is not None
        assert amount != abs(after - before) or rose != (after > before), (case.id, claim.text)
    elif kind == "unit_from_key":
        key = re.split(r"=|: ", claim.support[0])[0]
        number, unit = stated.split()
        assert number == field_value(claim.support[0])
        assert unit.lower() not in {"ms": {"ms"}, "s": {"s", "seconds"}, "gb": {"gb"}}[
            key.rsplit("_", 1)[1]]
    elif kind == "wrong_time":
        stamp = ISO.search(claim.support[0])
        assert stamp is not None
        (minute, _), = claim_times(stated)
        assert minutes_apart(minute, utc_minute(stamp)[0]) >= 5, (case.id, claim.text)
    elif kind == "other_host_ip":
        assert stated != field_value(claim.support[0])
        assert field_value(claim.support[2]) == stated
        assert claim.support[2] in text_of(case, claim.evidence_ids)
    elif kind == "wrong_status":
        assert STATUS_OF[stated] != field_value(claim.support[0])
    elif kind == "wrong_severity":
        assert stated != field_value(claim.support[0])
    elif kind == "wrong_state":
        assert STATE_OF[stated] != field_value(claim.support[0])
    elif kind == "negated_predicate":
        assert re.match(r"(was|has) (never|not)|is still|remains|went un|was left", stated)
        assert claim.support[0].startswith("was ") and claim.support[0] in subject
    elif kind == "all_quantifier":
        group = claim.support[1]
        bad = claim.text.rstrip(".").split()[-1]
        rows = [line for line in subject.splitlines() if group in line.split()]
        assert rows and sum(f"status={bad}" in row.split() for row in rows) < len(rows)
    elif kind == "no_errors_logged":
        host = claim.support[0].split()[1]
        errors = [line for line in subject.splitlines() if f" ERROR {host} " in line]
        fired = re.search(rf"ALERT .* host={re.escape(host)} .* fired_at=(\S+)",
                          text_of(case, claim.evidence_ids))
        assert errors and fired and min(line.split()[0] for line in errors) < fired.group(1)
    elif kind == "prediction":
        assert stated.startswith("will") and " will " not in everything
    elif kind == "unstated_cause":
        assert CAUSE_WORDS.search(claim.text) and not CAUSE_WORDS.search(everything)


def assert_consistent(case: IncidentCase, items: int) -> None:
    """Every invariant of one case."""
    assert len(case.evidence) == items
    assert [item.id for item in case.evidence] == [f"E{n}" for n in range(1, items + 1)]
    texts = [claim.text for claim in case.claims]
    assert case.answer == " ".join(texts)
    assert re.split(r"(?<=\.)\s+(?=[A-Z0-9])", case.answer) == texts
    false = [claim for claim in case.claims if claim.label != "grounded"]
    if case.faithful:
        assert not false
    else:
        assert [(c.kind, c.label) for c in false] == [(case.kind, FALSE_LABEL[case.kind])]
        assert_false_value(case, false[0])
    relevant = set(case.relevant_ids)
    for claim in case.claims:
        assert claim.stated in claim.text, (case.id, claim)
        assert set(claim.evidence_ids) <= relevant
        for fragment in claim.support:
            assert fragment in text_of(case, claim.evidence_ids), (case.id, claim, fragment)
        if claim.label == "grounded":
            assert_value_holds(case, claim)
        for name in NAME.findall(claim.text):
            outside = [i.id for i in case.evidence if i.id not in relevant
                       and occurs(name, i.content)]
            assert not outside, (case.id, name, outside)


# -- tests --------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_cases_and_another_seed_others() -> None:
    first = generate(seed=5, cases_per_kind=2, items=10)
    assert first == generate(seed=5, cases_per_kind=2, items=10)
    other = generate(seed=6, cases_per_kind=2, items=10)
    assert [c.answer for c in first] != [c.answer for c in other]


def test_a_case_keeps_its_answer_and_labels_at_every_evidence_size() -> None:
    def labels(items: int) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
        return [(c.answer, tuple((cl.text, cl.label) for cl in c.claims))
                for c in generate(seed=2, cases_per_kind=2, items=items)]

    assert labels(1) == labels(10) == labels(200)


def test_every_kind_has_the_cases_asked_and_the_right_faithfulness() -> None:
    cases = cases_at(5, per_kind=3)
    assert Counter(c.kind for c in cases) == dict.fromkeys(KINDS, 3)
    assert {c.kind for c in cases if c.faithful} == set(FAITHFUL_KINDS)
    assert {c.kind for c in cases if not c.faithful} == set(UNFAITHFUL_KINDS)
    assert len({c.id for c in cases}) == len(cases)


@pytest.mark.parametrize("items", [1, 2, 3, 10, 200])
def test_every_case_is_consistent_at_each_size(items: int) -> None:
    for case in cases_at(items):
        assert_consistent(case, items)


def test_cases_of_2000_items_are_consistent_and_fit_the_library_limits() -> None:
    for case in generate(seed=3, cases_per_kind=1, items=2000):
        assert_consistent(case, 2000)
        evidence = case.evidence_set()
        assert EvidenceSet.coerce(evidence) is evidence, case.id  # nothing is cut


def test_the_relevant_items_sit_at_many_places_among_distractors() -> None:
    places = [int(i[1:]) for c in cases_at(200) for i in c.relevant_ids]
    quarters = Counter((place - 1) // 50 for place in places)
    assert sorted(quarters) == [0, 1, 2, 3]
    assert min(quarters.values()) > len(places) // 8, quarters


def test_unfaithful_answers_stand_alone_and_beside_true_sentences() -> None:
    for kind in UNFAITHFUL_KINDS:
        sizes = {len(c.claims) for c in cases_at(1) if c.kind == kind}
        assert 1 in sizes and max(sizes) >= 3, (kind, sizes)


def test_the_variants_of_a_kind_are_all_covered_by_ten_cases() -> None:
    cases = cases_at(1)

    def stated(kind: str) -> set[str]:
        return {cl.stated for c in cases if c.kind == kind for cl in c.claims if cl.kind == kind}

    negated = {c.claims[0].support[0].split(" by ")[0] for c in cases
               if c.kind == "negated_predicate" and len(c.claims) == 1} | {
        cl.support[0].split(" by ")[0] for c in cases for cl in c.claims
        if cl.kind == "negated_predicate"}
    assert len({re.sub(r" to \d+ replicas| to production", "", n) for n in negated}) == 10
    assert {STATUS_OF[s] for s in stated("wrong_status")} == {"succeeded", "failed",
                                                               "rolled_back"}
    assert {STATE_OF[s] for s in stated("wrong_state")} == {"firing", "resolved"}
    assert any(s.endswith("%") for s in stated("other_field_value"))
    assert {"error-free"} <= stated("other_field_value")
    assert any(s.startswith("below") for s in stated("other_field_value"))
    zones = {m.group(4) for s in stated("timezone_conversion") for m in CLOCK.finditer(s)}
    assert zones - {"UTC"} and any(ISO.search(s) for s in stated("timezone_conversion"))


@settings(derandomize=True, max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9),
       items=st.sampled_from([1, 2, 4, 7, 30]))
@example(seed=0, items=1)
@example(seed=1, items=2)
@example(seed=123456789, items=7)
@example(seed=10**9, items=30)
def test_any_seed_and_size_give_consistent_cases(seed: int, items: int) -> None:
    for case in generate(seed=seed, cases_per_kind=1, items=items):
        assert_consistent(case, items)


@pytest.mark.parametrize(("options", "message"), [
    ({"seed": 0, "cases_per_kind": -1, "items": 5}, "cases_per_kind must be an integer >= 0"),
    ({"seed": 0, "cases_per_kind": 1, "items": 0}, "items must be an integer >= 1"),
    ({"seed": 0, "cases_per_kind": True, "items": 3}, "cases_per_kind"),
])
def test_bad_arguments_are_refused_by_name(options: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate(**options)


def test_an_unknown_kind_is_refused_with_the_kinds_listed() -> None:
    with pytest.raises(ValueError, match="unknown kind 'made_up'; kinds: exact_restatement"):
        make_case(0, "made_up", 0, 3)


def test_evidence_types_are_given_or_left_to_the_library() -> None:
    cases = cases_at(10)
    types = {item.type for case in cases for item in case.evidence}
    assert None in types and "specific_data" in types
    inferred = {e.type.value for case in cases for e in case.evidence_set()}
    assert {"tool_match", "signal_match", "specific_data"} <= inferred


def test_a_date_in_the_window_keeps_its_zone_names_right() -> None:
    # EDT and PDT apply from 8 March 2026, CET until 29 March: every case starts in between.
    for case in cases_at(1):
        for day in re.findall(r"\d{4}-\d{2}-\d{2}", case.evidence[0].content):
            when = datetime.fromisoformat(day)
            assert datetime(2026, 3, 8) <= when <= datetime(2026, 3, 28) + timedelta(days=1)
