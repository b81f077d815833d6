"""The plugin's settings: command-line flags over ini options, validated once per session.

Kept free of heavy imports: pytest loads this for every session, gsar used or not.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

RECORD_MODES: Final = ("none", "once", "new_episodes", "all")
"""Record modes, as in ``gsar_otel.judges.recorded.store.RecordMode`` (checked by a test)."""
DEFAULT_RECORD_MODE: Final = "none"
DEFAULT_TOLERANCE: Final = 0.05
CONTRADICTION_POLICIES: Final = ("cap", "score")
"""As ``gsar_otel.core.scoring.CONTRADICTION_POLICIES`` (checked by a test)."""
DISPUTE_POLICIES: Final = ("flag", "cap")
"""As ``gsar_otel.core.scoring.DISPUTE_POLICIES``."""

INI_HELP: Final = {
    "gsar_judge": "judge for assert_grounded and case files: staged, lexical, anthropic, or a "
                  "plugin's",
    "gsar_record_mode": f"recorded verdicts: {'|'.join(RECORD_MODES)} (default none: replay only)",
    "gsar_cassette_dir": "directory of recorded verdicts (default: cassettes/gsar next to each "
                         "test file)",
    "gsar_baseline": "score baseline file to compare every judgement against",
    "gsar_tolerance": f"largest allowed drop of S below the baseline (default {DEFAULT_TOLERANCE})",
    "gsar_min_score": "lowest passing S when a test sets none, checked as well as the decision "
                      "(proceed unless the test says decision='any')",
    "gsar_report": "write a self-contained HTML grounding report to this path",
    "gsar_config": "gsar settings file (thresholds, contradiction_penalty, weight_map...; "
                   "default: the GSAR_CONFIG environment variable)",
    "gsar_allow_outside_links": "true: allow cassette and baseline paths that a symlink leads "
                                "out of the project (default false: refused)",
    "gsar_block_network": "true: fail a test that opens a network connection during its call "
                          "(default false); hosts in gsar_allowed_hosts stay reachable",
    "gsar_allowed_hosts": "comma-separated hosts a test may still reach with gsar_block_network "
                          "(loopback too is blocked unless listed)",
    "gsar_recheck": "true: run the integrity guard again on every replayed verdict instead of "
                    "reusing the report recorded beside it (default false)",
    "gsar_strict": "true: an answer the offline judge abstains on as unverified (too few of its "
                   "claims checkable) fails its test (default false: it passes, counted in the "
                   "summary)",
    "gsar_contradiction_policy": "cap: a contradicted or unsupported "
                                 "tool-backed claim caps the decision at "
                                 "regenerate; score: S alone decides (default: "
                                 "GSAR_CONTRADICTION_POLICY, the settings file, else cap)",
    "gsar_dispute_policy": "flag: a claim a model judge grounded but the offline engine "
                           "contradicts is reported; cap: it caps the decision at regenerate "
                           "(default: GSAR_DISPUTE_POLICY, the settings file, else flag)",
}
"""The ini options (``[tool.pytest.ini_options]``) and their help."""


@dataclass(frozen=True, slots=True)
class GSAROptions:
    """The session's gsar settings after CLI > ini precedence and validation."""

    judge: str | None = None
    record_mode: str = DEFAULT_RECORD_MODE
    cassette_dir: Path | None = None
    baseline: Path | None = None
    update_baseline: bool = False
    tolerance: float = DEFAULT_TOLERANCE
    min_score: float | None = None
    report: Path | None = None
    config: Path | None = None
    """Settings file for the evaluator; None: ``GSAR_CONFIG`` as the library reads it."""
    allow_outside_links: bool = False
    """Cassettes and baselines may be symlinks leading out of the project."""
    block_network: bool = False
    """A test's call may open no network connection except to ``allowed_hosts``."""
    allowed_hosts: tuple[str, ...] = ()
    """Hosts (names or addresses) reachable under ``block_network``; loopback only if listed."""
    recheck: bool = False
    """Run the integrity guard on every replayed verdict, ignoring the report recorded with it."""
    contradiction_policy: str | None = None
    """``cap`` or ``score`` over the settings' policy; None: the settings decide."""
    strict: bool = False
    """An ``unverified`` abstain fails the test instead of passing as unverified."""
    dispute_policy: str | None = None
    """``flag`` or ``cap`` over the settings' policy; None: the settings decide."""

    def settings_env(self, environ: Mapping[str, str]) -> dict[str, str]:
        """``environ`` with these options over the ``GSAR_*`` variables they stand for: the
        settings file (``GSAR_CONFIG``), the contradiction and the dispute policy."""
        from gsar_otel.semconv import ENV_CONFIG, ENV_CONTRADICTION_POLICY, ENV_DISPUTE_POLICY

        env = dict(environ)
        if self.config is not None:
            env[ENV_CONFIG] = str(self.config)
        if self.contradiction_policy is not None:
            env[ENV_CONTRADICTION_POLICY] = self.contradiction_policy
        if self.dispute_policy is not None:
            env[ENV_DISPUTE_POLICY] = self.dispute_policy
        return env


def _flag(ini_name: str) -> str:
    return "--" + ini_name.replace("_", "-")


def _raw(config: pytest.Config, ini_name: str) -> tuple[str | None, str, Path]:
    """The value set for an option, the place it came from, and the directory it is relative to."""
    cli = config.getoption(ini_name, default=None)
    if cli is not None and str(cli).strip() != "":
        return str(cli).strip(), _flag(ini_name), config.invocation_params.dir
    ini = config.getini(ini_name)
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    if isinstance(ini, str) and ini.strip():
        return ini.strip(), f"{ini_name} (ini)", base
    return None, "", base


def _unit(value: str, source: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise pytest.UsageError(f"{source} must be a number between 0 and 1, got {value!r}")
    return number


def available_judges() -> list[str]:
    """Judge names ``make_judge`` accepts: the built-in ones and those plugins add."""
    from gsar_otel.judges.factory import BUILTIN_JUDGES
    from gsar_otel.plugins import plugin_judge_names

    return [*BUILTIN_JUDGES, *(n for n in plugin_judge_names() if n not in BUILTIN_JUDGES)]


def check_judge_name(name: str, source: str) -> str:
    """``name`` lowercased when a judge answers to it.

    Raises:
        pytest.UsageError: naming ``source`` and the available judges.
    """
    chosen = name.strip().lower()
    names = available_judges()
    if chosen not in names:
        raise pytest.UsageError(
            f"{source}: unknown judge {name!r}; available: {', '.join(names)}")
    return chosen


def _switch(config: pytest.Config, ini_name: str) -> bool:
    """A store_true flag, else its ini option read as a boolean (1/true/yes/on)."""
    if config.getoption(ini_name, default=None):
        return True
    return (_raw(config, ini_name)[0] or "").lower() in ("1", "true", "yes", "on")


def parse_hosts(value: str | None) -> tuple[str, ...]:
    """``"a.example, 127.0.0.1"`` as ``("a.example", "127.0.0.1")``, lowercased, no blanks."""
    if not value:
        return ()
    return tuple(dict.fromkeys(h.strip().lower().strip("[]") for h in value.split(",")
                               if h.strip()))


def marker_record_mode(item: pytest.Item) -> str | None:
    """The ``record_mode`` of the test's closest ``@pytest.mark.gsar``, None when it sets none.

    Raises:
        GroundingFailure: naming the test, the value and the allowed modes.
    """
    marker = item.get_closest_marker("gsar")
    value = None if marker is None else marker.kwargs.get("record_mode")
    if value is None:
        return None
    from gsar_otel.judges.recorded.store import parse_record_mode
    from pytest_gsar.errors import GroundingFailure

    try:
        return parse_record_mode(value).value
    except ValueError as error:
        raise GroundingFailure(f"{item.nodeid}: @pytest.mark.gsar(record_mode=...): "
                               f"{error}") from None


def resolve_options(config: pytest.Config) -> GSAROptions:
    """Read and validate every gsar option.

    Raises:
        pytest.UsageError: a value is invalid; the message names the option and valid values.
    """
    judge, source, _ = _raw(config, "gsar_judge")
    if judge is not None:
        judge = check_judge_name(judge, source)

    mode, source, _ = _raw(config, "gsar_record_mode")
    record_mode = DEFAULT_RECORD_MODE if mode is None else mode.lower()
    if record_mode not in RECORD_MODES:
        raise pytest.UsageError(f"{source} must be one of {', '.join(RECORD_MODES)}; "
                                f"got {mode!r}")

    paths: dict[str, Path | None] = {}
    for name in ("gsar_cassette_dir", "gsar_baseline", "gsar_report", "gsar_config"):
        value, _, base = _raw(config, name)
        # Absolute but not resolved: a symlink stays visible to the project-boundary check.
        paths[name] = None if value is None else Path(os.path.abspath(
            base / Path(value).expanduser()))

    tolerance_raw, source, _ = _raw(config, "gsar_tolerance")
    tolerance = DEFAULT_TOLERANCE if tolerance_raw is None else _unit(tolerance_raw, source)
    min_raw, source, _ = _raw(config, "gsar_min_score")
    min_score = None if min_raw is None else _unit(min_raw, source)

    settings_file = paths["gsar_config"]
    if settings_file is not None and not settings_file.is_file():
        raise pytest.UsageError(f"gsar settings file {settings_file} does not exist "
                                f"(--gsar-config / gsar_config)")
    update = bool(config.getoption("gsar_update_baseline", default=False))
    if update and paths["gsar_baseline"] is None:
        raise pytest.UsageError("--gsar-update-baseline needs a baseline file: pass "
                                "--gsar-baseline=PATH or set gsar_baseline in the ini file")
    policy, source, _ = _raw(config, "gsar_contradiction_policy")
    if policy is not None and policy.lower() not in CONTRADICTION_POLICIES:
        raise pytest.UsageError(f"{source} must be one of {', '.join(CONTRADICTION_POLICIES)}; "
                                f"got {policy!r}")
    dispute, source, _ = _raw(config, "gsar_dispute_policy")
    if dispute is not None and dispute.lower() not in DISPUTE_POLICIES:
        raise pytest.UsageError(f"{source} must be one of {', '.join(DISPUTE_POLICIES)}; "
                                f"got {dispute!r}")
    allow_raw = config.getoption("gsar_allow_outside_links", default=False) or (
        _raw(config, "gsar_allow_outside_links")[0] or "").lower() in ("1", "true", "yes", "on")
    return GSAROptions(judge=judge, record_mode=record_mode, allow_outside_links=bool(allow_raw),
                       cassette_dir=paths["gsar_cassette_dir"], baseline=paths["gsar_baseline"],
                       update_baseline=update, tolerance=tolerance, min_score=min_score,
                       report=paths["gsar_report"], config=settings_file,
                       block_network=_switch(config, "gsar_block_network"),
                       allowed_hosts=parse_hosts(_raw(config, "gsar_allowed_hosts")[0]),
                       recheck=_switch(config, "gsar_recheck"),
                       strict=_switch(config, "gsar_strict"),
                       contradiction_policy=None if policy is None else policy.lower(),
                       dispute_policy=None if dispute is None else dispute.lower())
