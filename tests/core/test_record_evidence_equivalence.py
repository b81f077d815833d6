"""``record_evidence`` and ``infer_evidence_type`` have cheap paths for the common case (the first
item of a call; ASCII text without a hint word): for every input they give what the full
computation gives, the same items, the same types and the same errors."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.capture import collect_evidence, record_evidence
from gsar_otel.core.evidence import Evidence, _compact_json, _free_id, normalize_ref
from gsar_otel.core.model import EvidenceType

# The type rule without the cheap path: a search of the whole pattern in every text.
HINT = re.compile(r"^\s*\[(?:signal|alert)\]|\balert(?:_id|name)?\b|\bfired(?:_at)?\b",
                  re.IGNORECASE)


def full_type(text: str) -> EvidenceType:
    return EvidenceType.SIGNAL_MATCH if HINT.search(text) else EvidenceType.TOOL_MATCH


def full_record(collected: list[Evidence], content: Any, id: str | None, type: Any,
                source: Any) -> Evidence:
    """record_evidence as it was computed before the cheap paths (the reference)."""
    text = content if isinstance(content, str) else _compact_json(content)
    taken = {normalize_ref(existing.id) for existing in collected}
    if id is not None and normalize_ref(id) in taken:
        raise ValueError(f"evidence id {id!r} was already recorded in this call; ids must "
                         "be unique")
    item = Evidence(id=id or _free_id(len(collected) + 1, taken), content=text,
                    type=full_type(text) if type is None else type, source=source)
    collected.append(item)
    return item


# Words and letters around the hint words, in both cases, with the non-ASCII letters a
# case-insensitive match treats as ASCII ones ('ſ' as s, 'ı' and 'İ' as i, the Kelvin sign as k).
PIECES = st.sampled_from([
    "alert", "ALERT", "Alert", "alert_id", "alertname", "alerts", "fired", "FIRED", "fired_at",
    "firedx", "signal", "[signal]", "[alert]", "[SIGNAL]", "[ſignal]", "fıred", "fİred", "aLeRt",
    "ſignal", "\u212a", "é", "_", "-", " ", "  ", "\t", "\n", "[", "]", "=", "x", "cpu=97.2",
    "host=db-prod-1", "0", "ﬁred", "ALERTſ",
])
TEXTS = st.one_of(st.lists(PIECES, max_size=8).map("".join), st.text(max_size=40))


@settings(max_examples=2000, deadline=None)
@given(TEXTS)
def test_the_inferred_type_is_the_full_patterns_for_every_text(text: str) -> None:
    from gsar_otel.core.evidence import infer_evidence_type

    assert infer_evidence_type(text) is full_type(text)


IDS = st.one_of(st.none(), st.sampled_from(["", " ", "E1", "e1", "[E2]", "E2", "x", " x ",
                                            "(x)", "E3"]))
CONTENTS = st.one_of(TEXTS, st.dictionaries(st.sampled_from(["alert_id", "cpu", "host"]),
                                            st.integers(0, 9), max_size=2))
TYPES = st.sampled_from([None, "neg_evidence", EvidenceType.DOMAIN, "not-a-type"])
SOURCES = st.sampled_from([None, "metrics", 5])


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        item = call(*args, **kwargs)
    except Exception as error:  # the error itself is what is compared
        return "raised", (type(error).__name__, str(error))
    return "item", item.model_dump()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(CONTENTS, IDS, TYPES, SOURCES), min_size=1, max_size=6))
def test_every_sequence_of_records_gives_the_full_computations_items_and_errors(
        calls: list[tuple[Any, str | None, Any, Any]]) -> None:
    expected: list[Evidence] = []
    with collect_evidence() as collected:
        for content, id, kind, source in calls:
            got = outcome(record_evidence, content, id=id, type=kind, source=source)
            want = outcome(full_record, expected, content, id, kind, source)
            assert got == want
    assert [item.model_dump() for item in collected] == [e.model_dump() for e in expected]
