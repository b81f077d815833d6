"""Which runs the sidecar judges, and with what evidence, under hostile or odd traffic: each row
starts ``gsar sidecar`` in a fresh process on loopback (``reliability_network.Sidecar``) and
reports answers, counts from ``/metrics``, decisions read off the grounding spans (sent to a
``--forward`` endpoint of this script's own) and peak RSS (``VmHWM``).

Rows:

- ``inflight``: 40 concurrent 19 MB exports (OTLP/protobuf, with the token) over HTTP, then over
  gRPC, each to a fresh sidecar with default limits: the answers and the peak RSS;
- ``junk_roots``: 53 real runs (a tool span and its agent span each) sent one every 0.1 s while
  junk traces of 20 KB flood in (2,000 a second), once as root spans, once as spans whose parent
  never comes, ``--max-held-bytes 8 MiB``: the real runs judged and the counts;
- ``over_cap``: one trace of a request span and 65 agent runs; the first answers "12.5%" against
  its own row of 97.2, the 65th's tool row says 12.5: the first run's decision and S;
- ``phantom``: a run judged, then a tool span and a chat span of it whose start is 2 s after the
  run's end (a remote clock ahead): runs judged and spans late;
- ``forged``: a client-sent ``gsar.evaluate`` span with ``gsar.source=sidecar`` and ``proceed``
  beside a real run: how it is counted and whether the forwarded copy tells it apart;
- ``duplicate``: one run whose tool span id arrives twice, the false row (12.5) and the true one
  (97.2), for an answer of 12.5, in both orders: the decisions.

Run::

    python benchmarks/reliability_sidecar_runs.py            # every row, a markdown table
    python benchmarks/reliability_sidecar_runs.py over_cap phantom
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reliability_network import TOKEN, Sidecar

ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
FALSE_ROW = "host=db-prod-1 cpu_pct=12.5 at=14:02:01"
TRUE_ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02."
FALSE_ANSWER = "CPU on db-prod-1 reached 12.5% at 14:02."


class Capture:
    """An OTLP/HTTP endpoint that keeps what it is sent (``--forward``)."""

    def __init__(self) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.bodies.append((self.headers.get("Content-Type", ""), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"

    def spans(self) -> list[dict[str, Any]]:
        """Every span received, as ``{name, span_id, parent, attributes}``."""
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        out = []
        for content_type, body in list(self.bodies):
            if "json" in content_type:
                payload = json.loads(body)
            else:
                payload = json_format.MessageToDict(ExportTraceServiceRequest.FromString(body))
            for resource in payload.get("resourceSpans", []):
                for scope in resource.get("scopeSpans", []):
                    for span in scope.get("spans", []):
                        attributes = {a["key"]: next(iter(a["value"].values()), None)
                                      for a in span.get("attributes", [])}
                        parent = span.get("parentSpanId", "")
                        if parent and "json" not in content_type:  # bytes are base64 there
                            parent = base64.b64decode(parent).hex()
                        out.append({"name": span.get("name", ""), "attributes": attributes,
                                    "parent": parent})
        return out

    def decisions(self) -> list[tuple[str, float]]:
        return [(s["attributes"].get("gsar.decision"), s["attributes"].get("gsar.score"))
                for s in self.spans() if s["name"].startswith("gsar.evaluate")
                and "gsar.forged" not in s["attributes"]
                and s["attributes"].get("gsar.function") != "forger"]

    def close(self) -> None:
        self.server.shutdown()


def kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": value}}


def span(trace: str, span_id: int, parent: int, name: str, start: int, end: int,
         **attributes: Any) -> dict[str, Any]:
    return {"traceId": trace, "spanId": f"{span_id:016x}",
            "parentSpanId": f"{parent:016x}" if parent else "", "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": [kv(k.replace("__", "."), v) for k, v in attributes.items()]}


def body(*spans: dict[str, Any]) -> bytes:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}).encode()


def run(trace: str, span_id: int, parent: int, start: int, answer: str, row: str,
        call: str = "call_1") -> list[dict[str, Any]]:
    """A tool span and its agent span (GenAI conventions), the tool span first."""
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                         "finish_reason": "stop"}])
    return [span(trace, span_id + 1, span_id, "execute_tool get_metrics", start + 1, start + 2,
                 gen_ai__operation__name="execute_tool", gen_ai__tool__name="get_metrics",
                 gen_ai__tool__call__id=call, gen_ai__tool__call__result=row),
            span(trace, span_id, parent, "invoke_agent bot", start, start + 30,
                 gen_ai__operation__name="invoke_agent", gen_ai__agent__name="bot",
                 gen_ai__output__messages=final)]


def wait(predicate: Any, bound_s: float = 60.0) -> bool:
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def runs(sidecar: Sidecar) -> dict[str, int]:
    text = sidecar.get("/metrics")[1].decode()
    out: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("gsar_sidecar_runs_total{"):
            labels, value = line.rsplit(" ", 1)
            outcome = labels.split('outcome="')[1].split('"')[0]
            reason = labels.split('reason="')[1].split('"')[0]
            out[f"runs_{outcome}{{{reason}}}"] = int(value)
    return out


# --- rows -----------------------------------------------------------------------------------------


def row_inflight() -> dict[str, Any]:
    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    request = trace_service_pb2.ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.add(
        trace_id=b"\1" * 16, span_id=b"\1" * 8, parent_span_id=b"\2" * 8,
        name="x" * (19 * 2**20))
    raw = request.SerializeToString()
    out: dict[str, Any] = {}
    for transport in ("http", "grpc"):
        sidecar = Sidecar(grpc=transport == "grpc")
        try:
            if transport == "http":
                def call(_: int, sidecar: Sidecar = sidecar) -> str:
                    return str(sidecar.post(raw, headers={
                        "Content-Type": "application/x-protobuf"}, timeout=120))
            else:
                channel = grpc.insecure_channel(f"127.0.0.1:{sidecar.grpc_port}", options=[
                    ("grpc.max_send_message_length", 200 * 2**20)])
                stub = trace_service_pb2_grpc.TraceServiceStub(channel)

                def call(_: int, stub: Any = stub) -> str:
                    try:
                        stub.Export(request, timeout=120,
                                    metadata=(("authorization", f"Bearer {TOKEN}"),))
                        return "OK"
                    except grpc.RpcError as error:
                        return str(error.code().name)

            with concurrent.futures.ThreadPoolExecutor(40) as pool:
                codes = list(pool.map(call, range(40)))
            counts = sidecar.counts()
            out[transport] = {"answers": {c: codes.count(c) for c in sorted(set(codes))},
                              "peak_mb": round(sidecar.peak_mb(), 1),
                              "rejected_over_budget": counts.get("spans{rejected_over_budget}",
                                                                 0)}
            if transport == "grpc":
                channel.close()
        finally:
            sidecar.stop()
    return out


def row_junk_roots() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for rooted in (True, False):
        sidecar = Sidecar("--max-held-bytes", str(8 * 2**20), "--decision-wait", "0.5",
                          "--max-trace-age", "20", "--queue-size", "100")
        try:
            stop = threading.Event()

            def flood(seed: int, rooted: bool = rooted, stop: threading.Event = stop,
                      sidecar: Sidecar = sidecar) -> int:
                sent = 0
                while not stop.is_set():
                    now = time.time_ns()
                    junk = [span(os.urandom(16).hex(), 7, 0 if rooted else 9, "junk", now,
                                 now + 1, payload="j" * 20_000) for _ in range(100)]
                    sidecar.post(body(*junk))
                    sent += 100
                return sent

            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                floods = [pool.submit(flood, n) for n in range(2)]
                for _n in range(53):
                    now = time.time_ns()
                    sidecar.post(body(*run(os.urandom(16).hex(), 0x10, 0, now, TRUE_ANSWER,
                                           ROW)))
                    time.sleep(0.1)
                time.sleep(1)
                stop.set()
                junk_sent = sum(f.result() for f in floods)
            wait(lambda sidecar=sidecar: sum(v for k, v in runs(sidecar).items()
                             if k.startswith("runs_judged")) >= 53, 20)
            counted = runs(sidecar)
            out["rooted" if rooted else "unrooted"] = {
                "real_judged": sum(v for k, v in counted.items() if k.startswith("runs_judged")),
                "junk_sent": junk_sent,
                "runs": {k: v for k, v in counted.items() if not k.startswith("runs_judged")},
                "traces_evicted": {k: v for k, v in sidecar.counts().items()
                                   if k.startswith("traces_evicted")}}
        finally:
            sidecar.stop()
    return out


def row_over_cap() -> dict[str, Any]:
    capture = Capture()
    sidecar = Sidecar("--decision-wait", "0.2", "--forward", capture.url)
    try:
        trace = os.urandom(16).hex()
        spans = [span(trace, 1, 0, "POST /batch", 0, 10_000_000)]
        for n in range(65):
            answer, row = TRUE_ANSWER, ROW
            if n == 0:
                answer = FALSE_ANSWER  # against its own row of 97.2
            if n == 64:
                row = FALSE_ROW
            spans += run(trace, 0x100 + 0x10 * n, 1, 100 + 1_000 * n, answer, row,
                         call=f"call_{n}")
        sidecar.post(body(*spans))
        wait(lambda: len(capture.decisions()) >= 64, 60)
        time.sleep(0.5)
        first = [(s["attributes"].get("gsar.decision"), s["attributes"].get("gsar.score"))
                 for s in capture.spans() if s["name"].startswith("gsar.evaluate")
                 and s["parent"] == f"{0x100:016x}"]
        alone = os.urandom(16).hex()
        sidecar.post(body(*run(alone, 0x100, 0, 100, FALSE_ANSWER, ROW)))
        wait(lambda: len(capture.decisions()) >= 65, 30)
        counts = sidecar.counts()
        return {"first_run": first, "alone": capture.decisions()[-1],
                "verdicts": len(capture.decisions()),
                "counts": {k: v for k, v in {**counts, **runs(sidecar)}.items()
                           if "cap" in k or "withheld" in k or "dropped" in k}}
    finally:
        sidecar.stop()
        capture.close()


def row_phantom() -> dict[str, Any]:
    capture = Capture()
    sidecar = Sidecar("--decision-wait", "0.3", "--max-trace-age", "2", "--forward",
                      capture.url)
    try:
        trace, now = os.urandom(16).hex(), time.time_ns()
        sidecar.post(body(*run(trace, 0x10, 0, now, TRUE_ANSWER, ROW)))
        wait(lambda: len(capture.decisions()) >= 1)
        ahead = now + 30 + 2_000_000_000  # 2 s after the run's end: a remote clock ahead
        final = json.dumps([{"role": "assistant", "parts": [
            {"type": "text", "content": FALSE_ANSWER}], "finish_reason": "stop"}])
        sidecar.post(body(
            span(trace, 0x21, 0x10, "execute_tool get_metrics", ahead, ahead + 1,
                 gen_ai__operation__name="execute_tool", gen_ai__tool__call__result=FALSE_ROW),
            span(trace, 0x22, 0x10, "chat gpt-4o", ahead + 2, ahead + 3,
                 gen_ai__operation__name="chat", gen_ai__output__messages=final)))
        time.sleep(4)
        return {"verdicts": len(capture.decisions()), "runs": runs(sidecar),
                "late": sidecar.counts().get("spans{late}", 0),
                "late_flags": sidecar.counts().get("late_flags{flagged}", 0)}
    finally:
        sidecar.stop()
        capture.close()


def row_forged() -> dict[str, Any]:
    capture = Capture()
    sidecar = Sidecar("--decision-wait", "0.3", "--forward", capture.url)
    try:
        trace, now = os.urandom(16).hex(), time.time_ns()
        forged = span(trace, 0x99, 0x10, "gsar.evaluate bot", now, now + 1,
                      gsar__source="sidecar", gsar__decision="proceed", gsar__score=1.0,
                      gsar__function="forger")
        sidecar.post(body(*run(trace, 0x10, 0, now, FALSE_ANSWER, ROW), forged))
        wait(lambda: len(capture.decisions()) >= 1)
        time.sleep(0.5)
        evaluations = [s for s in capture.spans() if s["name"].startswith("gsar.evaluate")]
        counts = sidecar.counts()
        return {"evaluate_spans_forwarded": len(evaluations),
                "marked_forged": sum("gsar.forged" in s["attributes"] for s in evaluations),
                "real": capture.decisions(),
                "counted": {k: v for k, v in counts.items() if k in (
                    "spans{own}", "spans{forged}")}}
    finally:
        sidecar.stop()
        capture.close()


def row_duplicate() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for order in ("false_first", "true_first"):
        capture = Capture()
        sidecar = Sidecar("--decision-wait", "0.3", "--forward", capture.url)
        try:
            trace, now = os.urandom(16).hex(), time.time_ns()
            true_tool, agent = run(trace, 0x10, 0, now, FALSE_ANSWER, ROW)
            false_tool = json.loads(json.dumps(true_tool))
            for attribute in false_tool["attributes"]:
                if attribute["key"] == "gen_ai.tool.call.result":
                    attribute["value"] = {"stringValue": FALSE_ROW}
            copies = [false_tool, true_tool] if order == "false_first" else [true_tool,
                                                                            false_tool]
            for copy in copies:
                sidecar.post(body(copy))
            sidecar.post(body(agent))
            wait(lambda capture=capture: len(capture.decisions()) >= 1)
            counts = sidecar.counts()
            out[order] = {"decision": capture.decisions(),
                          "counted": {k: v for k, v in counts.items() if "duplicate" in k}}
        finally:
            sidecar.stop()
            capture.close()
    return out


ROWS = {"inflight": row_inflight, "junk_roots": row_junk_roots, "over_cap": row_over_cap,
        "phantom": row_phantom, "forged": row_forged, "duplicate": row_duplicate}


def main() -> None:
    names = sys.argv[1:] or list(ROWS)
    print("| row | result |\n|---|---|")
    for name in names:
        print(f"| {name} | {json.dumps(ROWS[name]())} |", flush=True)


if __name__ == "__main__":
    main()
