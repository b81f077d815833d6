"""Measuring cost in operations, not seconds: for linear-time and ReDoS tests.

- :func:`line_events` counts the Python line and call events a function runs (``sys.settrace``):
  deterministic and independent of the machine's speed or load.
- :func:`growth_exponent` fits the slope of log(operations) against log(input size); linear code
  gives about 1, quadratic code about 2.
- :func:`regex_hazards` reads a compiled pattern's parse tree and names the shapes that make a
  backtracking engine super-linear (nested unbounded repeats, unbounded repeats inside
  lookarounds); possessive repeats and atomic groups are safe. Regex work runs in C and is
  invisible to :func:`line_events`, so the two checks together bound a function's cost.
"""

from __future__ import annotations

import math
import re
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_p  # type: ignore[import-not-found]
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import FrameType, ModuleType
from typing import Any

_UNBOUNDED = sre_c.MAXREPEAT


def line_events(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """The number of Python ``line`` and ``call`` events while ``fn(*args, **kwargs)`` runs."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        if event in ("line", "call"):
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*args, **kwargs)
    finally:
        sys.settrace(previous)
    return count


def growth_exponent(cost: Callable[[int], float], sizes: Sequence[int]) -> float:
    """Least-squares slope of log(cost(n)) against log(n) over ``sizes``."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(cost(n), 1.0)) for n in sizes]
    mean_x = sum(xs) / len(xs)
    mean_y = sum(ys) / len(ys)
    numerator = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    denominator = sum((x - mean_x) ** 2 for x in xs)
    return numerator / denominator


def _walk(items: Iterable[tuple[Any, Any]], path: str, inside_repeat: bool,
          inside_look: bool, found: list[str]) -> None:
    for op, av in items:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            _low, high, body = av
            unbounded = high == _UNBOUNDED or high > 1000
            if unbounded and inside_repeat:
                found.append(f"{path}: nested unbounded repeat")
            if unbounded and inside_look:
                found.append(f"{path}: unbounded repeat inside a lookaround")
            _walk(body, path + "/repeat", inside_repeat or unbounded, inside_look, found)
        elif op == sre_c.POSSESSIVE_REPEAT:
            _walk(av[2], path + "/possessive", False, inside_look, found)
        elif op == sre_c.ATOMIC_GROUP:
            _walk(av, path + "/atomic", False, inside_look, found)
        elif op == sre_c.SUBPATTERN:
            _walk(av[3], path + "/group", inside_repeat, inside_look, found)
        elif op == sre_c.BRANCH:
            for index, branch in enumerate(av[1]):
                _walk(branch, f"{path}/branch{index}", inside_repeat, inside_look, found)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            _walk(av[1], path + "/look", inside_repeat, True, found)
        elif op == sre_c.GROUPREF_EXISTS:
            for part in av[1:]:
                if part is not None:
                    _walk(part, path + "/cond", inside_repeat, inside_look, found)


def regex_hazards(pattern: re.Pattern[str] | str) -> list[str]:
    """The super-linear shapes in ``pattern``; an empty list means none was found."""
    source = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    flags = pattern.flags if isinstance(pattern, re.Pattern) else 0
    found: list[str] = []
    _walk(sre_p.parse(source, flags), "", False, False, found)
    return found


def module_patterns(module: ModuleType) -> Mapping[str, re.Pattern[str]]:
    """Every compiled pattern a module holds at its top level (also inside tuples, lists and
    dict values), by a name that says where it was found."""
    patterns: dict[str, re.Pattern[str]] = {}

    def visit(name: str, value: object, depth: int) -> None:
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
            patterns[name] = value
        elif depth < 2 and isinstance(value, tuple | list):
            for index, item in enumerate(value):
                visit(f"{name}[{index}]", item, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            for key, item in value.items():
                visit(f"{name}[{key!r}]", item, depth + 1)

    for name, value in vars(module).items():
        visit(f"{module.__name__}.{name}", value, 0)
    return patterns


class _CountingPattern:
    """Stands in for a compiled pattern and counts the characters each call hands it."""

    def __init__(self, pattern: re.Pattern[str], counter: list[int]) -> None:
        self._pattern = pattern
        self._counter = counter

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._pattern, name)
        if name not in ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn",
                        "split"):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            text = args[1] if name in ("sub", "subn") and len(args) > 1 else (
                args[0] if args else kwargs.get("string", ""))
            if isinstance(text, str):
                positional = name not in ("sub", "subn", "split")
                start = args[1] if positional and len(args) > 1 else 0
                end = args[2] if positional and len(args) > 2 else len(text)
                self._counter[0] += max(min(end, len(text)) - start, 0) + 1
            return attribute(*args, **kwargs)

        return counted


def operations(fn: Callable[..., Any], *args: Any, modules: Sequence[ModuleType] = (),
               **kwargs: Any) -> int:
    """Python line and call events plus the characters handed to the module-level patterns of
    ``modules`` while ``fn`` runs: a machine-independent measure of work that also sees a regex
    re-scanning a growing text."""
    counter = [0]
    saved: list[tuple[ModuleType, str, object]] = []
    for module in modules:
        for name, value in list(vars(module).items()):
            if isinstance(value, re.Pattern):
                saved.append((module, name, value))
                setattr(module, name, _CountingPattern(value, counter))
    try:
        events = line_events(fn, *args, **kwargs)
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
    return events + counter[0]
