"""configure_telemetry(): exporters from OTEL_* variables, console, Prometheus, host providers."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

from gsar_otel import configure_telemetry, grounded, record_evidence
from gsar_otel.otel import instruments as telemetry
from gsar_otel.otel.exporter_choice import trace_export
from gsar_otel.otel.setup import otlp_protocol
from tests.telemetry.helpers import ANSWER, CPU_ROW, ScriptedJudge
from tests.telemetry.receivers import grpc_receiver, http_receiver

ROOT = Path(__file__).resolve().parents[2]


def judged_call(name: str = "exported_agent") -> None:
    @grounded(judge=ScriptedJudge(), name=name)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    agent()


@pytest.mark.parametrize(("protocol", "receiver"), [("http/protobuf", http_receiver),
                                                    ("grpc", grpc_receiver)])
def test_spans_go_over_the_otlp_protocol_the_environment_names(
        monkeypatch: pytest.MonkeyPatch, protocol: str, receiver: object) -> None:
    with receiver() as (endpoint, received):  # type: ignore[operator]
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                           f"{endpoint}/v1/traces" if protocol != "grpc" else endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=test-key")
        handle = configure_telemetry(set_global=False, console=False, console_metrics=False)
        try:
            assert handle.otlp_traces_protocol == protocol
            exporter_module = type(handle.span_exporters[0]).__module__
            assert exporter_module == ("opentelemetry.exporter.otlp.proto.grpc.trace_exporter"
                                       if protocol == "grpc" else
                                       "opentelemetry.exporter.otlp.proto.http.trace_exporter")
            judged_call()
            assert handle.force_flush(10.0)
            assert received.arrived.wait(10.0)
        finally:
            handle.shutdown()
    evaluate = received.spans["gsar.evaluate exported_agent"]
    assert (evaluate["gsar.score"], evaluate["gsar.decision"],
            evaluate["openinference.span.kind"]) == (0.625, "replan", "EVALUATOR")
    assert "gsar.judge" in received.spans
    assert received.headers[0]["x-honeycomb-team"] == "test-key"


def test_the_traces_protocol_variable_beats_the_general_one() -> None:
    env = {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
           "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}
    assert otlp_protocol("traces", env) == "grpc"
    assert otlp_protocol("metrics", env) == "http/protobuf"
    assert otlp_protocol("traces", {}) == "http/protobuf"


def test_an_unsupported_protocol_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
    with pytest.raises(ValueError, match="OTEL_EXPORTER_OTLP_PROTOCOL='http/json' is not "
                                         "supported; allowed: http/protobuf, grpc"):
        configure_telemetry(set_global=False)
    telemetry.set_providers()


def _printed(monkeypatch: pytest.MonkeyPatch, mode: str | None, **options: object) -> str:
    if mode is None:
        monkeypatch.delenv("GSAR_CONSOLE", raising=False)
    else:
        monkeypatch.setenv("GSAR_CONSOLE", mode)
    out = io.StringIO()
    handle = configure_telemetry(set_global=False, console_out=out, console_metrics=False,
                                 **options)  # type: ignore[arg-type]
    try:
        assert handle.otlp_traces_protocol is None
        judged_call("console_agent")
        judged_call("console_agent")
    finally:
        handle.shutdown()
    return out.getvalue()


def test_without_an_endpoint_each_evaluation_is_one_line_on_the_console(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _printed(monkeypatch, None).splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"gsar: console_agent replan S=0\.62 claims G1 U1 X0 K0 judge=scripted "
                        r"trace=[0-9a-f]{32}", lines[0]), lines[0]
    assert ANSWER not in lines[0] and CPU_ROW not in lines[0]


def test_gsar_console_spans_prints_the_full_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    printed = _printed(monkeypatch, "spans")
    assert '"name": "gsar.evaluate console_agent"' in printed
    assert '"gsar.decision": "replan"' in printed
    assert "gsar: console_agent" not in printed
    # An explicit console=True is the dump as well.
    assert '"name": "gsar.judge"' in _printed(monkeypatch, None, console=True)


def test_gsar_console_off_prints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _printed(monkeypatch, "OFF") == ""


def test_gsar_console_summary_applies_beside_an_endpoint() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert not trace_export(otlp=None, console=None, env=env).summary
    chosen = trace_export(otlp=None, console=None, env={**env, "GSAR_CONSOLE": "summary"})
    assert chosen.summary and chosen.otlp and not chosen.console
    with pytest.raises(ValueError, match="GSAR_CONSOLE='loud': allowed: summary, spans, off"):
        trace_export(otlp=None, console=None, env={"GSAR_CONSOLE": "loud"})


def test_metrics_are_served_to_prometheus_with_their_prometheus_names() -> None:
    handle = configure_telemetry(set_global=False, console=False, prometheus_port=0)
    try:
        judged_call("scraped_agent")
        url = f"http://127.0.0.1:{handle.prometheus_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            page = response.read().decode()
    finally:
        handle.shutdown()
    assert 'gsar_score_bucket{gsar_function="scraped_agent",le="0.65"' in page
    assert ('gsar_decisions_total{gsar_decision="replan",gsar_function="scraped_agent"'
            in page)
    assert "gsar_claims_total{" in page
    assert "gsar_judge_duration_seconds_bucket{" in page


def test_a_missing_prometheus_exporter_says_which_extra_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.prometheus", None)
    with pytest.raises(ImportError, match=r"'prometheus' extra: pip install '\.\[prometheus\]'"):
        configure_telemetry(set_global=False, console=False, prometheus_port=0)
    telemetry.set_providers()


def run_script(body: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(body)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_providers_the_host_installed_are_never_replaced() -> None:
    result = run_script("""
        import json
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider
        host_tp, host_mp = TracerProvider(), MeterProvider()
        trace.set_tracer_provider(host_tp)
        metrics.set_meter_provider(host_mp)
        from gsar_otel import configure_telemetry
        handle = configure_telemetry()
        print(json.dumps({
            "tracer_kept": trace.get_tracer_provider() is host_tp,
            "meter_kept": metrics.get_meter_provider() is host_mp,
            "created": [handle.tracer_provider is not None, handle.meter_provider is not None],
            "installed": [handle.installed_tracer_provider, handle.installed_meter_provider],
        }))
    """)
    assert result == {"tracer_kept": True, "meter_kept": True, "created": [False, False],
                      "installed": [False, False]}


def test_a_prometheus_port_the_host_provider_cannot_take_is_a_warning_not_silence() -> None:
    result = run_script("""
        import json, logging
        from opentelemetry import metrics
        from opentelemetry.sdk.metrics import MeterProvider
        metrics.set_meter_provider(MeterProvider())
        seen = []
        class Keep(logging.Handler):
            def emit(self, record):
                seen.append((record.levelname, record.getMessage()))
        logging.getLogger("gsar_otel").addHandler(Keep())
        from gsar_otel import configure_telemetry
        handle = configure_telemetry(prometheus_port=0, console=False, otlp=False)
        print(json.dumps({"meter_created": handle.meter_provider is not None,
                          "warnings": [m for level, m in seen if level == "WARNING"]}))
    """)
    assert result["meter_created"] is False
    warnings = result["warnings"]
    assert isinstance(warnings, list)
    assert any("prometheus_port" in message for message in warnings)


def test_providers_are_installed_globally_when_the_host_has_none() -> None:
    result = run_script("""
        import json, os
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:9"
        os.environ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "grpc"
        import gsar_otel, sys
        from gsar_otel import grounded, flush
        exporters_before = any(m.startswith(("opentelemetry.exporter", "opentelemetry.sdk"))
                               for m in sys.modules)
        from opentelemetry import metrics, trace
        handle = gsar_otel.configure_telemetry(service_name="checkout")
        print(json.dumps({
            "exporters_imported_by_import": exporters_before,
            "tracer": trace.get_tracer_provider() is handle.tracer_provider,
            "meter": metrics.get_meter_provider() is handle.meter_provider,
            "installed": [handle.installed_tracer_provider, handle.installed_meter_provider],
            "protocol": handle.otlp_traces_protocol,
            "service": handle.tracer_provider.resource.attributes["service.name"],
        }))
    """)
    assert result == {"exporters_imported_by_import": False, "tracer": True, "meter": True,
                      "installed": [True, True], "protocol": "grpc", "service": "checkout"}
