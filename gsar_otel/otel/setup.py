"""``configure_telemetry()``: SDK tracer and meter providers with exporters, for apps without.

Exporters follow the standard OpenTelemetry environment variables, which the exporters read
themselves:

- ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT`` / ``..._METRICS_ENDPOINT``) turns
  OTLP export on; ``OTEL_EXPORTER_OTLP_HEADERS`` carries e.g. ``x-honeycomb-team=KEY``.
- ``OTEL_EXPORTER_OTLP_PROTOCOL`` (or ``..._TRACES_PROTOCOL`` / ``..._METRICS_PROTOCOL``):
  ``http/protobuf`` (default; port 4318) or ``grpc`` (port 4317).
- ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` name the service.

- ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` (``otlp``, ``console``, ``prometheus``,
  ``none``) pick the exporters; see :mod:`gsar_otel.otel.exporter_choice` for the defaults.

With nothing at all configured one line per evaluation goes to stderr (``GSAR_CONSOLE=spans``: the
full span dump; ``off``: nothing); metrics never go to the console unless asked. A provider the
host application already installed is never replaced: gsar-otel then simply uses it.

Exporter packages are imported only here, inside the function, so ``import gsar_otel`` stays cheap.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TextIO

from opentelemetry import metrics, trace

from gsar_otel import environment
from gsar_otel import semconv as sc
from gsar_otel.environment import OTLP_PROTOCOLS
from gsar_otel.otel.exporter_choice import endpoint_set, metric_export, trace_export

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

logger = logging.getLogger(__name__)

PROTOCOLS: Final = OTLP_PROTOCOLS
DEFAULT_PROTOCOL: Final = "http/protobuf"


def _is_proxy_meter_provider(provider: object) -> bool:
    try:
        from opentelemetry.metrics._internal import _ProxyMeterProvider
    except ImportError:  # pragma: no cover - older API layout
        return type(provider).__name__ == "_ProxyMeterProvider"
    return isinstance(provider, _ProxyMeterProvider)


def host_tracer_provider() -> trace.TracerProvider | None:
    """The tracer provider the host installed globally, or None while only the proxy is there."""
    provider = trace.get_tracer_provider()
    return None if isinstance(provider, trace.ProxyTracerProvider) else provider


def host_meter_provider() -> metrics.MeterProvider | None:
    """The meter provider the host installed globally, or None while only the proxy is there."""
    provider = metrics.get_meter_provider()
    return None if _is_proxy_meter_provider(provider) else provider


def otlp_protocol(signal: str, env: Mapping[str, str] | None = None) -> str:
    """The OTLP protocol for ``signal`` (``traces`` or ``metrics``) from the environment.

    Raises:
        SettingsError: an unsupported protocol, naming the variable and the allowed values (a
            ``ValueError``).
    """
    specific = f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL"
    for variable in (specific, sc.ENV_OTLP_PROTOCOL):
        value: str | None = environment.read(variable, env)
        if value:
            return value
    return DEFAULT_PROTOCOL


def otlp_endpoint_set(signal: str) -> bool:
    """True when an OTLP endpoint is configured for ``signal`` (``traces`` or ``metrics``)."""
    return endpoint_set(signal)


def _import_error(what: str, extra: str, error: ImportError) -> ImportError:
    return ImportError(f"{what} needs a package that is not installed ({error.name or error}); "
                       f"install gsar-otel's '{extra}' extra: pip install '.[{extra}]' in its "
                       f"checkout, or pip install 'dist/<wheel>.whl[{extra}]'")


def _otlp_span_exporter(protocol: str) -> SpanExporter:
    try:
        if protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[assignment]
                OTLPSpanExporter,
            )
    except ImportError as error:
        raise ImportError(f"OTLP {protocol} span export needs opentelemetry-exporter-otlp "
                          f"({error.name or error}); pip install opentelemetry-exporter-otlp"
                          ) from error
    return OTLPSpanExporter()


def _otlp_metric_exporter(protocol: str) -> Any:
    try:
        if protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (  # type: ignore[assignment]
                OTLPMetricExporter,
            )
    except ImportError as error:
        raise ImportError(f"OTLP {protocol} metric export needs opentelemetry-exporter-otlp "
                          f"({error.name or error}); pip install opentelemetry-exporter-otlp"
                          ) from error
    return OTLPMetricExporter()


@dataclass
class TelemetryHandle:
    """What :func:`configure_telemetry` set up; ``shutdown()`` flushes and stops what it created.

    ``tracer_provider`` / ``meter_provider`` are the providers created here (None when the host's
    own provider was kept); ``installed_*`` say whether they were made global.
    """

    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    installed_tracer_provider: bool = False
    installed_meter_provider: bool = False
    span_exporters: tuple[SpanExporter, ...] = ()
    metric_readers: tuple[MetricReader, ...] = ()
    otlp_traces_protocol: str | None = None
    otlp_metrics_protocol: str | None = None
    prometheus_port: int | None = None
    _prometheus_server: Any = field(default=None, repr=False)
    _local: bool = field(default=False, repr=False)
    _closed: bool = field(default=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def force_flush(self, timeout_s: float = 10.0) -> bool:
        """Export everything buffered now; True when every provider finished in time."""
        ok = True
        millis = int(timeout_s * 1000)
        for provider in (self.tracer_provider, self.meter_provider):
            if provider is not None:
                try:
                    ok = bool(provider.force_flush(millis)) and ok
                except Exception:
                    logger.debug("gsar telemetry: force_flush failed", exc_info=True)
                    ok = False
        return ok

    def shutdown(self) -> None:
        """Flush and shut down the providers and servers created here (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        _wait_for_background_evaluations()
        if self._local:
            from gsar_otel.otel.instruments import set_providers

            set_providers()
        for provider in (self.tracer_provider, self.meter_provider):
            if provider is not None:
                try:
                    provider.shutdown()
                except Exception:
                    logger.debug("gsar telemetry: provider shutdown failed", exc_info=True)
        if self._prometheus_server is not None:
            try:
                self._prometheus_server.shutdown()
                self._prometheus_server.server_close()
            except Exception:
                logger.debug("gsar telemetry: stopping the Prometheus server failed",
                              exc_info=True)


def _wait_for_background_evaluations() -> None:
    """Let pending background evaluations end (within the exit budget) before the providers
    stop: their spans and metrics would otherwise go to providers already shut down."""
    from gsar_otel.otel.background import current_worker, exit_flush_timeout

    worker = current_worker()
    if worker is None:
        return
    budget = exit_flush_timeout()
    if not worker.wait_idle(budget):
        logger.warning("gsar telemetry: background evaluations still pending after %.1f s at "
                       "shutdown (%d queued, more may be running); their telemetry is not "
                       "exported", budget, worker.pending)


def configure_telemetry(
    *,
    service_name: str | None = None,
    console: bool | None = None,
    console_metrics: bool | None = None,
    otlp: bool | None = None,
    prometheus_port: int | None = None,
    prometheus_host: str = "127.0.0.1",
    span_exporters: Sequence[SpanExporter] = (),
    metric_readers: Sequence[MetricReader] = (),
    set_global: bool = True,
    console_out: TextIO | None = None,
) -> TelemetryHandle:
    """Create SDK providers with exporters, unless the host application already has providers.

    Args:
        service_name: ``service.name`` of the resource (default: ``OTEL_SERVICE_NAME``, else the
            SDK's default).
        console: print every span to ``console_out`` (default stderr). None: as
            ``OTEL_TRACES_EXPORTER`` or ``GSAR_CONSOLE=spans`` say; with nothing at all
            configured one line per evaluation is printed instead (``GSAR_CONSOLE=off``: none).
        console_metrics: print metrics too. None: follows ``console``; with both None, as
            ``OTEL_METRICS_EXPORTER`` says, else never.
        otlp: export over OTLP. None: as ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER``
            say, else when ``OTEL_EXPORTER_OTLP_(TRACES_|METRICS_)ENDPOINT`` is set. True:
            always (the exporters' default endpoints on localhost).
        prometheus_port: also serve metrics for Prometheus on this port (needs the
            ``prometheus`` extra); None: as ``OTEL_METRICS_EXPORTER=prometheus`` says.
        prometheus_host: address the Prometheus endpoint listens on.
        span_exporters / metric_readers: more exporters (batched) and readers to attach.
        set_global: install the providers globally (the default; only where the host has none).
            False keeps them for gsar-otel's own telemetry (see
            ``gsar_otel.otel.instruments.set_providers``).
        console_out: stream for console output.

    Returns:
        A :class:`TelemetryHandle`; call ``shutdown()`` when done (the SDK also flushes at exit).

    Raises:
        ValueError: an unsupported ``OTEL_EXPORTER_OTLP_*_PROTOCOL`` or ``OTEL_*_EXPORTER``
            value, or a bad port.
        ImportError: an exporter package is missing (the message says what to install).
    """
    if prometheus_port is not None and (isinstance(prometheus_port, bool)
                                        or not isinstance(prometheus_port, int)
                                        or not 0 <= prometheus_port <= 65535):
        raise ValueError(f"prometheus_port must be an integer in [0, 65535], got "
                         f"{prometheus_port!r}")
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    resource = Resource.create({SERVICE_NAME: service_name} if service_name else None)
    out = console_out or sys.stderr
    handle = TelemetryHandle(_local=not set_global)

    if not set_global or host_tracer_provider() is None:
        _build_tracer_provider(handle, resource, console=console, otlp=otlp,
                               span_exporters=span_exporters, out=out)
    else:
        logger.debug("gsar telemetry: keeping the host's tracer provider")
        if span_exporters:
            logger.warning("gsar telemetry: the host already installed a tracer provider, which "
                           "is kept; span_exporters were not added (pass set_global=False to "
                           "give gsar-otel providers of its own)")
    if not set_global or host_meter_provider() is None:
        _build_meter_provider(handle, resource, console=console_metrics
                              if console_metrics is not None else console, otlp=otlp,
                              prometheus_port=prometheus_port, prometheus_host=prometheus_host,
                              metric_readers=metric_readers, out=out)
    else:
        logger.debug("gsar telemetry: keeping the host's meter provider")
        if prometheus_port is not None or metric_readers:
            logger.warning("gsar telemetry: the host already installed a meter provider, which "
                           "is kept; prometheus_port / metric_readers were not added (add a "
                           "PrometheusMetricReader to the host's provider, or pass "
                           "set_global=False)")

    if set_global:
        if handle.tracer_provider is not None:
            trace.set_tracer_provider(handle.tracer_provider)
            handle.installed_tracer_provider = trace.get_tracer_provider() is handle.tracer_provider
        if handle.meter_provider is not None:
            metrics.set_meter_provider(handle.meter_provider)
            handle.installed_meter_provider = (
                metrics.get_meter_provider() is handle.meter_provider)
    else:
        from gsar_otel.otel.instruments import set_providers

        set_providers(tracer_provider=handle.tracer_provider,
                      meter_provider=handle.meter_provider)

    # Flush background evaluations at exit before the providers' own exit shutdown runs.
    from gsar_otel.otel.background import register_exit_flush

    register_exit_flush()
    return handle


def _build_tracer_provider(handle: TelemetryHandle, resource: Any, *, console: bool | None,
                           otlp: bool | None, span_exporters: Sequence[SpanExporter],
                           out: TextIO) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )

    choice = trace_export(otlp=otlp, console=console)
    use_otlp, use_console = choice.otlp, choice.console
    provider = TracerProvider(resource=resource)
    exporters: list[SpanExporter] = []
    if use_otlp:
        protocol = otlp_protocol("traces")
        exporter = _otlp_span_exporter(protocol)
        provider.add_span_processor(BatchSpanProcessor(exporter))
        exporters.append(exporter)
        handle.otlp_traces_protocol = protocol
    for extra in span_exporters:
        provider.add_span_processor(BatchSpanProcessor(extra))
        exporters.append(extra)
    if use_console:
        console_exporter = ConsoleSpanExporter(out=out)
        provider.add_span_processor(SimpleSpanProcessor(console_exporter))
        exporters.append(console_exporter)
    if choice.summary:
        from gsar_otel.otel.console_summary import SummaryExporter

        summary = SummaryExporter(out)
        provider.add_span_processor(SimpleSpanProcessor(summary))
        exporters.append(summary)
    handle.tracer_provider = provider
    handle.span_exporters = tuple(exporters)


def _build_meter_provider(handle: TelemetryHandle, resource: Any, *, console: bool | None,
                          otlp: bool | None, prometheus_port: int | None, prometheus_host: str,
                          metric_readers: Sequence[MetricReader], out: TextIO) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        ConsoleMetricExporter,
        PeriodicExportingMetricReader,
    )

    choice = metric_export(otlp=otlp, console=console, prometheus_port=prometheus_port)
    use_otlp, use_console = choice.otlp, choice.console
    if prometheus_port is None and choice.prometheus_port is not None:
        prometheus_port = choice.prometheus_port
        prometheus_host = choice.prometheus_host or prometheus_host
    readers: list[MetricReader] = []
    if use_otlp:
        protocol = otlp_protocol("metrics")
        readers.append(PeriodicExportingMetricReader(_otlp_metric_exporter(protocol)))
        handle.otlp_metrics_protocol = protocol
    if prometheus_port is not None:
        readers.append(_prometheus_reader(handle, prometheus_port, prometheus_host))
    readers.extend(metric_readers)
    if use_console:
        readers.append(PeriodicExportingMetricReader(ConsoleMetricExporter(out=out)))
    handle.meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    handle.metric_readers = tuple(readers)


def _prometheus_reader(handle: TelemetryHandle, port: int, host: str) -> MetricReader:
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import CollectorRegistry, start_http_server
    except ImportError as error:
        raise _import_error("prometheus_port", "prometheus", error) from error

    class PullOnlyPrometheusReader(PrometheusMetricReader):
        """Prometheus pulls, so a flush has nothing to send. The stock reader collects on flush
        and queues that stale copy of every family; the next scrape then serves each family
        twice, and Prometheus keeps the older value."""

        def force_flush(self, timeout_millis: float = 10_000) -> bool:
            return True

    # A registry of our own, so that two setups in one process never collide.
    registry = CollectorRegistry(auto_describe=True)
    reader = PullOnlyPrometheusReader(registry=registry)
    server, _thread = start_http_server(port, addr=host, registry=registry)
    handle._prometheus_server = server
    handle.prometheus_port = server.server_port
    return reader
