"""Reading the dashboards: Grafana panels and their PromQL, Honeycomb query specs, and the names
the code emits (derived from ``gsar_otel.semconv`` with the Prometheus exporter's rules)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import promql_parser

from gsar_otel import semconv

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = ROOT / "dashboards"
GRAFANA_FILES = sorted((DASHBOARDS / "grafana").glob("*.json"))
HONEYCOMB_FILES = sorted((DASHBOARDS / "honeycomb").glob("*-board.json"))
HONEYCOMB_TRIGGER_FILES = sorted((DASHBOARDS / "honeycomb").glob("*-triggers.json"))

SCORE_THRESHOLDS = (0.65, 0.8)

# --- what Prometheus and the exporter add to every series ---------------------------------------
PROMETHEUS_TARGET_LABELS = frozenset({"job", "instance"})
"""Added by Prometheus to every scraped series."""
HISTOGRAM_BUCKET_LABEL = "le"
EXPORTER_SCOPE_LABELS = frozenset(
    {"otel_scope_name", "otel_scope_version", "otel_scope_schema_url"}
)
"""Added by opentelemetry-exporter-prometheus (scope labels are on by default)."""

# --- the exporter's naming rules, mirrored (its ``_mapping`` module is private) ------------------
_INVALID_NAME_CHARS = re.compile(r"[^a-zA-Z0-9:]+")
_INVALID_LABEL_CHARS = re.compile(r"[^a-zA-Z0-9]+")
_UNIT_ANNOTATION = re.compile(r"{.*}")
_UNIT_SUFFIXES = {
    "d": "days", "h": "hours", "min": "minutes", "s": "seconds", "ms": "milliseconds",
    "us": "microseconds", "ns": "nanoseconds", "By": "bytes", "1": "", "%": "percent",
}


def prometheus_label(attribute: str) -> str:
    """The label an OTel attribute key becomes: every run of other characters turns into ``_``."""
    if attribute[:1].isdigit():
        attribute = "_" + attribute[1:]
    return _INVALID_LABEL_CHARS.sub("_", attribute)


def prometheus_unit_suffix(unit: str) -> str:
    """The name suffix a UCUM unit adds (``s`` -> ``seconds``; ``1`` and ``{token}`` -> none)."""
    unit = _UNIT_ANNOTATION.sub("", unit)
    if unit in _UNIT_SUFFIXES:
        return _UNIT_SUFFIXES[unit]
    return _INVALID_NAME_CHARS.sub("_", unit).strip("_")


def prometheus_family(name: str, unit: str) -> str:
    """The Prometheus family name of an OTel metric: sanitised, plus its unit suffix."""
    family = _INVALID_NAME_CHARS.sub("_", "_" + name[1:] if name[:1].isdigit() else name)
    suffix = prometheus_unit_suffix(unit)
    if suffix and not family.endswith("_" + suffix):
        family += "_" + suffix
    return family


def prometheus_series_names(name: str, unit: str, kind: str) -> frozenset[str]:
    """The sample names Prometheus stores for one OTel instrument (``counter``, ``histogram``, or
    ``gauge``: an up-down counter)."""
    family = prometheus_family(name, unit)
    if kind == "gauge":
        return frozenset({family})
    if kind == "counter":
        return frozenset({family.removesuffix("_total") + "_total"})
    if kind == "histogram":
        return frozenset({f"{family}_bucket", f"{family}_sum", f"{family}_count"})
    raise ValueError(f"kind must be 'counter', 'histogram' or 'gauge', not {kind!r}")


# --- names from semconv ---------------------------------------------------------------------------
_NOT_ATTRIBUTES = ("METRIC_", "SPAN_", "EVENT_", "ENV_")
_DOTTED = re.compile(r"^[a-z_]+(\.[a-z_]+)+$")


def semconv_metric_names() -> dict[str, str]:
    """``{constant: otel metric name}`` for every ``METRIC_*`` constant."""
    return {
        k: v for k, v in vars(semconv).items() if k.startswith("METRIC_") and isinstance(v, str)
    }


def semconv_attribute_names() -> frozenset[str]:
    """Every span/event/metric attribute key defined in semconv (dotted, not a span/metric name)."""
    return frozenset(
        value
        for constant, value in vars(semconv).items()
        if constant.isupper()
        and isinstance(value, str)
        and not constant.startswith(_NOT_ATTRIBUTES)
        and _DOTTED.match(value)
    )


def allowed_prometheus_labels() -> frozenset[str]:
    """Labels a query may use: semconv attributes as labels, plus what Prometheus and the
    exporter add."""
    return frozenset(
        {prometheus_label(a) for a in semconv_attribute_names()}
        | PROMETHEUS_TARGET_LABELS
        | EXPORTER_SCOPE_LABELS
        | {HISTOGRAM_BUCKET_LABEL}
    )


# --- Grafana --------------------------------------------------------------------------------------
def load_json(path: Path) -> Any:
    """Parse a dashboard file."""
    return json.loads(path.read_text(encoding="utf-8"))


def grafana_panels(dashboard: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel, including those nested in collapsed rows."""
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def query_panels(dashboard: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Panels that query data (everything but rows and text)."""
    return [p for p in grafana_panels(dashboard) if p.get("type") not in {"row", "text"}]


def grafana_targets(
    dashboard: Mapping[str, Any],
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``(panel, target)`` for every query target of every panel."""
    for panel in query_panels(dashboard):
        for target in panel.get("targets", []):
            yield panel, target


def template_variables(dashboard: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Template variables by name."""
    return {v["name"]: v for v in dashboard.get("templating", {}).get("list", [])}


_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")


def substitute(expr: str, values: Mapping[str, str]) -> str:
    """Replace Grafana variables (``$x``, ``${x}``, ``${x:fmt}``) with ``values``.

    Raises:
        KeyError: the expression uses a variable that ``values`` does not give.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in values:
            raise KeyError(f"variable ${name} in {expr!r} has no value; known: {sorted(values)}")
        return values[name]

    return _VARIABLE.sub(replace, expr)


_LABEL_VALUES = re.compile(r"^\s*label_values\(\s*(?P<selector>.+?)\s*,\s*(?P<label>\w+)\s*\)\s*$")


def label_values_query(variable: Mapping[str, Any]) -> tuple[str, str]:
    """``(series selector, label)`` of a ``label_values(selector, label)`` variable."""
    query = variable.get("query")
    text = query.get("query", "") if isinstance(query, dict) else str(query or "")
    match = _LABEL_VALUES.match(text)
    if match is None:
        raise ValueError(f"variable {variable.get('name')!r}: not a label_values() query: {text!r}")
    return match["selector"], match["label"]


# --- PromQL analysis ------------------------------------------------------------------------------
@dataclass
class PromQLUse:
    """What one PromQL expression reads: series names, and the labels it relies on per series."""

    metrics: set[str] = field(default_factory=set)
    labels: dict[str, set[str]] = field(default_factory=dict)
    """``{metric: labels}``: matcher labels, grouping labels, and legend labels of that metric."""
    quantiles_without_le: list[str] = field(default_factory=list)

    def all_labels(self) -> set[str]:
        """Every label used anywhere in the expression."""
        return set().union(*self.labels.values()) if self.labels else set()


def _selectors_under(node: Any) -> list[Any]:
    found: list[Any] = []

    def visit(child: Any) -> None:
        if isinstance(child, promql_parser.VectorSelector):
            found.append(child)

    promql_parser.walk(node, visit)
    return found


def _grouping_labels_under(node: Any) -> set[str]:
    labels: set[str] = set()

    def visit(child: Any) -> None:
        if isinstance(child, promql_parser.AggregateExpr) and child.modifier is not None:
            labels.update(child.modifier.labels)

    promql_parser.walk(node, visit)
    return labels


def analyse_promql(expr: str, *, legend_labels: set[str] | None = None) -> PromQLUse:
    """Parse ``expr`` (variables already substituted) with a real PromQL parser and list its uses.

    Raises:
        ValueError: the expression does not parse; the message quotes it.
    """
    try:
        tree = promql_parser.parse(expr)
    except Exception as error:
        raise ValueError(f"PromQL does not parse: {expr!r}: {error}") from error
    use = PromQLUse()

    def attach(node: Any, labels: set[str]) -> None:
        for selector in _selectors_under(node):
            if selector.name:
                use.labels.setdefault(selector.name, set()).update(labels)

    def visit(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            if selector_name := node.name:
                use.metrics.add(selector_name)
                matchers = list(node.matchers.matchers)
                for group in node.matchers.or_matchers:
                    matchers.extend(group)
                names = {m.name for m in matchers if m.name != "__name__"}
                use.labels.setdefault(selector_name, set()).update(names)
        elif isinstance(node, promql_parser.AggregateExpr) and node.modifier is not None:
            attach(node.expr, set(node.modifier.labels))
        elif isinstance(node, promql_parser.BinaryExpr) and node.modifier is not None:
            labels: set[str] = set()
            if node.modifier.matching is not None:
                labels.update(node.modifier.matching.labels)
            labels.update(getattr(node.modifier, "group_labels", None) or [])
            attach(node.lhs, labels)
            attach(node.rhs, labels)
        elif (
            isinstance(node, promql_parser.Call)
            and node.func.name == "histogram_quantile"
            and HISTOGRAM_BUCKET_LABEL not in _grouping_labels_under(node.args[1])
        ):
            use.quantiles_without_le.append(str(node))

    promql_parser.walk(tree, visit)
    if legend_labels:
        attach(tree, legend_labels)
    return use


_LEGEND_LABEL = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def legend_labels(target: Mapping[str, Any]) -> set[str]:
    """Labels a target's ``legendFormat`` prints (``{{gsar_decision}}``)."""
    return set(_LEGEND_LABEL.findall(str(target.get("legendFormat", ""))))


# --- Honeycomb ----------------------------------------------------------------------------------
HONEYCOMB_SPAN_FIELDS = frozenset({
    "name", "duration_ms", "trace.trace_id", "trace.span_id", "trace.parent_id",
    "service.name", "span.kind", "status_code", "error", "meta.annotation_type",
    "meta.signal_type",
})
"""Fields Honeycomb derives from every OTLP span or span event (not attributes of ours)."""


def honeycomb_columns(spec: Mapping[str, Any]) -> set[str]:
    """Every column a Query Specification reads (filters, breakdowns, calculations, orders,
    havings)."""
    columns: set[str] = set(spec.get("breakdowns", []))
    for key in ("filters", "calculations", "orders", "havings"):
        for item in spec.get(key, []):
            if item.get("column"):
                columns.add(item["column"])
    return columns
