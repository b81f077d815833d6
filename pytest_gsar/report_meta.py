"""What a run was, for the top of the HTML report: when, with which settings, code and versions.

Gathered once on the controller when the report is written. Nothing here may fail the run: a
value that cannot be read (no git, invalid settings) is left out or shown as such.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pytest_gsar.records import JudgementRecord

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from pytest_gsar.state import GSARSession

GIT_TIMEOUT_S: Final = 2.0
"""How long ``git rev-parse HEAD`` may take before the commit is left out of the report."""
_COMMIT: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The run's metadata, as label/value pairs in display order (values not yet masked)."""

    rows: tuple[tuple[str, str], ...]
    thresholds: str = ""
    """The session's thresholds as :func:`settings_text` writes them: a judgement made with
    other ones (``assert_grounded(..., thresholds=...)``) shows its own."""


def git_commit(root: Path, timeout_s: float = GIT_TIMEOUT_S) -> str | None:
    """``HEAD`` of the git checkout at ``root``; None when it is not one, git is missing or slow."""
    try:
        done = subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=root,
                              capture_output=True, text=True, timeout=timeout_s, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError, ValueError, UnicodeError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and _COMMIT.fullmatch(sha) else None


def judges_used(records: Sequence[JudgementRecord]) -> list[tuple[str, int]]:
    """Every judge of the run (name, model and prompt version where known) with its number of
    judgements, most used first."""
    counts: Counter[str] = Counter()
    for record in records:
        counts[_judge_text(record)] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _judge_text(record: JudgementRecord) -> str:
    identity = (record.details or {}).get("judge")
    if isinstance(identity, dict) and identity.get("backend"):
        shown = [str(identity["backend"])]
        shown += [f"{key} {value}" for key, value in sorted(identity.items())
                  if key != "backend" and value]
        return " · ".join(shown)
    return record.judge or "unknown judge"


def judging_context(evaluator: GSAREvaluator, mask: Callable[[str, str], str]
                    ) -> dict[str, Any]:
    """What decided one judgement, for its report row: the judge's identity (backend, model,
    prompt version; masked) and the thresholds and policies in force."""
    from gsar_otel.judges.recorded.judge import judge_identity

    try:
        identity = judge_identity(evaluator.judge)
    except Exception as error:  # a user judge's own identity() must not fail the test
        identity = {"backend": type(evaluator.judge).__name__,
                    "identity": f"unreadable ({type(error).__name__})"}
    return {
        "judge": {key: mask(value, "explanation") for key, value in identity.items()},
        "settings": {"proceed": evaluator.thresholds.proceed,
                     "regenerate": evaluator.thresholds.regenerate,
                     "rho": evaluator.contradiction_penalty,
                     "conclusion_policy": str(evaluator.conclusion_policy),
                     "contradiction_policy": str(evaluator.contradiction_policy)},
    }


def settings_text(values: dict[str, Any]) -> str:
    """Thresholds and policy as one line: ``proceed 0.80 · regenerate 0.65 · rho 0.50 · ...``."""
    parts = []
    for key, label in (("proceed", "proceed"), ("regenerate", "regenerate"),
                       ("rho", "rho"), ("conclusion_policy", "conclusion policy"),
                       ("contradiction_policy", "contradiction policy")):
        value = values.get(key)
        if value is not None:
            parts.append(f"{label} {value:.2f}" if isinstance(value, float) else
                         f"{label} {value}")
    return " · ".join(parts)


def session_settings(state: GSARSession) -> dict[str, Any] | str:
    """The session's thresholds and policies, or why they cannot be read."""
    try:
        settings = state.settings()
    except ValueError as error:
        return f"invalid settings: {error}"
    return {"proceed": settings.proceed, "regenerate": settings.regenerate,
            "rho": settings.contradiction_penalty,
            "conclusion_policy": settings.conclusion_policy,
            "contradiction_policy": settings.contradiction_policy}


def collect_run_info(state: GSARSession, records: Sequence[JudgementRecord],
                     now: datetime | None = None) -> RunInfo:
    """The metadata of the session ``state`` that made ``records``."""
    from gsar_otel._version import __version__
    options = state.options
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    rows: list[tuple[str, str]] = [("time (UTC)", moment.isoformat(timespec="seconds"))]
    for judge, count in judges_used(records):
        rows.append(("judge", f"{judge} ({count} judgement{'s' if count != 1 else ''})"))
    settings = session_settings(state)
    thresholds = settings if isinstance(settings, str) else settings_text(settings)
    rows.append(("thresholds", thresholds))
    config_file = None if isinstance(settings, str) else state.settings_value("config_file")
    if config_file:
        rows.append(("settings file", str(config_file)))
    rows.append(("passing rule", f"S >= {options.min_score:.2f} (--gsar-min-score)"
                 if options.min_score is not None else "decision proceed, unless a test sets "
                 "its own"))
    rows.append(("record mode", options.record_mode))
    if options.baseline is not None:
        update = ", updated by this run" if options.update_baseline else ""
        rows.append(("baseline", f"{_shown(options.baseline, state.config.rootpath)} "
                                 f"(tolerance {options.tolerance:.2f}{update})"))
    rows.append(("versions", f"gsar-otel {__version__} · pytest {_pytest_version()}"))
    commit = git_commit(state.config.rootpath)
    if commit is not None:
        rows.append(("git commit", commit))
    return RunInfo(rows=tuple(rows), thresholds=thresholds)


def _pytest_version() -> str:
    import pytest

    return str(pytest.__version__)


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
