"""Fixtures of the telemetry tests: injected in-memory providers and a clean settings state."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from gsar_otel import config, plugins
from gsar_otel.otel import background
from gsar_otel.otel import instruments as telemetry
from tests.telemetry.helpers import Otel

_SETTING_PREFIXES = ("GSAR_", "OTEL_INSTRUMENTATION_GENAI_", "OTEL_EXPORTER_OTLP_")


@pytest.fixture(autouse=True)
def clean_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No GSAR_* / OTLP variables from the outside; settings and plugins reloaded per test."""
    for name in list(os.environ):
        if name.startswith(_SETTING_PREFIXES) or name == "ANTHROPIC_API_KEY":
            monkeypatch.delenv(name)
    config.reset_settings()
    plugins.reset_plugin_manager()
    yield
    config.reset_settings()
    plugins.reset_plugin_manager()


@pytest.fixture
def otel() -> Iterator[Otel]:
    """gsar-otel's telemetry goes to in-memory providers for the test."""
    state = Otel()
    telemetry.set_providers(tracer_provider=state.tracer_provider,
                            meter_provider=state.meter_provider)
    yield state
    background.flush(5.0)
    telemetry.set_providers()
    state.tracer_provider.shutdown()
    state.meter_provider.shutdown()


@pytest.fixture
def racy() -> Iterator[None]:
    """Switch threads as often as the interpreter can, to expose check-then-act races."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)
