"""Tables in tool output: each row a record of its header's columns.

These shapes are read:

- **Markdown** (``| host | cpu_pct |``, a ``|---|`` rule, then rows), and ``psql``'s (``pid |
  state``, a ``----+----`` rule, then rows);
- **CSV** with a header (``service,requests,errors`` then ``checkout,2712,35``);
- **aligned columns**, as ``kubectl get``/``kubectl top``, ``df -h``, ``free -m``, ``helm
  history`` or ``docker ps`` print them: a header line without digits, then rows with as many
  cells, header and rows spaced into columns (two spaces or a tab between some cells). A header
  word that is a short lower-case word joins the one before it (``Mounted on``); a row with one
  cell more than the header starts with its own label (``Mem:`` in ``free -m``), read under
  the key ``name``; a row whose cells do not line up with the header ends the table.

A header names its column in the row's field: ``CPU(cores)`` is ``CPU_cores``, ``Use%`` is
``Use_pct``, ``UP-TO-DATE`` stays itself; ``NAME`` makes the cell the row's subject, as any
identity key does (``Process``, too: ``ss -p``'s ``users:(("redis-server",pid=1502,fd=6))`` is
the process ``redis-server`` with ``pid`` 1502).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_MD_ROW: Final = re.compile(r"^\|.{0,2000}\|$")
_MD_RULE: Final = re.compile(r"^\|?(?:\s{0,3}:?-{2,}:?\s{0,3}\|){1,60}\s{0,3}:?-{0,}:?\s{0,3}\|?$")
_CSV_HEAD: Final = re.compile(r"^[A-Za-z_][\w .()%/-]{0,60}(?:,[A-Za-z_][\w .()%/-]{0,60}){1,60}$")
_COLUMN: Final = re.compile(r"\S+")
_GAP: Final = re.compile(r"\S(?: {2}|\t)\s{0,200}\S")
"""Columns aligned by a run of spaces or a tab between two cells."""
_JOINING: Final = frozenset({"on", "of", "at", "in", "by", "to"})
MAX_COLUMNS: Final = 40
MIN_CELLS: Final = 2


@dataclass(frozen=True, slots=True)
class Table:
    """The lines ``start`` to ``end`` (exclusive) of a text, read as rows of (column, cell)."""

    start: int
    end: int
    rows: tuple[tuple[tuple[str, str], ...], ...]


def column_key(header: str) -> str:
    """A header as a field key: ``CPU(cores)`` -> ``CPU_cores``, ``Use%`` -> ``Use_pct``,
    ``%CPU`` (ps) -> ``CPU_pct``."""
    key = header.strip()
    key = f"{key[1:]}_pct" if key.startswith("%") else key.replace("%", "_pct")
    key = re.sub(r"[^\w.\-/]+", "_", key).strip("_")
    return key or "column"


def find_tables(lines: list[str]) -> list[Table]:
    """Every table among ``lines`` (stripped lines of one text), in order."""
    found: list[Table] = []
    at = 0
    while at < len(lines) - 1:
        table = _markdown(lines, at) or _psql(lines, at) or _csv(lines, at) or _aligned(lines, at)
        if table is not None and table.rows:
            found.append(Table(table.start, table.end,
                               tuple(_with_processes(row) for row in table.rows)))
        # lines scanned as rows that made no table start none either: each would read the same
        # rows and stop where this one stopped (one pass over the text, never one per line)
        at = max(at + 1, table.end if table is not None else 0)
    return found


_SOCKET_USERS: Final = re.compile(r'users:\(\("([^"]{1,200})",pid=([0-9]{1,10})')
"""``ss -p``'s process cell: ``users:(("redis-server",pid=1502,fd=6))``."""


def _with_processes(row: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """A row whose cell names the process holding a socket as ``ss -p`` writes it, with the
    process's name in that cell and its pid beside it (the first process, where several share
    the socket)."""
    cells: list[tuple[str, str]] = []
    for column, cell in row:
        found = _SOCKET_USERS.match(cell)
        cells.extend([(column, found.group(1)), ("pid", found.group(2))] if found
                     else [(column, cell)])
    return tuple(cells)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _markdown(lines: list[str], at: int) -> Table | None:
    if not (_MD_ROW.match(lines[at]) and _MD_RULE.match(lines[at + 1])):
        return None
    header = [column_key(c) for c in _cells(lines[at])]
    rows = []
    end = at + 2
    while end < len(lines) and _MD_ROW.match(lines[end]):
        cells = _cells(lines[end])
        if len(cells) == len(header):
            rows.append(tuple(zip(header, cells, strict=True)))
        end += 1
    return Table(at, end, tuple(rows)) if rows else None


_PSQL_RULE: Final = re.compile(r"^-{1,200}(?:\+-{1,200}){1,60}$")


def _psql(lines: list[str], at: int) -> Table | None:
    """``psql``'s tables: a header of cells split by ``|``, a ``----+----`` rule, then rows."""
    if "|" not in lines[at] or not _PSQL_RULE.match(lines[at + 1]):
        return None
    header = [column_key(c) for c in lines[at].split("|")]
    rows, end = _split_rows(lines, at + 2, header, "|")
    return Table(at, end, tuple(rows))


def _split_rows(lines: list[str], start: int, header: list[str],
                sep: str) -> tuple[list[tuple[tuple[str, str], ...]], int]:
    """The rows from ``start`` on whose cells, split by ``sep``, are as many as the header's;
    and where they end."""
    rows = []
    end = start
    while end < len(lines) and lines[end].count(sep) == len(header) - 1:
        rows.append(tuple(zip(header, (c.strip() for c in lines[end].split(sep)), strict=True)))
        end += 1
    return rows, end


def _csv(lines: list[str], at: int) -> Table | None:
    if not _CSV_HEAD.match(lines[at]):  # names, each from a letter (``p95_ms`` is one)
        return None
    header = [column_key(c) for c in lines[at].split(",")]
    rows, end = _split_rows(lines, at + 1, header, ",")
    if not rows or not any(ch.isdigit() for line in lines[at + 1:end] for ch in line):
        return Table(at, end, ())
    return Table(at, end, tuple(rows))


def _header(line: str) -> tuple[list[str], list[int]] | None:
    """The column names of an aligned header line and where each starts, or None when the line
    is no header."""
    if any(ch.isdigit() for ch in line) or "=" in line or line.endswith((".", ":")) \
            or line.startswith(("$", "#", ">")) or not _GAP.search(line):
        return None
    names: list[str] = []
    starts: list[int] = []
    for word in _COLUMN.finditer(line):
        if names and word.group() in _JOINING:
            names[-1] = f"{names[-1]}_{word.group()}"
        else:
            names.append(word.group())
            starts.append(word.start())
    if not MIN_CELLS <= len(names) <= MAX_COLUMNS or any(n.endswith(":") for n in names):
        return None  # "Namespace:    prod" is a key and its value (kubectl describe), no header
    return [column_key(n) for n in names], starts


def _sliced(line: str, header: list[str], starts: list[int],
            tight: frozenset[int]) -> list[tuple[str, str]] | None:
    """The cells of a row cut where the header's columns start (``docker ps``' ``Up 3 hours
    (healthy)`` is one cell, an empty ``PORTS`` an empty cell); a header word one space after
    the one before it (``tight``) names one column with it where its cut would fall inside a
    word or leave the cell empty (``CONTAINER ID``, ``LAST SEEN``). None where another cut falls
    inside a word. A cell right-aligned under the second word of such a column (``ss``' ``Local
    Address:Port``) leaves the first word's cut empty: the two are one column too."""
    if len(line) <= starts[-1]:
        return None
    names, cuts = [header[0]], [starts[0]]
    for place, (name, at) in enumerate(zip(header[1:], starts[1:], strict=True), 1):
        following = starts[place + 1] if place + 1 < len(starts) else len(line)
        if place in tight and (line[at - 1] != " " or not line[at:following].strip()
                               or not line[cuts[-1]:at].strip()):
            names[-1] = f"{names[-1]}_{name}"
            continue
        names.append(name)
        cuts.append(at)
    cells = [line[a:b].strip() for a, b in zip(cuts, [*cuts[1:], len(line)], strict=True)]
    if not cells[0] or any(line[at - 1] != " " for at in cuts[1:]):
        return None
    return list(zip(names, cells, strict=True))


FREE_TEXT: Final = frozenset({"command", "cmd", "args", "message", "msg", "description"})
"""A last column of free text (``ps``' ``COMMAND``): a row's cells past the others are its."""


def _aligned(lines: list[str], at: int) -> Table | None:
    read = _header(lines[at])
    if read is None:
        return None
    header, starts = read
    rows = []
    end = at + 1
    tight = frozenset(place for place, start in enumerate(starts)
                      if place and lines[at][start - 2:start - 1] not in ("", " "))
    while end < len(lines):
        cells = _COLUMN.findall(lines[end])
        if not _GAP.search(lines[end]):
            break
        labelled = len(cells) == len(header) + 1 and not any(ch.isdigit() for ch in cells[0])
        pairs = (_sliced(lines[end], header, starts, tight)
                 if (len(cells) > len(header) and not labelled)
                 or (tight and len(cells) < len(header)) else None)
        if pairs is not None:  # a cell holding spaces: cut at the header's columns
            rows.append(tuple(pairs))
            end += 1
            continue
        if len(cells) > len(header) and header[-1].lower() in FREE_TEXT:
            cells = [*cells[:len(header) - 1], " ".join(cells[len(header) - 1:])]
        if len(cells) == len(header):
            rows.append(tuple(zip(header, cells, strict=True)))
        elif labelled:
            rows.append((("name", cells[0].rstrip(":")),
                         *zip(header, cells[1:], strict=True)))
        else:
            break
        end += 1
    if not rows or not any(ch.isdigit() for line in lines[at + 1:end] for ch in line):
        return Table(at, end, ())
    return Table(at, end, tuple(rows))
