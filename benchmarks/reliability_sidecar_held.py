"""Fault table for what the sidecar holds: assembly time of hostile trace shapes and the byte
accounting of ``--max-held-bytes``. Each row starts ``gsar sidecar`` in a fresh process on
loopback (``benchmarks/reliability_network.py``'s harness), sends a bounded number of requests
and reports the answers, ``/healthz`` latency while they last (probed every 0.25 s from a
thread of this process), the held bytes the sidecar reports and its RSS.

Rows:

- ``agent_chain``: one OTLP/protobuf body (about 200 KB) holding a request root, 64 sibling
  agent spans under it and a chain of 1,500 agent spans (each the child of the one before);
  ``agent_chain_85k``: the same with a chain of 640 (about 85 KB);
- ``plain_chain``: the 200 KB shape with plain spans (no agent span);
- ``rootless``: a chain of 5,000 plain spans whose top's parent never comes, released at the
  hard cap (``--max-trace-age 2``);
- ``empty_values``: ``--max-held-bytes`` 64 MiB, 12 requests of 18 MB, each one span holding
  an array of 9 million empty AnyValues (2 bytes each on the wire);
- ``resources``: ``--max-held-bytes`` 16 MiB, 12 requests of about 15 MB, each 1,000
  resources of about 15 KB (each distinct: 1,400 attributes with empty values) with one span.

Run::

    python benchmarks/reliability_sidecar_held.py             # every row, a markdown table
    python benchmarks/reliability_sidecar_held.py agent_chain rootless
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from benchmarks.reliability_network import Sidecar

MiB = 1024 * 1024
PROTOBUF = {"Content-Type": "application/x-protobuf"}
AGENT = [common_pb2.KeyValue(key="gen_ai.operation.name",
                             value=common_pb2.AnyValue(string_value="invoke_agent"))]


def _span(trace: int, span: int, parent: int, name: str, agent: bool,
          start: int = 1_000, end: int = 2_000) -> trace_pb2.Span:
    return trace_pb2.Span(
        trace_id=trace.to_bytes(16, "big"), span_id=span.to_bytes(8, "big"),
        parent_span_id=parent.to_bytes(8, "big") if parent else b"", name=name,
        start_time_unix_nano=start, end_time_unix_nano=end, attributes=AGENT if agent else [])


def chain_body(chain: int, *, agent: bool = True, siblings: int = 64) -> bytes:
    """A request root, ``siblings`` spans under it, then a chain of ``chain`` spans under it
    (top first, each the child of the one before)."""
    request = trace_service_pb2.ExportTraceServiceRequest()
    out = request.resource_spans.add().scope_spans.add().spans
    out.append(_span(1, 1, 0, "GET /ask", False, 0, 10_000))
    for n in range(siblings):
        out.append(_span(1, 100 + n, 1, f"invoke_agent sibling-{n}", agent))
    parent = 1
    for n in range(chain):
        out.append(_span(1, 10_000 + n, parent, f"invoke_agent step-{n}", agent))
        parent = 10_000 + n
    return request.SerializeToString()


def rootless_body(chain: int = 5_000) -> bytes:
    request = trace_service_pb2.ExportTraceServiceRequest()
    out = request.resource_spans.add().scope_spans.add().spans
    parent = 0xFFFF  # never sent
    for n in range(chain):
        out.append(_span(2, 10_000 + n, parent, "step", False))
        parent = 10_000 + n
    return request.SerializeToString()


def during(sidecar: Sidecar, work: Callable[[], Any]) -> dict[str, Any]:
    """Run ``work`` while probing ``/healthz`` every 0.25 s (each probe waits up to 600 s, so a
    long stall is measured, not cut off): the probes' statuses and their longest latency."""
    stop = threading.Event()
    probes: list[tuple[int, float]] = []

    def probe() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                status = sidecar.get("/healthz", timeout=600)[0]
            except OSError:
                status = 0
            probes.append((status, time.perf_counter() - start))
            stop.wait(0.25)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    stop.set()
    prober.join(600)
    statuses = [status for status, _ in probes]
    return {"result": result, "seconds": round(seconds, 2),
            "healthz": {s: statuses.count(s) for s in set(statuses)},
            "healthz_max_ms": round(1000 * max(t for _, t in probes), 1) if probes else None}


def held_bytes(sidecar: Sidecar) -> int:
    found = re.search(r"^gsar_sidecar_held_bytes (\d+)$",
                      sidecar.get("/metrics")[1].decode(), re.M)
    return int(found.group(1)) if found else -1


def _post_and_probe(sidecar: Sidecar, body: bytes) -> dict[str, Any]:
    result = during(sidecar, lambda: sidecar.post(body, headers=PROTOBUF, timeout=600))
    return {"body_kb": round(len(body) / 1000, 1), "status": result["result"],
            "post_s": result["seconds"], "healthz": result["healthz"],
            "healthz_max_ms": result["healthz_max_ms"]}


def row_agent_chain(chain: int = 1_500) -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "60", "--max-trace-age", "120")
    try:
        return _post_and_probe(sidecar, chain_body(chain))
    finally:
        sidecar.stop()


def row_plain_chain() -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "60", "--max-trace-age", "120")
    try:
        return _post_and_probe(sidecar, chain_body(1_500, agent=False))
    finally:
        sidecar.stop()


def row_rootless() -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "1", "--max-trace-age", "2")
    try:
        body = rootless_body()

        def send_and_wait_release() -> int:
            status = sidecar.post(body, headers=PROTOBUF, timeout=600)
            end = time.monotonic() + 600
            while time.monotonic() < end and json.loads(sidecar.get(
                    "/healthz", timeout=600)[1])["traces_buffered"]:
                time.sleep(0.1)
            return status

        result = during(sidecar, send_and_wait_release)
        return {"body_kb": round(len(body) / 1000, 1), "status": result["result"],
                "until_released_s": result["seconds"], "healthz": result["healthz"],
                "healthz_max_ms": result["healthz_max_ms"]}
    finally:
        sidecar.stop()


def empty_values_body(trace: int, values: int = 9_000_000) -> bytes:
    request = trace_service_pb2.ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=trace.to_bytes(16, "big"), span_id=(1).to_bytes(8, "big"),
        parent_span_id=(2).to_bytes(8, "big"), name="empty")
    array = span.attributes.add(key="payload").value.array_value
    array.values.extend(common_pb2.AnyValue() for _ in range(values))
    return request.SerializeToString()


def resources_body(first_trace: int, resources: int = 1_000, keys: int = 1_400) -> bytes:
    request = trace_service_pb2.ExportTraceServiceRequest()
    for n in range(resources):
        resource_spans = request.resource_spans.add()
        trace = first_trace + n
        attributes = resource_spans.resource.attributes
        attributes.add(key="id", value=common_pb2.AnyValue(int_value=trace))
        attributes.extend(common_pb2.KeyValue(key=f"k{k:04d}") for k in range(keys))
        resource_spans.scope_spans.add().spans.append(_span(trace, 1, 2, "step", False))
    return request.SerializeToString()


def _many(budget: int, bodies: list[bytes]) -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "300", "--max-trace-age", "600",
                      "--max-held-bytes", str(budget), "--max-body-bytes", str(20 * MiB),
                      "--max-inflight-bytes", str(256 * MiB))
    try:
        statuses, held, rss = [], [], []
        for body in bodies:
            statuses.append(sidecar.post(body, headers=PROTOBUF, timeout=600))
            held.append(held_bytes(sidecar))
            rss.append(sidecar.rss_mb())
        counts = {k: v for k, v in sidecar.counts().items() if "evicted" in k}
        return {"requests": len(bodies), "body_mb": round(len(bodies[0]) / 1e6, 1),
                "statuses": {s: statuses.count(s) for s in set(statuses)},
                "held_bytes_max": max(held), "held_bytes_last": held[-1],
                "rss_last_mb": round(rss[-1], 1), "peak_mb": round(sidecar.peak_mb(), 1),
                "budget_mb": round(budget / MiB, 1), "counted": counts}
    finally:
        sidecar.stop()


def row_empty_values() -> dict[str, Any]:
    return _many(64 * MiB, [empty_values_body(1_000 + n) for n in range(12)])


def row_resources() -> dict[str, Any]:
    return _many(16 * MiB, [resources_body(1_000_000 * (n + 1)) for n in range(12)])


ROWS = {"agent_chain": row_agent_chain,
        "agent_chain_85k": lambda: row_agent_chain(640),
        "plain_chain": row_plain_chain, "rootless": row_rootless,
        "empty_values": row_empty_values, "resources": row_resources}


def main() -> None:
    names = sys.argv[1:] or list(ROWS)
    print("| row | result |\n|---|---|")
    for name in names:
        print(f"| {name} | {json.dumps(ROWS[name]())} |", flush=True)


if __name__ == "__main__":
    main()
