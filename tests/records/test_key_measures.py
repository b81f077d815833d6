"""A bare number is in the measure its key names (``cpu_pct``, ``rps``, ``latency_ms``): a claim
written in another measure is never held by it, so another attribute's value cannot ground a
claim ("97.2 RPS" is no ``cpu_pct=97.2``). A table of key words, a property over every pair of
measures, and the claims the two rows of one table make."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.anchors import extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.records.judge import RecordsJudge
from gsar_otel.judges.records.units import claim_measure, key_measure, measures_differ

judge = RecordsJudge()

EVIDENCE = ["cpu_pct=97.2 on host web-3 at 14:02", "rps=12.4 on checkout at 14:03",
            "cpu_pct=41.0 on host web-4 at 14:02"]


def outcome(answer: str, items: list[str] = EVIDENCE) -> str:
    found = [o.outcome for o in judge.explain(synthesis=answer,
                                               evidence=EvidenceSet.coerce(items))]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("key", "measure"), [
    ("cpu_pct", "percent"), ("errorPercent", "percent"), ("rps", "rate"), ("checkout_qps", "rate"),
    ("latency_ms", "duration"), ("durationSeconds", "duration"), ("size_bytes", "bytes"),
    ("memory_mib", "bytes"), ("restarts", "count"), ("replicas", "count"), (None, ""),
])
def test_a_key_names_the_measure_of_its_bare_numbers(key, measure):
    assert key_measure(key) == measure


@pytest.mark.parametrize(("written", "measure"), [
    ("97.2%", "percent"), ("97.2 percent", "percent"), ("97.2 RPS", "rate"), ("12 qps", "rate"),
    ("97.2 ms", "duration"), ("3.1 GB", "bytes"), ("97.2", ""),
])
def test_a_claim_names_the_measure_of_its_value_by_its_unit(written, measure):
    assert claim_measure(extract_anchors(written)[0]) == measure


KEYS = {"percent": "cpu_pct", "rate": "rps", "duration": "latency_ms", "bytes": "size_bytes"}
WRITTEN = {"percent": "{v}%", "rate": "{v} RPS", "duration": "{v} ms", "bytes": "{v} GB"}


@given(asked=st.sampled_from(sorted(WRITTEN)), offered=st.sampled_from(sorted(KEYS)),
       value=st.integers(min_value=1, max_value=900))
def test_a_bare_value_never_holds_a_claim_of_another_measure(asked, offered, value):
    claim = WRITTEN[asked].format(v=value)
    held = next(a for a in extract_anchors(f"{KEYS[offered]}={value}") if a.key)
    assert measures_differ(extract_anchors(claim)[0], held) is (asked != offered)
    answer = f"The service reported {claim}."
    assert outcome(answer, [f"{KEYS[offered]}={value}"]) != "verified" or asked == offered


@pytest.mark.parametrize(("answer", "expected"), [
    # another attribute's value, of another record: never grounded
    ("The request rate on checkout was 97.2 RPS at 14:03.", "absent"),
    ("Checkout served 97.2 rps.", "absent"),
    ("Checkout served 12.4 rps.", "verified"),
    # a host name between the attribute and its value does not hide the attribute
    ("CPU on web-4 reached 97.2% at 14:02.", "contradicted"),
    ("CPU on web-3 was 40% at 14:02.", "contradicted"),
    ("CPU on web-3 was 97.2% at 14:02.", "verified"),
])
def test_values_of_one_table_are_read_against_their_own_attribute(answer, expected):
    assert outcome(answer) == expected


NODES = ("NAME      CPU(cores)   MEMORY(bytes)\nnode-a    1840m        11876Mi\n"
         "node-b    2210m        12940Mi\nnode-c    960m         6125Mi\n"
         "node-d    1105m        7011Mi")


@pytest.mark.parametrize(("answer", "expected"), [
    # a claim speaking of CPU writes millicores with a bare "m", wherever the word CPU stands
    ("Across the four nodes CPU use is 6,115m in total.", "verified"),
    ("Across the four nodes CPU use is 6,215m in total.", "absent"),
    ("node-c uses the least CPU, 960m.", "verified"),
    # a time word after it keeps it minutes
    ("The CPU alert fired 960m ago.", "absent"),
])
def test_a_bare_m_is_millicores_in_a_claim_about_cpu(answer, expected):
    assert outcome(answer, [NODES]) == expected
