"""The Jaeger and Phoenix search recipes in dashboards/README.md use names and values the code
emits. (That Phoenix's filter language answers such conditions on real gsar spans is shown by
tests/e2e/test_phoenix.py against a running Phoenix.)"""

from __future__ import annotations

import re
import typing

import pytest

from gsar_otel import semconv
from gsar_otel.core.model import Decision
from gsar_otel.core.result import DegradedReason
from tests.dashboards.queries import DASHBOARDS, semconv_attribute_names

README = (DASHBOARDS / "README.md").read_text(encoding="utf-8")
PHOENIX_SPAN_COLUMNS = frozenset({"span_kind", "name", "latency_ms", "status_code", "span_id",
                                  "trace_id", "parent_id", "start_time", "end_time"})
"""Columns Phoenix's filter language knows besides attributes."""
KNOWN_VALUES = {
    semconv.GSAR_DECISION: {d.value for d in Decision},
    semconv.GSAR_DEGRADED: {"true", "false"},
    semconv.GSAR_DEGRADED_REASON: set(typing.get_args(DegradedReason)),
}


def phoenix_filters() -> list[str]:
    block = README.split("<!-- phoenix-filters -->", 1)[1].split("<!-- /phoenix-filters -->", 1)[0]
    lines = block.split("```python", 1)[1].split("```", 1)[0].splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


def jaeger_tags() -> list[tuple[str, str]]:
    section = README.split("### Jaeger", 1)[1].split("### Phoenix", 1)[0]
    pairs = re.findall(r"`([a-z_.]+)=([^`\s]+)", section)
    pairs += re.findall(r'"([a-z_.]+)":"([^"]+)"', section)
    return pairs


def test_readme_has_jaeger_and_phoenix_recipes() -> None:
    assert len(phoenix_filters()) >= 5
    assert (semconv.GSAR_DECISION, "replan") in jaeger_tags()
    assert (semconv.GSAR_DEGRADED, "true") in jaeger_tags()


@pytest.mark.parametrize(("key", "value"), jaeger_tags(), ids=lambda v: str(v))
def test_jaeger_tag_recipe_uses_an_emitted_attribute_and_value(key: str, value: str) -> None:
    assert key in semconv_attribute_names(), f"{key} is not a semconv attribute"
    if key in KNOWN_VALUES:
        assert value in KNOWN_VALUES[key], f"{key}={value}: allowed {sorted(KNOWN_VALUES[key])}"


@pytest.mark.parametrize("condition", phoenix_filters())
def test_phoenix_filter_reads_only_emitted_attributes(condition: str) -> None:
    code = re.sub(r"\"[^\"]*\"|'[^']*'", "", condition)
    names = set(re.findall(r"\b[a-z_][a-z_.]*[a-z_]\b", code)) - {"and", "or", "not", "is", "in"}
    for name in names - {"None", "True", "False"}:
        assert name in semconv_attribute_names() | PHOENIX_SPAN_COLUMNS, f"{name} in {condition!r}"
    for attribute, value in re.findall(r"([a-z_.]+) == \"([^\"]+)\"", condition):
        if attribute in KNOWN_VALUES:
            assert value in KNOWN_VALUES[attribute], condition
        if attribute == "name":
            assert value in {semconv.SPAN_JUDGE}, condition
    for value in re.findall(r"span_kind == \"([^\"]+)\"", condition):
        assert value == semconv.OPENINFERENCE_SPAN_KIND_EVALUATOR
