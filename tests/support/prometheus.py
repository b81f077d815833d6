"""A real Prometheus server for end-to-end tests, and a small client for its HTTP API.

``start_prometheus`` runs ``/usr/bin/prometheus`` (Debian's ``prometheus`` package) on a free
loopback port with a throw-away config and storage directory, scraping the given targets every
second and evaluating the given rule files as often. ``prometheus_factory`` is the pytest
fixture form: it starts one server per call and stops all of them when the requesting module
ends. A missing binary skips locally and fails on CI.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import free_port, stop_process, unavailable, wait_for_http

PROMETHEUS_BINARY_ENV = "GSAR_PROMETHEUS_BINARY"
"""Overrides where the prometheus binary is looked up (default: PATH, then /usr/bin)."""


class PrometheusQueryError(RuntimeError):
    """Prometheus answered a query with an error (bad PromQL, timeout, ...)."""


def prometheus_binary() -> str | None:
    """Path of the prometheus binary, or None when it is not installed."""
    configured = os.environ.get(PROMETHEUS_BINARY_ENV, "").strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    found = shutil.which("prometheus")
    if found:
        return found
    return "/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None


def scrape_config(
    targets: Mapping[str, Sequence[str]], *, scrape_interval: str = "1s",
    rule_files: Sequence[Path] = (),
) -> dict[str, Any]:
    """A Prometheus config (as data; JSON is valid YAML) scraping ``{job: [host:port, ...]}``
    and evaluating ``rule_files``."""
    return {
        "rule_files": [str(path) for path in rule_files],
        "global": {
            "scrape_interval": scrape_interval,
            "scrape_timeout": scrape_interval,
            "evaluation_interval": scrape_interval,
        },
        "scrape_configs": [
            {"job_name": job, "static_configs": [{"targets": list(hosts)}]}
            for job, hosts in targets.items()
        ],
    }


@dataclass(frozen=True)
class PrometheusServer:
    """A running Prometheus and the calls the tests make against its HTTP API."""

    url: str
    log_path: Path

    def _get(self, path: str, params: Mapping[str, str | float]) -> Any:
        query = urllib.parse.urlencode({k: str(v) for k, v in params.items()})
        request = urllib.request.Request(f"{self.url}{path}?{query}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                payload = json.load(response)
        except urllib.error.HTTPError as error:
            # Prometheus reports bad queries as 400/422 with a JSON body naming the problem.
            body = error.read().decode("utf-8", "replace")
            raise PrometheusQueryError(
                f"{path} {dict(params)!r}: HTTP {error.code}: {body}"
            ) from error
        if payload.get("status") != "success":
            raise PrometheusQueryError(f"{path} {dict(params)!r}: {payload.get('error')!r}")
        return payload["data"]

    def query(self, expr: str, *, at: float | None = None) -> list[dict[str, Any]]:
        """Instant query (``/api/v1/query``); the ``result`` list of a vector answer."""
        params: dict[str, str | float] = {"query": expr}
        if at is not None:
            params["time"] = at
        data = self._get("/api/v1/query", params)
        if data["resultType"] == "scalar":
            return [{"metric": {}, "value": data["result"]}]
        result: list[dict[str, Any]] = data["result"]
        return result

    def query_range(
        self, expr: str, *, start: float, end: float, step: float
    ) -> list[dict[str, Any]]:
        """Range query (``/api/v1/query_range``); the ``result`` list of a matrix answer."""
        data = self._get(
            "/api/v1/query_range", {"query": expr, "start": start, "end": end, "step": step}
        )
        result: list[dict[str, Any]] = data["result"]
        return result

    def series(self, match: str) -> list[dict[str, str]]:
        """Label sets of every stored series that ``match`` selects (``/api/v1/series``)."""
        result: list[dict[str, str]] = self._get("/api/v1/series", {"match[]": match})
        return result

    def rule_groups(self) -> list[dict[str, Any]]:
        """The loaded rule groups, each rule with its health, last error and state."""
        groups: list[dict[str, Any]] = self._get("/api/v1/rules", {})["groups"]
        return groups

    def targets(self) -> list[dict[str, Any]]:
        """The active scrape targets with their health and last error."""
        active: list[dict[str, Any]] = self._get("/api/v1/targets", {})["activeTargets"]
        return active

    def wait_for(
        self,
        expr: str,
        *,
        until: Callable[[list[dict[str, Any]]], bool] = bool,
        timeout_s: float = 30.0,
    ) -> list[dict[str, Any]]:
        """Repeat the instant query ``expr`` until ``until(result)`` holds; the last result."""
        deadline = time.monotonic() + timeout_s
        result: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            result = self.query(expr)
            if until(result):
                return result
            time.sleep(0.25)
        raise TimeoutError(
            f"{expr!r} did not reach the expected state within {timeout_s}s; last result "
            f"{result!r}; targets {self.targets()!r}"
        )


def sample_values(result: list[dict[str, Any]]) -> list[float]:
    """Every sample value of an instant (``value``) or range (``values``) query result."""
    values: list[float] = []
    for series in result:
        points = series.get("values") or [series["value"]]
        values.extend(float(point[1]) for point in points)
    return values


def has_real_data(result: list[dict[str, Any]]) -> bool:
    """True when a result holds at least one finite, non-zero sample."""
    return any(math.isfinite(v) and v != 0.0 for v in sample_values(result))


@contextlib.contextmanager
def start_prometheus(
    targets: Mapping[str, Sequence[str]],
    workdir: Path,
    *,
    scrape_interval: str = "1s",
    rule_files: Sequence[Path] = (),
    startup_timeout_s: float = 30.0,
) -> Iterator[PrometheusServer]:
    """Run Prometheus scraping ``targets`` until the block ends; its files live in ``workdir``.

    Skips (locally) or fails (on CI) when the binary is not installed.
    """
    binary = prometheus_binary()
    if binary is None:
        unavailable("prometheus is not installed (Debian package `prometheus`; "
                    "`make test` installs it)")
        raise AssertionError("unreachable")  # unavailable() always raises
    workdir.mkdir(parents=True, exist_ok=True)
    config_path = workdir / "prometheus.yml"
    config_path.write_text(json.dumps(
        scrape_config(targets, scrape_interval=scrape_interval, rule_files=rule_files)))
    port = free_port()
    log_path = workdir / "prometheus.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                binary,
                f"--config.file={config_path}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--storage.tsdb.retention.time=1h",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = PrometheusServer(url=f"http://127.0.0.1:{port}", log_path=log_path)
    try:
        try:
            wait_for_http(f"{server.url}/-/ready", timeout_s=startup_timeout_s)
        except TimeoutError as error:
            log_text = log_path.read_text(errors="replace")[-4000:]
            raise RuntimeError(f"prometheus did not start: {error}\n{log_text}") from error
        yield server
    finally:
        stop_process(process)


PrometheusFactory = Callable[..., PrometheusServer]
"""``factory(targets, rule_files=())``: a started server."""


@pytest.fixture(scope="module")
def prometheus_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusFactory]:
    """Start Prometheus servers scraping ``{job: [host:port]}`` (and evaluating ``rule_files``);
    all stop when the module ends."""
    with contextlib.ExitStack() as stack:

        def start(targets: Mapping[str, Sequence[str]],
                  rule_files: Sequence[Path] = ()) -> PrometheusServer:
            workdir = tmp_path_factory.mktemp("prometheus")
            return stack.enter_context(start_prometheus(targets, workdir, rule_files=rule_files))

        yield start
