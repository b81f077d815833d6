"""``gsar sidecar --capture-cases DIR --log-verdicts``: a real sidecar process receives real OTLP
exports from the SDK, prints one line per judged run and writes each as a case line; pytest then
runs the captured file, and an answer changed since the capture fails naming its trace."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from tests.sidecar.support import (
    CPU_ROW,
    GROUNDED,
    OVERREACHING,
    agent_tracer,
    run_genai_agent,
    start_sidecar,
    start_sidecar_command,
)
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

PASSWORD = "hunter2-" + "q" * 20


def captured(directory: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in sorted(directory.glob("gsar_captured_*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def wait_for(predicate: object, what: str, bound_s: float = 60.0) -> None:
    end = time.monotonic() + bound_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_a_sidecar_process_captures_and_logs_judged_runs_that_pytest_then_runs(
        tmp_path: Path, pytester: pytest.Pytester) -> None:
    directory = tmp_path / "captured"
    env = {**os.environ, "GSAR_JUDGE": "staged", "OTEL_EXPORTER_OTLP_ENDPOINT": "",
           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ""}
    process, base, banner = start_sidecar_command(
        "--http-port", "0", "--grpc-port", "0", "--decision-wait", "0.2",
        "--log-verdicts", "--capture-cases", str(directory), env=env)
    try:
        tracer, provider = agent_tracer(OTLPSpanExporter(endpoint=f"{base}/v1/traces"))
        grounded = run_genai_agent(tracer, GROUNDED)
        overreaching = run_genai_agent(tracer, OVERREACHING,
                                       tool_result=f"{CPU_ROW} password={PASSWORD}")
        provider.shutdown()
        wait_for(lambda: len(captured(directory)) == 2, "two captured runs")
        process.send_signal(signal.SIGTERM)
        watchdog = threading.Timer(60, process.kill)
        watchdog.start()
        try:
            assert process.stderr is not None
            log = banner + process.stderr.read()
            process.wait(timeout=10)
        finally:
            watchdog.cancel()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    lines = {line["trace_id"]: line for line in captured(directory)}
    first, second = lines[f"{grounded[0]:032x}"], lines[f"{overreaching[0]:032x}"]
    assert first["run_id"] == f"{grounded[1]:016x}"
    assert first["synthesis"] == GROUNDED
    assert first["recorded"]["decision"] == "proceed"  # type: ignore[index]
    assert second["recorded"]["decision"] != "proceed"  # type: ignore[index]
    [source] = first["sources"]  # type: ignore[misc]
    assert source["tool"] == "get_metrics" and len(source["span_id"]) == 16
    assert PASSWORD not in json.dumps(second) and PASSWORD not in log
    judged = [line for line in log.splitlines() if line.startswith("gsar sidecar: judged ")]
    assert len(judged) == 2
    assert any(f"trace={grounded[0]:032x} run={grounded[1]:016x} agent=incident-bot "
               f"decision=proceed S=" in line for line in judged), judged

    # The captured file is a regression suite as it is.
    suite = pytester.path / "gsar_captured.jsonl"
    suite.write_text("".join(json.dumps(line) + "\n" for line in (first, second)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge", "staged")
    result.assert_outcomes(passed=2)
    changed = dict(first, synthesis=OVERREACHING)
    suite.write_text("".join(json.dumps(line) + "\n" for line in (changed, second)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge", "staged")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"recorded from trace {first['trace_id']} run "
                                 f"{first['run_id']}: decision proceed, S = 1.00, judge staged"])


def test_capture_rate_picks_runs_on_the_trace_id_and_logging_prints_nothing_else() -> None:
    out = io.StringIO()
    running = start_sidecar(capture_rate=0.0)
    running.sidecar.judged._out = out
    running.sidecar.judged.log_verdicts = True
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
    finally:
        running.stop()
    assert running.sidecar.judged.writer is None  # no directory: nothing to write
    [line] = out.getvalue().splitlines()
    assert line.startswith("gsar sidecar: judged trace=")
    assert GROUNDED not in line and CPU_ROW not in line


def test_capture_rate_zero_writes_nothing(tmp_path: Path) -> None:
    running = start_sidecar(capture_cases=str(tmp_path / "none"), capture_rate=0.0)
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
    finally:
        running.stop()
    assert captured(tmp_path / "none") == []
    every = start_sidecar(capture_cases=str(tmp_path / "all"), capture_rate=1.0)
    try:
        assert post(every, otlp_json(*agent_spans()))[0] == 200
        every.wait_for(lambda: every.sidecar.stats.get("runs_judged") == 1, "the run")
    finally:
        every.stop()
    assert len(captured(tmp_path / "all")) == 1


def test_a_capture_directory_that_is_a_file_stops_the_sidecar_at_start(tmp_path: Path) -> None:
    from gsar_otel.cli.common import BadInput
    from tests.sidecar.test_cli import _config

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        start_sidecar(capture_cases=str(blocker))
    with pytest.raises(BadInput, match="--capture-rate must be a number in"):
        _config("--capture-rate", "2")
