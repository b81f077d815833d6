"""Fixtures for the pytest plugin's own tests: an isolated pytester, the fake Messages API.

Inner test sessions run the installed plugin (the ``pytest11`` entry point), in process where
possible. Every ``GSAR_*``, ``ANTHROPIC_*`` and ``OTEL_*`` variable of the outer environment is
removed so a developer's settings cannot change an inner run.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator

import pytest

from tests.plugin.helpers import write_ini
from tests.plugin.scripted_judge import ScriptedJudgePlugin
from tests.support.fake_anthropic import fake_anthropic  # noqa: F401 - fixture

# pytester drops the modules an in-process run imported when it ends; importing what every inner
# session needs here, once, keeps each inner run from importing (and rewriting) them again.
for _module in ("hypothesis", "anthropic", "gsar_otel.otel.traced",
                "gsar_otel.judges.staged.judge", "gsar_otel.judges.lexical.judge",
                "gsar_otel.judges.anthropic.judge",
                "gsar_otel.judges.recorded.judge", "gsar_otel.config",
                "pytest_gsar.cases", "pytest_gsar.fixtures", "pytest_gsar.judging",
                "pytest_gsar.report"):
    importlib.import_module(_module)


@pytest.fixture
def gsar_pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose inner sessions see no gsar, Anthropic or OpenTelemetry settings."""
    for name in list(os.environ):
        if name.startswith(("GSAR_", "ANTHROPIC_", "OTEL_")):
            monkeypatch.delenv(name)
    write_ini(pytester)
    return pytester


@pytest.fixture(scope="session", autouse=True)
def scripted_judge() -> Iterator[None]:
    """``--gsar-judge=scripted`` in the in-process inner sessions (a gsar_otel plugin judge)."""
    from gsar_otel.plugins import register, unregister

    plugin = ScriptedJudgePlugin()
    register(plugin, name="tests-scripted-judge")
    yield
    unregister(plugin)
