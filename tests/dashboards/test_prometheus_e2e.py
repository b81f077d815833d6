"""Every Grafana panel query returns data from a real Prometheus scraping a real judged workload.

A subprocess (``tests/dashboards/workload.py``) runs ``@grounded`` calls with every outcome and
serves its metrics through ``configure_telemetry(prometheus_port=...)``; Prometheus
(``/usr/bin/prometheus``) scrapes it every second, and ``gsar demo --prometheus-port`` beside
it. Each panel query then runs, with Grafana's variables filled in, through ``/api/v1/query`` and
``/api/v1/query_range``; the alerting rules (``dashboards/prometheus/gsar-alerts.yaml``) are
evaluated on the same series.
"""

from __future__ import annotations

import math
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from gsar_otel import semconv
from tests.dashboards.queries import (
    DASHBOARDS,
    GRAFANA_FILES,
    ROOT,
    analyse_promql,
    grafana_targets,
    label_values_query,
    legend_labels,
    load_json,
    prometheus_label,
    substitute,
    template_variables,
)
from tests.dashboards.sidecar_load import SIDECAR_AGENT
from tests.dashboards.telemetry_names import emitted_series_names, series_name_of
from tests.support.prometheus import (
    PrometheusFactory,
    PrometheusServer,
    has_real_data,
    prometheus_binary,
    prometheus_factory,
)
from tests.support.servers import free_port, stop_process, unavailable

__all__ = ["prometheus_factory"]  # the fixture, imported so pytest finds it

pytestmark = pytest.mark.e2e

JOB = "gsar-workload"
DEMO_JOB = "gsar-demo"
DEMO_REPEAT = 20
WORKLOAD_FUNCTIONS = {
    "triage_incident", "frame_incident", "summarise_alerts", "explain_outage", "lookup_runbook",
    "digest_in_background", "tier_incident", "believe_incident", SIDECAR_AGENT,
}
SCRAPES_UNDER_LOAD = 6
"""Scrapes to wait for while the workload runs, so every rate() window has several samples."""
RATE_INTERVAL = "4s"
"""Grafana's $__rate_interval for a 1 s scrape interval: max($__interval + 1s, 4 x 1s)."""

DASHBOARD = load_json(GRAFANA_FILES[0])
ALERT_RULES = DASHBOARDS / "prometheus" / "gsar-alerts.yaml"
TARGETS = list(grafana_targets(DASHBOARD))


@dataclass(frozen=True)
class Scraped:
    """Prometheus after it scraped the workload, and when the load ran."""

    prometheus: PrometheusServer
    start: float
    load_stopped: float
    end: float
    cycles: int
    demo_exit: int | None


class _Lines:
    """Reads a subprocess's stdout on a thread, so the test can wait for a line with a timeout."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line.strip())

    def expect(self, prefix: str, timeout_s: float, log: Path) -> str:
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line.startswith(prefix):
                return line
        tail = log.read_text(errors="replace")[-3000:]
        raise TimeoutError(f"the workload did not print {prefix!r} within {timeout_s}s; "
                           f"its stderr ends:\n{tail}")


def _last_scrape(prometheus: PrometheusServer) -> float:
    result = prometheus.query(f'timestamp(up{{job="{JOB}"}})')
    return float(result[0]["value"][1]) if result else 0.0


@pytest.fixture(scope="module")
def scraped(
    prometheus_factory: PrometheusFactory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Scraped]:
    if prometheus_binary() is None:
        unavailable("prometheus is not installed (Debian package `prometheus`; "
                    "`make test` installs it)")
    port = free_port()
    env = {**os.environ, semconv.ENV_BACKGROUND_QUEUE_SIZE: "4"}
    for variable in (semconv.ENV_OTLP_ENDPOINT, semconv.ENV_OTLP_METRICS_ENDPOINT,
                     semconv.ENV_OTLP_TRACES_ENDPOINT, semconv.ENV_JUDGE):
        env.pop(variable, None)
    # stderr to a file: a pipe nobody reads would block the workload once it fills up
    log_path = tmp_path_factory.mktemp("workload") / "stderr.log"
    log = log_path.open("w")
    workload = subprocess.Popen(
        [sys.executable, "-m", "tests.dashboards.workload", "--port", str(port),
         "--max-load-seconds", "45", "--serve-seconds", "60"],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
    )
    demo_port = free_port()
    demo_env = {k: v for k, v in env.items() if k != semconv.ENV_ANTHROPIC_API_KEY}
    demo = subprocess.Popen(
        [sys.executable, "-c", "import sys; from gsar_otel.cli import main; sys.exit(main())",
         "demo", "--judge", "lexical", "--repeat", str(DEMO_REPEAT),
         "--prometheus-port", str(demo_port), "--serve-seconds", "60"],
        cwd=ROOT, env=demo_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert workload.stdin is not None and workload.stdout is not None
    lines = _Lines(workload.stdout)
    try:
        lines.expect("serving", timeout_s=30, log=log_path)
        start = time.time()
        prometheus = prometheus_factory(
            {JOB: [f"127.0.0.1:{port}"], DEMO_JOB: [f"127.0.0.1:{demo_port}"]},
            rule_files=[ALERT_RULES])
        prometheus.wait_for(
            f'count_over_time(up{{job="{JOB}"}}[1m]) >= {SCRAPES_UNDER_LOAD}', timeout_s=40)
        workload.stdin.write("stop\n")
        workload.stdin.flush()
        cycles = int(lines.expect("stopped", timeout_s=30, log=log_path).split()[1])
        load_stopped = time.time()
        # One more scrape after the last call, so the final counts are stored.
        deadline = time.monotonic() + 10
        while _last_scrape(prometheus) < load_stopped + 0.5 and time.monotonic() < deadline:
            time.sleep(0.2)
        yield Scraped(prometheus, start=start, load_stopped=load_stopped, end=time.time(),
                      cycles=cycles, demo_exit=demo.poll())
    finally:
        stop_process(demo, grace_s=15)
        workload.stdin.close()
        try:
            workload.wait(timeout=15)
        except subprocess.TimeoutExpired:
            workload.kill()
            workload.wait(timeout=5)
        log.close()


def _variables(scraped: Scraped, *, function: str = ".*") -> dict[str, str]:
    return {
        "datasource": "prometheus",
        "job": JOB,
        "function": function,
        "__rate_interval": RATE_INTERVAL,
        "__interval": "1s",
        "__range": f"{math.ceil(scraped.end - scraped.start) + 5}s",
    }


def test_prometheus_scrapes_the_workload_cleanly(scraped: Scraped) -> None:
    (target,) = [t for t in scraped.prometheus.targets() if t["labels"]["job"] == JOB]
    assert target["health"] == "up", target["lastError"]
    assert target["lastError"] == ""
    assert scraped.cycles >= 3, "the workload should have run several cycles under scraping"
    failed = scraped.prometheus.query(f'sum_over_time(up{{job="{JOB}"}}[5m]) '
                                      f'< count_over_time(up{{job="{JOB}"}}[5m])')
    assert failed == [], "some scrapes of the workload failed"


def test_prometheus_stores_exactly_the_series_names_derived_from_semconv(
    scraped: Scraped,
) -> None:
    stored = {
        series["__name__"]
        for series in scraped.prometheus.series(f'{{job="{JOB}", __name__=~"gsar_.*"}}')
    }
    assert stored == emitted_series_names()


def test_gsar_demo_serves_the_dashboard_metrics_to_prometheus(scraped: Scraped) -> None:
    assert scraped.demo_exit is None, "gsar demo should still be serving"
    (target,) = [t for t in scraped.prometheus.targets() if t["labels"]["job"] == DEMO_JOB]
    assert target["health"] == "up", target["lastError"]
    stored = {s["__name__"] for s in scraped.prometheus.series(
        f'{{job="{DEMO_JOB}", __name__=~"gsar_.*"}}')}
    assert stored <= emitted_series_names()
    for metric in (semconv.METRIC_SCORE, semconv.METRIC_DECISIONS, semconv.METRIC_CLAIMS,
                   semconv.METRIC_JUDGE_DURATION):
        assert series_name_of(metric) in stored, metric
    evaluations = scraped.prometheus.query(
        f'sum({series_name_of(semconv.METRIC_DECISIONS)}{{job="{DEMO_JOB}"}})')
    assert float(evaluations[0]["value"][1]) >= DEMO_REPEAT


def test_score_buckets_resolve_the_thresholds(scraped: Scraped) -> None:
    buckets = {s["le"] for s in scraped.prometheus.series(series_name_of(semconv.METRIC_SCORE))}
    assert {"0.5", "0.65", "0.8", "0.9", "1.0"} <= buckets


def test_the_workload_produced_every_outcome(scraped: Scraped) -> None:
    decisions = scraped.prometheus.query(
        f"sum by (gsar_decision) ({series_name_of(semconv.METRIC_DECISIONS)})")
    assert {r["metric"]["gsar_decision"] for r in decisions} == {
        "proceed", "regenerate", "replan", "abstain"}
    verdicts = scraped.prometheus.query(
        f"sum by (gsar_claim_verdict) ({series_name_of(semconv.METRIC_CLAIMS)})")
    assert {r["metric"]["gsar_claim_verdict"] for r in verdicts} == set(
        semconv.CLAIM_COUNT_ATTRIBUTES)
    for metric in (semconv.METRIC_EVALUATIONS_DEGRADED, semconv.METRIC_JUDGE_ERRORS,
                   semconv.METRIC_BACKGROUND_DROPPED, semconv.METRIC_JUDGE_TOKENS):
        assert has_real_data(scraped.prometheus.query(f"sum({series_name_of(metric)})")), metric


def test_function_variable_lists_every_judged_function(scraped: Scraped) -> None:
    selector, label = label_values_query(template_variables(DASHBOARD)["function"])
    series = scraped.prometheus.series(substitute(selector, _variables(scraped)))
    assert {s[label] for s in series} == WORKLOAD_FUNCTIONS


def _ids(item: tuple[dict[str, Any], dict[str, Any]]) -> str:
    return f"{item[0]['title']}/{item[1]['refId']}"


@pytest.mark.parametrize("item", TARGETS, ids=_ids)
def test_panel_query_returns_data_as_a_range_query(
    scraped: Scraped, item: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    panel, target = item
    expr = substitute(target["expr"], _variables(scraped))
    result = scraped.prometheus.query_range(expr, start=scraped.start, end=scraped.end, step=1)
    assert result, f"{panel['title']}: no data for {expr}"
    assert has_real_data(result), f"{panel['title']}: only zeros/NaN for {expr}: {result}"


@pytest.mark.parametrize("item", TARGETS, ids=_ids)
def test_panel_query_returns_data_as_an_instant_query_for_all_and_for_each_function(
    scraped: Scraped, item: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    panel, target = item
    # Grafana's multi-value format for a regex matcher: (a|b|c)
    every_function = "(" + "|".join(sorted(WORKLOAD_FUNCTIONS)) + ")"
    for function in (".*", every_function):
        expr = substitute(target["expr"], _variables(scraped, function=function))
        result = scraped.prometheus.query(expr, at=scraped.load_stopped)
        assert result, f"{panel['title']}: no data for {expr}"
        assert has_real_data(result), f"{panel['title']}: only zeros/NaN for {expr}: {result}"


@pytest.mark.parametrize("item", TARGETS, ids=_ids)
def test_every_label_a_panel_relies_on_is_on_the_series_it_reads(
    scraped: Scraped, item: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    panel, target = item
    use = analyse_promql(substitute(target["expr"], _variables(scraped)),
                         legend_labels=legend_labels(target))
    for metric, labels in use.labels.items():
        present: set[str] = set()
        for series in scraped.prometheus.series(metric):
            present |= set(series)
        missing = labels - present
        assert not missing, f"{panel['title']}: {metric} has no label {sorted(missing)}"


def test_legend_labels_have_values_in_the_results(scraped: Scraped) -> None:
    """Legends such as {{gsar_decision}} must print a value, not an empty string."""
    decision = prometheus_label(semconv.GSAR_DECISION)
    for panel, target in TARGETS:
        labels = legend_labels(target) - {"le"}
        if not labels:
            continue
        expr = substitute(target["expr"], _variables(scraped))
        for series in scraped.prometheus.query(expr, at=scraped.load_stopped):
            for label in labels:
                assert series["metric"].get(label), f"{panel['title']}: {label} empty in {series}"
    assert decision  # the decision legend is among those checked above


def test_the_alert_rules_evaluate_cleanly_on_the_scraped_series(scraped: Scraped) -> None:
    expected = yaml.safe_load(ALERT_RULES.read_text(encoding="utf-8"))["groups"]
    groups = scraped.prometheus.rule_groups()
    assert sorted(g["name"] for g in groups) == sorted(g["name"] for g in expected)
    rules = [rule for group in groups for rule in group["rules"]]
    assert len(rules) == sum(len(g["rules"]) for g in expected)
    unhealthy = [(r["name"], r["health"], r.get("lastError")) for r in rules
                 if r["health"] != "ok"]
    assert unhealthy == []


def _by_function(scraped: Scraped, expr: str) -> dict[str, float]:
    return {r["metric"]["gsar_function"]: float(r["value"][1])
            for r in scraped.prometheus.query(expr, at=scraped.load_stopped)}


def test_the_recording_rules_the_alerts_read_hold_the_workloads_rates(scraped: Scraped) -> None:
    evaluations = _by_function(scraped, f'gsar:evaluations:rate1h{{job="{JOB}"}}')
    assert set(evaluations) == WORKLOAD_FUNCTIONS and all(v > 0 for v in evaluations.values())
    # every function has a proceed share, also those that never proceeded
    proceed = _by_function(scraped, f'gsar:proceed:ratio_rate1h{{job="{JOB}"}}')
    assert set(proceed) == WORKLOAD_FUNCTIONS
    assert all(0 <= v <= 1 for v in proceed.values()), proceed
    assert any(v > 0 for v in proceed.values()), proceed
    for expr in ("gsar:evaluations_degraded:share_rate1h", "gsar:judge_tokens:rate1h",
                 "gsar:judge_duration_seconds:p95_rate15m",
                 "gsar:claims_ungrounded:per_evaluation_rate1h"):
        result = scraped.prometheus.query(f'{expr}{{job="{JOB}"}}', at=scraped.load_stopped)
        assert has_real_data(result), expr
