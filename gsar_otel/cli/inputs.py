"""Reading what a ``gsar`` command is given: ``TEXT``, ``@FILE`` and ``@-`` (stdin), data files.

Every command reads through these helpers, so each bad input ends the same way, with exit 2 and
one line naming the argument and the file:

- a file larger than the input limit (``DEFAULT_MAX_INPUT_BYTES``, 16 MiB; ``--max-input-bytes``)
  is refused, and stdin is read only up to it, so ``@/dev/zero`` or an endless pipe cannot grow
  without bound;
- a path that is not a regular file (a device, a FIFO, a directory) is refused without opening
  it for a blocking read (stdin is given as ``@-``);
- bytes that are not UTF-8, and an argument holding undecodable bytes (the shell passes them as
  lone surrogates), are "not UTF-8 text";
- JSON nested deeper than ``MAX_JSON_DEPTH`` (64) is refused before the parser can recurse
  (:func:`parse_json`; the readers below the CLI use the same ``core.json_input.load_json``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from typing import Any, BinaryIO, Final, TypeAlias

from gsar_otel.cli.common import BadInput
from gsar_otel.core.json_input import MAX_JSON_DEPTH as MAX_JSON_DEPTH
from gsar_otel.core.json_input import JSONTooDeep, check_depth, load_json
from gsar_otel.core.json_input import json_depth as json_depth

DEFAULT_MAX_INPUT_BYTES: Final = 16 * 1024 * 1024
"""Largest answer or evidence ``gsar judge`` reads (16 MiB); the evaluator then judges at most
its own limits of it (see the Limits section of docs/evidence.md)."""


def has_surrogates(text: str) -> bool:
    """True when ``text`` holds lone surrogates (undecodable bytes of an argument)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shown(path: str) -> str:
    return repr(path.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def open_regular(path: str, name: str, *, hint: str = "give a file, or @- to read stdin"
                 ) -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file.

    Opened without blocking, so a FIFO with no writer is refused instead of waiting forever.

    Raises:
        BadInput: it cannot be opened, or it is not a regular file.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise BadInput(f"{name}: cannot read {_shown(path)}: {error.strerror or error}") from None
    try:
        mode = os.fstat(descriptor).st_mode
    except OSError as error:
        os.close(descriptor)
        raise BadInput(f"{name}: cannot read {_shown(path)}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket"
                if stat.S_ISSOCK(mode) else "not a regular file")
        raise BadInput(f"{name}: {_shown(path)} is {kind}, not a regular file; {hint}")
    if hasattr(os, "set_blocking"):
        os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def check_regular(path: str, name: str, *, hint: str = "give a file") -> None:
    """Refuse ``path`` unless it is a readable regular file (for readers that open it later).

    Raises:
        BadInput: as :func:`open_regular`.
    """
    open_regular(path, name, hint=hint).close()


def _decode(data: bytes, name: str, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"{name}: {shown} is not UTF-8 text (byte {error.start})") from None


def read_limited(stream: BinaryIO, limit: int, name: str, shown: str) -> str:
    """At most ``limit`` bytes of ``stream`` as UTF-8 text.

    Raises:
        BadInput: more than ``limit`` bytes, or not UTF-8.
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise BadInput(f"{name}: {shown} is larger than the input limit of {limit:,} bytes "
                       f"(--max-input-bytes)")
    return _decode(data, name, shown)


def read_text_file(path: str, name: str, *, limit: int = DEFAULT_MAX_INPUT_BYTES,
                   stdin: BinaryIO | None = None, hint: str = "give a file, or - for stdin"
                   ) -> str:
    """The UTF-8 text of the regular file ``path`` (``-``: stdin), at most ``limit`` bytes.

    Raises:
        BadInput: naming ``name`` and the file, for every reason it cannot be used.
    """
    if path == "-":
        source = stdin if stdin is not None else sys.stdin.buffer
        return read_limited(source, limit, name, "stdin")
    with open_regular(path, name, hint=hint) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            size = 0
        if size > limit:
            raise BadInput(f"{name}: {_shown(path)} is larger than the input limit of "
                           f"{limit:,} bytes (--max-input-bytes)")
        try:
            return read_limited(handle, limit, name, _shown(path))
        except OSError as error:
            raise BadInput(f"{name}: cannot read {_shown(path)}: "
                           f"{error.strerror or error}") from None


def read_argument(value: str, name: str, *, limit: int = DEFAULT_MAX_INPUT_BYTES,
                  stdin: BinaryIO | None = None) -> str:
    """The text of ``value``, or of the file ``@path`` names (``@-``: stdin).

    Raises:
        BadInput: the file cannot be used, the text is not UTF-8, too large, or empty.
    """
    if value.startswith("@"):
        text = read_text_file(value[1:], name, limit=limit, stdin=stdin,
                              hint="give a file, or @- to read stdin")
    else:
        if has_surrogates(value):
            raise BadInput(f"{name}: the argument is not UTF-8 text")
        if len(value.encode("utf-8")) > limit:
            raise BadInput(f"{name}: the argument is larger than the input limit of "
                           f"{limit:,} bytes (--max-input-bytes)")
        text = value
    if not text.strip():
        raise BadInput(f"{name} is empty; give text or @FILE with text in it")
    return text


def check_json_depth(text: str, name: str, *, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` before a recursive parser reads it.

    Raises:
        BadInput: naming ``name`` and the limit.
    """
    try:
        check_depth(text, limit=limit)
    except JSONTooDeep as error:
        raise BadInput(f"{name}: {error}") from None


def parse_json(text: str, name: str) -> Any:
    """The JSON value of ``text``, read by :func:`gsar_otel.core.json_input.load_json` (every
    JSON a command reads goes through it), nested at most ``MAX_JSON_DEPTH`` levels.

    Raises:
        BadInput: nested deeper, naming ``name`` and the limit.
        json.JSONDecodeError: not JSON (each caller says so in its own words).
    """
    try:
        return load_json(text)
    except JSONTooDeep as error:
        raise BadInput(f"{name}: {error}") from None


NamedPath: TypeAlias = tuple[str, str | os.PathLike[str] | None]
"""An argument's name and the path it was given (None when not given; ``-``: stdin/stdout)."""


def settings_file() -> NamedPath:
    """The settings file ``GSAR_CONFIG`` names, an input of every command that reads settings."""
    from gsar_otel import environment
    from gsar_otel.semconv import ENV_CONFIG

    return ENV_CONFIG, environment.raw(ENV_CONFIG)


def _paths(named: Iterable[NamedPath]) -> list[tuple[str, str]]:
    return [(name, os.fspath(path)) for name, path in named
            if path is not None and os.fspath(path) not in ("", "-")]


def _identity(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the regular file at ``path`` (links followed); None otherwise."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _same(first: str, second: str) -> bool:
    """One file: the same inode (a symlink or a hard link), or one path once resolved."""
    found = _identity(first)
    if found is not None and found == _identity(second):
        return True
    return os.path.realpath(first) == os.path.realpath(second)


def refuse_overwriting(outputs: Iterable[NamedPath], inputs: Iterable[NamedPath]) -> None:
    """Refuse an output path that names a file the command reads, or a file another output
    writes: the same file by path, through a symlink or a hard link. Checked before the
    command opens anything, so a refused run has written nothing.

    Raises:
        BadInput: naming the output, the input it would destroy, and what to do.
    """
    read = [(name, path) for name, path in _paths(inputs) if _identity(path) is not None]
    written: list[tuple[str, str]] = []
    for name, path in _paths(outputs):
        for source, source_path in read:
            if _same(path, source_path):
                kind = "settings file" if source == "GSAR_CONFIG" else "input file"
                raise BadInput(f"{name}: {_shown(path)} is the {source} {kind} "
                               f"{_shown(source_path)}; writing it would destroy that input, "
                               f"give another path")
        for other, other_path in written:
            if _same(path, other_path):
                raise BadInput(f"{name}: {_shown(path)} is also the {other} output "
                               f"{_shown(other_path)}; give each output its own file")
        written.append((name, path))
