"""Settings from ``GSAR_*`` environment variables and an optional settings file, validated once.

Precedence, lowest first: built-in defaults, the file named by ``GSAR_CONFIG``, environment
variables, then explicit arguments (to ``@grounded``, ``GSAREvaluator``, ``gsar judge``'s
options, the pytest plugin's ``--gsar-config``).

Every entry point reads these settings the same way and rejects an invalid value the same way,
with a :class:`SettingsError` naming the variable (or file key) and the allowed values:
``GSAREvaluator`` raises it, a ``@grounded`` gate (``on_low="raise"`` / ``"recover"``) raises it
at every call before the function runs, ``gsar judge`` exits 2 with it, and the plugin fails each
judging test with it. Only ``@grounded(on_low="observe")`` turns grounding off instead, and
counts each unjudged call in ``gsar.evaluations.degraded`` (``gsar.degraded.reason=
invalid_settings``).

Environment variables (each read and validated by :mod:`gsar_otel.environment`):

==================================  =========================================================
``GSAR_JUDGE``                      judge name: ``staged``, ``tiered``, ``anthropic``, a plugin's
``GSAR_JUDGE_MODEL``                model for the judge (e.g. a Claude model id)
``GSAR_SAMPLE_RATE``                share of calls judged, in [0, 1] (default 1)
``GSAR_CAPTURE_CONTENT``            ``true`` puts claim and answer text on spans (default off)
``GSAR_DISABLED``                   ``true`` turns every ``@grounded`` into a plain call
``GSAR_BACKGROUND_QUEUE_SIZE``      evaluations waiting in background mode (default 1000)
``GSAR_PROCEED``                    proceed threshold (default 0.80)
``GSAR_REGENERATE``                 regenerate threshold (default 0.65)
``GSAR_CONTRADICTION_PENALTY``      rho in [0, 1] (default 0.5)
``GSAR_K_MAX``                      replan budget (default 2)
``GSAR_CONCLUSION_POLICY``          ``cap`` (default): an unsupported conclusion caps the decision
``GSAR_CONTRADICTION_POLICY``       ``cap`` (default): a wrong or unsupported tool claim caps it
``GSAR_DISPUTE_POLICY``             ``flag`` (default) or ``cap``: a disputed model-grounded claim
``GSAR_MAX_ESCALATED_CLAIMS``       most claims the tiered judge sends to the model (default 16)
``GSAR_CONFIG``                     path of a ``.json`` or ``.toml`` settings file
==================================  =========================================================

``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` also turns content capture on, unless
``GSAR_CAPTURE_CONTENT`` is set (the more specific variable wins).

The settings file (written by ``gsar calibrate``) holds any of these keys, all optional::

    {"thresholds": {"proceed": 0.8, "regenerate": 0.65}, "contradiction_penalty": 0.5,
     "weight_map": {"tool_match": 1.0}, "k_max": 2, "max_regenerations": 2,
     "judge": "lexical", "judge_model": null, "sample_rate": 1.0, "capture_content": false,
     "sidecar": {"decision_wait": 10, "http_port": 4318}}

or the same keys in TOML (``[thresholds]`` as a table). A ``null`` value means "not set". The
``sidecar`` table (``gsar sidecar``'s own settings, also ``GSAR_SIDECAR_*`` variables) is kept
as read here and validated by ``gsar_otel.sidecar.settings`` when the sidecar starts.
"""

from __future__ import annotations

import os
import threading
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gsar_otel import environment, semconv
from gsar_otel.config_values import (
    SettingsError as SettingsError,
)
from gsar_otel.config_values import (
    _parse_unit,
    _parse_weight_map,
)
from gsar_otel.config_values import (
    int_parser as int_parser,
)
from gsar_otel.config_values import (
    parse_bool as parse_bool,
)
from gsar_otel.core.json_input import load_json
from gsar_otel.core.model import GSARThresholds
from gsar_otel.core.scoring import Policy, WeightMap, resolve_weight_map

DEFAULT_BACKGROUND_QUEUE_SIZE: Final = 1000
DEFAULT_MAX_ESCALATED_CLAIMS: Final = 16

FILE_KEYS: Final = (
    "thresholds", "contradiction_penalty", "weight_map", "k_max", "max_regenerations", "judge",
    "judge_model", "sample_rate", "capture_content", "disabled", "background_queue_size",
    "conclusion_policy", "contradiction_policy", "penalty_weight_map", "sidecar",
    "dispute_policy", "max_escalated_claims", "capture_dir",
)
"""Keys a settings file may hold."""
THRESHOLD_KEYS: Final = ("proceed", "regenerate")


class GSARSettings(BaseModel):
    """The effective gsar-otel settings (frozen). Build with :func:`load_settings`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str | None = Field(default=None, description="Judge name; None picks the default.")
    judge_model: str | None = Field(default=None, description="Model for the judge.")
    sample_rate: float = Field(default=1.0, ge=0.0, le=1.0, description="Share of calls judged.")
    capture_content: bool = Field(default=False, description="Put claim/answer text on spans.")
    disabled: bool = Field(default=False, description="Turn @grounded into a plain call.")
    capture_dir: str | None = Field(default=None, description="Directory @grounded writes each "
                                    "judged call into as a case-file line; None: off.")
    background_queue_size: int = Field(default=DEFAULT_BACKGROUND_QUEUE_SIZE, ge=1,
                                       description="Evaluations waiting in background mode.")
    proceed: float = Field(default=0.80, ge=0.0, le=1.0, description="Proceed threshold.")
    regenerate: float = Field(default=0.65, ge=0.0, le=1.0, description="Regenerate threshold.")
    contradiction_penalty: float = Field(default=0.5, ge=0.0, le=1.0, description="rho.")
    weight_map: Mapping[str, float] | None = Field(
        default=None, description="Weights for some evidence types, merged over the defaults.")
    k_max: int = Field(default=2, ge=0, description="Replan budget.")
    max_regenerations: int = Field(default=2, ge=0, description="Regenerate budget.")
    conclusion_policy: Policy = Field(default="cap", description="cap: an over-reaching "
                                      "conclusion caps the decision; score: S alone decides.")
    contradiction_policy: Policy = Field(default="cap", description="cap: a contradicted or "
                                         "unsupported tool claim caps it; score: S decides.")
    dispute_policy: Literal["flag", "cap"] = Field(
        default="flag", description="flag: a disputed model-grounded claim is reported; cap: it "
                                    "caps the decision at regenerate.")
    max_escalated_claims: int = Field(default=DEFAULT_MAX_ESCALATED_CLAIMS, ge=0, description=(
        "The tiered judge's most claims sent to the model per evaluation."))
    penalty_weight_map: Mapping[str, float] | None = Field(
        default=None, description="Weights of ungrounded and contradicted claims, merged over "
                                  "weight_map (GSAR-SPEC §11.7); None weighs them like support.")
    config_file: str | None = Field(default=None, description="The settings file read, if any.")
    sidecar: Mapping[str, Any] | None = Field(
        default=None, repr=False, exclude=True,  # may hold the sidecar's token
        description="The file's sidecar table, validated by gsar_otel.sidecar.settings.")

    @model_validator(mode="after")
    def _consistent(self) -> GSARSettings:
        self.thresholds_model()
        for name in ("weight_map", "penalty_weight_map"):
            weights = getattr(self, name)
            if weights is not None:
                resolve_weight_map(weights, name=name)
                # A frozen model should not hand out a mutable dict.
                object.__setattr__(self, name, MappingProxyType(dict(weights)))
        if self.sidecar is not None:
            object.__setattr__(self, "sidecar", MappingProxyType(dict(self.sidecar)))
        return self

    def evaluator_options(self) -> dict[str, Any]:
        """The settings that shape an evaluation, as :class:`GSAREvaluator` keyword arguments:
        one place, so every entry point applies them alike."""
        return {
            "thresholds": self.thresholds_model(),
            "contradiction_penalty": self.contradiction_penalty,
            "weight_map": self.weight_map, "penalty_weight_map": self.penalty_weight_map,
            "k_max": self.k_max, "max_regenerations": self.max_regenerations,
            "conclusion_policy": self.conclusion_policy,
            "contradiction_policy": self.contradiction_policy,
            "dispute_policy": self.dispute_policy,
        }

    def thresholds_model(self) -> GSARThresholds:
        """The decision thresholds as a :class:`GSARThresholds`."""
        return GSARThresholds(proceed=self.proceed, regenerate=self.regenerate)

    def weight_map_model(self) -> WeightMap:
        """The full weight map: the configured weights merged over the defaults."""
        return resolve_weight_map(self.weight_map)


# --- parsing ------------------------------------------------------------------------------------


_ENV_FIELDS: Final[Mapping[str, str]] = MappingProxyType({
    semconv.ENV_JUDGE: "judge",
    semconv.ENV_JUDGE_MODEL: "judge_model",
    semconv.ENV_SAMPLE_RATE: "sample_rate",
    semconv.ENV_DISABLED: "disabled",
    semconv.ENV_CAPTURE_DIR: "capture_dir",
    semconv.ENV_BACKGROUND_QUEUE_SIZE: "background_queue_size",
    semconv.ENV_PROCEED: "proceed",
    semconv.ENV_REGENERATE: "regenerate",
    semconv.ENV_CONTRADICTION_PENALTY: "contradiction_penalty",
    semconv.ENV_K_MAX: "k_max",
    semconv.ENV_CONCLUSION_POLICY: "conclusion_policy",
    semconv.ENV_CONTRADICTION_POLICY: "contradiction_policy",
    semconv.ENV_DISPUTE_POLICY: "dispute_policy",
    semconv.ENV_MAX_ESCALATED_CLAIMS: "max_escalated_claims",
})
"""The settings a variable sets (content capture has two variables: see :func:`_env_values`)."""

# A file key with a variable is parsed by the variable's own parser: the two accept alike.
_SCALARS: Final[Mapping[str, Callable[[str, object], Any]]] = MappingProxyType({
    **{field: environment.parser(variable) for variable, field in _ENV_FIELDS.items()
       if field not in THRESHOLD_KEYS},
    "capture_content": environment.parser(semconv.ENV_CAPTURE_CONTENT),
    "max_regenerations": int_parser(0),
    "weight_map": _parse_weight_map,
    "penalty_weight_map": _parse_weight_map,
})


def read_settings_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a ``.json`` or ``.toml`` settings file into GSARSettings field values.

    Raises:
        SettingsError: the file is missing, unreadable, of another type, or holds an unknown key
            or an invalid value (the message names the file and the key).
    """
    file = Path(path)
    suffix, name = file.suffix.lower(), f"settings file {str(file)!r}"
    if suffix not in (".json", ".toml"):
        raise SettingsError(f"{name} must end in .json or .toml")
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise SettingsError(f"cannot read settings file {str(file)!r} "
                            f"(named by {semconv.ENV_CONFIG}): {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise SettingsError(f"{name} is not UTF-8 text: {error.reason} at byte {error.start}"
                            ) from None
    try:  # JSON nested deeper than 64 levels is refused before parsing; tomllib recurses
        raw: object = load_json(text) if suffix == ".json" else tomllib.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, JSONTooDeep, TOML's own
        why = error if isinstance(error, ValueError) else "nested too deeply"
        raise SettingsError(f"{name} is not valid {suffix[1:].upper()}: {why}") from None
    if not isinstance(raw, Mapping):
        raise SettingsError(f"{name} must hold a table of settings")
    return _file_values(raw, name)


def _file_values(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(raw) - set(FILE_KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: "
                            f"{', '.join(FILE_KEYS)}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None:
            continue
        if key == "sidecar":
            if not isinstance(value, Mapping):
                raise SettingsError(f"{where}: sidecar must be a table, got "
                                    f"{type(value).__name__}")
            values[key] = MappingProxyType(dict(value))
            continue
        if key == "thresholds":
            if not isinstance(value, Mapping):
                raise SettingsError(f"{where}: thresholds must be a table with keys "
                                    f"{', '.join(THRESHOLD_KEYS)}, got {value!r}")
            extra = sorted(set(value) - set(THRESHOLD_KEYS))
            if extra:
                raise SettingsError(f"{where}: unknown key(s) {', '.join(map(repr, extra))} in "
                                    f"thresholds; allowed: {', '.join(THRESHOLD_KEYS)}")
            for name in THRESHOLD_KEYS:
                if value.get(name) is not None:
                    values[name] = _parse_unit(f"{where}: thresholds.{name}", value[name])
            continue
        parsed = _SCALARS[key](f"{where}: {key}", value)
        if parsed is not None:
            values[key] = parsed
    return values


def _env_values(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for variable, field in _ENV_FIELDS.items():
        parsed = environment.read(variable, env)
        if parsed is not None:
            values[field] = parsed
    capture = environment.read(semconv.ENV_CAPTURE_CONTENT, env)
    if capture is None:
        # The GenAI instrumentations' variable: None for a value of another's dialect.
        capture = environment.read(semconv.ENV_OTEL_GENAI_CAPTURE_CONTENT, env)
    if capture is not None:
        values["capture_content"] = capture
    return values


def load_settings(env: Mapping[str, str] | None = None) -> GSARSettings:
    """Build settings from ``env`` (default: ``os.environ``) and the file ``GSAR_CONFIG`` names.

    Raises:
        SettingsError: any invalid variable, file or key; the message names it and the allowed
            values.
    """
    environ = environment.environ(env)
    values: dict[str, Any] = {}
    config: str | None = environment.read(semconv.ENV_CONFIG, environ)
    if config:
        values.update(read_settings_file(config))
        values["config_file"] = config
    values.update(_env_values(environ))
    try:
        return GSARSettings(**values)
    except ValidationError as error:
        problems = "; ".join(_describe(e) for e in error.errors())
        sources = f" (environment and {config})" if config else ""
        raise SettingsError(f"invalid gsar settings{sources}: {problems}") from None


def _describe(error: Mapping[str, Any]) -> str:
    message = str(error.get("msg", "invalid value"))
    message = message.removeprefix("Value error, ")
    location = ".".join(str(part) for part in error.get("loc", ()))
    return f"{location}: {message}" if location else message


_lock = threading.Lock()
_cached: GSARSettings | None = None


def get_settings() -> GSARSettings:
    """The process's settings, loaded from the environment on first use and then cached.

    Raises:
        SettingsError: the environment or settings file is invalid.
    """
    global _cached
    settings = _cached
    if settings is not None:
        return settings
    with _lock:
        if _cached is None:
            _cached = load_settings()
        return _cached


def reset_settings() -> None:
    """Forget the cached settings so the next :func:`get_settings` reads the environment again."""
    global _cached
    with _lock:
        _cached = None
