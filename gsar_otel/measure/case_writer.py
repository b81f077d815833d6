"""Appending captured cases to case files: one line per write, files rotated by day and size.

Files are named ``gsar_captured_<YYYYMMDD>.jsonl`` (UTC day), then ``..._<YYYYMMDD>_1.jsonl``,
``_2`` ... once a file reaches ``max_bytes``; the pytest plugin collects them as they are
(``gsar_*.jsonl``). Every line is written whole:

- one ``write`` of the complete line to a descriptor opened ``O_APPEND``, under an exclusive
  ``flock`` of the file, so lines from threads and processes sharing a directory never
  interleave, and rotation is decided under the same lock;
- a process killed mid-write leaves at most a partial last line: the next writer to open the
  file cuts the file back to its last complete line (under the lock) before appending, so no
  torn line is ever followed by another, and the plugin never reads half a case.

A line larger than ``max_bytes`` goes alone into a fresh file. Writing never raises into the
caller's path unless asked (:meth:`CaseWriter.write` returns False and logs once).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Final

from gsar_otel.errors import GSARError
from gsar_otel.measure.captured import encode_line

logger = logging.getLogger(__name__)

PREFIX: Final = "gsar_captured"
DEFAULT_MAX_BYTES: Final = 64 * 2**20
"""Size at which a day's file is closed and the next one started (64 MiB)."""

try:  # POSIX; elsewhere threads of one process are still serialised by the writer's lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class CaptureError(ValueError, GSARError):
    """The capture directory cannot be used (it is not a directory, or not writable)."""


def check_directory(directory: str | os.PathLike[str]) -> Path:
    """``directory`` created if missing, as a Path.

    Raises:
        CaptureError: it exists and is not a directory, or cannot be created or written.
    """
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise CaptureError(f"capture directory {str(path)!r} is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CaptureError(f"capture directory {str(path)!r} cannot be created: "
                           f"{error.strerror or error}") from None
    if not path.is_dir():
        raise CaptureError(f"capture directory {str(path)!r} is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise CaptureError(f"capture directory {str(path)!r} is not writable")
    return path


class CaseWriter:
    """Appends case lines to the day's file in ``directory``, rotating by size and day."""

    def __init__(self, directory: str | os.PathLike[str], *,
                 max_bytes: int = DEFAULT_MAX_BYTES, prefix: str = PREFIX) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ValueError(f"max_bytes must be an integer >= 1, got {max_bytes!r}")
        self.directory = check_directory(directory)
        self.max_bytes = max_bytes
        self.prefix = prefix
        self._lock = threading.Lock()
        self._warned = False
        self.written = 0
        self.failed = 0

    def path_for(self, day: str, index: int) -> Path:
        suffix = f"_{index}" if index else ""
        return self.directory / f"{self.prefix}_{day}{suffix}.jsonl"

    def write(self, line: dict[str, Any], *, now: float | None = None) -> Path | None:
        """Append ``line``; the file written, or None when writing failed (logged once)."""
        data = encode_line(line)
        day = time.strftime("%Y%m%d", time.gmtime(time.time() if now is None else now))
        with self._lock:
            try:
                path = self._append(data, day)
            except OSError as error:
                self.failed += 1
                if not self._warned:
                    self._warned = True
                    logger.warning("gsar: writing a captured case to %s failed: %s",
                                   self.directory, error.strerror or error)
                return None
            self.written += 1
            return path

    def _append(self, data: bytes, day: str) -> Path:
        index = 0
        while True:
            path = self.path_for(day, index)
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                size = _repair_tail(fd)
                if size and size + len(data) > self.max_bytes:
                    index += 1
                    continue
                _write_all(fd, data)
                return path
            finally:
                os.close(fd)  # closing releases the lock


def _repair_tail(fd: int) -> int:
    """Cut a partial last line (a writer killed mid-write) back to the last ``\\n``; the
    file's size after."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0
    if os.pread(fd, 1, size - 1) == b"\n":
        return size
    keep, position = 0, size
    while position > 0:
        start = max(0, position - 65536)
        chunk = os.pread(fd, position - start, start)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            keep = start + cut + 1
            break
        position = start
    os.ftruncate(fd, keep)
    logger.warning("gsar: cut a partial last line (%d bytes) from a captured-case file",
                   size - keep)
    return keep


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
