"""Every dashboard file loads, is well formed, and reads only names the code emits.

Expected Prometheus names are derived from ``gsar_otel.semconv`` (``METRIC_*`` and the attribute
constants) through the exporter's naming rules (mirrored in ``queries.py`` and checked against the
real exporter in ``test_exporter_names.py``), never from a second hand-kept list.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import semconv
from tests.dashboards.queries import (
    DASHBOARDS,
    GRAFANA_FILES,
    HONEYCOMB_FILES,
    HONEYCOMB_SPAN_FIELDS,
    SCORE_THRESHOLDS,
    allowed_prometheus_labels,
    analyse_promql,
    grafana_panels,
    grafana_targets,
    honeycomb_columns,
    label_values_query,
    legend_labels,
    load_json,
    prometheus_label,
    query_panels,
    semconv_attribute_names,
    substitute,
    template_variables,
)
from tests.dashboards.telemetry_names import emitted_series_names, series_name_of

# Values a Grafana user's browser would fill in; any syntactically valid value works for parsing.
STATIC_VARIABLES = {
    "datasource": "prometheus",
    "job": ".*",
    "function": ".*",
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "1h",
}

ALL_JSON = sorted(DASHBOARDS.rglob("*.json"))


def _target_id(item: tuple[dict[str, Any], dict[str, Any]]) -> str:
    panel, target = item
    return f"{panel['title']}/{target.get('refId')}"


GRAFANA_TARGETS = [item for path in GRAFANA_FILES for item in grafana_targets(load_json(path))]


def test_there_are_grafana_and_honeycomb_dashboards() -> None:
    assert [p.name for p in GRAFANA_FILES] == ["gsar-grounding.json"]
    assert HONEYCOMB_FILES, "dashboards/honeycomb/ has no board definition"


@pytest.mark.parametrize("path", ALL_JSON, ids=lambda p: str(Path(p).relative_to(DASHBOARDS)))
def test_every_dashboard_file_is_valid_json(path: Path) -> None:
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), dict)


# --- Grafana --------------------------------------------------------------------------------------
@pytest.fixture(params=GRAFANA_FILES, ids=lambda p: p.name)
def dashboard(request: pytest.FixtureRequest) -> dict[str, Any]:
    loaded: dict[str, Any] = load_json(request.param)
    return loaded


def test_grafana_dashboard_is_importable(dashboard: dict[str, Any]) -> None:
    assert dashboard["schemaVersion"] >= 39
    assert dashboard["id"] is None, "an exported dashboard must not carry a database id"
    assert dashboard["uid"] and dashboard["title"]
    required = {r["id"] for r in dashboard["__requires"]}
    used_types = {p["type"] for p in query_panels(dashboard)}
    assert {"grafana", "prometheus"} | used_types <= required


def test_grafana_datasource_is_a_prometheus_variable_used_by_every_panel(
    dashboard: dict[str, Any],
) -> None:
    variables = template_variables(dashboard)
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    expected = {"type": "prometheus", "uid": "${datasource}"}
    for panel in query_panels(dashboard):
        assert panel["datasource"] == expected, panel["title"]
        for target in panel["targets"]:
            assert target["datasource"] == expected, f"{panel['title']}/{target['refId']}"
    for name in ("job", "function"):
        assert variables[name]["datasource"] == expected


def test_grafana_function_variable_lists_the_functions_that_were_judged(
    dashboard: dict[str, Any],
) -> None:
    function = template_variables(dashboard)["function"]
    selector, label = label_values_query(function)
    assert label == prometheus_label(semconv.GSAR_FUNCTION)
    assert series_name_of(semconv.METRIC_DECISIONS) in selector
    assert function["type"] == "query"
    assert function["multi"] and function["includeAll"]
    assert function["allValue"] == ".*", "All must also match series that lack the label"


@pytest.mark.parametrize("name", ["job", "function"])
def test_grafana_variable_queries_use_emitted_metrics_and_labels(
    dashboard: dict[str, Any], name: str
) -> None:
    variable = template_variables(dashboard)[name]
    selector, label = label_values_query(variable)
    use = analyse_promql(substitute(selector, STATIC_VARIABLES))
    assert use.metrics <= emitted_series_names()
    assert label in allowed_prometheus_labels()
    assert use.all_labels() <= allowed_prometheus_labels()


def test_grafana_panels_have_unique_ids_titles_and_targets(dashboard: dict[str, Any]) -> None:
    panels = list(grafana_panels(dashboard))
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), f"duplicate panel ids: {ids}"
    titles = [p["title"] for p in query_panels(dashboard)]
    assert all(t.strip() for t in titles)
    assert len(titles) == len(set(titles)), "titles must be unique (the README table uses them)"
    for panel in query_panels(dashboard):
        assert panel.get("description"), f"{panel['title']}: say what the panel shows"
        targets = panel["targets"]
        assert targets, f"{panel['title']} has no query"
        ref_ids = [t["refId"] for t in targets]
        assert len(ref_ids) == len(set(ref_ids)), panel["title"]
        assert all(t["expr"].strip() for t in targets)


def test_grafana_panels_fit_the_grid_without_overlapping(dashboard: dict[str, Any]) -> None:
    boxes = []
    for panel in grafana_panels(dashboard):
        pos = panel["gridPos"]
        assert pos["x"] >= 0 and pos["x"] + pos["w"] <= 24, panel["title"]
        boxes.append((panel["title"], pos["x"], pos["y"], pos["x"] + pos["w"], pos["y"] + pos["h"]))
    for (a, ax0, ay0, ax1, ay1), (b, bx0, by0, bx1, by1) in combinations(boxes, 2):
        overlap = ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
        assert not overlap, f"panels {a!r} and {b!r} overlap"


def _shows_score(panel: dict[str, Any]) -> bool:
    """A panel whose values are scores S (not a share of evaluations, which is a percentage)."""
    score = series_name_of(semconv.METRIC_SCORE).removesuffix("_bucket")
    reads_score = any(score in t["expr"] for t in panel["targets"])
    return reads_score and panel["fieldConfig"]["defaults"].get("unit") != "percentunit"


def test_score_panels_draw_the_0_65_and_0_80_thresholds(dashboard: dict[str, Any]) -> None:
    score_panels = [p for p in query_panels(dashboard) if _shows_score(p)]
    assert len(score_panels) >= 3
    for panel in score_panels:
        steps = panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
        values = {s["value"] for s in steps}
        assert set(SCORE_THRESHOLDS) <= values, f"{panel['title']}: steps {sorted(values, key=str)}"
        if panel["type"] == "timeseries":
            style = panel["fieldConfig"]["defaults"]["custom"]["thresholdsStyle"]["mode"]
            assert style != "off", f"{panel['title']} must draw its thresholds"


def test_grafana_dashboard_has_every_panel_the_issue_asks_for(dashboard: dict[str, Any]) -> None:
    panels = {p["title"]: p for p in query_panels(dashboard)}
    exprs = {title: " ".join(t["expr"] for t in p["targets"]) for title, p in panels.items()}
    score_bucket = series_name_of(semconv.METRIC_SCORE)
    duration_bucket = series_name_of(semconv.METRIC_JUDGE_DURATION)

    heatmaps = [t for t, p in panels.items() if p["type"] == "heatmap" and score_bucket in exprs[t]]
    assert heatmaps, "score distribution heatmap"
    assert all(
        any(t.get("format") == "heatmap" for t in panels[h]["targets"]) for h in heatmaps
    )
    quantiles = [t for t, e in exprs.items() if "histogram_quantile" in e and score_bucket in e]
    assert any(all(f"histogram_quantile({q}," in exprs[t] for q in (0.1, 0.5, 0.9))
               for t in quantiles), "score p10/p50/p90"
    assert any(all(f"histogram_quantile({q}," in e for q in (0.5, 0.95))
               for e in exprs.values() if duration_bucket in e), "judge latency p50/p95"

    def panel_grouping(metric: str, label: str) -> bool:
        name = series_name_of(metric)
        return any(name in e and label in e for e in exprs.values())

    decision = prometheus_label(semconv.GSAR_DECISION)
    function = prometheus_label(semconv.GSAR_FUNCTION)
    assert any(series_name_of(semconv.METRIC_DECISIONS) in e and decision in e and function in e
               and "* 60" in e for e in exprs.values()), "decisions/minute by decision, function"
    assert any(p["type"] == "piechart" and decision in exprs[t] for t, p in panels.items()), "share"
    assert panel_grouping(semconv.METRIC_CLAIMS, prometheus_label(semconv.GSAR_CLAIM_VERDICT))
    assert panel_grouping(semconv.METRIC_CLAIMS, prometheus_label(semconv.GSAR_CLAIM_EVIDENCE_TYPE))
    assert panel_grouping(semconv.METRIC_JUDGE_ERRORS, prometheus_label(semconv.ERROR_TYPE))
    assert panel_grouping(semconv.METRIC_JUDGE_TOKENS, prometheus_label(semconv.GSAR_TOKEN_TYPE))
    assert panel_grouping(semconv.METRIC_EVALUATIONS_DEGRADED, "")
    assert panel_grouping(semconv.METRIC_BACKGROUND_DROPPED, "")


def test_grafana_dashboard_charts_every_metric_the_code_emits(dashboard: dict[str, Any]) -> None:
    used: set[str] = set()
    for _, target in grafana_targets(dashboard):
        used |= analyse_promql(substitute(target["expr"], STATIC_VARIABLES)).metrics
    for constant, name in sorted(semconv_metric_names_items()):
        assert series_name_of(name) in used or _family_used(name, used), f"{constant} ({name})"


def semconv_metric_names_items() -> list[tuple[str, str]]:
    return [(k, v) for k, v in vars(semconv).items() if k.startswith("METRIC_")]


def _family_used(name: str, used: set[str]) -> bool:
    return bool(emitted_series_names(only=name) & used)


@pytest.mark.parametrize("item", GRAFANA_TARGETS, ids=_target_id)
def test_grafana_query_parses_and_reads_only_emitted_metrics_and_labels(
    item: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    panel, target = item
    use = analyse_promql(
        substitute(target["expr"], STATIC_VARIABLES), legend_labels=legend_labels(target)
    )
    assert use.metrics, f"{panel['title']}: the query reads no metric"
    unknown = use.metrics - emitted_series_names()
    assert not unknown, f"{panel['title']}: not emitted: {sorted(unknown)}"
    bad_labels = use.all_labels() - allowed_prometheus_labels()
    assert not bad_labels, f"{panel['title']}: labels nobody emits: {sorted(bad_labels)}"
    assert not use.quantiles_without_le, f"{panel['title']}: histogram_quantile needs `by (le)`"


def test_the_promql_analysis_catches_a_misspelt_label_and_metric() -> None:
    use = analyse_promql('sum by (gsar_decison) (rate(gsar_decision_total{job="x"}[1m]))')
    assert use.metrics - emitted_series_names() == {"gsar_decision_total"}
    assert use.all_labels() - allowed_prometheus_labels() == {"gsar_decison"}
    no_le = analyse_promql("histogram_quantile(0.5, sum(rate(gsar_score_bucket[1m])))")
    assert no_le.quantiles_without_le
    with pytest.raises(ValueError, match="does not parse"):
        analyse_promql("sum by (gsar_decision (rate(gsar_decisions_total[1m]))")
    with pytest.raises(KeyError, match=r"\$nope"):
        substitute("rate(x[$nope])", STATIC_VARIABLES)


# --- Honeycomb ------------------------------------------------------------------------------------
QUERY_SPEC_KEYS = {
    "breakdowns", "calculations", "filters", "filter_combination", "granularity", "orders",
    "limit", "time_range", "start_time", "end_time", "havings", "calculated_fields",
}
CALCULATION_OPS = {
    "COUNT", "CONCURRENCY", "SUM", "AVG", "COUNT_DISTINCT", "MAX", "MIN", "P001", "P01", "P05",
    "P10", "P20", "P25", "P50", "P75", "P80", "P90", "P95", "P99", "P999", "HEATMAP", "RATE_AVG",
    "RATE_SUM", "RATE_MAX",
}
FILTER_OPS = {
    "=", "!=", ">", ">=", "<", "<=", "starts-with", "does-not-start-with", "ends-with",
    "does-not-end-with", "exists", "does-not-exist", "contains", "does-not-contain", "in",
    "not-in",
}
QUERY_STYLES = {"graph", "table", "combo"}


@pytest.fixture(params=HONEYCOMB_FILES, ids=lambda p: p.name)
def board(request: pytest.FixtureRequest) -> dict[str, Any]:
    loaded: dict[str, Any] = load_json(request.param)
    return loaded


def test_honeycomb_board_is_a_flexible_board_of_named_queries(board: dict[str, Any]) -> None:
    assert board["board"]["name"] and board["board"]["type"] == "flexible"
    names = [q["name"] for q in board["queries"]]
    assert len(names) == len(set(names))
    for entry in board["queries"]:
        assert entry["description"], entry["name"]
        assert entry.get("query_style", "graph") in QUERY_STYLES
        position = entry["position"]
        assert set(position) == {"x_coordinate", "y_coordinate", "width", "height"}
        assert position["x_coordinate"] + position["width"] <= 12, entry["name"]


def test_honeycomb_queries_follow_the_query_specification(board: dict[str, Any]) -> None:
    for entry in board["queries"]:
        spec, name = entry["query"], entry["name"]
        assert set(spec) <= QUERY_SPEC_KEYS, f"{name}: unknown keys {set(spec) - QUERY_SPEC_KEYS}"
        assert spec["calculations"], name
        for calc in spec["calculations"]:
            assert calc["op"] in CALCULATION_OPS, f"{name}: {calc}"
            needs_column = calc["op"] not in {"COUNT", "CONCURRENCY"}
            assert ("column" in calc) == needs_column, f"{name}: {calc}"
        for flt in spec.get("filters", []):
            assert flt["op"] in FILTER_OPS, f"{name}: {flt}"
            needs_value = flt["op"] not in {"exists", "does-not-exist"}
            assert ("value" in flt) == needs_value, f"{name}: {flt}"
        assert spec.get("filter_combination", "AND") in {"AND", "OR"}
        calcs = {(c["op"], c.get("column")) for c in spec["calculations"]}
        for order in spec.get("orders", []):
            assert order.get("order", "ascending") in {"ascending", "descending"}
            in_calcs = "op" in order and (order["op"], order.get("column")) in calcs
            in_breakdowns = "op" not in order and order.get("column") in spec.get("breakdowns", [])
            assert in_calcs or in_breakdowns, f"{name}: order {order} matches no calc/breakdown"
        assert isinstance(spec["time_range"], int) and spec["time_range"] > 0
        assert 1 <= spec.get("limit", 100) <= 10_000


def test_honeycomb_queries_read_only_semconv_attributes_and_span_fields(
    board: dict[str, Any],
) -> None:
    allowed = semconv_attribute_names() | HONEYCOMB_SPAN_FIELDS
    for entry in board["queries"]:
        unknown = honeycomb_columns(entry["query"]) - allowed
        assert not unknown, f"{entry['name']}: {sorted(unknown)}: not semconv, not a span field"


def test_honeycomb_span_name_filters_use_semconv_names(board: dict[str, Any]) -> None:
    names = {semconv.SPAN_EVALUATE, semconv.SPAN_JUDGE, semconv.EVENT_CLAIM,
             semconv.SPAN_SIDECAR_LATE}
    for entry in board["queries"]:
        for flt in entry["query"].get("filters", []):
            if flt["column"] == "name":
                assert flt["value"] in names, f"{entry['name']}: {flt}"


def _find(
    board: dict[str, Any], *, calc: tuple[str, str | None], name: str
) -> list[dict[str, Any]]:
    found = []
    for entry in board["queries"]:
        spec = entry["query"]
        calcs = {(c["op"], c.get("column")) for c in spec["calculations"]}
        names = {f["value"] for f in spec.get("filters", []) if f["column"] == "name"}
        if calc in calcs and name in names:
            found.append(spec)
    return found


def test_honeycomb_board_has_every_query_the_issue_asks_for(board: dict[str, Any]) -> None:
    assert _find(board, calc=("HEATMAP", semconv.GSAR_SCORE), name=semconv.SPAN_EVALUATE)
    decisions = _find(board, calc=("COUNT", None), name=semconv.SPAN_EVALUATE)
    assert any(semconv.GSAR_DECISION in q.get("breakdowns", []) for q in decisions)
    claims = _find(board, calc=("COUNT", None), name=semconv.EVENT_CLAIM)
    assert any({semconv.GSAR_CLAIM_VERDICT, semconv.GSAR_CLAIM_EVIDENCE_TYPE}
               <= set(q.get("breakdowns", [])) for q in claims)
    slow = _find(board, calc=("P95", "duration_ms"), name=semconv.SPAN_JUDGE)
    assert any(o.get("op") == "P95" and o.get("order") == "descending"
               for q in slow for o in q.get("orders", []))


# --- README ---------------------------------------------------------------------------------------
def test_readme_panel_table_names_every_grafana_panel_and_honeycomb_query() -> None:
    readme = (DASHBOARDS / "README.md").read_text(encoding="utf-8")
    for path in GRAFANA_FILES:
        for panel in query_panels(load_json(path)):
            assert f"| {panel['title']} |" in readme, panel["title"]
    for path in HONEYCOMB_FILES:
        for entry in load_json(path)["queries"]:
            assert f"| {entry['name']} |" in readme, entry["name"]
