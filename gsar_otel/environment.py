"""Every environment variable gsar-otel reads, in one table, and the one way to read it.

Each row names a variable, says what it sets and holds the parser that validates its value; an
invalid value is a :class:`~gsar_otel.config.SettingsError` (a ``ValueError``) naming the
variable and the value (a secret's value never). A variable that is unset or blank reads as
None, so a caller's default applies. The names are a public contract and are defined in
:mod:`gsar_otel.semconv` (the sidecar's in :mod:`gsar_otel.semconv_sidecar`); this module only
refers to them.

Every module reads the environment through :func:`read` (a value) or :func:`raw` (whether a
variable is set, or text that another library parses), from the mapping it was given or
``os.environ`` at the time of the call. The one exception is :mod:`gsar_otel.core.redact`, which
scans every variable for secret values on purpose. ``tests/layout/test_environment_reads.py``
fails on any other module that touches ``os.environ`` or ``os.getenv``; ``docs/configuration.md``,
``docs/sidecar-settings.md`` and ``docs/backends.md`` document exactly the variables below
(``tests/docs/test_environment_documented.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from gsar_otel import semconv as sc
from gsar_otel.config_values import (
    _FALSE,
    _TRUE,
    SettingsError,
    _parse_dispute_policy,
    _parse_judge,
    _parse_name,
    _parse_policy,
    _parse_unit,
    int_parser,
    parse_bool,
    parse_secret,
    parse_text,
    parse_url,
    seconds_parser,
)

__all__ = ["BY_NAME", "METRICS_EXPORTERS", "OTLP_PROTOCOLS", "TRACES_EXPORTERS", "VARIABLES",
           "Variable", "environ", "exporters_parser", "parser", "raw", "read"]

TRACES_EXPORTERS: Final = ("otlp", "console", "none")
METRICS_EXPORTERS: Final = ("otlp", "console", "prometheus", "none")
OTLP_PROTOCOLS: Final = ("http/protobuf", "grpc")

# Values the OpenTelemetry GenAI instrumentations accept for their capture variable.
_OTEL_CAPTURE_ON: Final = frozenset({"span_only", "event_only", "span_and_event"})
_OTEL_CAPTURE_OFF: Final = frozenset({"no_content"})


@dataclass(frozen=True, slots=True)
class Variable:
    """One environment variable: its name, what it sets, and the parser of its value.

    ``parse(source, value)`` returns the value or raises :class:`SettingsError` naming
    ``source``; the settings file's keys go through the same parsers, so a variable and its key
    accept the same values.
    """

    name: str
    meaning: str
    parse: Callable[[str, object], Any]


# --- parsers of the variables only the environment sets ---------------------------------------


def _otel_capture(source: str, value: object) -> bool | None:
    # Any value outside these belongs to another instrumentation's dialect: it sets nothing.
    text = str(value).strip().lower()
    if text in _TRUE or text in _OTEL_CAPTURE_ON:
        return True
    if text in _FALSE or text in _OTEL_CAPTURE_OFF:
        return False
    return None


def _console(source: str, value: object) -> str:
    mode = str(value).strip().lower()
    if mode not in sc.CONSOLE_MODES:
        raise SettingsError(f"{source}={value!r}: allowed: {', '.join(sc.CONSOLE_MODES)}")
    return mode


def exporters_parser(allowed: tuple[str, ...]
                     ) -> Callable[[str, object], tuple[str, ...] | None]:
    """A parser of an ``OTEL_*_EXPORTER`` list: comma-separated names out of ``allowed``,
    ``none`` alone; None for commas alone (as if unset)."""
    def parse(source: str, value: object) -> tuple[str, ...] | None:
        text = str(value)
        names = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",")
                                    if part.strip()))
        if not names:
            return None
        unknown = [name for name in names if name not in allowed]
        if unknown:
            raise SettingsError(f"{source}={text!r}: unknown exporter {unknown[0]!r}; allowed: "
                                f"{', '.join(allowed)} (comma-separated)")
        if "none" in names and len(names) > 1:
            raise SettingsError(f"{source}={text!r}: 'none' cannot be combined with other "
                                "exporters")
        return names

    return parse


def _protocol(source: str, value: object) -> str:
    protocol = str(value).strip().lower()
    if protocol not in OTLP_PROTOCOLS:
        raise SettingsError(f"{source}={protocol!r} is not supported; allowed: "
                            f"{', '.join(OTLP_PROTOCOLS)}")
    return protocol


# --- the table ----------------------------------------------------------------------------------

_SECONDS = seconds_parser(0.0)
_POSITIVE_SECONDS = seconds_parser(0.001)
_PORT = int_parser(0, 65535)

_SIDECAR: Final[tuple[tuple[str, Callable[[str, object], Any]], ...]] = (
    (sc.ENV_SIDECAR_HOST, parse_text),
    (sc.ENV_SIDECAR_HTTP_PORT, _PORT),
    (sc.ENV_SIDECAR_GRPC_PORT, _PORT),
    (sc.ENV_SIDECAR_FORWARD, parse_url),
    (sc.ENV_SIDECAR_TOKEN, parse_secret),
    (sc.ENV_SIDECAR_DECISION_WAIT, _SECONDS),
    (sc.ENV_SIDECAR_MAX_TRACE_AGE, _SECONDS),
    (sc.ENV_SIDECAR_MAX_TRACES, int_parser(1)),
    (sc.ENV_SIDECAR_MAX_SPANS_PER_TRACE, int_parser(1)),
    (sc.ENV_SIDECAR_MAX_HELD_BYTES, int_parser(1)),
    (sc.ENV_SIDECAR_QUEUE_SIZE, int_parser(1)),
    (sc.ENV_SIDECAR_CONCURRENCY, int_parser(1)),
    (sc.ENV_SIDECAR_JUDGE_PROCESSES, int_parser(0)),
    (sc.ENV_SIDECAR_MALLOC_ARENAS, int_parser(0)),
    (sc.ENV_SIDECAR_MAX_BODY_BYTES, int_parser(1)),
    (sc.ENV_SIDECAR_MAX_GRPC_INFLIGHT, int_parser(1)),
    (sc.ENV_SIDECAR_HEADER_TIMEOUT, _POSITIVE_SECONDS),
    (sc.ENV_SIDECAR_MIN_BODY_RATE, int_parser(1)),
    (sc.ENV_SIDECAR_HEALTH_RESERVE, int_parser(0)),
    (sc.ENV_SIDECAR_JUDGE_CONCURRENCY, int_parser(1)),
    (sc.ENV_SIDECAR_JUDGE_QUEUE, int_parser(0)),
    (sc.ENV_SIDECAR_MAX_INFLIGHT_BYTES, int_parser(1)),
    (sc.ENV_SIDECAR_FORWARD_MAX_BYTES, int_parser(1)),
    (sc.ENV_SIDECAR_GRPC_RECEIVE_TIMEOUT, _POSITIVE_SECONDS),
    (sc.ENV_SIDECAR_VERDICT_BUFFER, int_parser(1)),
    (sc.ENV_SIDECAR_DECODE_PROCESS_BYTES, int_parser(0)),
    (sc.ENV_SIDECAR_INCLUDE_UNVERIFIED, parse_bool),
    (sc.ENV_SIDECAR_MAX_JUDGE_PAIRS, int_parser(0)),
    (sc.ENV_SIDECAR_MODEL_TOKEN_BUDGET, int_parser(0)),
    (sc.ENV_SIDECAR_SHUTDOWN_GRACE, _POSITIVE_SECONDS),
    (sc.ENV_SIDECAR_LOG_VERDICTS, parse_bool),
    (sc.ENV_SIDECAR_CAPTURE_CASES, parse_text),
    (sc.ENV_SIDECAR_CAPTURE_RATE, _parse_unit),
)
"""``gsar sidecar``'s variables, one per setting of :mod:`gsar_otel.sidecar.settings` (which
holds their file keys and defaults)."""


def _sidecar_meaning(name: str) -> str:
    if name == sc.ENV_SIDECAR_TOKEN:
        return "bearer token the sidecar requires on its POST endpoints and gRPC calls (no flag)"
    flag = name.removeprefix("GSAR_SIDECAR_").lower().replace("_", "-")
    return f"gsar sidecar --{flag}"


VARIABLES: Final[tuple[Variable, ...]] = (
    # settings (gsar_otel.config): every entry point reads them alike
    Variable(sc.ENV_CONFIG, "path of a .json or .toml settings file", _parse_name),
    Variable(sc.ENV_JUDGE, "judge name: staged, records, tiered, anthropic, a plugin's",
             _parse_judge),
    Variable(sc.ENV_JUDGE_MODEL, "model for a model-backed judge", _parse_name),
    Variable(sc.ENV_SAMPLE_RATE, "share of calls judged, in [0, 1]", _parse_unit),
    Variable(sc.ENV_CAPTURE_CONTENT, "true puts claim and answer text on spans", parse_bool),
    Variable(sc.ENV_OTEL_GENAI_CAPTURE_CONTENT, "the GenAI instrumentations' content capture; "
             "turns ours on or off unless GSAR_CAPTURE_CONTENT is set", _otel_capture),
    Variable(sc.ENV_DISABLED, "true turns every @grounded into a plain call", parse_bool),
    Variable(sc.ENV_CAPTURE_DIR, "directory @grounded writes each judged call into",
             _parse_name),
    Variable(sc.ENV_BACKGROUND_QUEUE_SIZE, "evaluations waiting in background mode",
             int_parser(1)),
    Variable(sc.ENV_PROCEED, "proceed threshold, in [0, 1]", _parse_unit),
    Variable(sc.ENV_REGENERATE, "regenerate threshold, in [0, 1]", _parse_unit),
    Variable(sc.ENV_CONTRADICTION_PENALTY, "rho, in [0, 1]", _parse_unit),
    Variable(sc.ENV_K_MAX, "replan budget", int_parser(0)),
    Variable(sc.ENV_CONCLUSION_POLICY, "cap or score: an unsupported conclusion caps the "
             "decision", _parse_policy),
    Variable(sc.ENV_CONTRADICTION_POLICY, "cap or score: a wrong or unsupported tool-backed "
             "claim caps the decision", _parse_policy),
    Variable(sc.ENV_DISPUTE_POLICY, "flag or cap: what a disputed model-grounded claim does",
             _parse_dispute_policy),
    Variable(sc.ENV_MAX_ESCALATED_CLAIMS, "most claims the tiered judge sends to the model",
             int_parser(0)),
    # the process's telemetry (gsar_otel.otel)
    Variable(sc.ENV_EXIT_FLUSH_S, "seconds the interpreter waits at exit for background "
             "evaluations", _SECONDS),
    Variable(sc.ENV_CONSOLE, "what configure_telemetry() prints on stderr: summary, spans, off",
             _console),
    Variable(sc.ENV_TRACES_EXPORTER, "span exporters: otlp, console, none",
             exporters_parser(TRACES_EXPORTERS)),
    Variable(sc.ENV_METRICS_EXPORTER, "metric exporters: otlp, console, prometheus, none",
             exporters_parser(METRICS_EXPORTERS)),
    Variable(sc.ENV_PROMETHEUS_HOST, "address the Prometheus exporter serves on", parse_text),
    Variable(sc.ENV_PROMETHEUS_PORT, "port the Prometheus exporter serves on", _PORT),
    Variable(sc.ENV_OTLP_ENDPOINT, "OTLP endpoint of traces and metrics", _parse_name),
    Variable(sc.ENV_OTLP_TRACES_ENDPOINT, "OTLP endpoint of traces", _parse_name),
    Variable(sc.ENV_OTLP_METRICS_ENDPOINT, "OTLP endpoint of metrics", _parse_name),
    Variable(sc.ENV_OTLP_PROTOCOL, "OTLP protocol: http/protobuf or grpc", _protocol),
    Variable(sc.ENV_OTLP_TRACES_PROTOCOL, "OTLP protocol of traces", _protocol),
    Variable(sc.ENV_OTLP_METRICS_PROTOCOL, "OTLP protocol of metrics", _protocol),
    Variable(sc.ENV_OTLP_HEADERS, "headers of every OTLP export (key=value,...)", parse_secret),
    Variable(sc.ENV_OTLP_TRACES_HEADERS, "headers of OTLP trace exports", parse_secret),
    Variable(sc.ENV_OTEL_SERVICE_NAME, "the service name (gsar demo's, else gsar-demo)",
             _parse_name),
    # the Claude judge's credentials (the Anthropic SDK reads them too)
    Variable(sc.ENV_ANTHROPIC_API_KEY, "Anthropic API key; with it the default judge is "
             "anthropic", parse_secret),
    Variable(sc.ENV_ANTHROPIC_AUTH_TOKEN, "Anthropic bearer token, instead of a key",
             parse_secret),
    # gsar sidecar
    *(Variable(name, _sidecar_meaning(name), parse) for name, parse in _SIDECAR),
)
"""Every variable gsar-otel reads, one row each."""

BY_NAME: Final[Mapping[str, Variable]] = MappingProxyType({v.name: v for v in VARIABLES})


def environ(env: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """``env``, else the process's environment as it is now (``os.environ``)."""
    return os.environ if env is None else env


def parser(name: str) -> Callable[[str, object], Any]:
    """The parser of the variable ``name`` (for a settings-file key that stands for it).

    Raises:
        KeyError: ``name`` is in no row of :data:`VARIABLES`.
    """
    return _row(name).parse


def raw(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The text of ``name`` in ``env`` (default ``os.environ``), stripped; None when unset or
    blank. Not validated: for whether a variable is set, or for text another library parses.

    Raises:
        KeyError: ``name`` is in no row of :data:`VARIABLES`.
    """
    _row(name)
    value = environ(env).get(name, "").strip()
    return value or None


def read(name: str, env: Mapping[str, str] | None = None) -> Any:
    """The value of ``name`` in ``env`` (default ``os.environ``), parsed by its row; None when
    unset or blank.

    Raises:
        SettingsError: the value is invalid; the message names the variable and the value
            (a secret's value never).
        KeyError: ``name`` is in no row of :data:`VARIABLES`.
    """
    value = raw(name, env)
    return None if value is None else _row(name).parse(name, value)


def _row(name: str) -> Variable:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"{name} is not a variable gsar-otel reads; add it to "
                       "gsar_otel.environment.VARIABLES") from None
