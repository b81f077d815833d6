"""How many malloc arenas a long-running process keeps.

glibc gives each thread that allocates under contention an arena of its own (up to eight per
core) and keeps the blocks freed in it for reuse: a server whose threads decode large bodies in
turn holds the largest body's worth in each arena long after it has gone. Capping the arenas
bounds what is kept. :func:`limit_arenas` asks glibc for a cap (``mallopt(M_ARENA_MAX)``) before
the process starts its threads; elsewhere (musl, macOS, Windows) it does nothing and says so.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Mapping
from typing import Final

M_ARENA_MAX: Final = -8
"""glibc's ``mallopt`` parameter for the most arenas (``malloc.h``)."""
ENV_ARENA_MAX: Final = "MALLOC_ARENA_MAX"
"""glibc's own setting: where it is set, it decides and :func:`limit_arenas` leaves it."""


def limit_arenas(arenas: int, env: Mapping[str, str]) -> str:
    """Cap glibc's malloc arenas at ``arenas`` (0: leave glibc's default), unless ``env`` (the
    process's environment) sets :data:`ENV_ARENA_MAX`. Returns what was
    done, for the start-up log: ``"4"``, ``"glibc default"``, ``"MALLOC_ARENA_MAX=2"`` (the
    environment decides), or why nothing was done.

    Raises:
        ValueError: ``arenas`` is negative or not an integer.
    """
    if isinstance(arenas, bool) or not isinstance(arenas, int) or arenas < 0:
        raise ValueError(f"malloc arenas must be an integer >= 0, got {arenas!r}")
    if env.get(ENV_ARENA_MAX):
        return f"{ENV_ARENA_MAX}={env[ENV_ARENA_MAX]}"
    if arenas == 0:
        return "glibc default"
    mallopt = _mallopt()
    if mallopt is None:
        return "not glibc: left as it is"
    return str(arenas) if mallopt(M_ARENA_MAX, arenas) == 1 else "refused by mallopt"


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's ``mallopt``, or None where the C library is not glibc (the running process's
    own symbols: no search for the library, no subprocess)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only
        function = libc.mallopt
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_int]
    function.restype = ctypes.c_int
    return function
