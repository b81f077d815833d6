"""The sidecar process: receivers, the run assembler, a bounded judging queue and shutdown.

One asyncio loop owns the receivers and the assembler; judging runs on a loop of its own in a
second thread (extraction on a pool: :mod:`gsar_otel.sidecar.judging`), so a slow judge never
blocks receiving. At most ``queue_size`` runs wait and ``concurrency`` are judged at once; a run
that finds the queue full is dropped and counted. Sampling is deterministic on the trace id.
``stop`` closes the receivers and judges every buffered run in arrival order within the grace
period, counting what is left. ``POST /v1/judge`` is judged apart: on a loop of its own and a
worker pool of ``judge_concurrency`` threads (:func:`gsar_otel.runtime.pool.pool_in_use`), so
requests holding every one of its places never delay the judging of trace runs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from opentelemetry import metrics, trace

from gsar_otel.core.protocol import Judge
from gsar_otel.judges.process import OFFLINE, ProcessJudge
from gsar_otel.otel.instruments import Telemetry, get_telemetry
from gsar_otel.runtime.guards import failure_name
from gsar_otel.runtime.pool import WorkerPool, pool_in_use
from gsar_otel.sidecar.assembly.assembler import INCOMPLETE_NO_RUN_SPAN, ReadyRun, TraceAssembler
from gsar_otel.sidecar.assembly.counts import COUNT_NOTES, ITEM_KEYS
from gsar_otel.sidecar.assembly.own_spans import RecordingTracer, mark_forged
from gsar_otel.sidecar.config import DEFAULT_MAX_BODY_BYTES, SidecarConfig
from gsar_otel.sidecar.conventions.extract import ExtractedRun
from gsar_otel.sidecar.conventions.registry import CONVENTION_ROOT
from gsar_otel.sidecar.filters import RunFilter, sampled
from gsar_otel.sidecar.intake.admission import ByteBudget, network_limits
from gsar_otel.sidecar.intake.spans import Decoded
from gsar_otel.sidecar.judging import (
    ExtractionDeadline,
    Extractor,
    JudgeThread,
    RunOutcome,
    count_outcome,
    count_results,
    flag_late_batches,
    judge_in_order,
    judge_options,
    judge_within_budgets,
)
from gsar_otel.sidecar.model_budget import ModelTokenBudget
from gsar_otel.sidecar.output.forward import Forwarder
from gsar_otel.sidecar.output.judged import JudgedRuns
from gsar_otel.sidecar.output.stats import (
    OUTCOME_DROPPED,
    OUTCOME_FAILED,
    OUTCOME_JUDGED,
    OUTCOME_SKIPPED,
    SidecarStats,
)
from gsar_otel.sidecar.output.verdict_spans import incompleteness
from gsar_otel.sidecar.run_budget import NOTE_EXTRACTION_CAPPED

__all__ = ["DEFAULT_MAX_BODY_BYTES", "RELEASE_PER_TICK", "Sidecar", "SidecarConfig"]

logger = logging.getLogger(__name__)

RELEASE_PER_TICK = 1_000
"""Traces released per tick at most (a wave reaching the hard cap together is spread over
ticks, so the loop never stalls on it)."""

def _configured_judge(config: SidecarConfig,
                      note: Callable[[str, str], None] | None = None) -> Judge:
    """The judge ``config`` names; the offline one in worker processes with
    ``judge_processes`` (a worker that fails counted through ``note``).

    Raises:
        ValueError: ``judge_processes`` with a judge that is not offline.
    """
    from gsar_otel.judges.factory import default_judge_name, make_judge

    if not config.judge_processes:
        return make_judge(config.judge, model=config.judge_model)
    name = (config.judge or default_judge_name()).strip().lower()
    if name not in OFFLINE:
        raise ValueError(f"--judge-processes runs an offline judge ({', '.join(sorted(OFFLINE))})"
                         f" in worker processes; the judge is {name!r}")
    return ProcessJudge(name, config.judge_processes, note=note)

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
        self.assembler = TraceAssembler(self.config.limits, clock=clock)
        telemetry = get_telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        self.telemetry = Telemetry(RecordingTracer(telemetry.tracer, self.assembler.written),
                                   telemetry.instruments)
        """Every span the sidecar starts is noted: one that comes back is its own, a look-alike
        is forged (:mod:`gsar_otel.sidecar.assembly.own_spans`)."""
        self._filter = RunFilter(self.config.services, self.config.agents, self.config.matches)
        self.options = dict(options or {})
        if judge is None:
            judge = _configured_judge(self.config, self.stats.note)
        self.judge = judge
        self.model_budget = ModelTokenBudget(self.config.model_token_budget, judge)
        self.grpc_interceptors = tuple(grpc_interceptors)
        self.http_port = 0
        self.grpc_port = 0
        self._queue: asyncio.Queue[ReadyRun] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._judge_thread: JudgeThread | None = None
        self._api_thread: JudgeThread | None = None
        self._api_pool: WorkerPool | None = None  # /v1/judge's own loop and worker pool
        self._extractor: Extractor | None = None
        self._queued_bytes = 0
        """Bytes of released runs waiting or being judged (held against max_held_bytes)."""
        self._forwarder: Forwarder | None = None
        self._receivers: list[Any] = []
        self._synced: dict[str, int] = {}
        """The assembler's counts as last passed on to the stats (:meth:`_sync_counts`)."""
        self.inflight = ByteBudget(network_limits(self.config).max_inflight_bytes)
        """Request bytes in flight, OTLP/HTTP and OTLP/gRPC alike (``--max-inflight-bytes``)."""
        self.accepting = False
        self.judged = JudgedRuns(log_verdicts=self.config.log_verdicts, sampled=sampled,
                                 capture_dir=self.config.capture_cases,
                                 capture_rate=self.config.capture_rate)

    # --- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the receivers and start the assembler ticker and the judging workers."""
        from gsar_otel.sidecar.intake.receiver_http import HttpReceiver

        config = self.config
        self._queue = asyncio.Queue(maxsize=config.queue_size)
        self._judge_thread = JudgeThread()
        self._api_thread = JudgeThread("gsar-sidecar-api-judge")
        self._api_pool = WorkerPool(max_workers=config.network.judge_concurrency)
        self._extractor = Extractor(config.concurrency, config.max_extract_bytes,
                                    include_unverified=config.include_unverified)
        if config.forward:
            self._forwarder = Forwarder(config.forward, self.stats,
                                        max_bytes=config.network.forward_max_bytes)
            self._forwarder.start()
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._tick()))
        self._tasks.extend(loop.create_task(self._work())
                           for _ in range(max(config.concurrency, config.judge_processes)))
        http = HttpReceiver(self, config.host, config.http_port)
        self.http_port = await http.start()
        self._receivers.append(http)
        if config.grpc_port:
            from gsar_otel.sidecar.intake.receiver_grpc import GrpcReceiver

            grpc_receiver = GrpcReceiver(self, config.host, config.grpc_port)
            self.grpc_port = await grpc_receiver.start()
            self._receivers.append(grpc_receiver)
        self.accepting = True

    async def stop(self, deadline: float | None = None) -> None:
        """Stop receiving; judge buffered runs (flagged when unsettled) in arrival order for as
        long as the grace period lasts (counted from this call, or until ``deadline``, a
        ``time.monotonic()`` time); count whatever is left (``shutdown_timeout``). Runs wait for
        room in the queue instead of being dropped. Requests still waiting for ``--forward``
        are sent within the same grace; the rest are counted (``forward_dropped{shutdown}``)."""
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = time.monotonic() + self.config.shutdown_grace_s
        deadline = loop.time() + (deadline - time.monotonic())
        self.accepting = False
        for receiver in self._receivers:
            await receiver.close()
        self._receivers.clear()
        for task in self._tasks[:1]:
            task.cancel()
        released = [*self.assembler.due(), *self.assembler.drain()]
        self._sync_counts()
        backlog = deque(sorted(filter(self._wanted, released), key=lambda run: run.first_seen))
        self._flag_late(everything=True)
        if self._queue is not None:
            left = await judge_in_order(self._queue, backlog, deadline - loop.time(),
                                        self._queued, self._unqueued)
            for _ in range(left):
                self.stats.run(OUTCOME_DROPPED, "shutdown_timeout")
            if left:
                logger.warning("gsar sidecar: %d run(s) not judged within the shutdown grace of "
                               "%.1f s; counted (shutdown_timeout)", left,
                               self.config.shutdown_grace_s)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        if self._forwarder is not None:
            await self._forwarder.close(time.monotonic() + max(0.0, deadline - loop.time()))
        for thread in (self._judge_thread, self._api_thread):
            if thread is not None:
                thread.stop()
        if self._api_pool is not None:
            self._api_pool.close()
        if self._extractor is not None:
            self._extractor.close()
        if isinstance(self.judge, ProcessJudge):
            self.judge.close()

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

    def ingest(self, decoded: Decoded) -> list[tuple[str, str]]:
        """Buffer decoded spans and logs; count rejects and evictions. Returns the (trace id,
        span id) of spans that claim to be the sidecar's own but are forged (for
        :meth:`forward` to mark)."""
        stats = self.stats
        for reason, count in decoded.reasons.items():
            stats.spans(reason, count)
        stats.note("values", "truncated", decoded.truncated)
        evicted = [*self.assembler.add_spans(decoded.spans),
                   *self.assembler.add_logs(decoded.logs)]
        self._sync_counts()
        for _ in evicted:
            stats.run(OUTCOME_DROPPED, "evicted")
        stats.held(self.assembler.held_bytes + self._queued_bytes)
        forged, self.assembler.forged = self.assembler.forged, []
        return forged

    def _sync_counts(self) -> None:
        """Pass on what the assembler counted since the last call: items by outcome, and
        traces evicted, runs past the cap and spans withheld (:data:`COUNT_NOTES`)."""
        for key, value in self.assembler.counts.items():
            delta, self._synced[key] = value - self._synced.get(key, 0), value
            if not delta:
                continue
            if key in ITEM_KEYS:
                self.stats.spans(key, delta)
            elif key in COUNT_NOTES:
                self.stats.note(*COUNT_NOTES[key], delta)

    def forward(self, signal: str, body: bytes, content_type: str, count: int,
                forged: Collection[tuple[str, str]] = ()) -> None:
        """Pass a received request on unchanged (in-line placement), but for the spans in
        ``forged``, marked ``gsar.forged=true`` (counted ``forged{unmarked}`` when the body
        cannot be read whole to mark them)."""
        if self._forwarder is not None:
            if forged:
                marked = mark_forged(body, "json" in content_type, set(forged))
                if marked is None:
                    self.stats.note("forged", "unmarked", len(forged))
                body = marked or body
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
        from gsar_otel.plugins import mask_name

        function = mask_name(str(payload.get("function") or "judge")[:128])
        evaluator = TracedEvaluator(self.judge, function=function, mode="sidecar",
                                    capture_content=self.config.capture_content,
                                    telemetry=self.telemetry, **self.options)
        api_thread, api_pool = self._api_thread, self._api_pool
        assert api_thread is not None and api_pool is not None, "start() the sidecar first"

        async def apart() -> Any:
            with pool_in_use(api_pool):
                return await evaluator.evaluate(report_synthesis=answer, evidence_corpus=evidence)

        result = await api_thread.run(apart())
        dumped: dict[str, Any] = result.model_dump(mode="json")
        return dumped

    def health(self) -> dict[str, Any]:
        return {"status": "ok" if self.accepting else "stopping",
                "traces_buffered": self.assembler.pending, "held_bytes": self.stats.held_bytes,
                "queue_depth": self.stats.queue_depth, "lag_s": self.stats.lag_quantiles(),
                "counts": self.stats.snapshot()}

    # --- internals --------------------------------------------------------------------------------

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.config.tick_s)
            try:
                for run in self.assembler.due(limit=RELEASE_PER_TICK):
                    self._enqueue(run)
                self._sync_counts()
            except Exception:  # the ticker must survive anything one trace does
                logger.exception("gsar sidecar: releasing runs failed")
            self._flag_late()

    def _flag_late(self, *, everything: bool = False) -> None:
        """Flag each trace's late items in the trace (``gsar.sidecar.late_spans``)."""
        flag_late_batches(self.assembler.late_due(everything=everything), self.telemetry,
                          self.stats)

    def _wanted(self, run: ReadyRun) -> bool:
        """Whether ``run`` is to be judged (filters and sampling); counted when not."""
        if not self._filter.wanted(run):
            self.stats.run(OUTCOME_SKIPPED, "filtered")
            return False
        if not sampled(run.trace_id, self.config.sample_rate):
            self.stats.run(OUTCOME_SKIPPED, "sampled_out")
            return False
        return True

    def _enqueue(self, run: ReadyRun, *, shutdown: bool = False) -> None:
        if not self._wanted(run):
            return
        assert self._queue is not None
        try:
            no_run_span = (run.reason == INCOMPLETE_NO_RUN_SPAN
                           or run.convention == CONVENTION_ROOT)
            if no_run_span and 2 * self._queue.qsize() >= self._queue.maxsize:
                # a run with no agent-run span (a fragment, a bare root) takes half the queue
                self.stats.run(OUTCOME_DROPPED, "queue_half_full_no_run_span")
                return
            self._queue.put_nowait(run)
        except asyncio.QueueFull:
            self.stats.run(OUTCOME_DROPPED, "shutdown_queue_full" if shutdown else "queue_full")
            return
        self._queued(run)

    def _queued(self, run: ReadyRun) -> None:
        self.stats.queue(1)
        self._queued_bytes += run.size
        self.assembler.outside_bytes = self._queued_bytes

    def _unqueued(self, run: ReadyRun, *, dropped: bool = False) -> None:
        if dropped:
            self.stats.queue(-1)
        self._queued_bytes -= run.size
        self.assembler.outside_bytes = self._queued_bytes

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
            except ExtractionDeadline as error:
                logger.warning("gsar sidecar: trace %s: %s", run.trace_id, error)
                self.stats.run(OUTCOME_FAILED, "extraction_deadline")
            except Exception as error:  # one bad run never stops a worker
                name = failure_name(error)  # an extractor's or judge's SystemExit: its own
                logger.warning("gsar sidecar: judging trace %s failed: %s: %s", run.trace_id,
                               name, error)
                self.stats.run(OUTCOME_FAILED, name)
            finally:
                self._unqueued(run)
                self._queue.task_done()

    async def _process(self, run: ReadyRun) -> None:
        assert self._judge_thread is not None and self._extractor is not None
        extractor, started = self._extractor, time.monotonic()
        deadline_s, config = self.config.run_deadline_s, self.config

        async def work() -> tuple[ExtractedRun, RunOutcome]:
            extracted, cost = await extractor.extract(run, deadline_s)
            outcome = await judge_within_budgets(
                run, extracted, cost, judge=self.judge, budget=self.model_budget,
                max_pairs=config.max_judge_pairs, telemetry=self.telemetry,
                options=judge_options(self.options, started, deadline_s),
                capture_content=config.capture_content)
            if outcome.result is not None and self.judged.active:
                self.judged.judged(run, extracted, outcome.result)
            return extracted, outcome

        extracted, outcome = await self._judge_thread.run(work())
        if NOTE_EXTRACTION_CAPPED in extracted.notes:
            self.stats.note("extraction", "capped")
        count_results(self.stats, extracted, include_unverified=config.include_unverified)
        count_outcome(self.stats, outcome)
        if outcome.skipped:
            self.stats.run(OUTCOME_SKIPPED, outcome.skipped)
            return
        self.stats.run(OUTCOME_JUDGED, incompleteness(run, extracted) or "complete")
        if run.run_span is not None and run.run_span.end_ns:
            self.stats.lag((time.time_ns() - run.run_span.end_ns) / 1e9)
