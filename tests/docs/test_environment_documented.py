"""The variable tables of the documentation and :data:`gsar_otel.environment.VARIABLES` agree:
every variable gsar-otel reads is in a table's variable column, and every variable named there is
one it reads (or one only another library reads, named below with that library)."""

from __future__ import annotations

import re
from pathlib import Path

from gsar_otel import semconv
from gsar_otel.environment import BY_NAME, VARIABLES

DOCS = Path(__file__).resolve().parents[2] / "docs"

TABLES = {"configuration.md": 0, "backends.md": 0, "sidecar-settings.md": 1}
"""The pages that list variables, and the column of their tables that names them."""
READ_BY_ANOTHER_LIBRARY = {
    "OTEL_RESOURCE_ATTRIBUTES": "the OpenTelemetry SDK",
    semconv.ENV_ANTHROPIC_BASE_URL: "the Anthropic SDK",
}
"""Documented beside ours because they shape what gsar-otel does, but never read by it."""


def documented() -> dict[str, str]:
    """Each variable named in a table's variable column, with the page naming it."""
    found: dict[str, str] = {}
    for name, column in TABLES.items():
        for line in (DOCS / name).read_text(encoding="utf-8").splitlines():
            cells = line.strip().strip("|").split("|")
            if not line.startswith("|") or len(cells) <= column:
                continue
            for variable in re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[column]):
                found.setdefault(variable, name)
    return found


def test_every_variable_gsar_otel_reads_is_in_a_documented_table() -> None:
    names = documented()
    assert [v.name for v in VARIABLES if v.name not in names] == []


def test_every_documented_variable_is_one_gsar_otel_reads() -> None:
    names = documented()
    assert len(names) > 50, "the variable tables were not found"
    strangers = {name: page for name, page in names.items()
                 if name not in BY_NAME and name not in READ_BY_ANOTHER_LIBRARY}
    assert strangers == {}


def test_the_variables_only_another_library_reads_are_documented_and_not_read_here() -> None:
    names = documented()
    for name in READ_BY_ANOTHER_LIBRARY:
        assert name not in BY_NAME
        assert name in names or name in (DOCS / "judges.md").read_text(encoding="utf-8")
