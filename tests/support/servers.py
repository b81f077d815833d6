"""Helpers for tests that start real servers on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from typing import Any

import pytest


def in_ci() -> bool:
    """True on CI, where a missing server is a failure, never a skip."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def unavailable(reason: str) -> None:
    """Skip locally, fail on CI: end-to-end tests must run in CI."""
    if in_ci():
        pytest.fail(f"required for CI but unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_http(url: str, *, timeout_s: float = 60.0,
                  ok_statuses: tuple[int, ...] = (200,)) -> None:
    """Poll ``url`` until it answers with one of ``ok_statuses`` or the timeout ends."""
    deadline = time.monotonic() + timeout_s
    last: object = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status in ok_statuses:
                    return
                last = response.status
        except urllib.error.HTTPError as error:
            if error.code in ok_statuses:
                return
            last = error
        except OSError as error:
            last = error
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not come up within {timeout_s}s (last: {last!r})")


def stop_process(process: subprocess.Popen[Any], *, grace_s: float = 10.0) -> None:
    """Terminate ``process``, and kill it when it does not exit within ``grace_s``."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=grace_s)
