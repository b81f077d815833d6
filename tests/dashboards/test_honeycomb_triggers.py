"""The Honeycomb triggers (``dashboards/honeycomb/gsar-alert-triggers.json``), offline: each is a
query Honeycomb accepts for a trigger, reads only names the code emits, mirrors one Prometheus
alert with the same threshold and links its runbook; the alerts without a trigger are exactly
those the spans cannot show. (``test_honeycomb_spans.py`` runs them over emitted spans;
``test_honeycomb_api.py`` checks what ``create_board.py`` sends.)
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.dashboards import honeycomb_calc
from tests.dashboards.queries import (
    DASHBOARDS,
    HONEYCOMB_SPAN_FIELDS,
    HONEYCOMB_TRIGGER_FILES,
    load_json,
    semconv_attribute_names,
)
from tests.dashboards.test_structure import CALCULATION_OPS, FILTER_OPS, QUERY_SPEC_KEYS

TRIGGERS: list[dict[str, Any]] = load_json(HONEYCOMB_TRIGGER_FILES[0])["triggers"]
RULES = yaml.safe_load((DASHBOARDS / "prometheus" / "gsar-alerts.yaml").read_text("utf-8"))
ALERTS = {rule["alert"]: rule for group in RULES["groups"] for rule in group["rules"]
          if "alert" in rule}
THRESHOLDS = {rule["record"]: float(rule["expr"].strip()[len("vector("):-1])
              for group in RULES["groups"] for rule in group["rules"]
              if rule.get("record", "").startswith("gsar:threshold:")}

METRICS_ONLY = {
    "GsarProceedRateBelowBaseline": "a trigger compares one value over at most a day",
    "GsarBackgroundEvaluationsDropped": "a dropped evaluation has no span",
    "GsarSidecarRunsDropped": "a dropped run has no verdict span",
    "GsarSidecarForwardFailing": "the spans that were not forwarded never arrive",
    "GsarSidecarVerdictsUndelivered": "the verdict spans that were not delivered never arrive",
    "GsarSidecarVerdictsLost": "the verdict spans that were lost never arrive",
    "GsarSidecarHeldBytesNearLimit": "memory is a metric",
}
"""Alerts no trigger can mirror, and why (docs/alerts.md says so)."""

SAME_THRESHOLD = {
    "GsarProceedRateBelowFloor": ("gsar:threshold:proceed_rate_floor", 1),
    "GsarContradictedClaims": ("gsar:threshold:contradicted_claims_per_evaluation", 1),
    "GsarUngroundedClaims": ("gsar:threshold:ungrounded_claims_per_evaluation", 1),
    "GsarEvaluationsDegraded": ("gsar:threshold:degraded_share", 1),
    "GsarJudgeErrors": ("gsar:threshold:judge_error_share", 1),
    "GsarJudgeLatencyHigh": ("gsar:threshold:judge_latency_p95_seconds", 1000),  # ms
    "GsarJudgeTokensOverBudget": ("gsar:threshold:judge_tokens_per_hour", 1),
    "GsarSidecarRunsSkipped": ("gsar:threshold:sidecar_skipped_share", 1),
}
"""``{alert: (its Prometheus threshold, the factor to the trigger's unit)}``."""

NOT_FOR_TRIGGERS = {"HEATMAP", "CONCURRENCY", "RATE_AVG", "RATE_SUM", "RATE_MAX"}
READABLE = semconv_attribute_names() | HONEYCOMB_SPAN_FIELDS


def _id(trigger: dict[str, Any]) -> str:
    return str(trigger["alert"])


def test_the_triggers_mirror_every_alert_the_spans_can_show() -> None:
    mirrored = [t["alert"] for t in TRIGGERS]
    assert len(mirrored) == len(set(mirrored))
    assert set(mirrored) | set(METRICS_ONLY) == set(ALERTS)
    assert not set(mirrored) & set(METRICS_ONLY)


@pytest.mark.parametrize("trigger", TRIGGERS, ids=_id)
def test_trigger_is_one_honeycomb_accepts(trigger: dict[str, Any]) -> None:
    assert 1 <= len(trigger["name"]) <= 120
    assert len(trigger["description"]) <= 1023
    spec = trigger["query"]
    assert set(spec) <= QUERY_SPEC_KEYS
    (calculation,) = spec["calculations"]
    assert calculation["op"] in CALCULATION_OPS - NOT_FOR_TRIGGERS
    for flt in spec.get("filters", []):
        assert flt["op"] in FILTER_OPS
    threshold = trigger["threshold"]
    assert threshold["op"] in {">", ">=", "<", "<="}
    assert isinstance(threshold["value"], int | float)
    assert 1 <= threshold.get("exceeded_limit", 1) <= 5
    frequency = trigger["frequency"]
    assert 60 <= frequency <= 86400 and frequency % 60 == 0
    assert 0 < spec["time_range"] <= min(86400, 4 * frequency), "at most 4 x the frequency"
    assert trigger["alert_type"] in {"on_change", "on_true"}


@pytest.mark.parametrize("trigger", TRIGGERS, ids=_id)
def test_trigger_reads_only_emitted_names(trigger: dict[str, Any]) -> None:
    spec = trigger["query"]
    fields = {f["name"]: honeycomb_calc.parse(f["expression"])
              for f in spec.get("calculated_fields", [])}
    assert not set(fields) & READABLE, "a calculated field must not shadow an attribute"
    for tree in fields.values():
        assert honeycomb_calc.columns(tree) <= READABLE
    read = {f["column"] for f in spec.get("filters", [])} | set(spec.get("breakdowns", []))
    read |= {c["column"] for c in spec["calculations"] if "column" in c}
    assert read - set(fields) <= READABLE, sorted(read - set(fields) - READABLE)


@pytest.mark.parametrize("trigger", TRIGGERS, ids=_id)
def test_trigger_links_its_runbook_and_keeps_the_alerts_threshold(
    trigger: dict[str, Any],
) -> None:
    alert = ALERTS[trigger["alert"]]
    assert trigger["description"].endswith(f"Runbook: {alert['annotations']['runbook_url']}")
    if trigger["alert"] in SAME_THRESHOLD:
        name, factor = SAME_THRESHOLD[trigger["alert"]]
        assert trigger["threshold"]["value"] == THRESHOLDS[name] * factor


def test_the_expression_reader_refuses_what_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="REG_MATCH is not known"):
        honeycomb_calc.parse('REG_MATCH($name, "gsar")')
    with pytest.raises(ValueError, match="trailing"):
        honeycomb_calc.parse("IF($a, 1, 0) 2")
    tree = honeycomb_calc.parse('IF(EQUALS($gsar.decision, "proceed"), 1, 0)')
    assert honeycomb_calc.columns(tree) == {"gsar.decision"}
    assert honeycomb_calc.evaluate(tree, {"gsar.decision": "proceed"}) == 1
    assert honeycomb_calc.evaluate(tree, {"gsar.decision": "replan"}) == 0
    total = honeycomb_calc.parse("SUM(COALESCE($a, 0), COALESCE($b, 0))")
    assert honeycomb_calc.evaluate(total, {"a": 3}) == 3


def test_the_calculation_groups_skips_nulls_and_takes_the_percentile() -> None:
    spec = {"calculated_fields": [{"name": "f", "expression": "IF(EXISTS($e), 1, 0)"}],
            "calculations": [{"op": "AVG", "column": "f"}], "breakdowns": ["g"]}
    events = [{"g": "a", "e": "x"}, {"g": "a"}, {"g": "a"}, {"g": "a"}, {"g": "b"}]
    assert honeycomb_calc.calculate(spec, events) == {("a",): 0.25, ("b",): 0.0}
    p95 = {"calculations": [{"op": "P95", "column": "d"}]}
    assert honeycomb_calc.calculate(p95, [{"d": float(v)} for v in range(1, 101)]) == {(): 95.0}
    avg = {"calculations": [{"op": "AVG", "column": "d"}]}
    assert honeycomb_calc.calculate(avg, [{"d": 1.0}, {"x": 1}, {"d": 3.0}]) == {(): 2.0}


def test_the_honeycomb_readme_lists_every_trigger_with_its_alert() -> None:
    readme = (DASHBOARDS / "honeycomb" / "README.md").read_text(encoding="utf-8")
    for trigger in TRIGGERS:
        alert = trigger["alert"]
        assert (f"| {trigger['name']} | [{alert}](../../docs/alerts.md#{alert.lower()}) |"
                in readme), trigger["name"]
