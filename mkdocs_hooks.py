"""MkDocs hook: pages of the site that show a file kept elsewhere in the repository.

A page under ``docs/`` whose line is ``<!-- show --> [TITLE](PATH)`` (a link to the file,
relative to the page, so the page still leads there when read on the forge) shows on the site the
text of that file in the line's place. So ``RELIABILITY.md``, ``benchmarks/README.md``,
``dashboards/README.md`` and the README are written once and shown in both places. Their
relative links are rewritten for the page that shows them: a link to a file the site also shows
(:data:`SHOWN_AS`, or a file under ``docs/``) points at that page; a link to any other file of
the repository becomes its path in code, since the site does not serve it. A missing shown file
stops the build.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DOCS = "docs"
SHOWN_AS: dict[str, str] = {
    "RELIABILITY.md": "reliability.md",
    "benchmarks/README.md": "benchmarks.md",
    "dashboards/README.md": "dashboards.md",
    "README.md": "index.md",
}
"""Repository files (outside ``docs/``) that a page of the site shows, by that page."""

INCLUDE = re.compile(r"^<!-- show -->\s*\[[^\]]*\]\(([^)\s]+)\)\s*$", re.MULTILINE)
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def _rewrite(text: str, source: str, page: str) -> str:
    """Rewrite the relative links of ``source`` (a repository path) for the docs page ``page``."""
    source_dir = posixpath.dirname(source)
    page_dir = posixpath.dirname(page)

    def one(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(source_dir, path))
        shown = SHOWN_AS.get(repo_path)
        if shown is None and repo_path.startswith(DOCS + "/"):
            shown = repo_path[len(DOCS) + 1:]
        if shown is None:
            return f"{label} (`{repo_path}`)" if label and not bang else f"`{repo_path}`"
        relative = posixpath.relpath(shown, page_dir or ".")
        return f"{bang}[{label}]({relative}{'#' + anchor if anchor else ''})"

    return LINK.sub(one, text)


def shown_path(target: str, page: str) -> str:
    """The repository path of a ``<!-- show -->`` link's target, written relative to ``page``."""
    return posixpath.normpath(posixpath.join(DOCS, posixpath.dirname(page), target))


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each ``<!-- show -->`` line by the file it links to, its links made to work on
    the site."""
    page_path = str(page.file.src_uri)

    def include(match: re.Match[str]) -> str:
        source = shown_path(match.group(1), page_path)
        text = (ROOT / source).read_text(encoding="utf-8")
        return _rewrite(text, source, page_path)

    return INCLUDE.sub(include, markdown)
