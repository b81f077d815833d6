"""``gsar sidecar``'s own settings: a flag wins over its ``GSAR_SIDECAR_*`` variable, which wins
over the settings file's ``sidecar`` table (the file ``GSAR_CONFIG`` names), which wins over the
default.

Each setting is validated where it is read, and an invalid one is a
:class:`~gsar_otel.config.SettingsError` naming the variable or the file and key (never the
token's value), so a deployment fails at start with a message that says what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from gsar_otel import environment
from gsar_otel import semconv as sc
from gsar_otel.config import GSARSettings, SettingsError
from gsar_otel.sidecar.config import DEFAULT_MALLOC_ARENAS
from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.run_budget import DEFAULT_MAX_JUDGE_PAIRS


@dataclass(frozen=True, slots=True)
class Setting:
    """One sidecar setting: its file key, variable and default; the variable's parser (in
    :data:`gsar_otel.environment.VARIABLES`) reads the file key too."""

    key: str
    variable: str
    default: Any

    @property
    def parse(self) -> Callable[[str, object], Any]:
        """The parser of the setting's values, wherever they come from."""
        return environment.parser(self.variable)


_NET = NetworkLimits()
SETTINGS: Final[tuple[Setting, ...]] = (
    Setting("host", sc.ENV_SIDECAR_HOST, "127.0.0.1"),
    Setting("http_port", sc.ENV_SIDECAR_HTTP_PORT, 4318),
    Setting("grpc_port", sc.ENV_SIDECAR_GRPC_PORT, 4317),
    Setting("forward", sc.ENV_SIDECAR_FORWARD, None),
    Setting("token", sc.ENV_SIDECAR_TOKEN, None),
    Setting("decision_wait", sc.ENV_SIDECAR_DECISION_WAIT, 10.0),
    Setting("max_trace_age", sc.ENV_SIDECAR_MAX_TRACE_AGE, 300.0),
    Setting("max_traces", sc.ENV_SIDECAR_MAX_TRACES, 10_000),
    Setting("max_spans_per_trace", sc.ENV_SIDECAR_MAX_SPANS_PER_TRACE, 5_000),
    Setting("max_held_bytes", sc.ENV_SIDECAR_MAX_HELD_BYTES, 512 * 1024 * 1024),
    Setting("queue_size", sc.ENV_SIDECAR_QUEUE_SIZE, 1_000),
    Setting("concurrency", sc.ENV_SIDECAR_CONCURRENCY, 4),
    Setting("judge_processes", sc.ENV_SIDECAR_JUDGE_PROCESSES, 0),
    Setting("malloc_arenas", sc.ENV_SIDECAR_MALLOC_ARENAS, DEFAULT_MALLOC_ARENAS),
    Setting("max_body_bytes", sc.ENV_SIDECAR_MAX_BODY_BYTES, 20 * 1024 * 1024),
    Setting("max_grpc_inflight", sc.ENV_SIDECAR_MAX_GRPC_INFLIGHT, 64),
    Setting("header_timeout", sc.ENV_SIDECAR_HEADER_TIMEOUT, _NET.header_timeout_s),
    Setting("min_body_rate", sc.ENV_SIDECAR_MIN_BODY_RATE, _NET.min_body_rate),
    Setting("health_reserve", sc.ENV_SIDECAR_HEALTH_RESERVE, _NET.health_reserve),
    Setting("judge_concurrency", sc.ENV_SIDECAR_JUDGE_CONCURRENCY, _NET.judge_concurrency),
    Setting("judge_queue", sc.ENV_SIDECAR_JUDGE_QUEUE, _NET.judge_queue),
    Setting("max_inflight_bytes", sc.ENV_SIDECAR_MAX_INFLIGHT_BYTES, _NET.max_inflight_bytes),
    Setting("forward_max_bytes", sc.ENV_SIDECAR_FORWARD_MAX_BYTES, _NET.forward_max_bytes),
    Setting("grpc_receive_timeout", sc.ENV_SIDECAR_GRPC_RECEIVE_TIMEOUT,
            _NET.grpc_receive_timeout_s),
    Setting("verdict_buffer", sc.ENV_SIDECAR_VERDICT_BUFFER, _NET.verdict_buffer),
    Setting("decode_process_bytes", sc.ENV_SIDECAR_DECODE_PROCESS_BYTES,
            _NET.decode_process_bytes),
    Setting("include_unverified", sc.ENV_SIDECAR_INCLUDE_UNVERIFIED, False),
    Setting("max_judge_pairs", sc.ENV_SIDECAR_MAX_JUDGE_PAIRS, DEFAULT_MAX_JUDGE_PAIRS),
    Setting("model_token_budget", sc.ENV_SIDECAR_MODEL_TOKEN_BUDGET, 0),
    Setting("shutdown_grace", sc.ENV_SIDECAR_SHUTDOWN_GRACE, 30.0),
    Setting("log_verdicts", sc.ENV_SIDECAR_LOG_VERDICTS, False),
    Setting("capture_cases", sc.ENV_SIDECAR_CAPTURE_CASES, None),
    Setting("capture_rate", sc.ENV_SIDECAR_CAPTURE_RATE, 1.0),
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
        variable = environment.read(setting.variable, env)
        if variable is not None:
            value = variable
        given = (flags or {}).get(setting.key)
        if given is not None:
            value = setting.parse(f"--{setting.key.replace('_', '-')}", given)
        values[setting.key] = value
    return values


def help_default(key: str) -> str:
    """``default D, GSAR_SIDECAR_X``: for a flag's ``--help``."""
    setting = BY_KEY[key]
    return f"default {setting.default}; also {setting.variable}"
