"""The sidecar's stages, in order: intake <- conventions <- assembly <- output <- the service.

A module of a stage imports (at run time) only its own stage and the stages before it; the
service's own modules (:data:`SERVICE`, at the top of ``gsar_otel/sidecar/``) may import any
stage, and a module in none of these fails the test until it is given a place. Intake is
stricter: it imports nothing else of the sidecar even under ``if TYPE_CHECKING:`` (a receiver
that names the server only for its annotations still depends on it), and the receivers are
written against the small protocol of ``intake/app.py``, never against the concrete server.
"""

from __future__ import annotations

import ast

import pytest

from tests.layout.test_layers import GRAPH, MODULES, _resolve

SIDECAR = "gsar_otel.sidecar"
INTAKE = f"{SIDECAR}.intake"
RECEIVERS = (f"{INTAKE}.receiver_http", f"{INTAKE}.receiver_grpc")
STAGES = ("intake", "conventions", "assembly", "output")
"""The sidecar's sub-packages, each importing only itself and the ones before it."""
SERVICE = frozenset({"server", "config", "settings", "judging", "filters", "run_budget",
                     "model_budget", "collector_pauses"})
"""Top-level modules: the service itself (wiring, settings, which runs are judged and how, the
collector's pauses of the process)."""
SIDECAR_MODULES = sorted(m for m in MODULES if m.startswith(SIDECAR + "."))


def stage_of(module: str) -> int:
    """The stage's place in :data:`STAGES`; the service is above every stage."""
    head = module[len(SIDECAR) + 1:].split(".")[0]
    if head in STAGES:
        return STAGES.index(head)
    if head in SERVICE and module == f"{SIDECAR}.{head}":
        return len(STAGES)
    raise AssertionError(f"{module} is in no stage of the sidecar: move it into one of "
                         f"{', '.join(STAGES)} or list it in SERVICE (and docs/ARCHITECTURE.md)")


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


@pytest.mark.parametrize("module", SIDECAR_MODULES)
def test_every_sidecar_module_has_a_stage(module: str) -> None:
    stage_of(module)


@pytest.mark.parametrize("module", SIDECAR_MODULES)
def test_a_stage_imports_no_later_stage_nor_the_service(module: str) -> None:
    own = stage_of(module)
    later = sorted(t for t in GRAPH[module]
                   if in_package(t, SIDECAR) and t != SIDECAR and stage_of(t) > own)
    assert not later, f"{module} imports {', '.join(later)}"


def test_the_stage_check_sees_an_upward_import() -> None:
    assert stage_of(f"{SIDECAR}.conventions.genai") < stage_of(f"{SIDECAR}.assembly.assembler")
    assert stage_of(f"{SIDECAR}.output.verdict_spans") < stage_of(f"{SIDECAR}.server")
    with pytest.raises(AssertionError, match="no stage"):
        stage_of(f"{SIDECAR}.somewhere")
