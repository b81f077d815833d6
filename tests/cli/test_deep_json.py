"""JSON nested to any depth, on every path where a ``gsar`` command reads JSON: the command ends
with exit 2 (bad input) and one line naming the file, never a RecursionError traceback and exit 1
(which would read as a negative verdict).

Each row runs the real console entry point in a child process, so the exit code and stderr are
exactly what a shell sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gsar_otel.cli.inputs import MAX_JSON_DEPTH

DEPTH = 100_000
ROOT = Path(__file__).resolve().parents[2]
NESTED = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
ENTRY = "import sys; from gsar_otel.cli.main import main; sys.exit(main())"
ANSWER = {"id": "a", "synthesis": "CPU on host db-1 reached 97%.",
          "evidence": ["host=db-1 cpu_pct=97.2"]}


def deep(shape: str) -> str:
    """One JSON value nested ``DEPTH`` levels deep."""
    if shape == "arrays":
        return "[" * DEPTH + "]" * DEPTH
    return '{"a":' * DEPTH + "1" + "}" * DEPTH


@dataclass(frozen=True)
class Case:
    """A command reading ``deep`` (the nested file) and ``good`` (a valid file of its kind)."""

    argv: Callable[[Path, Path], list[str]]
    expected: Callable[[Path], str]
    """The one error line, given the deep file's path."""
    config: bool = False
    """The deep file is the settings file (``GSAR_CONFIG``), not an argument."""
    good: dict[str, object] | None = None
    batch: bool = False
    """``judge --batch``: a bad line is an error row; stderr adds the progress and tally lines."""


def _settings(path: Path) -> str:
    return f"settings file '{path}' is not valid JSON: {NESTED}"


CASES = {
    "judge --evidence": Case(
        lambda d, g: ["judge", "--judge", "staged", "--synthesis", "CPU hit 97%.",
                      "--evidence", f"@{d}"],
        lambda d: f"gsar judge: error: --evidence: {NESTED}"),
    "judge --batch": Case(
        lambda d, g: ["judge", "--judge", "staged", "--batch", str(d)],
        lambda d: f"gsar judge: {d}:1: {NESTED}", batch=True),
    "bench": Case(
        lambda d, g: ["bench", "--judge", "staged", str(d)],
        lambda d: f"gsar bench: error: {d}:1: {NESTED}"),
    "calibrate": Case(
        lambda d, g: ["calibrate", "--judge", "staged", str(d)],
        lambda d: f"gsar calibrate: error: {d}:1: {NESTED}"),
    "judge, GSAR_CONFIG": Case(
        lambda d, g: ["judge", "--judge", "staged", "--synthesis", "CPU hit 97%.",
                      "--evidence", "cpu_pct=97.2"],
        lambda d: f"gsar judge: error: {_settings(d)}", config=True),
    "judge --batch, GSAR_CONFIG": Case(
        lambda d, g: ["judge", "--judge", "staged", "--batch", str(g)],
        lambda d: f"gsar judge: error: {_settings(d)}", config=True, good=ANSWER),
    "calibrate, GSAR_CONFIG": Case(
        lambda d, g: ["calibrate", "--judge", "staged", str(g)],
        lambda d: f"gsar calibrate: error: {_settings(d)}", config=True,
        good={"label": "ok", **ANSWER}),
    "sidecar, GSAR_CONFIG": Case(
        lambda d, g: ["sidecar"],
        lambda d: f"gsar sidecar: error: {_settings(d)}", config=True),
}


@pytest.mark.parametrize("shape", ["arrays", "objects"])
@pytest.mark.parametrize("name", list(CASES))
def test_deep_json_is_one_error_line_and_exit_2_on_every_path(
        name: str, shape: str, tmp_path: Path) -> None:
    case = CASES[name]
    deep_file = tmp_path / ("settings.json" if case.config else "deep.jsonl")
    deep_file.write_text(deep(shape) + "\n", encoding="utf-8")
    good_file = tmp_path / "good.jsonl"
    good_file.write_text(json.dumps(case.good or ANSWER) + "\n", encoding="utf-8")
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GSAR_", "ANTHROPIC_", "OTEL_"))}
    env["PYTHONPATH"] = str(ROOT)
    if case.config:
        env["GSAR_CONFIG"] = str(deep_file)
    result = subprocess.run(
        [sys.executable, "-c", ENTRY, *case.argv(deep_file, good_file)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    if case.batch:
        # The bad line is an error row (stdout) and named once on stderr; the rest of stderr is
        # the progress line and the closing tally.
        assert [line for line in lines if "nested" in line] == [case.expected(deep_file)]
        assert lines[-1] == ("gsar judge --batch: 0 judged, 0 proceed, 0 do not, "
                             "1 bad line(s)")
        assert len(lines) == 3, lines
        row = json.loads(result.stdout)
        assert row["error"] == f"{deep_file}:1: {NESTED}"
    else:
        assert lines == [case.expected(deep_file)]


@pytest.mark.parametrize("value", ["[" * DEPTH + "]" * DEPTH, "{b = " * DEPTH + "1" + "}" * DEPTH])
def test_a_deep_toml_settings_file_is_one_error_line_too(value: str, tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text(f"a = {value}\n", encoding="utf-8")
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GSAR_", "ANTHROPIC_", "OTEL_"))}
    env.update(PYTHONPATH=str(ROOT), GSAR_CONFIG=str(settings))
    result = subprocess.run([sys.executable, "-c", ENTRY, "judge", "--synthesis", "CPU hit 97%.",
                             "--evidence", "cpu_pct=97.2"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=300, check=False)
    assert (result.returncode, result.stderr.splitlines()) == (2, [
        f"gsar judge: error: settings file '{settings}' is not valid TOML: nested too deeply"])
