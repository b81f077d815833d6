"""The package's layout: one-directional layers, no import cycles, no module over the soft size
limit (800 lines; one named exception per module past it, with its reason).

Every ``import`` in every module (module level and inside functions, but not under
``if TYPE_CHECKING:``) is read with :mod:`ast` and checked against the declared layer order:
core <- judges <- otel / measure <- decorator / pytest_gsar <- cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("gsar_otel", "pytest_gsar")
MAX_LINES = 800
"""The soft size limit: a module is split by concept, not by size, so the limit only catches a
module that has grown several concepts (docs/ARCHITECTURE.md, "Module size")."""
OVER_LIMIT: dict[str, str] = {
    "gsar_otel.core.anchor.scan": (
        "reading a text into anchors: the pass over its tokens and the grammar each token is read "
        "by are one reading (a date or a clock time is read in one token or over several, by the "
        "same patterns and parsers)"),
}
"""Modules allowed past :data:`MAX_LINES`, each with the reason it is still one concept."""

# (layer, module prefixes); a module belongs to the layer of its longest matching prefix.
LAYERS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (0, ("gsar_otel._version", "gsar_otel.semconv", "gsar_otel.semconv_sidecar",
         "gsar_otel.errors")),
    # environment: the one reader of the environment, with the parsers of config_values; below
    # the judges and otel that read it, above core (which reads none of it but redact's scan).
    # runtime: the concurrency machinery (the judging pool, loop threads, deadlines, the job
    # worker and the BaseException guards); the core's judge round uses the pool and deadlines,
    # the judges the loop resources, so it sits in layer 1, and imports nothing of layer 1
    # itself (test_runtime_imports_only_names).
    (1, ("gsar_otel.core", "gsar_otel.config", "gsar_otel.config_values",
         "gsar_otel.environment", "gsar_otel.runtime")),
    (2, ("gsar_otel.judges", "gsar_otel.plugins")),
    (3, ("gsar_otel.otel", "gsar_otel.measure")),
    (4, ("gsar_otel.decorator", "gsar_otel.sidecar", "pytest_gsar")),
    (5, ("gsar_otel.cli",)),
)
# Thin re-exports above everything: the lazy package namespace.
TOP = 9
TOP_MODULES = ("gsar_otel",)


def module_files() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


MODULES = dict(module_files())


def layer_of(module: str) -> int:
    if module in TOP_MODULES:
        return TOP
    best: tuple[int, int] | None = None
    for layer, prefixes in LAYERS:
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                candidate = (len(prefix), layer)
                best = candidate if best is None or candidate > best else best
    if best is None:
        raise AssertionError(f"{module} is in no declared layer; add it to LAYERS")
    return best[1]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str, path: Path) -> set[str]:
    """The project modules ``module`` imports at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node, path.name == "__init__.py")
            submodules = {f"{target}.{alias.name}" for alias in node.names} & MODULES.keys()
            found.update(submodules)
            if len(submodules) < len(node.names):  # a name defined in the package itself
                found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module: str) -> None:
    own = layer_of(module)
    upward = sorted(f"{target} (layer {layer_of(target)})" for target in GRAPH[module]
                    if layer_of(target) > own)
    assert not upward, f"{module} (layer {own}) imports upward: {', '.join(upward)}"


def test_runtime_imports_only_names() -> None:
    """The runtime is generic machinery under everything in layer 1: it imports only itself and
    layer 0 (the errors and the names), never the core, the settings or the environment."""
    for module in sorted(m for m in MODULES if m.startswith("gsar_otel.runtime")):
        outside = sorted(target for target in GRAPH[module]
                         if not target.startswith("gsar_otel.runtime") and layer_of(target) > 0)
        assert not outside, f"{module} imports {', '.join(outside)}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph``, as a path that starts and ends at the same module."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state and (cycle := walk(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)):
            return cycle
    return None


def _package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ that re-exports its own submodules is not a cycle back into it.
    return {module: {t for t in targets if not module.startswith(t + ".")}
            for module, targets in graph.items()}


def test_there_is_no_import_cycle() -> None:
    cycle = find_cycle(_package_edges(GRAPH))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_the_line_limit(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES or module in OVER_LIMIT, (
        f"{module} has {lines} lines (soft limit {MAX_LINES}): split it by concept, or name it "
        "in OVER_LIMIT with the reason it is one concept")


def test_every_module_allowed_past_the_limit_exists_and_needs_it() -> None:
    for module, reason in OVER_LIMIT.items():
        assert module in MODULES and reason, f"{module}: not a module, or no reason given"
        lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
        assert lines > MAX_LINES, f"{module} has {lines} lines; drop it from OVER_LIMIT"
