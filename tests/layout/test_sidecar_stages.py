"""The sidecar's stages: intake depends on nothing else of the sidecar, and the receivers are
written against the small protocol of ``intake/app.py``, never against the concrete server.

Unlike ``test_layers.py``, imports under ``if TYPE_CHECKING:`` count here too: a receiver that
names the server only for its annotations still depends on it.
"""

from __future__ import annotations

import ast

import pytest

from tests.layout.test_layers import MODULES, _resolve

SIDECAR = "gsar_otel.sidecar"
INTAKE = f"{SIDECAR}.intake"
RECEIVERS = (f"{INTAKE}.receiver_http", f"{INTAKE}.receiver_grpc")


def every_import(module: str) -> set[str]:
    """Every module ``module`` names in an import, ``TYPE_CHECKING`` blocks and functions too."""
    path = MODULES[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node, path.name == "__init__.py")
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES}


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("module", RECEIVERS)
def test_a_receiver_does_not_import_the_server(module: str) -> None:
    assert module in MODULES, f"{module} moved: update RECEIVERS"
    imported = every_import(module)
    assert f"{SIDECAR}.server" not in imported
    assert f"{INTAKE}.app" in imported, f"{module} should be written against intake.app"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_package(m, INTAKE)))
def test_intake_imports_nothing_of_the_sidecar_outside_intake(module: str) -> None:
    outside = sorted(m for m in every_import(module)
                     if in_package(m, SIDECAR) and not in_package(m, INTAKE) and m != SIDECAR)
    assert not outside, f"{module} imports {', '.join(outside)}"
