"""The standard OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER variables pick the exporters, and
nothing is dumped to the console unless asked (an OTLP traces endpoint alone used to print
thousands of lines of metric JSON to stderr)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel import configure_telemetry, grounded, record_evidence
from gsar_otel.otel.exporter_choice import (
    METRICS_EXPORTERS,
    TRACES_EXPORTERS,
    SignalExport,
    exporter_names,
    metric_export,
    trace_export,
)
from tests.telemetry.helpers import ANSWER, CPU_ROW, ScriptedJudge

TRACES_ENDPOINT = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}


def test_a_traces_endpoint_alone_exports_spans_and_prints_no_metrics() -> None:
    assert trace_export(otlp=None, console=None, env=TRACES_ENDPOINT) == SignalExport(
        otlp=True, console=False)
    assert metric_export(otlp=None, console=None, prometheus_port=None,
                         env=TRACES_ENDPOINT) == SignalExport(otlp=False, console=False)


def test_the_general_endpoint_exports_both_signals() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert trace_export(otlp=None, console=None, env=env).otlp
    assert metric_export(otlp=None, console=None, prometheus_port=None, env=env).otlp


def test_with_nothing_configured_spans_print_and_metrics_do_not() -> None:
    assert trace_export(otlp=None, console=None, env={}) == SignalExport(otlp=False, console=False,
                                                                         summary=True)
    assert metric_export(otlp=None, console=None, prometheus_port=None,
                         env={}) == SignalExport(otlp=False, console=False)


@pytest.mark.parametrize(("value", "otlp", "console"), [
    ("none", False, False), ("otlp", True, False), ("console", False, True),
    ("otlp,console", True, True), (" OTLP , Console ", True, True)])
def test_the_traces_exporter_variable_decides_over_endpoints(value: str, otlp: bool,
                                                             console: bool) -> None:
    env = {**TRACES_ENDPOINT, "OTEL_TRACES_EXPORTER": value}
    assert trace_export(otlp=None, console=None, env=env) == SignalExport(otlp=otlp,
                                                                          console=console)


def test_metrics_none_turns_metric_export_off_even_with_an_endpoint() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_METRICS_EXPORTER": "none"}
    assert metric_export(otlp=None, console=None, prometheus_port=None, env=env) == SignalExport(
        otlp=False, console=False)


def test_metrics_prometheus_serves_on_the_standard_host_and_port_variables() -> None:
    env = {"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_EXPORTER_PROMETHEUS_PORT": "9999",
           "OTEL_EXPORTER_PROMETHEUS_HOST": "0.0.0.0"}
    choice = metric_export(otlp=None, console=None, prometheus_port=None, env=env)
    assert (choice.prometheus, choice.prometheus_port, choice.prometheus_host) == (
        True, 9999, "0.0.0.0")
    default = metric_export(otlp=None, console=None, prometheus_port=None,
                            env={"OTEL_METRICS_EXPORTER": "prometheus"})
    assert (default.prometheus_port, default.prometheus_host) == (9464, None)


def test_explicit_arguments_win_over_the_variables() -> None:
    env = {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "console"}
    assert trace_export(otlp=True, console=True, env=env) == SignalExport(otlp=True, console=True)
    assert not metric_export(otlp=None, console=False, prometheus_port=None, env=env).console


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
def test_an_unknown_exporter_name_is_an_error_naming_the_variable_and_the_choices(
        name: str) -> None:
    if name in METRICS_EXPORTERS:
        return
    with pytest.raises(ValueError, match=r"OTEL_METRICS_EXPORTER=.*allowed: otlp, console, "
                                         r"prometheus, none"):
        exporter_names("OTEL_METRICS_EXPORTER", METRICS_EXPORTERS,
                       {"OTEL_METRICS_EXPORTER": f"otlp,{name}"})


def test_prometheus_is_not_a_traces_exporter_and_none_does_not_combine() -> None:
    with pytest.raises(ValueError, match="unknown exporter 'prometheus'"):
        exporter_names("OTEL_TRACES_EXPORTER", TRACES_EXPORTERS,
                       {"OTEL_TRACES_EXPORTER": "prometheus"})
    with pytest.raises(ValueError, match="'none' cannot be combined"):
        exporter_names("OTEL_TRACES_EXPORTER", TRACES_EXPORTERS,
                       {"OTEL_TRACES_EXPORTER": "none,otlp"})


def test_a_bad_prometheus_port_variable_is_an_error() -> None:
    with pytest.raises(ValueError, match="OTEL_EXPORTER_PROMETHEUS_PORT must be an integer"):
        metric_export(otlp=None, console=None, prometheus_port=None,
                      env={"OTEL_METRICS_EXPORTER": "prometheus",
                           "OTEL_EXPORTER_PROMETHEUS_PORT": "http"})


def test_configured_telemetry_with_only_a_traces_endpoint_writes_nothing_to_the_console(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in TRACES_ENDPOINT.items():
        monkeypatch.setenv(name, value)
    out = io.StringIO()
    handle = configure_telemetry(set_global=False, console_out=out)
    try:
        @grounded(judge=ScriptedJudge(), name="quiet_agent")
        def agent() -> str:
            record_evidence(CPU_ROW)
            return ANSWER

        for _ in range(6):
            agent()
        handle.meter_provider.force_flush()  # type: ignore[union-attr]
        assert handle.otlp_traces_protocol == "http/protobuf"
        assert handle.otlp_metrics_protocol is None
    finally:
        for exporter in handle.span_exporters:  # the endpoint is closed: do not wait on retries
            exporter.shutdown()
        handle.shutdown()
    assert out.getvalue() == ""


def test_configured_telemetry_honours_metrics_console_when_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "console")
    out = io.StringIO()
    handle = configure_telemetry(set_global=False, console_out=out)
    try:
        @grounded(judge=ScriptedJudge(), name="loud_agent")
        def agent() -> str:
            record_evidence(CPU_ROW)
            return ANSWER

        agent()
        handle.force_flush(5.0)
    finally:
        handle.shutdown()
    printed = out.getvalue()
    assert "gsar.score" in printed
    assert '"name": "gsar.evaluate loud_agent"' not in printed


def test_an_invalid_exporter_variable_fails_configure_telemetry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "jaeger")
    with pytest.raises(ValueError, match="OTEL_TRACES_EXPORTER='jaeger': unknown exporter"):
        configure_telemetry(set_global=False)
