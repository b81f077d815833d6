"""Every policy for a ``BaseException`` is stated once, in :mod:`gsar_otel.runtime.guards`: no
other module of either package catches ``BaseException``, ``SystemExit``, ``KeyboardInterrupt``
or ``GeneratorExit`` (nor has a bare ``except:``); they use the guards instead (``absorb``,
``on_failure``, ``contain_exits``, ``outcome_of``). The few handlers elsewhere are listed in
:data:`JUSTIFIED` with their reasons.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("gsar_otel", "pytest_gsar")
RUNTIME = "gsar_otel/runtime/"
BASE_ONLY = frozenset({"BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit"})
JUSTIFIED: dict[tuple[str, str], str] = {
    ("gsar_otel/cli/main.py", "KeyboardInterrupt"): (
        "the command's own Ctrl-C: the process ends with the conventional exit status and no "
        "traceback; this is the top of the program, with no caller above it"),
}
"""(file, caught name): the reason the handler is not one of the runtime's guards."""


def _names(node: ast.expr | None) -> Iterator[str]:
    if node is None:
        yield "<bare except>"
    elif isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _names(element)
    elif isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr


def base_handlers() -> Iterator[tuple[str, int, str]]:
    """(file, line, name) of every handler catching a BaseException that is no Exception."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ExceptHandler):
                    for name in _names(node.type):
                        if name in BASE_ONLY or name == "<bare except>":
                            yield relative, node.lineno, name


def test_only_the_runtime_catches_a_base_exception() -> None:
    stray = [f"{path}:{line} catches {name}" for path, line, name in base_handlers()
             if not path.startswith(RUNTIME) and (path, name) not in JUSTIFIED]
    assert not stray, ("catch these through gsar_otel.runtime.guards, or justify them in "
                       "JUSTIFIED: " + "; ".join(stray))


def test_every_justified_handler_exists_and_says_why() -> None:
    found = {(path, name) for path, _, name in base_handlers()}
    for key, reason in JUSTIFIED.items():
        assert key in found and reason, f"{key}: no such handler, or no reason given"


def test_the_runtime_states_its_policies() -> None:
    # the guards are where the handlers are: the test above is not vacuous
    assert any(path.startswith(RUNTIME) for path, _, _ in base_handlers())
