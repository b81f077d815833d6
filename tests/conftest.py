"""Shared fixtures and the hypothesis profiles. Server fixtures live in tests/support/ and are
registered here, once for the whole session: ``phoenix`` (tests/support/phoenix.py) is one server
shared by tests/e2e and tests/sidecar, not one per directory.

Hypothesis profiles (``--hypothesis-profile=NAME`` picks one; without it ``ci`` when the ``CI``
variable is set, else ``dev``):

- ``dev``: hypothesis's defaults; failing examples are kept in ``.hypothesis/`` and replayed.
- ``ci``: derandomized, so every run tries the same examples and a red build is reproducible
  from the commit alone; no example database, the reproduction blob printed, no deadline and no
  too-slow health check (shared runners stall at random).
- ``random``: fresh examples every run and no database; ``make test-random`` pairs it with a
  printed ``--hypothesis-seed`` so a failure can be run again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins: list[str] = ["pytester", "tests.support.phoenix"]

# Built on hypothesis's own "default" profile, not on whatever is active at import: hypothesis
# itself loads a "ci" profile on import when CI is set, even to "false".
_BASE = settings.get_profile("default")
settings.register_profile("dev", _BASE)
settings.register_profile("ci", _BASE, derandomize=True, database=None, print_blob=True,
                          deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("random", _BASE, derandomize=False, database=None)


def default_profile(environ: Mapping[str, str] = os.environ) -> str:
    """``ci`` when the ``CI`` variable is set to anything but ``""``, ``0`` or ``false``."""
    flag = environ.get("CI", "").strip().lower()
    return "ci" if flag not in ("", "0", "false", "no", "off") else "dev"


def pytest_configure(config: pytest.Config) -> None:
    """Load the default profile unless ``--hypothesis-profile`` named one (hypothesis's plugin
    loads that itself); before collection, so every ``@settings`` built at import inherits it."""
    if not config.getoption("hypothesis_profile", default=None):
        settings.load_profile(default_profile())
