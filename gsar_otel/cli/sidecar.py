"""`gsar sidecar`: receive an agent's OTLP traces, judge each finished run, write the grounding
back into the same trace.

Point the agent's OTLP exporter at the sidecar (``OTEL_EXPORTER_OTLP_ENDPOINT=
http://127.0.0.1:4318``) beside its usual backend (tee), or run the sidecar in line with
``--forward`` (every received request is passed on unchanged and the sidecar's own spans go
there too). Without ``--forward`` the grounding spans go to the standard
``OTEL_EXPORTER_OTLP_*`` exporters. Stops on SIGINT/SIGTERM after judging what it holds.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    parser.add_argument("--http-port", type=int, default=4318, help="OTLP/HTTP port (4318)")
    parser.add_argument("--grpc-port", type=int, default=4317,
                        help="OTLP/gRPC port (4317; 0 turns gRPC off)")
    parser.add_argument("--forward", default=None, metavar="URL",
                        help="OTLP/HTTP traces endpoint to pass every received request on to "
                             "(in line), where the grounding spans go too")
    parser.add_argument("--decision-wait", type=float, default=10.0, metavar="SECONDS",
                        help="settle window after a run span arrives before judging (10)")
    parser.add_argument("--max-trace-age", type=float, default=300.0, metavar="SECONDS",
                        help="hard cap from a trace's first span; judged then, flagged "
                             "incomplete (300)")
    parser.add_argument("--max-traces", type=int, default=10_000,
                        help="traces held at once; the oldest is evicted, counted (10000)")
    parser.add_argument("--max-spans-per-trace", type=int, default=5_000,
                        help="spans held per trace; more are dropped, counted (5000)")
    parser.add_argument("--queue-size", type=int, default=1_000,
                        help="runs waiting to be judged before backpressure (1000)")
    parser.add_argument("--concurrency", type=int, default=4, help="runs judged at once (4)")
    parser.add_argument("--sample-rate", type=float, default=None,
                        help="share of runs judged, decided on the trace id (default "
                             "GSAR_SAMPLE_RATE, else 1)")
    parser.add_argument("--service", action="append", default=[], metavar="NAME",
                        help="judge only runs of this service.name (repeatable; default all)")
    parser.add_argument("--agent", action="append", default=[], metavar="NAME",
                        help="judge only runs of this agent (gen_ai.agent.name, else the run "
                             "span's name; repeatable; default all)")
    parser.add_argument("--match", action="append", default=[], metavar="KEY=VALUE",
                        help="judge only runs whose run span (else its resource) has this "
                             "attribute value (repeatable: every key must hold, several values "
                             "of one key: any; e.g. deployment.environment.name=prod)")
    parser.add_argument("--judge", default=None,
                        help="lexical, anthropic or a plugin's judge (default: GSAR_JUDGE, else "
                             "anthropic with a key, else lexical)")
    parser.add_argument("--model", default=None, help="model for a model-backed judge")
    parser.add_argument("--max-body-bytes", type=int, default=20 * 1024 * 1024,
                        help="request body limit; 413 above it (20 MiB)")
    parser.add_argument("--max-grpc-inflight", type=int, default=64,
                        help="gRPC calls in progress at once; more are refused "
                             "RESOURCE_EXHAUSTED with RetryInfo, counted (64)")
    parser.add_argument("--service-name", default="gsar-sidecar",
                        help="service.name of the sidecar's own telemetry")


def build_config(args: argparse.Namespace, settings: Any) -> Any:
    """The :class:`SidecarConfig` from the command line and the settings.

    Raises:
        BadInput: a value out of range.
    """
    from gsar_otel.cli.common import BadInput
    from gsar_otel.semconv import ENV_SIDECAR_TOKEN
    from gsar_otel.sidecar.assembly import AssemblyLimits
    from gsar_otel.sidecar.filters import parse_match
    from gsar_otel.sidecar.server import SidecarConfig

    try:
        limits = AssemblyLimits(decision_wait_s=args.decision_wait,
                                max_age_s=args.max_trace_age, max_traces=args.max_traces,
                                max_spans_per_trace=args.max_spans_per_trace)
        return SidecarConfig(
            host=args.host, http_port=args.http_port, grpc_port=args.grpc_port,
            token=os.environ.get(ENV_SIDECAR_TOKEN) or None, limits=limits,
            judge=args.judge or settings.judge, judge_model=args.model or settings.judge_model,
            queue_size=args.queue_size, concurrency=args.concurrency,
            max_body_bytes=args.max_body_bytes, max_grpc_inflight=args.max_grpc_inflight,
            sample_rate=settings.sample_rate if args.sample_rate is None else args.sample_rate,
            forward=args.forward, capture_content=settings.capture_content,
            services=tuple(args.service), agents=tuple(args.agent),
            matches=tuple(parse_match(text) for text in args.match))
    except ValueError as error:
        raise BadInput(str(error)) from None


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import asyncio

    from gsar_otel.cli.common import EXIT_OK, BadInput
    from gsar_otel.config import get_settings

    try:
        settings = get_settings()
    except ValueError as error:
        raise BadInput(str(error)) from None
    config = build_config(args, settings)
    handle = _telemetry(args)
    try:
        asyncio.run(_serve(config, handle, settings.evaluator_options()))
    finally:
        handle.shutdown()
    return EXIT_OK


def _telemetry(args: argparse.Namespace) -> Any:
    from gsar_otel.otel.setup import configure_telemetry

    exporters: list[Any] = []
    if args.forward:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        from gsar_otel.sidecar.forward import endpoints

        exporters.append(OTLPSpanExporter(endpoint=endpoints(args.forward)[0]))
    return configure_telemetry(service_name=args.service_name, console=False,
                               otlp=False if args.forward else None,
                               span_exporters=exporters, set_global=False)


def _otlp_configured() -> bool:
    from gsar_otel.otel.setup import otlp_endpoint_set

    return otlp_endpoint_set("traces")


async def _serve(config: Any, handle: Any, options: dict[str, Any]) -> None:
    import asyncio
    import contextlib
    import signal

    from gsar_otel.cli.common import BadInput
    from gsar_otel.sidecar.server import Sidecar

    try:
        sidecar = Sidecar(config, tracer_provider=handle.tracer_provider,
                          meter_provider=handle.meter_provider, options=options)
    except ValueError as error:
        raise BadInput(str(error)) from None
    try:
        await sidecar.start()
    except OSError as error:
        raise BadInput(f"cannot listen on {config.host}: {error}") from None
    grpc_text = f", OTLP/gRPC on {config.host}:{sidecar.grpc_port}" if sidecar.grpc_port else ""
    print(f"gsar sidecar: OTLP/HTTP on http://{config.host}:{sidecar.http_port}{grpc_text}; "
          f"judging with {type(sidecar.judge).__name__}", file=sys.stderr, flush=True)
    if not config.forward and not _otlp_configured():
        print("gsar sidecar: warning: no --forward and no OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT: "
              "the grounding spans are not exported (the counts on /metrics still are kept)",
              file=sys.stderr, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    print("gsar sidecar: stopping; judging the runs it holds", file=sys.stderr, flush=True)
    await sidecar.stop()
    counts = sidecar.stats.snapshot()
    print(f"gsar sidecar: stopped; runs: { {k: v for k, v in counts.items() if 'runs' in k} }",
          file=sys.stderr, flush=True)
