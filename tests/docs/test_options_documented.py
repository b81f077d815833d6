"""The documentation lists the options the code has, and names no telemetry the code lacks.

Each check reads the real thing: the ``gsar`` parsers, the ``@grounded`` signature, the options
and ini keys the pytest plugin registers, and the names in ``gsar_otel/semconv.py``."""

from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import semconv
from gsar_otel.cli.main import build_parser
from gsar_otel.decorator.api import grounded
from pytest_gsar import plugin

DOCS = Path(__file__).resolve().parents[2] / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def subcommand_flags(command: str) -> list[str]:
    parser = build_parser()
    sub = next(action for action in parser._actions
               if isinstance(action, argparse._SubParsersAction))
    return [action.option_strings[-1] for action in sub.choices[command]._actions
            if action.option_strings and action.option_strings[-1] != "--help"]


class _Recorder:
    """Stands in for pytest's parser and option group: records every option and ini key."""

    def __init__(self) -> None:
        self.options: list[str] = []
        self.ini: list[str] = []

    def getgroup(self, *args: Any, **kwargs: Any) -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        self.options.extend(names)

    def addini(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.ini.append(name)


@pytest.mark.parametrize(("command", "page_name"), [("sidecar", "sidecar-settings.md"),
                                                    ("judge", "cli.md"),
                                                    ("demo", "demo.md"),
                                                    ("bench", "measuring.md"),
                                                    ("calibrate", "measuring.md")])
def test_every_flag_of_a_command_is_on_its_page(command: str, page_name: str) -> None:
    text = page(page_name)
    missing = [flag for flag in subcommand_flags(command) if f"`{flag}" not in text]
    assert missing == [], f"gsar {command} flags missing from docs/{page_name}"


def test_every_pytest_option_and_ini_key_is_on_the_plugin_page() -> None:
    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    assert recorder.options and recorder.ini
    text = page("pytest.md")
    missing = [name for name in [*recorder.options, *recorder.ini] if f"`{name}" not in text]
    assert missing == [], "pytest_gsar options missing from docs/pytest.md"


def test_every_grounded_option_is_in_the_decorator_table() -> None:
    table = page("decorator.md").split("## Options", 1)[1]
    rows = re.findall(r"^\| (.+?) \|", table, re.M)
    documented = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    parameters = list(inspect.signature(grounded).parameters)
    assert [name for name in parameters if name not in documented] == []


def test_every_telemetry_name_on_the_page_is_in_semconv() -> None:
    values = {value for value in vars(semconv).values() if isinstance(value, str)}
    names = set(re.findall(r"`((?:gsar|gen_ai)\.[a-z0-9_.]+)`", page("telemetry.md")))
    assert names, "no telemetry name found on docs/telemetry.md"
    assert sorted(names - values) == [], "names on docs/telemetry.md that semconv.py lacks"


def test_every_metric_is_on_the_telemetry_page() -> None:
    text = page("telemetry.md")
    metrics = [value for name, value in vars(semconv).items()
               if name.startswith("METRIC_") and isinstance(value, str)]
    assert metrics
    assert [metric for metric in metrics if f"`{metric}`" not in text] == []


def test_every_gsar_variable_is_documented() -> None:
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOCS.rglob("*.md"))
    variables = [value for name, value in vars(semconv).items()
                 if name.startswith("ENV_") and isinstance(value, str)
                 and value.startswith("GSAR_")]
    assert variables
    assert [variable for variable in variables if variable not in text] == []


def test_the_sidecar_settings_table_names_no_flag_the_sidecar_lacks() -> None:
    rows = re.findall(r"^\| `(--[a-z-]+)", page("sidecar-settings.md"), re.M)
    assert rows, "no flag rows on docs/sidecar-settings.md"
    assert sorted(set(rows) - set(subcommand_flags("sidecar"))) == []
