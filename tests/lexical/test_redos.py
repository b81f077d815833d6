"""No regex that reads untrusted text can take super-linear time.

Every pattern of the judges (lexical and staged), the integrity guard, the text and anchor
helpers, cassette masking, secret redaction and case-file reading is checked for two shapes:

- :func:`tests.support.cost.regex_hazards`: nested unbounded repeats and unbounded repeats inside
  lookarounds (exponential or polynomial backtracking at one start position);
- :func:`restart_hazards` (below): an unanchored pattern that opens with an unbounded repeat and
  then needs a character the repeat cannot read. A search tries it from every position of a
  long run and re-reads the rest of the run each time, so the run costs its length squared
  (``\\b[A-Za-z_][\\w.\\-]*=\\S`` on 112 KB of ``a1-b_2.`` took 17.9 s). A lookbehind that keeps
  the start at the head of the run, or an anchor, makes it linear.

Regex work runs in C and is invisible to line counting, so these static checks stand beside the
operation-counted growth tests of ``tests/core/test_linear_cost.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_p  # type: ignore[import-not-found]
from types import ModuleType
from typing import Any

import pytest

import gsar_otel.judges.lexical
import gsar_otel.judges.staged
from tests.support.cost import module_patterns, regex_hazards

_PACKAGES = (gsar_otel.judges.lexical, gsar_otel.judges.staged)
_MODULE_NAMES = (
    *(f"{package.__name__}.{info.name}" for package in _PACKAGES
      for info in pkgutil.iter_modules(package.__path__)),
    "gsar_otel.core.integrity", "gsar_otel.core.text", "gsar_otel.core.anchors",
    *(f"gsar_otel.core.{info.name}" for info in pkgutil.iter_modules(
        importlib.import_module("gsar_otel.core").__path__) if info.name.startswith("anchor_")),
    "gsar_otel.core.redact", "gsar_otel.judges.recorded.store", "pytest_gsar.cases",
)
MODULES: list[ModuleType] = [importlib.import_module(name) for name in sorted(set(_MODULE_NAMES))]

REVIEWED: dict[str, str] = {
    "gsar_otel.judges.staged.segment._BULLET":
        "only ever used with .match at the start of one line, so it is tried once",
}
"""Patterns the restart check flags that are safe by how they are called, with the reason."""

_PROBES = "aZ_1 \t\n.-=:/@%,;'\"()[]{}é"
_UNBOUNDED = sre_c.MAXREPEAT


def _char_matches(op: Any, av: Any, char: str) -> bool | None:
    """Whether one single-character item matches ``char``; None when it is not one."""
    if op is sre_c.LITERAL:
        return ord(char) == av
    if op is sre_c.NOT_LITERAL:
        return ord(char) != av
    if op is sre_c.ANY:
        return char != "\n"
    if op is sre_c.RANGE:
        return av[0] <= ord(char) <= av[1]
    if op is sre_c.CATEGORY:
        return bool(re.fullmatch(_CATEGORIES[av], char))
    if op is sre_c.IN:
        negate = bool(av) and av[0][0] is sre_c.NEGATE
        found = any(_char_matches(o, a, char) for o, a in av[1:] if negate) if negate else any(
            _char_matches(o, a, char) for o, a in av)
        return not found if negate else found
    return None


_CATEGORIES = {
    sre_c.CATEGORY_WORD: r"\w", sre_c.CATEGORY_NOT_WORD: r"\W",
    sre_c.CATEGORY_DIGIT: r"\d", sre_c.CATEGORY_NOT_DIGIT: r"\D",
    sre_c.CATEGORY_SPACE: r"\s", sre_c.CATEGORY_NOT_SPACE: r"\S",
}


def _chars(item: tuple[Any, Any], flags: int) -> set[str] | None:
    """The probe characters one item can start with; None when that is not known."""
    op, av = item
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
        return _first(av[2], flags) if av[0] >= 1 else None
    if op is sre_c.SUBPATTERN:
        return _first(av[3], flags)
    if op is sre_c.BRANCH:
        parts = [_first(branch, flags) for branch in av[1]]
        return None if any(p is None for p in parts) else set().union(*parts)  # type: ignore[arg-type]
    found = set()
    for char in _PROBES:
        variants = {char, char.lower(), char.upper()} if flags & re.IGNORECASE else {char}
        result = [_char_matches(op, av, v) for v in variants]
        if None in result:
            return None
        if any(result):
            found.add(char)
    return found


def _first(items: Any, flags: int) -> set[str] | None:
    items = list(items)
    return _chars(items[0], flags) if items else None


def _branches(parsed: Any) -> list[list[tuple[Any, Any]]]:
    items = list(parsed)
    if len(items) == 1 and items[0][0] is sre_c.BRANCH:
        return [list(branch) for branch in items[0][1][1]]
    if len(items) == 1 and items[0][0] is sre_c.SUBPATTERN:
        return _branches(items[0][1][3])
    return [items]


def restart_hazards(pattern: re.Pattern[str] | str) -> list[str]:
    """Top-level branches that open with an unbounded repeat a search restarts inside."""
    source = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    flags = pattern.flags if isinstance(pattern, re.Pattern) else 0
    found = []
    for number, branch in enumerate(_branches(sre_p.parse(source, flags))):
        boundary = False
        while branch and branch[0][0] is sre_c.AT:
            if branch[0][1] in (sre_c.AT_BEGINNING, sre_c.AT_BEGINNING_STRING):
                branch = []  # anchored: tried at the start (of a line) only
            else:
                boundary = boundary or branch[0][1] is sre_c.AT_BOUNDARY
                branch = branch[1:]
        if not branch or (branch[0][0] is sre_c.ASSERT_NOT and branch[0][1][0] == -1):
            continue  # anchored, or a negative lookbehind keeps the start at a run's head
        lead: set[str] | None = set(_PROBES)
        at = 0
        if branch[0][0] not in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lead, at = _chars(branch[0], flags), 1
        if lead is None or len(branch) <= at + 1:
            continue
        op, av = branch[at]
        if op not in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT) or av[1] != _UNBOUNDED:
            continue
        run = _first(av[2], flags) if len(av[2]) == 1 else None
        follow = _chars(branch[at + 1], flags)
        if not run or follow is None or run & follow:
            continue
        if boundary:
            word = {c for c in run if re.fullmatch(r"\w", c)}
            inside = bool(word) and len(word) < len(run) and bool(lead & word)
        else:
            inside = bool(lead & run)
        if inside:
            found.append(f"branch {number}: unbounded repeat restarted inside its run")
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_no_pattern_nests_unbounded_repeats(module: ModuleType) -> None:
    hazards = {name: regex_hazards(pattern) for name, pattern in module_patterns(module).items()}
    assert {name: found for name, found in hazards.items() if found} == {}


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_no_pattern_restarts_inside_a_run(module: ModuleType) -> None:
    hazards = {name: restart_hazards(pattern) for name, pattern in module_patterns(module).items()
               if name not in REVIEWED}
    assert {name: found for name, found in hazards.items() if found} == {}


def test_every_reviewed_pattern_still_exists_and_is_flagged() -> None:
    patterns = {name: pattern for module in MODULES
                for name, pattern in module_patterns(module).items()}
    for name in REVIEWED:
        assert name in patterns and restart_hazards(patterns[name]), name


@pytest.mark.parametrize("source", [
    r"^\s*\[[\w\s=:./\-]+\]|\b[A-Za-z_][\w.\-]*=\S|^\s*[\[{]\s*\"",  # the old tool-row test
    r";\s+|,\s+(?:and|but|while|whereas|yet)\s+|\s+(?:and|but|whereas)\s+",  # old clause join
    r"\d+px",
    r"[a-z]\w*\(",
])
def test_the_restart_check_sees_the_quadratic_shapes(source: str) -> None:
    assert restart_hazards(source)


@pytest.mark.parametrize("source", [
    r"(?<![\w.\-])([\w.\-]++)(?==\S)",
    r"(?<!\s)\s++(?:and|but)\s+",
    r"\b\w*(?:count|total)\s*=",
    r"[A-Za-z0-9][A-Za-z0-9_.\-/%']*[A-Za-z0-9%]|[A-Za-z0-9]",
    r"^\s*\d+\.",
    r"\b[a-z0-9][a-z0-9\-]{0,62}\.",
])
def test_the_restart_check_passes_linear_shapes(source: str) -> None:
    assert not restart_hazards(source)


def test_every_listed_module_was_found() -> None:
    names = {module.__name__ for module in MODULES}
    assert {"gsar_otel.judges.lexical.lexicon", "gsar_otel.judges.staged.segment",
            "gsar_otel.core.anchor_tokens", "gsar_otel.core.redact", "pytest_gsar.cases",
            "gsar_otel.judges.recorded.store"} <= names
