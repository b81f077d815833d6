"""The README leads and the documentation site holds together.

The README stays short (under 250 lines) with its two-command quick start and the frameworks
markers another generator fills; every page under ``docs/`` is in the site's navigation and
every navigation entry is a page; the navigation follows the layers of the architecture map;
every relative link in the README, the pages and the files the site shows resolves to a file.
(``make docs`` builds the site with ``mkdocs build --strict`` on top of this; these checks need
no MkDocs.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import mkdocs_hooks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_README_LINES = 250
LAYERS = ("Core", "Judges", "Telemetry", "Decorator", "Sidecar", "pytest plugin", "CLI")
"""Navigation sections in the order of docs/ARCHITECTURE.md's layers (low to high)."""

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def nav_pages(nav: Any) -> list[str]:
    """Every page path in a MkDocs ``nav`` tree, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for entry in nav for page in nav_pages(entry)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    raise AssertionError(f"unexpected nav entry {nav!r}")


def mkdocs_config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return loaded


def relative_links(text: str) -> list[str]:
    """Link targets outside code blocks that point at a file (no scheme, no bare anchor)."""
    prose = FENCE.sub("", text)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    targets = [match.group(1) for match in LINK.finditer(prose)]
    return [target for target in targets
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


def shown_files() -> list[Path]:
    """The README, every page, and every repository file a page shows (``<!-- show -->``)."""
    pages = sorted(DOCS.rglob("*.md"))
    included = {ROOT / mkdocs_hooks.shown_path(match.group(1), page.relative_to(DOCS).as_posix())
                for page in pages
                for match in mkdocs_hooks.INCLUDE.finditer(page.read_text(encoding="utf-8"))}
    return [README, *pages, *sorted(included)]


def test_the_readme_stays_under_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < MAX_README_LINES, (
        f"README.md has {len(lines)} lines; keep it under {MAX_README_LINES} and move detail "
        "into a page under docs/")


def test_the_quick_start_is_the_two_make_commands() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None, "the Quick start section has no bash block"
    commands = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    assert [command for command in commands if command] == ["make demo", "make test"]


def test_the_readme_leads_with_install_quick_start_and_the_three_ways() -> None:
    headings = re.findall(r"^## (.+)$", README.read_text(encoding="utf-8"), re.M)
    assert headings[:2] == ["Install", "Quick start"]
    ways = [heading for heading in headings if re.match(r"[123]\. ", heading)]
    assert len(ways) == 3
    assert "@grounded" in ways[0] and "pytest" in ways[1] and "sidecar" in ways[2]


def test_the_readme_shows_the_three_evidence_wirings() -> None:
    section = README.read_text(encoding="utf-8").split("## 1. ", 1)[1].split("\n## ", 1)[0]
    for wiring in ("@tool_evidence", "evidence=", "record_evidence("):
        assert wiring in section, f"the decorate section does not show {wiring}"


def test_the_readme_keeps_the_frameworks_markers_in_order() -> None:
    text = README.read_text(encoding="utf-8")
    begin, end = text.find("<!-- frameworks:begin -->"), text.find("<!-- frameworks:end -->")
    assert 0 <= begin < end, "README.md needs <!-- frameworks:begin --> ... <!-- frameworks:end -->"


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page() -> None:
    nav = nav_pages(mkdocs_config()["nav"])
    assert len(nav) == len(set(nav)), "a page is in the navigation twice"
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert sorted(pages - set(nav)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(nav) - pages) == [], "nav entries with no page under docs/"


def test_the_navigation_follows_the_architecture_layers() -> None:
    titles = [next(iter(entry)) for entry in mkdocs_config()["nav"]]
    positions = [titles.index(layer) for layer in LAYERS]
    assert positions == sorted(positions), f"nav sections {titles} are not in layer order"
    reference = next(entry["API reference"] for entry in mkdocs_config()["nav"]
                     if "API reference" in entry)
    assert [next(iter(entry)) for entry in reference
            if next(iter(entry)) in LAYERS] == list(LAYERS)


@pytest.mark.parametrize("path", shown_files(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path: Path) -> None:
    broken = []
    for target in relative_links(path.read_text(encoding="utf-8")):
        file_part = target.split("#", 1)[0]
        if file_part and not (path.parent / file_part).exists():
            broken.append(target)
    assert broken == [], f"{path.relative_to(ROOT)} links to missing files"


def test_the_site_rewrites_links_of_a_shown_file_for_its_page() -> None:
    text = "[table](benchmarks/README.md#3), [code](gsar_otel/semconv.py), [web](https://x.org)"
    assert mkdocs_hooks._rewrite(text, "RELIABILITY.md", "reliability.md") == (
        "[table](benchmarks.md#3), code (`gsar_otel/semconv.py`), [web](https://x.org)")
    assert mkdocs_hooks._rewrite("[map](docs/ARCHITECTURE.md)", "README.md", "index.md") == (
        "[map](ARCHITECTURE.md)")


def test_a_page_shows_the_file_its_show_line_links_to() -> None:
    shown = [mkdocs_hooks.shown_path(match.group(1), "reliability.md") for match in
             mkdocs_hooks.INCLUDE.finditer((DOCS / "reliability.md").read_text(encoding="utf-8"))]
    assert shown == ["RELIABILITY.md"]
    assert mkdocs_hooks.shown_path("../../x/y.md", "a/b.md") == "x/y.md"
    assert {path.relative_to(ROOT).as_posix() for path in shown_files()} >= {
        "RELIABILITY.md", "benchmarks/README.md", "dashboards/README.md"}


def test_relative_links_finds_links_outside_code_only() -> None:
    text = "[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n[d](https://e) [f](#g) ![i](p.png)"
    assert relative_links(text) == ["x.md", "p.png"]


@pytest.mark.parametrize("path", [README, *sorted(DOCS.rglob("*.md"))],
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_python_example_parses(path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    for block in blocks:
        ast.parse(block)
