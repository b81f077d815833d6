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
import sys
from collections.abc import Mapping
from typing import Any


def _default(key: str) -> str:
    from gsar_otel.sidecar.settings import help_default

    return help_default(key)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options. Each sidecar option also reads a ``GSAR_SIDECAR_*``
    variable and the settings file's ``sidecar`` table; the flag wins."""
    parser.add_argument("--host", default=None,
                        help=f"address to listen on (0.0.0.0 for all; {_default('host')})")
    parser.add_argument("--http-port", type=int, default=None,
                        help=f"OTLP/HTTP port ({_default('http_port')})")
    parser.add_argument("--grpc-port", type=int, default=None,
                        help=f"OTLP/gRPC port, 0 turns gRPC off ({_default('grpc_port')})")
    parser.add_argument("--forward", default=None, metavar="URL",
                        help="OTLP/HTTP traces endpoint to pass every received request on to "
                             f"(in line), where the grounding spans go too ({_default('forward')})")
    parser.add_argument("--decision-wait", type=float, default=None, metavar="SECONDS",
                        help="settle window after a run span arrives before judging "
                             f"({_default('decision_wait')})")
    parser.add_argument("--max-trace-age", type=float, default=None, metavar="SECONDS",
                        help="hard cap from a trace's first span; judged then, flagged "
                             f"incomplete ({_default('max_trace_age')})")
    parser.add_argument("--max-traces", type=int, default=None,
                        help="traces held at once; the oldest is evicted, counted "
                             f"({_default('max_traces')})")
    parser.add_argument("--max-spans-per-trace", type=int, default=None,
                        help="spans held per trace; more are dropped, counted "
                             f"({_default('max_spans_per_trace')})")
    parser.add_argument("--max-held-bytes", type=int, default=None,
                        help="bytes of spans and runs held (what they cost in memory after "
                             "decoding: every value, empty ones too, and each distinct "
                             "resource); past it traces with no agent-run span (rooted or "
                             "not) are evicted first, then runs with no evidence, then runs "
                             "with evidence, oldest first, counted "
                             f"({_default('max_held_bytes')})")
    parser.add_argument("--queue-size", type=int, default=None,
                        help="runs waiting to be judged before backpressure "
                             f"({_default('queue_size')})")
    parser.add_argument("--concurrency", type=int, default=None,
                        help=f"runs judged at once ({_default('concurrency')})")
    parser.add_argument("--judge-processes", type=int, default=None, metavar="N",
                        help="run the offline judge (records, staged) in N worker processes, "
                             "off the sidecar's interpreter lock, runs judged at once raised "
                             "to at least N; 0: in the sidecar's process "
                             f"({_default('judge_processes')})")
    parser.add_argument("--malloc-arenas", type=int, default=None, metavar="N",
                        help="glibc malloc arenas the sidecar keeps: freed blocks of large "
                             "bodies stay in each thread's arena, so fewer arenas hold less "
                             "memory; 0: glibc's default, eight per core; MALLOC_ARENA_MAX, "
                             f"where set, decides ({_default('malloc_arenas')})")
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
                        help="staged, records, tiered, anthropic or a plugin's judge (default: "
                             "GSAR_JUDGE, else anthropic with a key, else staged)")
    parser.add_argument("--model", default=None, help="model for a model-backed judge")
    parser.add_argument("--max-body-bytes", type=int, default=None,
                        help=f"request body limit; 413 above it ({_default('max_body_bytes')})")
    parser.add_argument("--max-grpc-inflight", type=int, default=None,
                        help="gRPC calls in progress at once; more are refused "
                             "RESOURCE_EXHAUSTED with RetryInfo, counted "
                             f"({_default('max_grpc_inflight')})")
    parser.add_argument("--header-timeout", type=float, default=None, metavar="SECONDS",
                        help="a request's head must arrive within this (408 and closed, "
                             f"counted); also the body's grace ({_default('header_timeout')})")
    parser.add_argument("--min-body-rate", type=int, default=None, metavar="BYTES_PER_S",
                        help="a body slower than this on average after the grace is cut off "
                             f"(408, counted) ({_default('min_body_rate')})")
    parser.add_argument("--health-reserve", type=int, default=None, metavar="CONNECTIONS",
                        help="connections past the limit served only for /healthz, /metrics "
                             f"and requests with the token ({_default('health_reserve')})")
    parser.add_argument("--judge-concurrency", type=int, default=None,
                        help=f"/v1/judge requests judged at once ({_default('judge_concurrency')})")
    parser.add_argument("--judge-queue", type=int, default=None,
                        help="/v1/judge requests waiting; more get 429, counted "
                             f"({_default('judge_queue')})")
    parser.add_argument("--max-inflight-bytes", type=int, default=None,
                        help="request bytes (received, then inflated) held at once, OTLP/HTTP "
                             "and gRPC together; a request past it gets 429 (gRPC: "
                             "RESOURCE_EXHAUSTED), counted "
                             f"({_default('max_inflight_bytes')})")
    parser.add_argument("--forward-max-bytes", type=int, default=None,
                        help="request bodies waiting for --forward; more are dropped, counted "
                             f"forward_dropped ({_default('forward_max_bytes')})")
    parser.add_argument("--grpc-receive-timeout", type=float, default=None, metavar="SECONDS",
                        help="a gRPC call's message must arrive within this of its start "
                             f"(DEADLINE_EXCEEDED, counted) ({_default('grpc_receive_timeout')})")
    parser.add_argument("--verdict-buffer", type=int, default=None, metavar="SPANS",
                        help="grounding spans held for a retry while --forward is down "
                             f"(verdicts_dropped past it) ({_default('verdict_buffer')})")
    parser.add_argument("--decode-process-bytes", type=int, default=None, metavar="BYTES",
                        help="OTLP/JSON bodies at least this long are parsed in a decoding "
                             "process of its own (started at the first, its copies taken from "
                             "--max-inflight-bytes), off the sidecar's interpreter lock; 0: "
                             f"every body in a thread ({_default('decode_process_bytes')})")
    parser.add_argument("--include-unverified", action="store_true", default=None,
                        help="keep tool results found only in a model's input history (no call "
                             "in the trace: anyone sending the history can write them) as "
                             "evidence, marked #unverified; by default they are left out and "
                             f"counted ({_default('include_unverified')})")
    parser.add_argument("--max-judge-pairs", type=int, default=None, metavar="PAIRS",
                        help="most claims (the answer's sentences) times evidence rows (lines, "
                             "or JSON objects) one run may bring to the judge; a run over it is "
                             "not judged but skipped with a gsar.sidecar.skipped span, counted "
                             "runs_skipped{judging_budget}; 0: no bound "
                             f"({_default('max_judge_pairs')})")
    parser.add_argument("--model-token-budget", type=int, default=None, metavar="TOKENS",
                        help="tokens (input, output, cache reads and writes) a model judge "
                             "(tiered, anthropic) may use in any 60 s; past it runs are judged "
                             "offline only (tiered: model tier skipped; anthropic: the staged "
                             "judge), marked gsar.judge.budget_exhausted=true, counted "
                             f"model_budget{{budget_exhausted}}; 0: no budget "
                             f"({_default('model_token_budget')})")
    parser.add_argument("--shutdown-grace", type=float, default=None, metavar="SECONDS",
                        help="on SIGTERM/SIGINT, time to judge the runs held and deliver what "
                             "waits for --forward; the process exits within it whatever the "
                             "target does, counting what it could not judge or send "
                             f"({_default('shutdown_grace')})")
    parser.add_argument("--log-verdicts", action="store_true", default=None,
                        help="print one line per judged run on stderr: trace and run ids, agent, "
                             "decision, S, claim counts, judge (no answer or evidence text) "
                             f"({_default('log_verdicts')})")
    parser.add_argument("--capture-cases", default=None, metavar="DIR",
                        help="write each judged run into DIR as a case-file line the pytest "
                             "plugin runs (gsar_captured_<day>.jsonl, rotated by size; text "
                             f"masked) ({_default('capture_cases')})")
    parser.add_argument("--capture-rate", type=float, default=None, metavar="SHARE",
                        help="share of judged runs --capture-cases writes, decided on the trace "
                             f"id ({_default('capture_rate')})")
    parser.add_argument("--service-name", default="gsar-sidecar",
                        help="service.name of the sidecar's own telemetry")


def build_config(args: argparse.Namespace, settings: Any,
                 env: Mapping[str, str] | None = None) -> Any:
    """The :class:`SidecarConfig` from the flags over ``GSAR_SIDECAR_*`` in ``env`` (default
    ``os.environ``; the token only from there or the file) over the settings file.

    Raises:
        BadInput: a value out of range or of the wrong type; the message names the flag,
            variable or file key.
    """
    from gsar_otel.cli.common import BadInput
    from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
    from gsar_otel.sidecar.filters import parse_match
    from gsar_otel.sidecar.intake.admission import NetworkLimits
    from gsar_otel.sidecar.server import SidecarConfig
    from gsar_otel.sidecar.settings import SETTINGS, sidecar_settings

    flags = {s.key: getattr(args, s.key, None) for s in SETTINGS}
    try:
        v = sidecar_settings(settings, env, flags)
        limits = AssemblyLimits(decision_wait_s=v["decision_wait"],
                                max_age_s=v["max_trace_age"], max_traces=v["max_traces"],
                                max_spans_per_trace=v["max_spans_per_trace"],
                                max_held_bytes=v["max_held_bytes"])
        return SidecarConfig(
            host=v["host"], http_port=v["http_port"], grpc_port=v["grpc_port"],
            token=v["token"], limits=limits,
            judge=args.judge or settings.judge, judge_model=args.model or settings.judge_model,
            queue_size=v["queue_size"], concurrency=v["concurrency"],
            judge_processes=v["judge_processes"], malloc_arenas=v["malloc_arenas"],
            max_body_bytes=v["max_body_bytes"], max_grpc_inflight=v["max_grpc_inflight"],
            sample_rate=settings.sample_rate if args.sample_rate is None else args.sample_rate,
            forward=v["forward"], capture_content=settings.capture_content,
            include_unverified=v["include_unverified"], shutdown_grace_s=v["shutdown_grace"],
            log_verdicts=v["log_verdicts"], capture_cases=v["capture_cases"],
            capture_rate=v["capture_rate"],
            max_judge_pairs=v["max_judge_pairs"], model_token_budget=v["model_token_budget"],
            services=tuple(args.service), agents=tuple(args.agent),
            matches=tuple(parse_match(text) for text in args.match),
            network=NetworkLimits(
                header_timeout_s=v["header_timeout"], min_body_rate=v["min_body_rate"],
                health_reserve=v["health_reserve"], judge_concurrency=v["judge_concurrency"],
                judge_queue=v["judge_queue"], max_inflight_bytes=v["max_inflight_bytes"],
                forward_max_bytes=v["forward_max_bytes"],
                grpc_receive_timeout_s=v["grpc_receive_timeout"],
                verdict_buffer=v["verdict_buffer"],
                decode_process_bytes=v["decode_process_bytes"]))
    except ValueError as error:  # SettingsError is a ValueError
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
    from gsar_otel.environment import environ
    from gsar_otel.runtime.memory import limit_arenas

    arenas = limit_arenas(config.malloc_arenas, environ())  # before any thread of ours starts
    handle = _telemetry(args, config)
    try:
        asyncio.run(_serve(config, handle, settings.evaluator_options(), arenas))
    finally:
        handle.shutdown()
    return EXIT_OK


def _telemetry(args: argparse.Namespace, config: Any) -> Any:
    """The sidecar's own telemetry; with ``--forward`` its grounding spans go there, through a
    :class:`VerdictExporter` (counted, retried from a bounded buffer while it is down)."""
    from gsar_otel.otel.setup import configure_telemetry

    forward = config.forward
    exporters: list[Any] = []
    if forward:
        from gsar_otel.sidecar.output.exporters import ForwardSpanExporter, VerdictExporter
        from gsar_otel.sidecar.output.forward import endpoints

        exporters.append(VerdictExporter(ForwardSpanExporter(endpoints(forward)[0]),
                                         buffer=config.network.verdict_buffer))
    return configure_telemetry(service_name=args.service_name, console=False,
                               otlp=False if forward else None,
                               span_exporters=exporters, set_global=False)


def _otlp_configured() -> bool:
    from gsar_otel.otel.setup import otlp_endpoint_set

    return otlp_endpoint_set("traces")


async def _serve(config: Any, handle: Any, options: dict[str, Any], arenas: str = "") -> None:
    import asyncio
    import contextlib
    import signal
    import time

    from gsar_otel.cli.common import BadInput
    from gsar_otel.sidecar import collector_pauses
    from gsar_otel.sidecar.server import Sidecar

    try:
        sidecar = Sidecar(config, tracer_provider=handle.tracer_provider,
                          meter_provider=handle.meter_provider, options=options)
    except ValueError as error:
        raise BadInput(str(error)) from None
    from gsar_otel.sidecar.output.exporters import VerdictExporter

    for exporter in getattr(handle, "span_exporters", ()):
        if isinstance(exporter, VerdictExporter):
            exporter.attach(sidecar.stats)
    try:
        await sidecar.start()
    except OSError as error:
        raise BadInput(f"cannot listen on {config.host}: {error}") from None
    frozen = collector_pauses.apply()  # start-up objects out of every full collection
    grpc_text = f", OTLP/gRPC on {config.host}:{sidecar.grpc_port}" if sidecar.grpc_port else ""
    print(f"gsar sidecar: OTLP/HTTP on http://{config.host}:{sidecar.http_port}{grpc_text}; "
          f"judging with {type(sidecar.judge).__name__}; {frozen} start-up objects frozen for "
          f"the garbage collector; malloc arenas: {arenas or 'glibc default'}", file=sys.stderr,
          flush=True)
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
    # One deadline for judging what is held and delivering what waits (requests for --forward,
    # grounding spans): past it sends are cut off and counted, so the exit never waits on the
    # target.
    deadline = time.monotonic() + config.shutdown_grace_s
    print(f"gsar sidecar: stopping; judging the runs it holds (grace {config.shutdown_grace_s:g} "
          "s)", file=sys.stderr, flush=True)
    for exporter in getattr(handle, "span_exporters", ()):
        if isinstance(exporter, VerdictExporter):
            exporter.stop_by(deadline)
    await sidecar.stop(deadline)
    await asyncio.to_thread(handle.shutdown)  # the grounding spans' last export, counted
    print(f"gsar sidecar: stopped; {final_counts(sidecar.stats.snapshot())}", file=sys.stderr,
          flush=True)


def final_counts(counts: dict[str, dict[str, int]]) -> str:
    """The last log line's counts: runs by outcome, and what could not be sent at the stop."""
    runs = {k: v for k, v in counts.items() if "runs" in k}
    forwards = counts.get("forward_dropped", {}).get("shutdown", 0)
    verdicts = counts.get("verdicts_dropped", {}).get("shutdown", 0)
    return (f"runs: {runs}; not sent at shutdown: {forwards} forward request(s) "
            f"(forward_dropped{{shutdown}}), {verdicts} grounding span(s) "
            f"(verdicts_dropped{{shutdown}})")
