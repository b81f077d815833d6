"""Each Honeycomb query finds events, and every column it reads, in spans the library emits; each
alert trigger computes its value over them.

The workload's ``@grounded`` calls and its sidecar (fed agent runs over OTLP, so its
evaluations, late-span flags and a skipped run's mark are among them) run in-process against
an in-memory span exporter; the spans and their events are turned into events the way
Honeycomb stores OTLP traces (a span event is an event of its own with
``meta.annotation_type = span_event`` and the parent span's id in ``trace.parent_id``), and
each query's filters run over them.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from gsar_otel.decorator.api import flush
from gsar_otel.judges.lexical.judge import LexicalJudge
from gsar_otel.otel.instruments import set_providers
from tests.dashboards import honeycomb_calc, workload
from tests.dashboards.queries import (
    HONEYCOMB_FILES,
    HONEYCOMB_TRIGGER_FILES,
    honeycomb_columns,
    load_json,
)
from tests.dashboards.sidecar_load import SIDECAR_AGENT, SidecarLoad

Event = dict[str, Any]
BOARD = load_json(HONEYCOMB_FILES[0])
TRIGGERS = load_json(HONEYCOMB_TRIGGER_FILES[0])["triggers"]


def honeycomb_events(span: ReadableSpan) -> list[Event]:
    """The events Honeycomb makes of one OTLP span: the span, and one per span event."""
    context = span.get_span_context()
    assert context is not None
    trace_id, span_id = f"{context.trace_id:032x}", f"{context.span_id:016x}"
    duration_ns = (span.end_time or 0) - (span.start_time or 0)
    event: Event = {
        **dict(span.resource.attributes),
        **dict(span.attributes or {}),
        "name": span.name,
        "duration_ms": duration_ns / 1e6,
        "trace.trace_id": trace_id,
        "trace.span_id": span_id,
        "span.kind": span.kind.name.lower(),
        "status_code": span.status.status_code.value,
        "meta.signal_type": "trace",
    }
    if span.parent is not None:
        event["trace.parent_id"] = f"{span.parent.span_id:016x}"
    if span.status.status_code is StatusCode.ERROR:
        event["error"] = True
    events = [event]
    for span_event in span.events:
        events.append({
            **dict(span_event.attributes or {}),
            "name": span_event.name,
            "trace.trace_id": trace_id,
            "trace.parent_id": span_id,
            "meta.annotation_type": "span_event",
            "meta.signal_type": "trace",
            "duration_ms": 0,
        })
    return events


def _matches(event: Event, flt: dict[str, Any]) -> bool:
    column, op, value = flt["column"], flt["op"], flt.get("value")
    if op == "exists":
        return column in event
    if op == "does-not-exist":
        return column not in event
    if column not in event:
        return False
    actual = event[column]
    if op == "=":
        return bool(actual == value)
    if op == "!=":
        return bool(actual != value)
    if op == "starts-with":
        return str(actual).startswith(str(value))
    if op == "contains":
        return str(value) in str(actual)
    if op in {"in", "not-in"}:
        return bool((actual in list(value or [])) == (op == "in"))
    if op in {">", ">=", "<", "<="} and isinstance(actual, numbers.Real):
        number, limit = float(actual), float(value or 0)
        return {">": number > limit, ">=": number >= limit,
                "<": number < limit, "<=": number <= limit}[op]
    raise AssertionError(f"filter {flt} is not supported by this check")


def run_query(spec: dict[str, Any], events: list[Event]) -> list[Event]:
    """The events a Query Specification's filters select."""
    filters = spec.get("filters", [])
    combine = any if spec.get("filter_combination") == "OR" else all
    return [e for e in events if combine(_matches(e, f) for f in filters)]


def _wait_for_a_sidecar_evaluation(exporter: InMemorySpanExporter) -> ReadableSpan:
    """The first evaluation the sidecar wrote (polled; a generous bound, not a speed check)."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        for span in exporter.get_finished_spans():
            if (span.attributes or {}).get("gsar.source") == "sidecar":
                return span
        time.sleep(0.01)
    raise AssertionError("the sidecar judged no run")


@pytest.fixture(scope="module")
def events() -> Iterator[list[Event]]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    set_providers(tracer_provider=tracer_provider, meter_provider=meter_provider)
    sidecar = SidecarLoad(LexicalJudge(), tracer_provider=tracer_provider,
                          meter_provider=meter_provider)
    try:
        for cycle in range(3):
            workload.run_cycle(cycle, sidecar)
        # A span of a run the sidecar has judged: a late span, flagged at the latest at stop.
        judged = _wait_for_a_sidecar_evaluation(exporter)
        assert sidecar.post_late(f"{judged.context.trace_id:032x}") == 200
        assert sidecar.post_unanswered() == 200  # skipped: a gsar.sidecar.skipped span
        assert flush(timeout=30.0)
        sidecar.stop()  # judges what it holds and flags the late spans still gathering
        yield [e for span in exporter.get_finished_spans() for e in honeycomb_events(span)]
    finally:
        sidecar.stop()
        set_providers()
        tracer_provider.shutdown()
        meter_provider.shutdown()


@pytest.mark.parametrize("entry", BOARD["queries"], ids=lambda q: q["name"])
def test_honeycomb_query_selects_emitted_events_that_carry_its_columns(
    events: list[Event], entry: dict[str, Any]
) -> None:
    spec = entry["query"]
    selected = run_query(spec, events)
    assert selected, f"{entry['name']}: no emitted event passes {spec.get('filters')}"
    for column in honeycomb_columns(spec):
        assert any(column in e for e in selected), f"{entry['name']}: no event has {column}"


@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda t: t["alert"])
def test_honeycomb_trigger_computes_its_value_on_emitted_events(
    events: list[Event], trigger: dict[str, Any]
) -> None:
    spec = trigger["query"]
    selected = run_query(spec, events)
    assert selected, f"{trigger['name']}: no emitted event passes {spec.get('filters')}"
    fields = {f["name"]: honeycomb_calc.parse(f["expression"])
              for f in spec.get("calculated_fields", [])}
    for name, tree in fields.items():
        read = honeycomb_calc.columns(tree)
        assert any(read & e.keys() for e in selected), f"{name}: reads nothing emitted"
    plain = set(spec.get("breakdowns", [])) | {
        c["column"] for c in spec["calculations"] if "column" in c} - fields.keys()
    for column in plain:
        assert any(column in e for e in selected), f"{trigger['name']}: no event has {column}"
    values = honeycomb_calc.calculate(spec, selected)
    assert values and all(math.isfinite(v) for v in values.values()), values


def _trigger_values(events: list[Event], alert: str) -> dict[tuple[Any, ...], float]:
    (trigger,) = [t for t in TRIGGERS if t["alert"] == alert]
    return honeycomb_calc.calculate(trigger["query"], run_query(trigger["query"], events))


def test_the_share_triggers_measure_shares_the_workload_has(events: list[Event]) -> None:
    """The workload has every decision, degraded evaluations, failed judge rounds and a run the
    sidecar skipped among those it judged: each share trigger sees some, as a share in [0, 1]."""
    for alert in ("GsarProceedRateBelowFloor", "GsarEvaluationsDegraded", "GsarJudgeErrors",
                  "GsarSidecarRunsSkipped"):
        values = _trigger_values(events, alert).values()
        assert all(0 <= v <= 1 for v in values), (alert, values)
        assert any(v > 0 for v in values), (alert, values)
    assert any(0 < v < 1 for v in _trigger_values(events, "GsarProceedRateBelowFloor").values())
    # the agent's runs: judged ones and the one without an answer (fragments the sidecar still
    # holds at its stop, whatever the timing, are skipped under names of their own)
    skipped = _trigger_values(events, "GsarSidecarRunsSkipped")
    assert 0 < skipped[(SIDECAR_AGENT,)] < 1, skipped
    (count,) = _trigger_values(events, "GsarEvaluationsStopped").values()
    assert count >= 1, "the silence trigger stays quiet while evaluations flow"


def test_claim_events_hang_off_their_evaluation_span(events: list[Event]) -> None:
    spans = {e["trace.span_id"]: e for e in events if "trace.span_id" in e}
    claims = [e for e in events if e["name"] == "gsar.claim"]
    assert claims
    for claim in claims:
        parent = spans[claim["trace.parent_id"]]
        assert parent["name"].startswith("gsar.evaluate ")
        assert parent["trace.trace_id"] == claim["trace.trace_id"]


def test_the_filter_check_can_tell_a_wrong_column() -> None:
    spec = {"filters": [{"column": "name", "op": "=", "value": "gsar.claim"},
                        {"column": "gsar.claim.verdcit", "op": "exists"}]}
    claim = {"name": "gsar.claim", "gsar.claim.verdict": "grounded"}
    assert run_query(spec, [claim]) == []
