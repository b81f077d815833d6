"""The sidecar process: receivers, the run assembler, a bounded judging queue and shutdown.

One asyncio loop owns the receivers and the assembler; judging runs on a loop of its own in a
second thread, so a slow or CPU-bound judge never blocks receiving. At most ``queue_size`` runs
wait and ``concurrency`` are judged at once; a run that finds the queue full is dropped and
counted. Sampling is deterministic on the trace id, so replicas and restarts agree. ``stop``
closes the receivers, releases every buffered run and judges it (or counts it) before returning.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from opentelemetry import metrics, trace

from gsar_otel.core.protocol import Judge
from gsar_otel.otel.instruments import get_telemetry
from gsar_otel.sidecar.admission import NetworkLimits
from gsar_otel.sidecar.assembly import AssemblyLimits, ReadyRun, TraceAssembler
from gsar_otel.sidecar.emit import incompleteness, judge_and_emit
from gsar_otel.sidecar.extract import ExtractedRun, extract_run
from gsar_otel.sidecar.filters import RunFilter, sampled
from gsar_otel.sidecar.forward import Forwarder
from gsar_otel.sidecar.spans import Decoded
from gsar_otel.sidecar.stats import (
    OUTCOME_DROPPED,
    OUTCOME_FAILED,
    OUTCOME_JUDGED,
    OUTCOME_SKIPPED,
    SidecarStats,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024
"""The OTLP specification's suggested request limit (413 above it)."""


@dataclass(frozen=True, slots=True)
class SidecarConfig:
    """Everything ``gsar sidecar`` takes (see ``gsar sidecar --help``)."""

    host: str = "127.0.0.1"
    http_port: int = 4318
    grpc_port: int = 4317
    """0 turns the gRPC receiver off."""
    token: str | None = None
    limits: AssemblyLimits = field(default_factory=AssemblyLimits)
    judge: str | None = None
    judge_model: str | None = None
    queue_size: int = 1_000
    concurrency: int = 4
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_decompressed_bytes: int = 4 * DEFAULT_MAX_BODY_BYTES
    sample_rate: float = 1.0
    tick_s: float = 0.1
    shutdown_grace_s: float = 30.0
    forward: str | None = None
    capture_content: bool | None = None
    max_connections: int = 512
    """Open HTTP connections served at once; more are answered 503 and closed."""
    max_grpc_inflight: int = 64
    """gRPC calls in progress at once (and streams per connection); gRPC refuses more with
    ``RESOURCE_EXHAUSTED``, so at most this many messages of up to ``max_decompressed_bytes``
    are held."""
    services: tuple[str, ...] = ()
    """Judge only runs of these ``service.name`` values (empty: every service)."""
    agents: tuple[str, ...] = ()
    """Judge only runs of these agents (``gen_ai.agent.name``, else the run span's name)."""
    matches: tuple[tuple[str, str], ...] = ()
    """Judge only runs whose run span (else resource) has these attribute values (``--match``;
    all keys must hold, several values for one key: any)."""
    network: NetworkLimits = field(default_factory=NetworkLimits)
    """Timeouts, reserves, byte budgets and the ``/v1/judge`` gate of the receivers."""

    def __post_init__(self) -> None:
        for name in ("queue_size", "concurrency", "max_body_bytes", "max_decompressed_bytes",
                     "max_connections", "max_grpc_inflight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("http_port", "grpc_port"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
                raise ValueError(f"{name} must be a port in [0, 65535], got {value!r}")
        if not (isinstance(self.sample_rate, int | float) and 0 <= self.sample_rate <= 1):
            raise ValueError(f"sample_rate must be in [0, 1], got {self.sample_rate!r}")
        for name in ("tick_s", "shutdown_grace_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")


class JudgeThread:
    """An event loop in a thread of its own, for judging."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="gsar-sidecar-judge",
                                        daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the judge loop and await it from the caller's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel what is still judging (each evaluation ends its span as failed), then stop."""

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=timeout_s)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout_s + 1)
        except Exception:  # a judge stuck in blocking code: stop the loop anyway
            logger.warning("gsar sidecar: a judge did not stop in %.0f s", timeout_s)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self.loop.close()


class Sidecar:
    """Receive, assemble, judge, emit. ``await start()``, then ``await stop()``.

    Args:
        config: the settings.
        tracer_provider / meter_provider: where the grounding spans and metrics go (default:
            the global providers).
        judge: a judge object (default: built from ``config.judge``).
        options: :class:`GSAREvaluator` keyword arguments (thresholds, rho, ...).
        clock: monotonic seconds for the assembler (injectable in tests).
        grpc_interceptors: ``grpc.aio.ServerInterceptor`` objects for the gRPC receiver (auth
            or audit of one's own).
    """

    def __init__(self, config: SidecarConfig | None = None, *,
                 tracer_provider: trace.TracerProvider | None = None,
                 meter_provider: metrics.MeterProvider | None = None,
                 judge: Judge | None = None, options: Mapping[str, Any] | None = None,
                 clock: Any = time.monotonic, grpc_interceptors: Sequence[Any] = ()) -> None:
        self.config = config or SidecarConfig()
        self.stats = SidecarStats(meter_provider)
        self.telemetry = get_telemetry(tracer_provider=tracer_provider,
                                       meter_provider=meter_provider)
        self.assembler = TraceAssembler(self.config.limits, clock=clock)
        self._filter = RunFilter(self.config.services, self.config.agents, self.config.matches)
        self.options = dict(options or {})
        if judge is None:
            from gsar_otel.judges.factory import make_judge

            judge = make_judge(self.config.judge, model=self.config.judge_model)
        self.judge = judge
        self.grpc_interceptors = tuple(grpc_interceptors)
        self.http_port = 0
        self.grpc_port = 0
        self._queue: asyncio.Queue[ReadyRun] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._judge_thread: JudgeThread | None = None
        self._forwarder: Forwarder | None = None
        self._receivers: list[Any] = []
        self.accepting = False

    # --- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the receivers and start the assembler ticker and the judging workers."""
        from gsar_otel.sidecar.receiver_http import HttpReceiver

        config = self.config
        self._queue = asyncio.Queue(maxsize=config.queue_size)
        self._judge_thread = JudgeThread()
        if config.forward:
            self._forwarder = Forwarder(config.forward, self.stats,
                                        max_bytes=config.network.forward_max_bytes)
            self._forwarder.start()
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._tick()))
        self._tasks.extend(loop.create_task(self._work()) for _ in range(config.concurrency))
        http = HttpReceiver(self, config.host, config.http_port)
        self.http_port = await http.start()
        self._receivers.append(http)
        if config.grpc_port:
            from gsar_otel.sidecar.receiver_grpc import GrpcReceiver

            grpc_receiver = GrpcReceiver(self, config.host, config.grpc_port)
            self.grpc_port = await grpc_receiver.start()
            self._receivers.append(grpc_receiver)
        self.accepting = True

    async def stop(self) -> None:
        """Stop receiving; judge every buffered run (flagged when unsettled) within the grace
        period; count whatever is left."""
        self.accepting = False
        for receiver in self._receivers:
            await receiver.close()
        self._receivers.clear()
        for task in self._tasks[:1]:
            task.cancel()
        for run in [*self.assembler.due(), *self.assembler.drain()]:
            self._enqueue(run, shutdown=True)
        self._flag_late(everything=True)
        queue = self._queue
        if queue is not None:
            try:
                await asyncio.wait_for(queue.join(), self.config.shutdown_grace_s)
            except TimeoutError:
                while not queue.empty():
                    queue.get_nowait()
                    queue.task_done()
                    self.stats.queue(-1)
                    self.stats.run(OUTCOME_DROPPED, "shutdown_timeout")
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        if self._forwarder is not None:
            await self._forwarder.close()
        if self._judge_thread is not None:
            self._judge_thread.stop()

    # --- what the receivers call ------------------------------------------------------------------

    def authorized(self, header: str | None) -> bool:
        """True when no token is configured or ``header`` is ``Bearer <token>``."""
        import hmac

        token = self.config.token
        if not token:
            return True
        expected = f"Bearer {token}".encode()
        return header is not None and hmac.compare_digest(header.strip().encode(), expected)

    def busy(self) -> bool:
        """Backpressure: the judging queue is full (receivers answer 429 / RESOURCE_EXHAUSTED, both
        with a retry delay)."""
        return self._queue is not None and self._queue.full()

    def ingest(self, decoded: Decoded) -> None:
        """Buffer decoded spans and logs; count rejects and evictions."""
        stats = self.stats
        for reason, count in decoded.reasons.items():
            stats.spans(reason, count)
        stats.note("values", "truncated", decoded.truncated)
        before = dict(self.assembler.counts)
        evicted = [*self.assembler.add_spans(decoded.spans),
                   *self.assembler.add_logs(decoded.logs)]
        for key, value in self.assembler.counts.items():
            if key != "evicted":
                stats.spans(key, value - before.get(key, 0))
        for _ in evicted:
            stats.run(OUTCOME_DROPPED, "evicted")

    def forward(self, signal: str, body: bytes, content_type: str, count: int) -> None:
        """Pass a received request on unchanged (in-line placement)."""
        if self._forwarder is not None:
            self._forwarder.submit(signal, body, content_type, count)

    async def judge_payload(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/judge``: ``{"answer": str, "evidence": ...}`` -> the GSARResult as JSON.

        Raises:
            ValueError: no answer, or evidence the core cannot read.
        """
        from gsar_otel.core.evidence import EvidenceSet
        from gsar_otel.otel.traced import TracedEvaluator

        answer = payload.get("answer", payload.get("synthesis"))
        if not isinstance(answer, str) or not answer.strip():
            raise ValueError("'answer' must be a non-empty string")
        evidence = EvidenceSet.coerce(payload.get("evidence"))
        function = str(payload.get("function") or "judge")[:128]
        evaluator = TracedEvaluator(self.judge, function=function, mode="sidecar",
                                    capture_content=self.config.capture_content,
                                    telemetry=self.telemetry, **self.options)
        assert self._judge_thread is not None, "start() the sidecar first"
        result = await self._judge_thread.run(
            evaluator.evaluate(report_synthesis=answer, evidence_corpus=evidence))
        dumped: dict[str, Any] = result.model_dump(mode="json")
        return dumped

    def health(self) -> dict[str, Any]:
        return {"status": "ok" if self.accepting else "stopping",
                "traces_buffered": self.assembler.pending,
                "queue_depth": self.stats.queue_depth, "lag_s": self.stats.lag_quantiles(),
                "counts": self.stats.snapshot()}

    # --- internals --------------------------------------------------------------------------------

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.config.tick_s)
            try:
                for run in self.assembler.due():
                    self._enqueue(run)
            except Exception:  # the ticker must survive anything one trace does
                logger.exception("gsar sidecar: releasing runs failed")
            self._flag_late()

    def _flag_late(self, *, everything: bool = False) -> None:
        """Flag each trace's late items in the trace (``gsar.sidecar.late_spans``)."""
        from gsar_otel.sidecar.emit import flag_late

        for batch in self.assembler.late_due(everything=everything):
            try:
                flag_late(batch, self.telemetry)
            except Exception as error:  # one trace's flag never stops the ticker
                logger.warning("gsar sidecar: flagging late spans of %s failed: %s: %s",
                               batch.trace_id, type(error).__name__, error)
                self.stats.note("late_flags", f"failed_{type(error).__name__}")
            else:
                self.stats.note("late_flags", "flagged")

    def _enqueue(self, run: ReadyRun, *, shutdown: bool = False) -> None:
        if not self._filter.wanted(run):
            self.stats.run(OUTCOME_SKIPPED, "filtered")
            return
        if not sampled(run.trace_id, self.config.sample_rate):
            self.stats.run(OUTCOME_SKIPPED, "sampled_out")
            return
        assert self._queue is not None
        try:
            self._queue.put_nowait(run)
        except asyncio.QueueFull:
            self.stats.run(OUTCOME_DROPPED, "shutdown_queue_full" if shutdown else "queue_full")
            return
        self.stats.queue(1)

    async def _work(self) -> None:
        assert self._queue is not None and self._judge_thread is not None
        while True:
            run = await self._queue.get()
            self.stats.queue(-1)
            try:
                await self._process(run)
            except asyncio.CancelledError:
                self.stats.run(OUTCOME_DROPPED, "shutdown_timeout")  # cut off at shutdown
                raise
            except Exception as error:  # one bad run never stops a worker
                logger.warning("gsar sidecar: judging trace %s failed: %s: %s", run.trace_id,
                               type(error).__name__, error)
                self.stats.run(OUTCOME_FAILED, type(error).__name__)
            finally:
                self._queue.task_done()

    async def _process(self, run: ReadyRun) -> None:
        assert self._judge_thread is not None

        async def work() -> tuple[ExtractedRun, bool]:
            extracted = extract_run(run)
            if extracted.answer is None:
                return extracted, False
            await judge_and_emit(run, extracted, judge=self.judge, telemetry=self.telemetry,
                                 options=self.options,
                                 capture_content=self.config.capture_content)
            return extracted, True

        extracted, judged = await self._judge_thread.run(work())
        if not judged:
            self.stats.run(OUTCOME_SKIPPED, "no_answer")
            return
        self.stats.run(OUTCOME_JUDGED, incompleteness(run, extracted) or "complete")
        if run.run_span is not None and run.run_span.end_ns:
            self.stats.lag((time.time_ns() - run.run_span.end_ns) / 1e9)
