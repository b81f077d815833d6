"""Cassette files on disk: reading with a clear error for every kind of damage, atomic writes
under a directory lock, and setting a damaged file aside.

A cassette is shared by test processes (pytest-xdist workers) and committed to version control,
so it can be truncated, hold merge conflict markers, be empty or be something else entirely.
Reading never ends in a traceback: every failure is a :class:`CassetteError` naming the path,
what is wrong and how to recover. Writing goes to a temporary file in the same directory that
replaces the cassette in one rename, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from gsar_otel.errors import GSARError
from gsar_otel.runtime.guards import on_failure

CASSETTE_FORMAT: Final = "gsar-cassette/1"
"""Format marker written into every cassette; a cassette with another marker is refused."""

DAMAGED_SUFFIX: Final = ".damaged"
"""Appended to a damaged cassette's name when record mode ``all`` replaces it."""

RECOVER: Final = ("delete it and record again with --gsar-record-mode=once, or record over it "
                  "with --gsar-record-mode=all")


class CassetteError(GSARError):
    """A cassette cannot be read or written (bad JSON, wrong format, a secret in it)."""


class CassetteWarning(UserWarning):
    """Record mode ``all`` replaced a damaged cassette (the damaged file is kept beside it)."""


def read_cassette(path: Path) -> dict[str, dict[str, Any]]:
    """The verdict entries of the cassette at ``path``.

    Raises:
        CassetteError: unreadable, empty, not UTF-8, not JSON, or not a gsar cassette; the
            message names the path, says what is wrong and how to recover.
    """
    return read_cassette_holding(path, "")[0]


def read_cassette_holding(path: Path, mark: str) -> tuple[dict[str, dict[str, Any]], bool]:
    """The verdict entries of the cassette at ``path``, and whether its text holds ``mark``.

    Raises:
        CassetteError: as :func:`read_cassette`.
    """
    if not path.is_file():  # a FIFO would block the read; a directory cannot be one
        raise CassetteError(f"cannot read cassette {path}: not a regular file")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CassetteError(f"cannot read cassette {path}: {error}") from None
    if not raw.strip():
        raise CassetteError(f"cannot read cassette {path}: the file is empty; {RECOVER}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CassetteError(f"cannot read cassette {path}: not UTF-8 text (byte {error.start}), "
                            f"the file is damaged; {RECOVER}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        conflict = " (it holds merge conflict markers)" if "\n<<<<<<< " in f"\n{text}" else ""
        raise CassetteError(f"cannot read cassette {path}: not valid JSON{conflict}: "
                            f"{error.msg} (line {error.lineno}, column {error.colno}); "
                            f"{RECOVER}") from None
    except RecursionError:
        raise CassetteError(f"{path} is not a gsar cassette (JSON nested too deeply); "
                            f"{RECOVER}") from None
    return _verdicts(data, path), mark in text


def _verdicts(data: Any, path: Path) -> dict[str, dict[str, Any]]:
    expected = f"a JSON object with \"format\": \"{CASSETTE_FORMAT}\" and \"verdicts\""
    if not isinstance(data, dict):
        raise CassetteError(f"{path} is not a gsar cassette (expected {expected}, got a JSON "
                            f"{type(data).__name__})")
    found = data.get("format")
    if found != CASSETTE_FORMAT:
        if isinstance(found, str) and found.startswith("gsar-cassette/"):
            raise CassetteError(f"cassette {path} has format {found[:40]!r}, which this gsar "
                                f"cannot read (it reads {CASSETTE_FORMAT!r}); record it again "
                                f"with --gsar-record-mode=all")
        raise CassetteError(f"{path} is not a gsar cassette (expected {expected}; \"format\" "
                            f"is {str(found)[:40]!r})")
    verdicts = data.get("verdicts")
    if not isinstance(verdicts, dict):
        raise CassetteError(f"cassette {path}: \"verdicts\" must be a JSON object, got "
                            f"{type(verdicts).__name__}; {RECOVER}")
    return verdicts


def render_cassette(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The cassette text for ``entries``: stable, indented, sorted JSON ending in a newline."""
    return json.dumps({"format": CASSETTE_FORMAT, "verdicts": entries}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def set_aside_damaged(path: Path) -> Path:
    """Move the damaged cassette at ``path`` to ``NAME.damaged`` (replacing an older one); a
    symlink's target is moved, the link stays."""
    path = real_path(path)
    backup = path.with_name(path.name + DAMAGED_SUFFIX)
    os.replace(path, backup)
    return backup


@contextlib.contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``directory`` (a no-op where there is no ``fcntl``).

    Every process saving a cassette of the directory takes it, so a read-merge-write is never
    interleaved with another's.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no advisory locks on this platform
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def real_path(path: Path) -> Path:
    """``path`` with every symlink followed (the file a write must replace)."""
    return Path(os.path.realpath(path))


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one rename; the temporary file never outlives a failure.

    A symlink at ``path`` is followed: its target is replaced and the link stays a link (the
    pytest plugin refuses links that leave the project unless they are allowed).
    """
    path = real_path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")

    def remove_temporary(_: BaseException) -> None:
        with contextlib.suppress(OSError):
            os.unlink(temporary)

    with on_failure(remove_temporary):
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())  # the rename never exposes a file whose bytes are not there
        os.replace(temporary, path)
