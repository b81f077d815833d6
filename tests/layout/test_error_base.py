"""One error base: every exception class ``gsar_otel`` and ``pytest_gsar`` define subclasses
``gsar_otel.errors.GSARError`` (and still the built-in it subclassed, so ``except ValueError``
callers keep working); ``EscapedBaseException`` is defined once.

Every module is imported in a child interpreter, so importing all of them leaves this process as
it was; warning classes are not errors and are left out."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LIST_EXCEPTIONS = textwrap.dedent("""
    import importlib, inspect, json, pkgutil, warnings
    warnings.simplefilter("ignore")
    from gsar_otel.errors import GSARError
    found = {}
    for package in ("gsar_otel", "pytest_gsar"):
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
        for name in names:
            module = importlib.import_module(name)
            for value in vars(module).values():
                if (inspect.isclass(value) and issubclass(value, BaseException)
                        and not issubclass(value, Warning) and value.__module__ == name):
                    found[f"{name}.{value.__qualname__}"] = {
                        "gsar": issubclass(value, GSARError),
                        "bases": [base.__name__ for base in value.__mro__[1:]],
                    }
    print(json.dumps(found))
""")


@pytest.fixture(scope="module")
def exceptions() -> dict[str, dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", LIST_EXCEPTIONS], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    found: dict[str, dict[str, object]] = json.loads(done.stdout)
    return found


def test_every_exception_class_subclasses_gsar_error(
        exceptions: dict[str, dict[str, object]]) -> None:
    assert len(exceptions) >= 20, f"found only {sorted(exceptions)}"
    outside = sorted(name for name, facts in exceptions.items() if not facts["gsar"])
    assert not outside, f"not subclasses of GSARError: {', '.join(outside)}"


@pytest.mark.parametrize(("name", "builtin"), [
    ("gsar_otel.config_values.SettingsError", "ValueError"),
    ("gsar_otel.decorator.options.JudgeUnavailableError", "RuntimeError"),
    ("gsar_otel.judges.recorded.store.MissingVerdictError", "LookupError"),
    ("gsar_otel.sidecar.intake.spans.MalformedRequest", "ValueError"),
    ("pytest_gsar.errors.GroundingFailure", "AssertionError"),
    ("pytest_gsar.network.NetworkBlocked", "RuntimeError"),
])
def test_an_error_is_still_the_builtin_it_was(exceptions: dict[str, dict[str, object]],
                                              name: str, builtin: str) -> None:
    bases = exceptions[name]["bases"]
    assert isinstance(bases, list) and builtin in bases and "GSARError" in bases


def test_escaped_base_exception_is_defined_once() -> None:
    from gsar_otel import errors
    from gsar_otel.otel import jobs
    from gsar_otel.sidecar import judging

    assert jobs.EscapedBaseException is judging.EscapedBaseException is errors.EscapedBaseException
    escaped = errors.EscapedBaseException(SystemExit(3))
    assert isinstance(escaped, errors.GSARError)
    assert escaped.name == "SystemExit" and str(escaped) == "SystemExit: 3"
