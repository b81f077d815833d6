"""A ``gsar sidecar`` inside the dashboard workload, fed agent runs over OTLP/HTTP each cycle.

It shares the workload's providers, so the ``gsar.sidecar.*`` series (and the ``gsar.*`` ones of
the runs it judges, under ``SIDECAR_AGENT``) are scraped with the rest. Each cycle posts four
agent runs in GenAI-semconv shape (OTLP/JSON), a span of an already judged run (``late``), a
malformed body (``rejected_malformed``) and, in the first cycle, more traces than
``MAX_TRACES`` (``evicted``); :meth:`SidecarLoad.post_unanswered` posts a run with no answer
(``skipped``: a ``gsar.sidecar.skipped`` span). Its judge is slow and judges one run at a
time, so the queue stays full once the load runs: the queue depth is never zero at a scrape,
and the receiver answers 429 (``rejected_busy``), as under real backpressure.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections import deque
from typing import Any

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from gsar_otel.core.protocol import Judge
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from gsar_otel.sidecar.server import Sidecar, SidecarConfig

SIDECAR_AGENT = "sidecar_incident_bot"
"""The agent name the sidecar's evaluations are reported under (``gsar.function``)."""
MAX_TRACES = 8
QUEUE_SIZE = 6
TOOL_RESULT = "host=web-3 cpu_pct=97.2 at=14:02"
ANSWERS = ("CPU on web-3 reached 97.2% at 14:02.",
           "CPU on web-3 reached 97.2% at 14:02. The spike was caused by a config push.")


def _kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(trace_id: str, span_id: str, parent: str, name: str,
          attributes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
            "kind": 1, "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            "attributes": attributes}


def _body(spans: list[dict[str, Any]]) -> bytes:
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [_kv("service.name", "dashboard-agent")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}).encode()


def _run(trace_id: str, answer: str | None) -> list[dict[str, Any]]:
    """An agent run with one tool result; ``answer`` None records no answer (skipped)."""
    root, tool = trace_id[:16], trace_id[16:]
    agent = [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", SIDECAR_AGENT)]
    if answer is not None:
        final = json.dumps([{"role": "assistant", "finish_reason": "stop",
                             "parts": [{"type": "text", "content": answer}]}])
        agent.append(_kv("gen_ai.output.messages", final))
    return [_span(trace_id, tool, root, "execute_tool get_metrics", [
                _kv("gen_ai.operation.name", "execute_tool"),
                _kv("gen_ai.tool.name", "get_metrics"),
                _kv("gen_ai.tool.call.result", TOOL_RESULT)]),
            _span(trace_id, root, "", f"invoke_agent {SIDECAR_AGENT}", agent)]


class SidecarLoad:
    """A sidecar on an event loop of its own, and the agent traffic it receives."""

    def __init__(self, judge: Judge, *, tracer_provider: TracerProvider,
                 meter_provider: MeterProvider) -> None:
        config = SidecarConfig(
            http_port=0, grpc_port=0, queue_size=QUEUE_SIZE, concurrency=1, tick_s=0.05,
            shutdown_grace_s=1.0,
            limits=AssemblyLimits(decision_wait_s=0.1, max_age_s=2.0, max_traces=MAX_TRACES))
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.sidecar = Sidecar(config, tracer_provider=tracer_provider,
                               meter_provider=meter_provider, judge=judge)
        asyncio.run_coroutine_threadsafe(self.sidecar.start(), self.loop).result(30)
        self._url = f"http://127.0.0.1:{self.sidecar.http_port}/v1/traces"
        self._judged: deque[str] = deque(maxlen=8)
        self._next = 0

    def _post(self, body: bytes) -> int:
        request = urllib.request.Request(self._url, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:  # 429 under backpressure, 400 malformed
            return int(error.code)

    def _trace_id(self) -> str:
        self._next += 1
        return f"{self._next + (1 << 60):016x}{self._next + (2 << 60):016x}"

    def cycle(self, cycle: int) -> None:
        """One round of agent traffic."""
        if cycle == 0:  # more traces than the sidecar holds: the oldest are evicted
            orphans = [_span(self._trace_id(), "00000000000000aa", "00000000000000bb",
                             "execute_tool get_metrics", [])
                       for _ in range(MAX_TRACES + 4)]
            self._post(_body(orphans))
        for index in range(4):
            trace_id = self._trace_id()
            if self._post(_body(_run(trace_id, ANSWERS[index % 2]))) == 200:
                self._judged.append(trace_id)
        if len(self._judged) > 4:  # a span of a run released a while ago
            late = self._judged[0]
            self._post(_body([_span(late, "00000000000000cc", late[:16],
                                    "execute_tool get_logs", [])]))
        self._post(b"{not json")

    def post_late(self, trace_id: str) -> int:
        """Post a span of the run of ``trace_id`` (judged already: a late span)."""
        return self._post(_body([_span(trace_id, "00000000000000dd", trace_id[:16],
                                       "execute_tool get_logs", [])]))

    def post_unanswered(self) -> int:
        """Post a run that records no answer: the sidecar skips it (``no_answer``), at the
        latest when it stops."""
        return self._post(_body(_run(self._trace_id(), None)))

    def stop(self) -> None:
        """Judge or count what is held, then stop the loop (once; later calls do nothing)."""
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self.sidecar.stop(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
