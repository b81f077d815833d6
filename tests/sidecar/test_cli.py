"""`gsar sidecar`: options checked up front, and a real process that judges a run, reports its
counts and exits cleanly on SIGTERM after judging what it holds."""

from __future__ import annotations

import os
import signal
import threading
import urllib.request

import pytest

from gsar_otel.cli.common import BadInput
from gsar_otel.cli.main import build_parser
from gsar_otel.cli.sidecar import build_config
from gsar_otel.config import load_settings
from tests.sidecar.support import start_sidecar_command
from tests.sidecar.test_receiver_http import agent_spans, otlp_json


def _config(*argv: str) -> object:
    args = build_parser().parse_args(["sidecar", *argv])
    return build_config(args, load_settings({}), env={})


def test_defaults_follow_the_otlp_ports_and_bind_localhost() -> None:
    config = _config()
    assert (config.host, config.http_port, config.grpc_port) == (  # type: ignore[attr-defined]
        "127.0.0.1", 4318, 4317)
    assert config.limits.decision_wait_s == 10.0  # type: ignore[attr-defined]
    assert config.malloc_arenas == 4  # type: ignore[attr-defined]
    assert _config("--malloc-arenas", "0").malloc_arenas == 0  # type: ignore[attr-defined]


def test_match_is_repeatable_and_keeps_equals_signs_in_the_value() -> None:
    config = _config("--match", "tenant=acme", "--match", "query=a=b")
    assert config.matches == (("tenant", "acme"), ("query", "a=b"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("argv", [
    ("--http-port", "70000"), ("--decision-wait", "-1"), ("--max-traces", "0"),
    ("--decision-wait", "20", "--max-trace-age", "5"), ("--sample-rate", "1.5"),
    ("--concurrency", "0"), ("--match", "no-value"), ("--match", "=x"),
    ("--max-grpc-inflight", "0"), ("--malloc-arenas", "-1"),
])
def test_bad_options_are_bad_input(argv: tuple[str, ...]) -> None:
    with pytest.raises(BadInput):
        _config(*argv)


def test_the_command_serves_judges_and_stops_on_sigterm() -> None:
    env = {**os.environ, "GSAR_JUDGE": "lexical", "OTEL_EXPORTER_OTLP_ENDPOINT": "",
           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ""}
    process, base, banner = start_sidecar_command(
        "--http-port", "0", "--grpc-port", "0", "--decision-wait", "600",
        "--max-trace-age", "900", env=env)
    try:
        request = urllib.request.Request(
            f"{base}/v1/traces", data=otlp_json(*agent_spans()),
            headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
        process.send_signal(signal.SIGTERM)
        # Read through the same buffered stream as the banner (communicate() would skip what
        # readline() already buffered); a watchdog ends a process that hangs.
        watchdog = threading.Timer(60, process.kill)
        watchdog.start()
        try:
            assert process.stderr is not None
            rest = banner + process.stderr.read()
            process.wait(timeout=10)
        finally:
            watchdog.cancel()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    # The run was still inside its settle window: judged at shutdown, flagged so.
    assert "'runs_judged': {'shutdown': 1}" in rest
    assert "the grounding spans are not exported" in rest  # no exporter: said, not silent
