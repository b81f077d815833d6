"""One module reads the environment: :mod:`gsar_otel.environment`. Any other module of either
package that touches ``os.environ``, ``os.getenv`` (or imports them from :mod:`os`) fails here,
except :mod:`gsar_otel.core.redact`, which scans every variable for secret values to mask on
purpose. The names themselves stay in :mod:`gsar_otel.semconv`, each in the table."""

from __future__ import annotations

import ast

import pytest

from gsar_otel import semconv
from gsar_otel.environment import BY_NAME
from tests.layout.test_layers import MODULES

ENVIRONMENT_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})
ALLOWED = {
    "gsar_otel.environment": "the one reader",
    "gsar_otel.core.redact": "scans every variable's value for secrets to mask",
}
NOT_READ = {semconv.ENV_ANTHROPIC_BASE_URL: "named in a message; only the Anthropic SDK reads it"}
"""Variable names in semconv that gsar-otel names but never reads."""


def environment_reads(source: str) -> list[int]:
    """Lines of ``source`` that reach the environment through :mod:`os`."""
    tree = ast.parse(source)
    os_names = {"os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names.update(alias.asname for alias in node.names
                            if alias.name == "os" and alias.asname)
    return sorted(node.lineno for node in ast.walk(tree) if _reads(node, os_names))


def _reads(node: ast.AST, os_names: set[str]) -> bool:
    if isinstance(node, ast.Attribute):  # os.environ, os.getenv(...)
        return (node.attr in ENVIRONMENT_NAMES and isinstance(node.value, ast.Name)
                and node.value.id in os_names)
    if isinstance(node, ast.ImportFrom):  # from os import environ
        return node.module == "os" and any(alias.name in ENVIRONMENT_NAMES
                                           for alias in node.names)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # getattr(os, ...)
            and node.func.id == "getattr" and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name) and node.args[0].id in os_names
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in ENVIRONMENT_NAMES)


@pytest.mark.parametrize("module", sorted(set(MODULES) - set(ALLOWED)))
def test_no_module_but_environment_reads_the_environment(module: str) -> None:
    lines = environment_reads(MODULES[module].read_text(encoding="utf-8"))
    assert lines == [], (f"{module} reads the environment at line(s) {lines}: read it through "
                         "gsar_otel.environment (read, raw, environ)")


def test_the_exceptions_exist() -> None:
    assert set(ALLOWED) <= set(MODULES)
    assert environment_reads(MODULES["gsar_otel.core.redact"].read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", [
    "import os\nos.environ.get('X')",
    "import os\nos.getenv('X')",
    "import os as system\nsystem.environ['X']",
    "from os import environ",
    "from os import getenv as g",
    "import os\ngetattr(os, 'environ')",
])
def test_the_check_finds_each_way_of_reading_the_environment(source: str) -> None:
    assert environment_reads(source) == [source.count("\n") + 1]


def test_a_docstring_that_names_os_environ_is_no_read() -> None:
    assert environment_reads('"""Reads ``os.environ``."""\nimport os\nos.fspath("x")') == []


def test_every_variable_named_in_semconv_is_in_the_table() -> None:
    names = {value for name, value in vars(semconv).items()
             if name.startswith("ENV_") and isinstance(value, str)}
    assert names
    assert sorted(names - set(BY_NAME) - set(NOT_READ)) == []
    assert set(NOT_READ) <= names and not set(NOT_READ) & set(BY_NAME)


def test_every_variable_in_the_table_is_named_in_semconv() -> None:
    names = {value for name, value in vars(semconv).items()
             if name.startswith("ENV_") and isinstance(value, str)}
    assert sorted(set(BY_NAME) - names) == []
