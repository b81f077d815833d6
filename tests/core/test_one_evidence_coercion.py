"""One evidence coercion everywhere: every entry point accepts the same evidence shapes and
turns them into the same items (or refuses the same ones), because all of them call
:func:`gsar_otel.core.evidence.coerce_evidence`. A list item that is a list or a number is kept
as compact JSON, as ``record_evidence`` / ``@tool_evidence`` keep a list returned by a tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel import EvidenceSet, collect_evidence, grounded, record_evidence, tool_evidence
from gsar_otel.cli.batch import parse_row
from gsar_otel.core.evidence import coerce_evidence, evidence_text
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.measure.datasets import parse_example
from gsar_otel.measure.graded_input import parse_graded_line
from pytest_gsar.cases import CaseFormatError, parse_case

ANSWER = "CPU on db-prod-1 reached 97%."
Items = list[tuple[str, str]] | str


class SeeingJudge:
    """Keeps the evidence it is given; calls the answer one grounded claim."""

    name = "seeing"

    def __init__(self) -> None:
        self.seen: list[EvidenceSet] = []

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.seen.append(evidence)
        return JudgeOutput(grounding_score=1.0, is_grounded=True,
                           grounded_claims=[Claim(synthesis, "tool_match", [evidence.ids[0]])])


def _items(evidence: EvidenceSet) -> list[tuple[str, str]]:
    return [(item.id, item.content) for item in evidence]


def via_coerce(value: Any) -> Items:
    try:
        return _items(coerce_evidence(value))
    except ValueError:
        return "refused"


def via_bench(value: Any) -> Items:
    line = json.dumps({"id": "a", "evidence": value, "synthesis": ANSWER,
                       "answer_label": "faithful"})
    try:
        return _items(parse_example(line).evidence_set)
    except ValueError:
        return "refused"


def via_batch(value: Any) -> Items:
    data = json.dumps({"id": "a", "synthesis": ANSWER, "evidence": value}).encode()
    row = parse_row(data, 1, "in.jsonl", 1 << 20)
    assert row is not None
    return "refused" if row.evidence is None else _items(row.evidence)


def via_case_file(value: Any) -> Items:
    line = json.dumps({"id": "a", "synthesis": ANSWER, "evidence": value})
    try:
        case = parse_case(line, path=Path("gsar_cases.jsonl"), line=1)
    except CaseFormatError:
        return "refused"
    return _items(coerce_evidence(case.evidence))  # what assert_grounded's judging does


def via_calibrate(value: Any) -> Items:
    line = json.dumps({"label": "ok", "synthesis": ANSWER, "evidence": value})
    try:
        evidence = parse_graded_line(line, 1).evidence
    except ValueError:
        return "refused"
    assert isinstance(evidence, EvidenceSet)
    return _items(evidence)


def via_extractor(value: Any) -> Items:
    judge = SeeingJudge()

    @grounded(judge=judge, evidence=lambda call: value)
    def agent() -> str:
        return ANSWER

    assert agent() == ANSWER  # observe: evidence it cannot take leaves the call unjudged
    if not judge.seen:
        return "refused"
    [seen] = judge.seen
    return _items(seen)


ENTRY_POINTS = (via_bench, via_batch, via_case_file, via_calibrate, via_extractor)

_text = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="[{"),
                min_size=1, max_size=20).filter(str.strip)
_scalar = st.one_of(_text, st.integers(-10**6, 10**6), st.booleans(),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
_row = st.dictionaries(st.sampled_from(["host", "cpu_pct", "ts", "status"]), _scalar,
                       min_size=1, max_size=3)
_item = st.one_of(
    _text,
    _row,
    st.builds(lambda content, kind: {"content": content, "type": kind}, _text,
              st.sampled_from(["tool_match", "signal_match", "bogus"])),
    st.lists(_scalar, min_size=1, max_size=3),  # a list item: a tool's list of values
    st.lists(_row, min_size=1, max_size=2),
    st.integers(0, 1000),
    st.none(),  # refused everywhere
)
EVIDENCE = st.one_of(_text, st.lists(_item, min_size=1, max_size=4))


@settings(deadline=None)  # the first call builds the decorator's event loop
@given(EVIDENCE)
def test_every_entry_point_accepts_the_same_shapes(value: Any) -> None:
    expected = via_coerce(value)
    for entry_point in ENTRY_POINTS:
        assert entry_point(value) == expected, entry_point.__name__


def test_a_list_item_is_kept_as_a_tool_evidence_list_return_is() -> None:
    rows = [{"host": "db-prod-1", "cpu_pct": 97.2}, {"host": "db-prod-2", "cpu_pct": 12.0}]

    @tool_evidence
    def query_metrics() -> list[dict[str, Any]]:
        return rows

    with collect_evidence() as recorded:
        query_metrics()
        record_evidence([1, 2, 3])
    coerced = coerce_evidence([rows, [1, 2, 3]])
    assert [item.content for item in recorded] == [item.content for item in coerced]
    assert coerced.items[0].content == evidence_text(rows)
    assert via_extractor([rows, "host=db-prod-3 cpu_pct=4"])[0] == ("E1", evidence_text(rows))


@pytest.mark.parametrize("bad", [[None], [b"raw bytes"], ["ok", None]])
def test_an_item_that_is_no_value_is_refused_with_its_position(bad: list[Any]) -> None:
    with pytest.raises(ValueError, match=r"evidence item \d must be a string, a dict, an "
                                         r"Evidence or a JSON value"):
        coerce_evidence(bad)


def test_bench_reads_list_evidence() -> None:
    line = json.dumps({"id": "a", "synthesis": ANSWER, "answer_label": "faithful",
                       "evidence": ["host=db-prod-1 cpu_pct=97.2", {"id": "M", "content": "x"}]})
    example = parse_example(line)
    assert _items(example.evidence_set) == [("E1", "host=db-prod-1 cpu_pct=97.2"), ("M", "x")]
    assert example.evidence_text == "host=db-prod-1 cpu_pct=97.2\nx"
    with pytest.raises(ValueError, match=r"line 3: field 'evidence': evidence item 1"):
        parse_example(line.replace('"host=db-prod-1 cpu_pct=97.2"', "null"), where="line 3")
