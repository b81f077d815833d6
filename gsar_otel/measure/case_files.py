"""Curating captured cases (``gsar cases``): reading case files and directories of them,
filtering by the recorded verdict, agent and time, deduplicating by content, setting what a case
expects, and promoting cases into a suite file. Each function reads or writes plain JSON lines
in the format of :mod:`gsar_otel.measure.captured` (the pytest plugin's case format)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gsar_otel.errors import GSARError
from gsar_otel.measure.captured import content_digest, encode_line
from gsar_otel.runtime.guards import on_failure

EXPECTATIONS: Final = ("proceed", "regenerate", "replan", "abstain", "not_proceed", "any")
"""What ``expect`` may be set to (the plugin's values)."""
DECISIONS: Final = ("proceed", "regenerate", "replan", "abstain")
MAX_LINE_BYTES: Final = 16 * 2**20


class CaseFileError(ValueError, GSARError):
    """A case file cannot be read, or one of its lines is not a case; names the file and line."""


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case line: where it is and what it holds."""

    path: Path
    line: int
    data: dict[str, Any]

    @property
    def recorded(self) -> dict[str, Any]:
        value = self.data.get("recorded")
        return value if isinstance(value, dict) else {}

    @property
    def decision(self) -> str | None:
        value = self.recorded.get("decision")
        return value if isinstance(value, str) else None

    @property
    def score(self) -> float | None:
        value = self.recorded.get("score")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
            else None

    @property
    def digest(self) -> str:
        evidence = self.data.get("evidence", [])
        items = evidence if isinstance(evidence, list) else [evidence]
        return content_digest(str(self.data.get("synthesis", "")), items)


def case_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The case files ``paths`` name: files as given, directories' ``gsar_*.jsonl`` and
    ``*.gsar.jsonl`` files (sorted, not recursive).

    Raises:
        CaseFileError: a path that does not exist.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted({*path.glob("gsar_*.jsonl"), *path.glob("*.gsar.jsonl")}))
        elif path.is_file():
            found.append(path)
        else:
            raise CaseFileError(f"{raw}: no such file or directory")
    return found


def read_rows(path: Path) -> Iterator[CaseRow]:
    """Every case line of ``path``.

    Raises:
        CaseFileError: the file cannot be read, a line is not UTF-8 JSON, not an object or has
            no ``id``; naming the file and line.
    """
    try:
        handle = path.open("rb")
    except OSError as error:
        raise CaseFileError(f"{path}: cannot read: {error.strerror or error}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            if len(raw) > MAX_LINE_BYTES:
                raise CaseFileError(f"{path}:{number}: line longer than 16 MiB")
            text = raw.decode("utf-8", "replace").strip().removeprefix("\ufeff")
            if not text:
                continue
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError) as error:
                raise CaseFileError(f"{path}:{number}: not valid JSON ({error})") from None
            if not isinstance(data, dict) or not isinstance(data.get("id"), str):
                raise CaseFileError(f"{path}:{number}: not a case (a JSON object with an 'id')")
            yield CaseRow(path, number, data)


def read_all(paths: Sequence[str | os.PathLike[str]]) -> list[CaseRow]:
    """The case lines of every file ``paths`` name, in order."""
    return [row for path in case_paths(paths) for row in read_rows(path)]


@dataclass(frozen=True, slots=True)
class CaseFilter:
    """Which cases to keep: every given condition must hold (a case without a recorded verdict
    fails a decision or score condition)."""

    decisions: tuple[str, ...] = ()
    """Recorded decisions (``not_proceed``: any but proceed)."""
    min_score: float | None = None
    max_score: float | None = None
    agents: tuple[str, ...] = ()
    since: str | None = None
    """Recorded ``at`` on or after this (ISO 8601 UTC prefix, ``2026-12-07`` or full)."""
    until: str | None = None
    """Recorded ``at`` before this."""

    def matches(self, row: CaseRow) -> bool:
        decision, score = row.decision, row.score
        if self.decisions and not any(
                decision == wanted or (wanted == "not_proceed" and decision not in (None,
                                                                                     "proceed"))
                for wanted in self.decisions):
            return False
        if self.min_score is not None and (score is None or score < self.min_score):
            return False
        if self.max_score is not None and (score is None or score > self.max_score):
            return False
        if self.agents and row.recorded.get("agent") not in self.agents:
            return False
        at = row.recorded.get("at")
        if self.since is not None and (not isinstance(at, str) or at < self.since):
            return False
        return self.until is None or (isinstance(at, str) and at < self.until)


def select(rows: Iterable[CaseRow], case_filter: CaseFilter, *, dedupe: bool = False
           ) -> list[CaseRow]:
    """The rows ``case_filter`` keeps, in order; with ``dedupe`` only the first of rows with
    the same answer and evidence."""
    seen: set[str] = set()
    kept: list[CaseRow] = []
    for row in rows:
        if not case_filter.matches(row):
            continue
        if dedupe:
            digest = row.digest
            if digest in seen:
                continue
            seen.add(digest)
        kept.append(row)
    return kept


def with_expect(data: dict[str, Any], expect: str | None) -> dict[str, Any]:
    """``data`` with ``expect`` set (None: removed, so the recorded decision is expected).

    Raises:
        ValueError: an unknown expectation.
    """
    if expect is not None and expect not in EXPECTATIONS:
        raise ValueError(f"expect must be one of {', '.join(EXPECTATIONS)}, got {expect!r}")
    updated = {key: value for key, value in data.items() if key != "expect"}
    if expect is not None:
        updated["expect"] = expect
    return updated


def replace_file(path: Path, lines: Iterable[dict[str, Any]]) -> None:
    """Write ``lines`` to ``path`` atomically: a temporary file beside it, then a rename."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with on_failure(lambda _: Path(temporary).unlink(missing_ok=True)):
        with os.fdopen(descriptor, "wb") as handle:
            for line in lines:
                handle.write(encode_line(line))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)


def set_expect(path: Path, ids: Sequence[str] | None, expect: str | None) -> int:
    """Set ``expect`` on the cases of ``path`` whose id is in ``ids`` (None: every case);
    returns how many were changed. The file is rewritten atomically.

    Raises:
        CaseFileError: as :func:`read_rows`; an id not in the file.
    """
    rows = list(read_rows(path))
    wanted = None if ids is None else set(ids)
    if wanted is not None:
        missing = sorted(wanted - {row.data["id"] for row in rows})
        if missing:
            raise CaseFileError(f"{path}: no case with id {', '.join(map(repr, missing))}")
    changed = 0
    out = []
    for row in rows:
        if wanted is None or row.data["id"] in wanted:
            out.append(with_expect(row.data, expect))
            changed += 1
        else:
            out.append(row.data)
    replace_file(path, out)
    return changed


def promote(rows: Sequence[CaseRow], suite: Path, *, expect: str | None = None) -> tuple[int, int]:
    """Add ``rows`` to the suite file (created if missing), skipping a case whose id or content
    the suite already holds; ``expect`` set on each added case when given. Returns (added,
    skipped). The suite is rewritten atomically.

    Raises:
        CaseFileError: the suite exists and is not a case file.
    """
    existing = list(read_rows(suite)) if suite.exists() else []
    ids = {row.data["id"] for row in existing}
    digests = {row.digest for row in existing}
    added: list[dict[str, Any]] = []
    skipped = 0
    for row in rows:
        if row.data["id"] in ids or row.digest in digests:
            skipped += 1
            continue
        ids.add(row.data["id"])
        digests.add(row.digest)
        added.append(with_expect(row.data, expect) if expect is not None else row.data)
    if added:
        suite.parent.mkdir(parents=True, exist_ok=True)
        replace_file(suite, [*(row.data for row in existing), *added])
    return len(added), skipped
