"""``gsar sidecar``'s own settings: a flag wins over its ``GSAR_SIDECAR_*`` variable, which wins
over the settings file's ``sidecar`` table (the file ``GSAR_CONFIG`` names), which wins over the
default.

Each setting is validated where it is read, and an invalid one is a
:class:`~gsar_otel.config.SettingsError` naming the variable or the file and key (never the
token's value), so a deployment fails at start with a message that says what to fix.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final
from urllib.parse import urlsplit

from gsar_otel import semconv as sc
from gsar_otel.config import GSARSettings, SettingsError, int_parser, parse_bool
from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.run_budget import DEFAULT_MAX_JUDGE_PAIRS


def _seconds(minimum: float) -> Callable[[str, object], float]:
    def parse(source: str, value: object) -> float:
        number = value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
        if (isinstance(number, bool) or not isinstance(number, int | float)
                or not math.isfinite(number) or number < minimum):
            raise SettingsError(f"{source} must be a number of seconds >= {minimum:g}, "
                                f"got {value!r}")
        return float(number)

    return parse


def _text(source: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{source} must be a non-empty string")
    return value.strip()


def _url(source: str, value: object) -> str:
    text = _text(source, value)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError(f"{source} must be an http(s) URL such as "
                            f"http://collector:4318/v1/traces, got {text!r}")
    return text


def _token(source: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{source} must be a non-empty string (value not shown)")
    return value.strip()


def _rate(source: str, value: object) -> float:
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float) or not 0 <= number <= 1:
        raise SettingsError(f"{source} must be a number in [0, 1], got {value!r}")
    return float(number)


@dataclass(frozen=True, slots=True)
class Setting:
    """One sidecar setting: its file key, variable, parser and default."""

    key: str
    variable: str
    parse: Callable[[str, object], Any]
    default: Any


_PORT = int_parser(0, 65535)
_NET = NetworkLimits()
SETTINGS: Final[tuple[Setting, ...]] = (
    Setting("host", sc.ENV_SIDECAR_HOST, _text, "127.0.0.1"),
    Setting("http_port", sc.ENV_SIDECAR_HTTP_PORT, _PORT, 4318),
    Setting("grpc_port", sc.ENV_SIDECAR_GRPC_PORT, _PORT, 4317),
    Setting("forward", sc.ENV_SIDECAR_FORWARD, _url, None),
    Setting("token", sc.ENV_SIDECAR_TOKEN, _token, None),
    Setting("decision_wait", sc.ENV_SIDECAR_DECISION_WAIT, _seconds(0.0), 10.0),
    Setting("max_trace_age", sc.ENV_SIDECAR_MAX_TRACE_AGE, _seconds(0.0), 300.0),
    Setting("max_traces", sc.ENV_SIDECAR_MAX_TRACES, int_parser(1), 10_000),
    Setting("max_spans_per_trace", sc.ENV_SIDECAR_MAX_SPANS_PER_TRACE, int_parser(1), 5_000),
    Setting("max_held_bytes", sc.ENV_SIDECAR_MAX_HELD_BYTES, int_parser(1), 512 * 1024 * 1024),
    Setting("queue_size", sc.ENV_SIDECAR_QUEUE_SIZE, int_parser(1), 1_000),
    Setting("concurrency", sc.ENV_SIDECAR_CONCURRENCY, int_parser(1), 4),
    Setting("max_body_bytes", sc.ENV_SIDECAR_MAX_BODY_BYTES, int_parser(1), 20 * 1024 * 1024),
    Setting("max_grpc_inflight", sc.ENV_SIDECAR_MAX_GRPC_INFLIGHT, int_parser(1), 64),
    Setting("header_timeout", sc.ENV_SIDECAR_HEADER_TIMEOUT, _seconds(0.001),
            _NET.header_timeout_s),
    Setting("min_body_rate", sc.ENV_SIDECAR_MIN_BODY_RATE, int_parser(1), _NET.min_body_rate),
    Setting("health_reserve", sc.ENV_SIDECAR_HEALTH_RESERVE, int_parser(0), _NET.health_reserve),
    Setting("judge_concurrency", sc.ENV_SIDECAR_JUDGE_CONCURRENCY, int_parser(1),
            _NET.judge_concurrency),
    Setting("judge_queue", sc.ENV_SIDECAR_JUDGE_QUEUE, int_parser(0), _NET.judge_queue),
    Setting("max_inflight_bytes", sc.ENV_SIDECAR_MAX_INFLIGHT_BYTES, int_parser(1),
            _NET.max_inflight_bytes),
    Setting("forward_max_bytes", sc.ENV_SIDECAR_FORWARD_MAX_BYTES, int_parser(1),
            _NET.forward_max_bytes),
    Setting("grpc_receive_timeout", sc.ENV_SIDECAR_GRPC_RECEIVE_TIMEOUT, _seconds(0.001),
            _NET.grpc_receive_timeout_s),
    Setting("verdict_buffer", sc.ENV_SIDECAR_VERDICT_BUFFER, int_parser(1), _NET.verdict_buffer),
    Setting("include_unverified", sc.ENV_SIDECAR_INCLUDE_UNVERIFIED, parse_bool, False),
    Setting("max_judge_pairs", sc.ENV_SIDECAR_MAX_JUDGE_PAIRS, int_parser(0),
            DEFAULT_MAX_JUDGE_PAIRS),
    Setting("model_token_budget", sc.ENV_SIDECAR_MODEL_TOKEN_BUDGET, int_parser(0), 0),
    Setting("shutdown_grace", sc.ENV_SIDECAR_SHUTDOWN_GRACE, _seconds(0.001), 30.0),
    Setting("log_verdicts", sc.ENV_SIDECAR_LOG_VERDICTS, parse_bool, False),
    Setting("capture_cases", sc.ENV_SIDECAR_CAPTURE_CASES, _text, None),
    Setting("capture_rate", sc.ENV_SIDECAR_CAPTURE_RATE, _rate, 1.0),
)
"""Every sidecar setting, in ``--help`` order."""
BY_KEY: Final[Mapping[str, Setting]] = MappingProxyType({s.key: s for s in SETTINGS})


def sidecar_settings(settings: GSARSettings, env: Mapping[str, str] | None = None,
                     flags: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every sidecar setting's value: ``flags`` (None: not given) over ``env`` (default
    ``os.environ``) over the file's ``sidecar`` table over the default.

    Raises:
        SettingsError: an unknown key in the file's table, or an invalid value in the file or a
            variable; the message names it.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    table = settings.sidecar or {}
    where = f"settings file {settings.config_file!r}" if settings.config_file else "settings"
    unknown = sorted(set(table) - set(BY_KEY))
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))} in sidecar; "
                            f"allowed: {', '.join(BY_KEY)}")
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        value = setting.default
        if table.get(setting.key) is not None:
            value = setting.parse(f"{where}: sidecar.{setting.key}", table[setting.key])
        raw = environ.get(setting.variable, "").strip()
        if raw:
            value = setting.parse(setting.variable, raw)
        given = (flags or {}).get(setting.key)
        if given is not None:
            value = setting.parse(f"--{setting.key.replace('_', '-')}", given)
        values[setting.key] = value
    return values


def help_default(key: str) -> str:
    """``default D, GSAR_SIDECAR_X``: for a flag's ``--help``."""
    setting = BY_KEY[key]
    return f"default {setting.default}; also {setting.variable}"
