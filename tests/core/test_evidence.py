"""Evidence items, EvidenceSet.coerce, truncation, and evidence capture inside a call."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
from typing import NamedTuple

import pytest
from pydantic import BaseModel

from gsar_otel.core.capture import collect_evidence, record_evidence, tool_evidence
from gsar_otel.core.evidence import (
    DEFAULT_MAX_ITEM_CHARS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_TOTAL_CHARS,
    Evidence,
    EvidenceSet,
    normalize_ref,
)
from gsar_otel.core.model import EvidenceType

EVIDENCE_A = (
    "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2\n"
    "[tool=query_metrics row=14:02:01] host=db-prod-1 rps=12.4\n"
    "[signal] alert_id=A-9912 fired_at=14:02:00 metric=cpu_pct severity=high"
)

# --- coerce --------------------------------------------------------------------------------------


def test_a_string_becomes_one_item_per_non_empty_line_with_positional_ids():
    evidence = EvidenceSet.coerce("first row\n\n   \n  second row  \nthird row\n")
    assert evidence.ids == ("E1", "E2", "E3")
    assert [item.content for item in evidence] == ["first row", "second row", "third row"]
    assert not evidence.truncated


def test_tool_rows_are_typed_tool_match_and_signal_lines_signal_match():
    evidence = EvidenceSet.coerce(EVIDENCE_A)
    assert [item.type for item in evidence] == [
        EvidenceType.TOOL_MATCH, EvidenceType.TOOL_MATCH, EvidenceType.SIGNAL_MATCH]


def test_an_alert_without_the_signal_prefix_is_still_a_signal():
    evidence = EvidenceSet.coerce(["alertname=HighCPU fired at 14:02", "cpu_pct=97.2"])
    assert [item.type for item in evidence] == [EvidenceType.SIGNAL_MATCH,
                                                EvidenceType.TOOL_MATCH]


def test_a_list_mixing_strings_dicts_and_evidence_keeps_order_and_caller_ids():
    evidence = EvidenceSet.coerce([
        "plain row",
        {"id": "metrics-1", "content": "cpu_pct=97.2", "source": "prometheus"},
        Evidence("alert", "[signal] alert_id=A-9912", EvidenceType.SIGNAL_MATCH),
        {"host": "db-prod-1", "rps": 12.4},
    ])
    assert evidence.ids == ("E1", "metrics-1", "alert", "E4")
    assert evidence.get("metrics-1").source == "prometheus"  # type: ignore[union-attr]
    assert evidence.items[2].type is EvidenceType.SIGNAL_MATCH


def test_a_structured_dict_is_kept_as_compact_json_that_keeps_keys_and_values():
    (item,) = EvidenceSet.coerce([{"host": "db-prod-1", "cpu_pct": 97.2}])
    assert "db-prod-1" in item.content
    assert "cpu_pct" in item.content
    assert "97.2" in item.content
    assert item.type is EvidenceType.TOOL_MATCH


def test_a_dict_with_content_maps_onto_evidence_fields_and_its_type_is_honoured():
    (item,) = EvidenceSet.coerce(
        {"id": "N1", "content": "no errors in the last 5 minutes", "type": "neg_evidence"})
    assert (item.id, item.type) == ("N1", EvidenceType.NEG_EVIDENCE)


def test_dict_content_that_is_not_text_becomes_json():
    (item,) = EvidenceSet.coerce([{"content": {"rows": [1, 2]}}])
    assert json.loads(item.content.replace("=", ":")) == {"rows": [1, 2]}


def test_a_positional_id_never_collides_with_an_id_the_caller_gave():
    evidence = EvidenceSet.coerce([{"id": "E2", "content": "caller item"}, "auto item", "third"])
    assert len(set(evidence.ids)) == 3
    assert evidence.ids[0] == "E2"
    assert "E2" not in evidence.ids[1:]


@pytest.mark.parametrize("ids", [("E1", "E1"), ("row", "row"), ("E1", "e1"), ("[E1]", "E1")])
def test_duplicate_ids_are_rejected_naming_the_id(ids):
    with pytest.raises(ValueError, match="appears more than once"):
        EvidenceSet.coerce([Evidence(ids[0], "a"), Evidence(ids[1], "b")])


def test_an_evidence_set_passes_through_unchanged():
    evidence = EvidenceSet.coerce(EVIDENCE_A)
    assert EvidenceSet.coerce(evidence) is evidence


def test_none_and_empty_inputs_give_an_empty_set():
    for empty in (None, "", "\n \n", []):
        evidence = EvidenceSet.coerce(empty)
        assert len(evidence) == 0
        assert not evidence
        assert evidence.render() == ""


@pytest.mark.parametrize("bad", [42, 3.5, b"bytes", object()])
def test_an_unsupported_evidence_type_is_rejected_listing_the_accepted_shapes(bad):
    with pytest.raises(ValueError, match="evidence must be a string, an Evidence, a dict"):
        EvidenceSet.coerce(bad)


def test_a_bad_item_inside_a_list_is_rejected_naming_its_position():
    with pytest.raises(ValueError, match="evidence item 2 must be a string, a dict, an Evidence "
                                         "or a JSON value"):
        EvidenceSet.coerce(["ok", None])


def test_a_number_or_list_item_is_kept_as_compact_json():
    assert [i.content for i in EvidenceSet.coerce(["ok", 7, [1, "a"]])] == ["ok", "7", '[1, "a"]']


def test_an_evidence_item_needs_a_non_empty_id():
    with pytest.raises(ValueError, match="evidence id must be a non-empty string"):
        Evidence("  ", "content")


@pytest.mark.parametrize("name", ["max_item_chars", "max_total_chars", "max_items"])
def test_a_non_positive_limit_is_rejected_naming_it(name):
    with pytest.raises(ValueError, match=name):
        EvidenceSet.coerce("a", **{name: 0})


def test_lookup_by_id_ignores_case_and_brackets():
    evidence = EvidenceSet.coerce(EVIDENCE_A)
    assert evidence.get("[e2]") is evidence.items[1]
    assert evidence.get("E9") is None
    assert normalize_ref(" (e12) ") == "E12"


def test_render_shows_each_item_with_its_id():
    assert EvidenceSet.coerce("a\nb").render() == "[E1] a\n[E2] b"


# --- truncation ----------------------------------------------------------------------------------


def test_a_ten_megabyte_evidence_string_is_cut_and_the_cut_is_recorded():
    huge = "cpu_pct=97.2 " * (10_000_000 // 13)
    evidence = EvidenceSet.coerce(huge)
    assert len(evidence) == 1
    assert len(evidence.items[0].content) == DEFAULT_MAX_ITEM_CHARS
    (cut,) = evidence.truncations
    assert cut.evidence_id == "E1"
    assert cut.original_chars == len(huge.strip())
    assert cut.kept_chars == DEFAULT_MAX_ITEM_CHARS
    assert "cut to" in cut.reason


def test_many_items_past_the_limits_are_dropped_and_the_drop_is_recorded():
    rows = [f"host=db-{i} cpu_pct={i % 100}" for i in range(DEFAULT_MAX_ITEMS + 500)]
    evidence = EvidenceSet.coerce(rows)
    assert len(evidence) == DEFAULT_MAX_ITEMS
    (drop,) = evidence.truncations
    assert drop.evidence_id is None
    assert drop.kept_chars == 0
    assert drop.original_chars == sum(len(r) for r in rows[DEFAULT_MAX_ITEMS:])
    assert "500 evidence item(s) dropped" in drop.reason


def test_the_total_character_limit_cuts_the_item_that_crosses_it_and_drops_the_rest():
    evidence = EvidenceSet.coerce(["a" * 60, "b" * 60, "c" * 60], max_total_chars=100)
    assert [len(item.content) for item in evidence] == [60, 40]
    assert evidence.total_chars == 100
    assert [t.evidence_id for t in evidence.truncations] == ["E2", None]


def test_ten_megabytes_of_lines_are_bounded_by_the_default_total_limit():
    lines = "\n".join(f"[tool=logs] line {i} " + "x" * 90 for i in range(100_000))
    evidence = EvidenceSet.coerce(lines)
    assert evidence.total_chars <= DEFAULT_MAX_TOTAL_CHARS
    assert evidence.truncated


def test_an_oversized_evidence_set_is_recut_keeping_its_earlier_record():
    first = EvidenceSet.coerce(["x" * 50, "y" * 50], max_item_chars=40)
    second = EvidenceSet.coerce(first, max_item_chars=10)
    assert [len(i.content) for i in second] == [10, 10]
    assert len(second.truncations) == 4


def test_evidence_items_given_as_evidence_are_cut_too():
    evidence = EvidenceSet.coerce([Evidence("big", "z" * 100)], max_item_chars=10)
    assert evidence.items[0].content == "z" * 10
    assert evidence.truncations[0].evidence_id == "big"


# --- capture -------------------------------------------------------------------------------------


def test_record_evidence_outside_a_collector_is_a_no_op():
    assert record_evidence("host=db-prod-1 cpu_pct=97.2") is None


def test_record_evidence_inside_a_collector_records_with_positional_ids_and_types():
    with collect_evidence() as collected:
        first = record_evidence("cpu_pct=97.2", source="metrics")
        second = record_evidence({"alert_id": "A-9912", "severity": "high"})
        third = record_evidence("no errors", id="neg", type="neg_evidence")
    assert [first, second, third] == collected
    assert [e.id for e in collected] == ["E1", "E2", "neg"]
    assert collected[0].source == "metrics"
    assert collected[1].type is EvidenceType.SIGNAL_MATCH
    assert collected[2].type is EvidenceType.NEG_EVIDENCE
    assert record_evidence("after the block") is None


def test_record_evidence_skips_an_id_the_caller_already_used():
    with collect_evidence() as collected:
        record_evidence("a", id="E2")
        record_evidence("b")
        record_evidence("c")
    assert len({e.id for e in collected}) == 3
    EvidenceSet.coerce(collected)  # no duplicate ids


def test_record_evidence_refuses_an_explicit_duplicate_id():
    with collect_evidence(), pytest.raises(ValueError, match="'cpu' was already recorded"):
        record_evidence("a", id="cpu")
        record_evidence("b", id="cpu")


def test_concurrent_tasks_with_their_own_collectors_never_mix_evidence():
    async def agent(name: str) -> list[str]:
        with collect_evidence() as collected:
            for step in range(5):
                record_evidence(f"{name} step {step}")
                await asyncio.sleep(0)
        return [e.content for e in collected]

    async def main() -> list[list[str]]:
        return await asyncio.gather(*(agent(f"agent{i}") for i in range(8)))

    for i, contents in enumerate(asyncio.run(main())):
        assert contents == [f"agent{i} step {s}" for s in range(5)]


def test_child_tasks_record_into_their_parents_collector():
    async def child() -> None:
        record_evidence("from the child task")

    async def main() -> list[Evidence]:
        with collect_evidence() as collected:
            await asyncio.gather(child(), child())
        return collected

    assert [e.content for e in asyncio.run(main())] == ["from the child task"] * 2


def test_tool_evidence_on_a_sync_function_returns_the_result_unchanged_and_records_it():
    @tool_evidence
    def query_metrics(host: str) -> dict[str, object]:
        return {"host": host, "cpu_pct": 97.2}

    with collect_evidence() as collected:
        result = query_metrics("db-prod-1")
    assert result == {"host": "db-prod-1", "cpu_pct": 97.2}
    (item,) = collected
    assert "97.2" in item.content
    assert item.source is not None
    assert item.source.endswith("query_metrics")
    assert query_metrics.__name__ == "query_metrics"


def test_tool_evidence_on_an_async_function_returns_the_result_unchanged_and_records_it():
    @tool_evidence(source="alerts", type="signal_match")
    async def fetch_alert() -> str:
        await asyncio.sleep(0)
        return "alert_id=A-9912 severity=high"

    async def main() -> tuple[str, list[Evidence]]:
        with collect_evidence() as collected:
            return await fetch_alert(), collected

    result, collected = asyncio.run(main())
    assert result == "alert_id=A-9912 severity=high"
    assert [(e.content, e.source, e.type) for e in collected] == [
        (result, "alerts", EvidenceType.SIGNAL_MATCH)]


def test_tool_evidence_outside_a_collector_just_returns_the_result():
    @tool_evidence
    def tool() -> int:
        return 7

    assert tool() == 7


def test_tool_evidence_lets_the_tools_own_exception_through_and_records_nothing():
    error = RuntimeError("tool failed")

    @tool_evidence
    def broken() -> str:
        raise error

    with collect_evidence() as collected, pytest.raises(RuntimeError) as raised:
        broken()
    assert raised.value is error
    assert collected == []


def test_a_tool_result_that_cannot_be_recorded_never_breaks_the_tool():
    @tool_evidence(type="not-a-type")
    def tool() -> str:
        return "value"

    with collect_evidence() as collected:
        assert tool() == "value"
    assert collected == []


def test_a_flat_tool_row_reads_as_key_value_pairs_and_nested_results_as_json():
    row, nested = EvidenceSet.coerce([
        {"host": "db-prod-1", "cpu_pct": 97.2, "ok": True, "note": "two words"},
        {"rows": [{"rps": 12.4}]},
    ])
    assert row.content == 'host=db-prod-1 cpu_pct=97.2 ok=true note="two words"'
    assert nested.content == '{"rows": [{"rps": 12.4}]}'


@dataclasses.dataclass
class _Row:
    host: str
    cpu_pct: float


class _Tuple(NamedTuple):
    host: str
    cpu_pct: float


class _Model(BaseModel):
    host: str
    cpu_pct: float
    at: datetime.datetime


@pytest.mark.parametrize("row", [
    _Row("db-prod-1", 97.2), _Tuple("db-prod-1", 97.2),
    _Model(host="db-prod-1", cpu_pct=97.2, at=datetime.datetime(2026, 3, 1, 14, 2)),
], ids=["dataclass", "namedtuple", "pydantic"])
def test_a_record_returned_by_a_tool_reads_as_its_fields(row: object) -> None:
    """A dataclass, a pydantic model or a named tuple is the row of its fields, not its repr
    (``_Row(host='db-prod-1', ...)``) nor, for a named tuple, one item per field; alone or in
    a list, through ``record_evidence`` too."""
    expected = "host=db-prod-1 cpu_pct=97.2"
    alone, = EvidenceSet.coerce(row).items
    listed, = EvidenceSet.coerce([row]).items
    with collect_evidence() as collected:
        record_evidence(row)
    for item in (alone, listed, *collected):
        assert item.content.startswith(expected), item.content
    nested, = EvidenceSet.coerce([{"rows": [row]}]).items
    assert '"host": "db-prod-1"' in nested.content or '"db-prod-1"' in nested.content
    assert "_Row(" not in nested.content and "_Model(" not in nested.content
