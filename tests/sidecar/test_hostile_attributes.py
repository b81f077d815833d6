"""Attribute values of any OTLP shape (strings, numbers, lists, maps, bytes) at any attribute
name the sidecar reads never crash run detection or extraction: an agent's odd attribute is data,
not a reason to lose the run (a map as `ai.operationId` raised TypeError: unhashable type)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.sidecar.conventions import genai, native, openinference, openllmetry, registry
from gsar_otel.sidecar.conventions.extract import extract_run
from tests.sidecar.test_extract import run, span

NAMES = sorted({value for module in (genai, openinference, openllmetry, native)
                for name, value in vars(module).items()
                if name.isupper() and isinstance(value, str) and "." in value})

VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(max_size=20) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=6),
       st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=6))
def test_any_attribute_values_never_crash_detection_or_extraction(
        root_attributes: dict[str, Any], child_attributes: dict[str, Any]) -> None:
    child = span(2, 1, "child", **child_attributes)
    root = span(1, 0, "root", end=200, **root_attributes)
    for item in (child, root):
        kind = registry.run_kind(item)
        assert kind is None or isinstance(kind, str)
    extracted = extract_run(run(child, root))
    assert all(isinstance(item.content, str) for item in extracted.evidence)


def test_a_map_as_the_vercel_operation_id_is_not_a_run() -> None:
    odd = span(1, 0, "root", **{native.VERCEL_OPERATION_ID: {"a": 1},
                                native.VERCEL_RESPONSE_TEXT: "text"})
    assert registry.run_kind(odd) is None
    extract_run(run(odd))
