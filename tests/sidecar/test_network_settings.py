"""The network limits' flags, variables and settings-file keys reach the sidecar's config, bad
values are refused naming their source, and with ``--forward`` the grounding spans go through
the counting, retrying :class:`VerdictExporter`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gsar_otel import semconv as sc
from gsar_otel.cli.common import BadInput
from gsar_otel.cli.main import build_parser
from gsar_otel.cli.sidecar import _telemetry, build_config
from gsar_otel.config import load_settings
from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.output.exporters import VerdictExporter


def _config(*argv: str, env: dict[str, str] | None = None, file: Path | None = None) -> Any:
    args = build_parser().parse_args(["sidecar", *argv])
    settings = load_settings({sc.ENV_CONFIG: str(file)} if file else {})
    return build_config(args, settings, env=env or {})


def test_defaults_are_the_network_limits_defaults() -> None:
    assert _config().network == NetworkLimits()


def test_flags_variables_and_the_file_set_every_network_limit(tmp_path: Path) -> None:
    file = tmp_path / "gsar.toml"
    file.write_text("[sidecar]\njudge_queue = 3\nverdict_buffer = 10\n", encoding="utf-8")
    env = {sc.ENV_SIDECAR_MIN_BODY_RATE: "2048", sc.ENV_SIDECAR_FORWARD_MAX_BYTES: "1000",
           sc.ENV_SIDECAR_VERDICT_BUFFER: "20"}
    config = _config("--header-timeout", "2.5", "--health-reserve", "0",
                     "--judge-concurrency", "3", "--max-inflight-bytes", "4096",
                     "--grpc-receive-timeout", "7", env=env, file=file)
    assert config.network == NetworkLimits(
        header_timeout_s=2.5, min_body_rate=2048, health_reserve=0, judge_concurrency=3,
        judge_queue=3, max_inflight_bytes=4096, forward_max_bytes=1000,
        grpc_receive_timeout_s=7.0, verdict_buffer=20)


@pytest.mark.parametrize(("flag", "value"), [
    ("--header-timeout", "0"), ("--header-timeout", "nan"), ("--min-body-rate", "0"),
    ("--health-reserve", "-1"), ("--judge-concurrency", "0"), ("--judge-queue", "-2"),
    ("--max-inflight-bytes", "0"), ("--forward-max-bytes", "0"),
    ("--grpc-receive-timeout", "-1"), ("--verdict-buffer", "0"),
])
def test_a_bad_network_limit_is_refused_naming_its_flag(flag: str, value: str) -> None:
    with pytest.raises(BadInput, match=flag):
        _config(f"{flag}={value}")


def test_with_forward_the_grounding_spans_go_through_the_verdict_exporter() -> None:
    args = build_parser().parse_args(["sidecar", "--forward", "http://127.0.0.1:9/v1/traces",
                                      "--verdict-buffer", "5"])
    handle = _telemetry(args, build_config(args, load_settings({}), env={}))
    try:
        (verdicts,) = [e for e in handle.span_exporters if isinstance(e, VerdictExporter)]
        assert verdicts.capacity == 5
    finally:
        handle.shutdown()
