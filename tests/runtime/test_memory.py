"""The cap on glibc's malloc arenas a long-running process keeps (``gsar sidecar
--malloc-arenas``): asked of glibc where it is glibc, left to ``MALLOC_ARENA_MAX`` where that is
set, refused for a bad value. Each call runs in a process of its own (the cap is process-wide)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gsar_otel.runtime.memory import ENV_ARENA_MAX, limit_arenas

GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None


def _in_child(arenas: int, env: dict[str, str] | None = None) -> str:
    code = ("import os; from gsar_otel.runtime.memory import limit_arenas; "
            f"print(limit_arenas({arenas}, os.environ))")
    environ = {k: v for k, v in os.environ.items() if k != ENV_ARENA_MAX} | (env or {})
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, check=True, timeout=60)
    return done.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="mallopt(M_ARENA_MAX) is glibc's")
def test_glibc_takes_the_cap() -> None:
    assert _in_child(4) == "4"
    assert _in_child(1) == "1"


def test_zero_leaves_glibc_its_default() -> None:
    assert _in_child(0) == "glibc default"


def test_malloc_arena_max_in_the_environment_decides() -> None:
    assert _in_child(4, {ENV_ARENA_MAX: "2"}) == f"{ENV_ARENA_MAX}=2"


@pytest.mark.parametrize("bad", [-1, True, 1.5, "4"])
def test_a_bad_cap_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="malloc arenas must be an integer >= 0"):
        limit_arenas(bad, {})  # type: ignore[arg-type]
