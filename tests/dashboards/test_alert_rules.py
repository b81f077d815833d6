"""The Prometheus alerting rules (``dashboards/prometheus/gsar-alerts.yaml``): ``promtool check
rules`` accepts them, their unit tests (``tests/dashboards/alerts/*.test.yaml``, synthetic series
run by ``promtool test rules``) pass and would fail on a wrong rule, every alert has a case where
it fires and one where it stays quiet, every series they read is one the code emits, and every
alert's runbook is a section of ``docs/alerts.md``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gsar_otel.sidecar.output import exporters as verdicts
from gsar_otel.sidecar.output import forward
from gsar_otel.sidecar.output.stats import SidecarStats
from gsar_otel.sidecar.settings import BY_KEY
from tests.dashboards.queries import (
    DASHBOARDS,
    GRAFANA_FILES,
    ROOT,
    allowed_prometheus_labels,
    analyse_promql,
    grafana_targets,
    load_json,
    query_panels,
    substitute,
)
from tests.dashboards.telemetry_names import emitted_series_names
from tests.dashboards.test_structure import STATIC_VARIABLES
from tests.support.servers import unavailable

RULES_FILE = DASHBOARDS / "prometheus" / "gsar-alerts.yaml"
UNIT_TESTS = sorted((Path(__file__).parent / "alerts").glob("*.test.yaml"))
ALERTS_DOC = ROOT / "docs" / "alerts.md"
RUNBOOK_PAGE = "https://gsar-otel.example/alerts.html"
"""Where the rules and the Grafana panels point (docs/alerts.md on the built site); a user
replaces the prefix by where they serve the docs."""
SEVERITIES = {"critical", "warning"}
PROMETHEUS_SERIES = frozenset({"up"})
"""Series Prometheus itself writes for every target (read to tell a new counter from one seen
for the first time)."""
THRESHOLD_PREFIX = "gsar:threshold:"
NO_PANEL = {"GsarSidecarVerdictsUndelivered", "GsarSidecarVerdictsLost"}
"""Alerts on series only the sidecar's own page serves, which no panel charts (docs/alerts.md
says so)."""
PROMTOOL_ENV = "GSAR_PROMTOOL_BINARY"


def promtool() -> str:
    """The promtool binary (Debian's ``prometheus`` package ships it), or skip (fail on CI)."""
    configured = os.environ.get(PROMTOOL_ENV, "").strip()
    found = configured or shutil.which("promtool") or "/usr/bin/promtool"
    if not os.access(found, os.X_OK):
        unavailable("promtool is not installed (Debian package `prometheus`; "
                    "`make setup-servers` installs it)")
    return found


def run_promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool(), *args], capture_output=True, text=True, timeout=300)


@functools.cache
def rule_groups() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(RULES_FILE.read_text(encoding="utf-8"))
    groups: list[dict[str, Any]] = loaded["groups"]
    return groups


def all_rules() -> list[dict[str, Any]]:
    return [rule for group in rule_groups() for rule in group["rules"]]


def alerts() -> list[dict[str, Any]]:
    return [rule for rule in all_rules() if "alert" in rule]


def recorded() -> dict[str, str]:
    """``{recording rule name: its expression}``."""
    return {rule["record"]: rule["expr"] for rule in all_rules() if "record" in rule}


def thresholds() -> dict[str, float]:
    """``{threshold name: value}``: each threshold rule is one ``vector(<number>)``."""
    found = {}
    for name, expr in recorded().items():
        if name.startswith(THRESHOLD_PREFIX):
            match = re.fullmatch(r"\s*vector\(([-+0-9.e]+)\)\s*", expr)
            assert match, f"{name}: a threshold is one constant, vector(<number>), not {expr!r}"
            found[name] = float(match.group(1))
    return found


@functools.cache
def sidecar_page_series() -> frozenset[str]:
    """The series ``gsar sidecar``'s own ``/metrics`` page serves beyond the instruments' ones:
    its forwarding and verdict delivery counts, named by the constants the code counts under and
    rendered by the page itself."""
    stats = SidecarStats()
    for name in (forward.FORWARD_DROPPED, verdicts.UNDELIVERED, verdicts.RETRIED,
                 verdicts.DROPPED):
        stats.note(name, "some_reason")
    return frozenset(sample.name for family in text_string_to_metric_families(
        stats.prometheus_text()) for sample in family.samples)


def unit_tests() -> list[dict[str, Any]]:
    """Every ``alert_rule_test`` entry of every unit test file."""
    entries = []
    for path in UNIT_TESTS:
        for group in yaml.safe_load(path.read_text(encoding="utf-8"))["tests"]:
            entries.extend(group.get("alert_rule_test", []))
    return entries


def doc_sections() -> set[str]:
    """The level-2 headings of docs/alerts.md."""
    text = ALERTS_DOC.read_text(encoding="utf-8")
    return set(re.findall(r"^## (.+?)\s*$", text, re.M))


def anchor(heading: str) -> str:
    """The id MkDocs' table of contents gives a heading of one word (lower case)."""
    return re.sub(r"[^\w-]", "", heading.strip().lower())


# --- promtool -------------------------------------------------------------------------------------
def test_promtool_accepts_the_rules() -> None:
    result = run_promtool("check", "rules", str(RULES_FILE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(all_rules())} rules found" in result.stdout


def test_there_are_unit_tests() -> None:
    assert [p.name for p in UNIT_TESTS] == sorted(
        ["proceed.test.yaml", "claims.test.yaml", "judge.test.yaml", "drops.test.yaml",
         "stopped.test.yaml"])


@pytest.mark.parametrize("path", UNIT_TESTS, ids=lambda p: p.name)
def test_the_rules_pass_their_unit_tests(path: Path) -> None:
    rule_files = yaml.safe_load(path.read_text(encoding="utf-8"))["rule_files"]
    assert [(path.parent / f).resolve() for f in rule_files] == [RULES_FILE]
    result = run_promtool("test", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def _replace(old: str, new: str) -> Callable[[str], str]:
    def mutate(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return mutate


MUTATIONS = {
    # a threshold one step off: the exact firing cases no longer hold
    "contradicted budget raised": (
        "claims.test.yaml",
        _replace("contradicted_claims_per_evaluation\n        expr: vector(0.1)",
                 "contradicted_claims_per_evaluation\n        expr: vector(0.3)")),
    # increase() alone misses a counter series that appears with its first count
    "first count of a new series missed": (
        "drops.test.yaml",
        _replace("gsar_background_dropped_total unless gsar_background_dropped_total offset 15m",
                 "gsar_background_dropped_total unless gsar_background_dropped_total")),
    # without the `up offset 15m` guard, a Prometheus that just started pages on old counts
    "cold start pages": (
        "drops.test.yaml",
        _replace("gsar_background_dropped_total offset 15m)\n"
                 "            and on (job) (up offset 15m))",
                 "gsar_background_dropped_total offset 15m))")),
    # a function that never proceeded has no proceed series: without `or 0 * ...` it never pages
    "never-proceeding function unseen": (
        "proceed.test.yaml",
        _replace("          or\n          0 * sum by (job, gsar_function) "
                 "(rate(gsar_decisions_total[1h]))\n", "")),
    # a shorter `for:` fires while the test expects the alert still pending
    "for shortened": (
        "judge.test.yaml",
        _replace("gsar:threshold:judge_error_share)\n        for: 15m",
                 "gsar:threshold:judge_error_share)\n        for: 5m")),
    # the skipped share must leave the sampled-out runs out of the runs to judge
    "sampled-out runs counted": (
        "drops.test.yaml",
        _replace('rate(gsar_sidecar_runs_total{gsar_sidecar_reason!~"filtered|sampled_out"}[1h]))',
                 "rate(gsar_sidecar_runs_total[1h]))")),
    # a grouping label dropped changes the alert's labels
    "reason label lost": (
        "claims.test.yaml",
        _replace("sum by (job, gsar_function, gsar_degraded_reason) (rate(",
                 "sum by (job, gsar_function) (rate(")),
    # the silence alert must also fire for a process that is gone
    "vanished series ignored": (
        "stopped.test.yaml",
        _replace("unless on (job, gsar_function)\n          gsar:evaluations:rate1h > 0",
                 "and on (job, gsar_function)\n          gsar:evaluations:rate1h == 0")),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_the_unit_tests_fail_on_a_wrong_rule(mutation: str, tmp_path: Path) -> None:
    test_name, mutate = MUTATIONS[mutation]
    rules = tmp_path / "dashboards" / "prometheus" / RULES_FILE.name
    rules.parent.mkdir(parents=True)
    mutated = mutate(RULES_FILE.read_text(encoding="utf-8"))
    rules.write_text(mutated, encoding="utf-8")
    assert run_promtool("check", "rules", str(rules)).returncode == 0, "the mutant must load"
    test_file = tmp_path / "tests" / "dashboards" / "alerts" / test_name
    test_file.parent.mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "alerts" / test_name, test_file)
    result = run_promtool("test", "rules", str(test_file))
    assert result.returncode != 0, f"{mutation}: the unit tests still pass"
    assert "FAILED" in result.stdout + result.stderr


# --- what the unit tests cover --------------------------------------------------------------------
@pytest.mark.parametrize("alert", [a["alert"] for a in alerts()])
def test_every_alert_is_tested_firing_and_quiet(alert: str) -> None:
    cases = [entry for entry in unit_tests() if entry["alertname"] == alert]
    firing = [c for c in cases if c.get("exp_alerts")]
    assert firing, f"{alert}: no case where it fires"
    assert any(not c.get("exp_alerts") for c in cases), f"{alert}: no case where it stays quiet"
    rule = next(a for a in alerts() if a["alert"] == alert)
    for case in firing:
        for expected in case["exp_alerts"]:
            assert expected["exp_labels"]["severity"] == rule["labels"]["severity"]
            assert set(expected["exp_annotations"]) == {"summary", "description", "runbook_url"}


def test_unit_tests_name_only_alerts_that_exist() -> None:
    names = {a["alert"] for a in alerts()}
    assert {entry["alertname"] for entry in unit_tests()} <= names


# --- the rules themselves -------------------------------------------------------------------------
def test_every_alert_has_for_severity_summary_description_and_runbook() -> None:
    names = [a["alert"] for a in alerts()]
    assert len(names) == len(set(names))
    for rule in alerts():
        name = rule["alert"]
        assert re.fullmatch(r"Gsar[A-Z][A-Za-z]+", name), name
        assert re.fullmatch(r"\d+[smh]", str(rule["for"])), f"{name}: for: {rule.get('for')}"
        assert rule["labels"] == {"severity": rule["labels"]["severity"]}
        assert rule["labels"]["severity"] in SEVERITIES, name
        annotations = rule["annotations"]
        assert set(annotations) == {"summary", "description", "runbook_url"}, name
        assert annotations["summary"].strip() and annotations["description"].strip(), name
        assert annotations["runbook_url"] == f"{RUNBOOK_PAGE}#{anchor(name)}", name


def test_every_runbook_url_is_a_section_of_docs_alerts() -> None:
    sections = doc_sections()
    anchors = {anchor(s) for s in sections}
    for rule in alerts():
        page, _, target = rule["annotations"]["runbook_url"].partition("#")
        assert page == RUNBOOK_PAGE
        assert target in anchors, f"{rule['alert']}: docs/alerts.md has no section #{target}"
    alert_names = {a["alert"] for a in alerts()}
    runbooks = {s for s in sections if s.startswith("Gsar")}
    assert runbooks == alert_names, "one runbook section per alert, and no runbook without one"


def test_every_series_the_rules_read_is_emitted_and_every_label_is_known() -> None:
    emitted = emitted_series_names() | sidecar_page_series() | PROMETHEUS_SERIES
    records = recorded()
    read: set[str] = set()
    for rule in all_rules():
        use = analyse_promql(rule["expr"])
        read |= use.metrics
        raw = {m for m in use.metrics if ":" not in m}
        name = rule.get("alert") or rule["record"]
        assert raw <= emitted, f"{name}: not emitted: {raw - emitted}"
        unknown = {m for m in use.metrics if ":" in m} - records.keys()
        assert not unknown, f"{name}: no such recording rule: {unknown}"
        bad = use.all_labels() - allowed_prometheus_labels()
        assert not bad, f"{name}: labels nobody emits: {bad}"
    assert records.keys() <= read, f"recorded but never read: {records.keys() - read}"


def test_the_rules_read_the_sidecar_pages_delivery_counts() -> None:
    """The names checked above include the sidecar page's own series; the rules use them."""
    text = RULES_FILE.read_text(encoding="utf-8")
    for name in ("gsar_sidecar_verdicts_undelivered_total", "gsar_sidecar_verdicts_dropped_total"):
        assert name in sidecar_page_series()
        assert name in text


def test_the_name_check_catches_a_misspelt_series() -> None:
    emitted = emitted_series_names() | sidecar_page_series()
    use = analyse_promql("increase(gsar_sidecar_verdicts_undeliverd_total[15m]) > 0")
    assert use.metrics - emitted == {"gsar_sidecar_verdicts_undeliverd_total"}


def test_thresholds_are_constants_each_alert_reads() -> None:
    found = thresholds()
    assert len(found) >= 10
    exprs = " ".join(a["expr"] for a in alerts()) + " ".join(recorded().values())
    for name in found:
        assert f"scalar({name})" in exprs, f"{name} is read by no alert"
    for rule in alerts():
        numbers = re.findall(r"(?<![\w:.\[])\d+(?:\.\d+)?(?![\w\]])", rule["expr"])
        assert set(numbers) <= {"0", "3600"}, (
            f"{rule['alert']}: a threshold written in the alert ({numbers}); "
            "make it a gsar:threshold: rule")


def test_the_held_bytes_limit_is_the_sidecars_default() -> None:
    assert thresholds()[f"{THRESHOLD_PREFIX}sidecar_max_held_bytes"] == BY_KEY[
        "max_held_bytes"].default


def test_docs_list_every_threshold_with_its_value() -> None:
    text = ALERTS_DOC.read_text(encoding="utf-8")
    for name, value in thresholds().items():
        row = re.search(rf"^\| `{re.escape(name)}` \| `([^`]+)` \|", text, re.M)
        assert row, f"docs/alerts.md: no row for {name}"
        assert float(row.group(1)) == value, f"{name}: docs say {row.group(1)}, the rule {value}"


# --- Grafana --------------------------------------------------------------------------------------
def raw_series(expr: str) -> set[str]:
    """The emitted series an expression reads, through the recording rules it reads."""
    found: set[str] = set()
    for name in analyse_promql(expr).metrics:
        found |= raw_series(recorded()[name]) if ":" in name else {name}
    return found


def panel_links() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(panel, link) for path in GRAFANA_FILES for panel in query_panels(load_json(path))
            for link in panel.get("links", [])]


def test_grafana_panels_link_the_runbooks_of_the_alerts_on_what_they_chart() -> None:
    by_anchor = {anchor(a["alert"]): a for a in alerts()}
    linked: set[str] = set()
    for panel, link in panel_links():
        page, _, target = link["url"].partition("#")
        assert page == RUNBOOK_PAGE and target in by_anchor, f"{panel['title']}: {link['url']}"
        alert = by_anchor[target]
        assert link["title"] == f"Runbook: {alert['alert']}"
        assert link.get("targetBlank") is True
        charted: set[str] = set()
        for _, target_ in grafana_targets({"panels": [panel]}):
            charted |= analyse_promql(substitute(target_["expr"], STATIC_VARIABLES)).metrics
        assert charted & raw_series(alert["expr"]), (
            f"{panel['title']} charts none of the series {alert['alert']} reads")
        linked.add(alert["alert"])
    assert linked == {a["alert"] for a in alerts()} - NO_PANEL
    assert NO_PANEL.isdisjoint(linked)


def test_the_grafana_dashboard_links_the_alerts_page() -> None:
    for path in GRAFANA_FILES:
        links = load_json(path)["links"]
        assert any(link["url"] == RUNBOOK_PAGE for link in links), path.name


def test_docs_say_which_alerts_no_panel_charts() -> None:
    text = ALERTS_DOC.read_text(encoding="utf-8")
    for alert in NO_PANEL:
        section = text.split(f"## {alert}\n", 1)[1].split("\n## ", 1)[0]
        assert "No panel charts" in section, alert
