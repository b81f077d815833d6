"""Fixtures of the ``gsar demo`` tests: a clean environment and clean OpenTelemetry globals."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.metrics import _internal as metrics_internal
from opentelemetry.util._once import Once

from gsar_otel import config, plugins
from tests.support.fake_anthropic import fake_anthropic

__all__ = ["clean_environment", "fake_anthropic", "fresh_otel_globals"]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No GSAR_* / OTEL_* settings or API key from the outside; settings and plugins reloaded."""
    for name in list(os.environ):
        if name.startswith(("GSAR_", "OTEL_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    config.reset_settings()
    plugins.reset_plugin_manager()
    yield
    config.reset_settings()
    plugins.reset_plugin_manager()


@pytest.fixture(autouse=True)
def fresh_otel_globals() -> Iterator[None]:
    """Undo the global providers an in-process ``gsar demo`` installs.

    The demo installs its providers globally when the process has none (so that a judge's own
    SDK spans are exported too). OpenTelemetry lets a process set them once, so after the test
    the globals go back to their unset state, as opentelemetry-test-utils' reset helpers do;
    globals some earlier code had already set are left alone.
    """
    had_tracer = trace._TRACER_PROVIDER is not None
    had_meter = metrics_internal._METER_PROVIDER is not None
    yield
    if not had_tracer and trace._TRACER_PROVIDER is not None:
        trace._TRACER_PROVIDER_SET_ONCE = Once()
        trace._TRACER_PROVIDER = None
        trace._PROXY_TRACER_PROVIDER = trace.ProxyTracerProvider()
    if not had_meter and metrics_internal._METER_PROVIDER is not None:
        metrics_internal._METER_PROVIDER_SET_ONCE = Once()
        metrics_internal._METER_PROVIDER = None
        metrics_internal._PROXY_METER_PROVIDER = metrics_internal._ProxyMeterProvider()
