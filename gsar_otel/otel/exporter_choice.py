"""Which exporters ``configure_telemetry()`` attaches, from the standard OpenTelemetry variables.

- ``OTEL_TRACES_EXPORTER``: a comma-separated list of ``otlp``, ``console``, or ``none``.
- ``OTEL_METRICS_EXPORTER``: ``otlp``, ``console``, ``prometheus``, or ``none``
  (``prometheus`` serves on ``OTEL_EXPORTER_PROMETHEUS_HOST`` : ``OTEL_EXPORTER_PROMETHEUS_PORT``,
  default ``127.0.0.1:9464``).

When a variable is unset, a signal is exported over OTLP when an OTLP endpoint is configured for
it (``OTEL_EXPORTER_OTLP_ENDPOINT`` or the signal's own ``..._TRACES_ENDPOINT`` /
``..._METRICS_ENDPOINT``). When nothing at all is configured (no endpoint and no exporter
variable: a development default) one line per evaluation is printed on stderr, not the spans;
``GSAR_CONSOLE`` says otherwise (``summary``, ``spans`` for the SDK's full span dump, or ``off``)
whatever else is configured, and ``OTEL_TRACES_EXPORTER=console`` asks for the dump; metrics
are never printed unless asked (``OTEL_METRICS_EXPORTER=console`` or ``console_metrics=True``),
because the SDK's metric dump is thousands of lines. Explicit arguments of
``configure_telemetry()`` win over the variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from gsar_otel import environment
from gsar_otel import semconv as sc
from gsar_otel.environment import METRICS_EXPORTERS, TRACES_EXPORTERS

TRACES_EXPORTER_VAR: Final = sc.ENV_TRACES_EXPORTER
METRICS_EXPORTER_VAR: Final = sc.ENV_METRICS_EXPORTER
PROMETHEUS_HOST_VAR: Final = sc.ENV_PROMETHEUS_HOST
PROMETHEUS_PORT_VAR: Final = sc.ENV_PROMETHEUS_PORT
DEFAULT_PROMETHEUS_PORT: Final = 9464
CONSOLE_VAR: Final = sc.ENV_CONSOLE
ENDPOINT_VARS: Final = {
    "traces": (sc.ENV_OTLP_TRACES_ENDPOINT, sc.ENV_OTLP_ENDPOINT),
    "metrics": (sc.ENV_OTLP_METRICS_ENDPOINT, sc.ENV_OTLP_ENDPOINT),
}


@dataclass(frozen=True, slots=True)
class SignalExport:
    """Where one signal goes."""

    otlp: bool
    console: bool
    prometheus: bool = False
    summary: bool = False
    """One line per evaluation on the console (traces only)."""
    prometheus_host: str | None = None
    """From ``OTEL_EXPORTER_PROMETHEUS_HOST``; None: the caller's default."""
    prometheus_port: int | None = None


def exporter_names(variable: str, allowed: tuple[str, ...],
                   env: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
    """The exporters a ``OTEL_*_EXPORTER`` variable names, or None when it is unset or blank.

    Raises:
        SettingsError: an unknown name, or ``none`` beside another name; naming the variable and
            the allowed values (a ``ValueError``).
    """
    raw = environment.raw(variable, env)
    return None if raw is None else environment.exporters_parser(allowed)(variable, raw)


def endpoint_set(signal: str, env: Mapping[str, str] | None = None) -> bool:
    """True when an OTLP endpoint is configured for ``signal`` (``traces`` or ``metrics``)."""
    return any(environment.raw(variable, env) for variable in ENDPOINT_VARS[signal])


def _nothing_configured(environ: Mapping[str, str]) -> bool:
    return not any(environment.raw(variable, environ)
                   for variable in (TRACES_EXPORTER_VAR, METRICS_EXPORTER_VAR,
                                    *ENDPOINT_VARS["traces"], *ENDPOINT_VARS["metrics"]))


def console_mode(env: Mapping[str, str] | None = None) -> str | None:
    """``GSAR_CONSOLE`` lower-cased (``summary``, ``spans`` or ``off``), None when unset.

    Raises:
        SettingsError: another value, naming the variable and the allowed values (a
            ``ValueError``).
    """
    mode: str | None = environment.read(CONSOLE_VAR, env)
    return mode


def trace_export(*, otlp: bool | None, console: bool | None,
                 env: Mapping[str, str] | None = None) -> SignalExport:
    """Where spans go: explicit arguments first, then ``OTEL_TRACES_EXPORTER``, then endpoints;
    the console as ``GSAR_CONSOLE`` says, else a summary when nothing is configured.

    Raises:
        ValueError: a bad ``OTEL_TRACES_EXPORTER`` or ``GSAR_CONSOLE``.
    """
    environ = environment.environ(env)
    names = exporter_names(TRACES_EXPORTER_VAR, TRACES_EXPORTERS, environ)
    mode = console_mode(environ)
    env_summary = False
    if names is None:
        env_otlp = endpoint_set("traces", environ)
        env_console = mode == "spans"
        env_summary = mode == "summary" or (mode is None and _nothing_configured(environ))
    else:
        env_otlp = "otlp" in names
        env_console = "console" in names or mode == "spans"
        env_summary = mode == "summary"
    if mode == "off":
        env_console = False
    if console is not None:  # an explicit argument decides the console alone
        env_console, env_summary = console, False
    return SignalExport(otlp=env_otlp if otlp is None else otlp, console=env_console,
                        summary=env_summary)


def metric_export(*, otlp: bool | None, console: bool | None, prometheus_port: int | None,
                  env: Mapping[str, str] | None = None) -> SignalExport:
    """Where metrics go: explicit arguments first, then ``OTEL_METRICS_EXPORTER``, then
    endpoints; never the console unless asked.

    Raises:
        ValueError: a bad exporter name or Prometheus port variable.
    """
    environ = environment.environ(env)
    names = exporter_names(METRICS_EXPORTER_VAR, METRICS_EXPORTERS, environ)
    if names is None:
        env_otlp, env_console, env_prometheus = endpoint_set("metrics", environ), False, False
    else:
        env_otlp, env_console = "otlp" in names, "console" in names
        env_prometheus = "prometheus" in names
    port = prometheus_port
    if port is None and env_prometheus:
        port = _prometheus_port(environ)
    return SignalExport(otlp=env_otlp if otlp is None else otlp,
                        console=env_console if console is None else console,
                        prometheus=port is not None,
                        prometheus_host=environment.read(PROMETHEUS_HOST_VAR, environ),
                        prometheus_port=port)


def _prometheus_port(environ: Mapping[str, str]) -> int:
    port: int | None = environment.read(PROMETHEUS_PORT_VAR, environ)
    return DEFAULT_PROMETHEUS_PORT if port is None else port
