"""Fault table for the sidecar as a network service: each row starts ``gsar sidecar`` in a fresh
process on loopback, sends hostile traffic, and reports the answers, the counts on ``/metrics``,
the sidecar's peak RSS (``VmHWM``) and ``/healthz`` latency while it lasts.

Rows:

- ``framing``: 2,000 requests with malformed HTTP/1.1 framing (negative chunk size, a 17 KB
  chunk-size line, ``Content-Length: ²``, ``Transfer-Encoding: xchunked``, two Content-Lengths);
- ``unauthenticated``: 40 concurrent 19 MB POSTs with a wrong token;
- ``slowloris``: 600 connections sending one header line every 2 s for 25 s, ``/healthz`` and a
  POST with the token probed every 0.25 s;
- ``gzip``: 80 concurrent 80 KB gzip bodies that each inflate to 80 MB (6.4 MB sent);
- ``grpc``: at ``--max-body-bytes 1048576``, a 50 MB plain and a 79 MB gzip gRPC message;
- ``grpc_unauthenticated``: 40 concurrent 19 MB gRPC messages with a wrong token, then a call
  with the token;
- ``judge``: 20 concurrent ``/v1/judge`` requests of 2,000 evidence items each, and one
  ordinary agent run sent a second later (time until it is judged);
- ``forward``: ``--forward`` to an endpoint that never answers, 200 requests of 1 MB.

Run::

    python benchmarks/reliability_network.py            # every row, a markdown table
    python benchmarks/reliability_network.py framing gzip
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Sidecar:
    """``gsar sidecar`` in a subprocess."""

    def __init__(self, *flags: str, grpc: bool = False) -> None:
        self.port = free_port()
        self.grpc_port = free_port() if grpc else 0
        env = {**os.environ, "GSAR_SIDECAR_TOKEN": TOKEN, "GSAR_JUDGE": "staged"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gsar_otel.cli.main", "sidecar", "--http-port",
             str(self.port), "--grpc-port", str(self.grpc_port), *flags],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        self.stderr = b""
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                self.get("/healthz")
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the sidecar did not start")

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def get(self, path: str, timeout: float = 10) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}",
                                        timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def post(self, body: bytes, token: str | None = TOKEN, path: str = "/v1/traces",
             headers: dict[str, str] | None = None, timeout: float = 60) -> int:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=body,
                                         headers=all_headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)
        except OSError:
            return 0

    def counts(self) -> dict[str, int]:
        text = self.get("/metrics")[1].decode()
        out: dict[str, int] = {}
        for name, reason, value in re.findall(
                r'^gsar_sidecar_(\w+)_total\{gsar_sidecar_reason="([^"]+)"\} (\d+)$', text, re.M):
            out[f"{name}{{{reason}}}"] = int(value)
        return out

    def peak_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]

    def children_peak_mb(self) -> float:
        """The sum of the peaks (``VmHWM``) of the sidecar's child processes alive now (the
        large-body decoding process): at least their combined peak."""
        total = 0.0
        for children in Path(f"/proc/{self.process.pid}/task").glob("*/children"):
            for pid in children.read_text().split():
                with contextlib.suppress(OSError, AttributeError):
                    status = Path(f"/proc/{pid}/status").read_text()
                    total += int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
        return total

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def probe_health(sidecar: Sidecar, stop: threading.Event, out: list[tuple[int, float]]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        try:
            status = sidecar.get("/healthz", timeout=30)[0]
        except OSError:
            status = 0
        out.append((status, time.perf_counter() - start))
        stop.wait(0.25)


def during(sidecar: Sidecar, work: Callable[[], Any]) -> dict[str, Any]:
    """Run ``work`` while probing ``/healthz``; the probes' statuses and latency quantiles."""
    stop, probes = threading.Event(), []  # type: ignore[var-annotated]
    prober = threading.Thread(target=probe_health, args=(sidecar, stop, probes), daemon=True)
    prober.start()
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    stop.set()
    prober.join(60)
    latencies = sorted(t for _, t in probes)
    statuses: dict[int, int] = {}
    for status, _ in probes:
        statuses[status] = statuses.get(status, 0) + 1
    middle = latencies[len(latencies) // 2] if latencies else None
    return {"result": result, "seconds": round(seconds, 2), "healthz": statuses,
            "healthz_p50_ms": round(1000 * middle, 1) if middle is not None else None,
            "healthz_max_ms": round(1000 * latencies[-1], 1) if latencies else None}


def raw(port: int, data: bytes) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        answer = sock.recv(64)
    return int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else 0


HEAD = (b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + TOKEN.encode() + b"\r\n")
MALFORMED = [HEAD + b"Transfer-Encoding: chunked\r\n\r\n-5\r\nabcde\r\n0\r\n\r\n",
             HEAD + b"Transfer-Encoding: chunked\r\n\r\n0" + b"a" * 17_000 + b"\r\n\r\n",
             HEAD + "Content-Length: ²\r\n\r\n{}".encode(),
             HEAD + b"Transfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
             HEAD + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} "]


def row_framing() -> dict[str, Any]:
    sidecar = Sidecar()
    try:
        started = time.perf_counter()
        answers: dict[int, int] = {}
        for n in range(2_000):
            status = raw(sidecar.port, MALFORMED[n % len(MALFORMED)])
            answers[status] = answers.get(status, 0) + 1
        seconds = time.perf_counter() - started
        time.sleep(0.5)
        return {"answers": answers, "seconds": round(seconds, 2),
                "counted": sidecar.counts().get("spans{rejected_framing}"),
                "log_kb": round(len(sidecar.stderr) / 1024, 1),
                "log_lines": sidecar.stderr.count(b"\n"),
                "tracebacks": sidecar.stderr.count(b"Traceback")}
    finally:
        sidecar.stop()


def row_unauthenticated() -> dict[str, Any]:
    sidecar = Sidecar()
    try:
        before = sidecar.rss_mb()
        body = b" " * (19 * 1024 * 1024)
        with concurrent.futures.ThreadPoolExecutor(40) as pool:
            result = during(sidecar, lambda: sorted(pool.map(
                lambda _: sidecar.post(body, token="wrong"), range(40))))
        return {**result, "result": {s: result["result"].count(s) for s in set(result["result"])},
                "rss_before_mb": round(before, 1), "peak_mb": round(sidecar.peak_mb(), 1),
                "counted": sidecar.counts().get("spans{rejected_auth}")}
    finally:
        sidecar.stop()


def row_slowloris() -> dict[str, Any]:
    sidecar = Sidecar()
    stop = threading.Event()

    def attacker() -> None:
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", sidecar.port), timeout=30) as sock:
                    sock.sendall(b"POST /v1/traces HTTP/1.1\r\n")
                    while not stop.wait(2):
                        sock.sendall(b"X-Slow: 1\r\n")
            except OSError:
                stop.wait(0.1)

    threads = [threading.Thread(target=attacker, daemon=True) for _ in range(600)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(3)
        good: list[int] = []

        def posts() -> None:
            end = time.monotonic() + 25
            while time.monotonic() < end:
                good.append(sidecar.post(b"{}"))
                time.sleep(0.25)

        result = during(sidecar, posts)
        return {**result, "posts_with_token": {s: good.count(s) for s in set(good)},
                "slow_counted": sidecar.counts().get("spans{rejected_slow_head}"),
                "refused_counted": sidecar.counts().get("spans{rejected_connections}")}
    finally:
        stop.set()
        sidecar.stop()


def row_gzip() -> dict[str, Any]:
    sidecar = Sidecar()
    try:
        bomb = gzip.compress(b" " * (80 * 1024 * 1024))
        with concurrent.futures.ThreadPoolExecutor(80) as pool:
            result = during(sidecar, lambda: sorted(pool.map(lambda _: sidecar.post(
                bomb, headers={"Content-Encoding": "gzip"}), range(80))))
        counts = sidecar.counts()
        return {**result, "result": {s: result["result"].count(s) for s in set(result["result"])},
                "sent_mb": round(80 * len(bomb) / 2**20, 1), "peak_mb": round(sidecar.peak_mb(), 1),
                "counted": {k: v for k, v in counts.items() if "rejected" in k}}
    finally:
        sidecar.stop()


def row_grpc() -> dict[str, Any]:
    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    sidecar = Sidecar("--max-body-bytes", "1048576", grpc=True)
    out: dict[str, Any] = {}
    try:
        with grpc.insecure_channel(f"127.0.0.1:{sidecar.grpc_port}", options=[
                ("grpc.max_send_message_length", 200 * 2**20)]) as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            for name, size, compression in (("plain_50mb", 50, None),
                                            ("gzip_79mb", 79, grpc.Compression.Gzip)):
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.resource_spans.add().scope_spans.add().spans.add(
                    trace_id=b"\1" * 16, span_id=b"\1" * 8, name="x" * (size * 2**20))
                try:
                    stub.Export(request, timeout=60, compression=compression,
                                metadata=(("authorization", f"Bearer {TOKEN}"),))
                    out[name] = "OK"
                except grpc.RpcError as error:
                    out[name] = error.code().name
        out["counted"] = sidecar.counts().get("spans{rejected_too_large}")
        out["peak_mb"] = round(sidecar.peak_mb(), 1)
        return out
    finally:
        sidecar.stop()


def row_grpc_unauthenticated() -> dict[str, Any]:
    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    sidecar = Sidecar(grpc=True)
    try:
        before = sidecar.rss_mb()
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.resource_spans.add().scope_spans.add().spans.add(
            trace_id=b"\1" * 16, span_id=b"\1" * 8, name="x" * (19 * 2**20))
        codes: list[str] = []
        with grpc.insecure_channel(f"127.0.0.1:{sidecar.grpc_port}", options=[
                ("grpc.max_send_message_length", 200 * 2**20)]) as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)

            def call(_: int) -> str:
                try:
                    stub.Export(request, timeout=60, metadata=(("authorization", "Bearer no"),))
                    return "OK"
                except grpc.RpcError as error:
                    return str(error.code().name)

            with concurrent.futures.ThreadPoolExecutor(40) as pool:
                codes = list(pool.map(call, range(40)))
            good = trace_service_pb2.ExportTraceServiceRequest()
            good.resource_spans.add().scope_spans.add().spans.add(
                trace_id=b"\2" * 16, span_id=b"\2" * 8, name="step")
            stub.Export(good, timeout=30, metadata=(("authorization", f"Bearer {TOKEN}"),))
        return {"codes": {c: codes.count(c) for c in set(codes)}, "token_call": "OK",
                "rss_before_mb": round(before, 1), "peak_mb": round(sidecar.peak_mb(), 1),
                "counted": sidecar.counts().get("spans{rejected_auth}")}
    finally:
        sidecar.stop()


def agent_run() -> bytes:
    """One OTLP/JSON agent run (GenAI conventions): a tool span and its agent span."""
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    final = json.dumps([{"role": "assistant", "parts": [
        {"type": "text", "content": "CPU on db-prod-1 reached 97.2% at 14:02."}]}])
    trace, now = os.urandom(16).hex(), str(time.time_ns())
    spans = [{"traceId": trace, "spanId": "eee19b7ec3c1b175", "parentSpanId": "eee19b7ec3c1b174",
              "name": "execute_tool get_metrics", "startTimeUnixNano": now,
              "endTimeUnixNano": now, "attributes": [
                  kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "m"),
                  kv("gen_ai.tool.call.result", "host=db-prod-1 cpu_pct=97.2 at=14:02:01")]},
             {"traceId": trace, "spanId": "eee19b7ec3c1b174", "name": "invoke_agent bot",
              "startTimeUnixNano": now, "endTimeUnixNano": now, "attributes": [
                  kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
                  kv("gen_ai.output.messages", final)]}]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def row_judge() -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "0.1")
    try:
        evidence = [f"host=db-{n} cpu_pct={n % 100}.5 at=14:{n % 60:02d}:01" for n in range(2_000)]
        body = json.dumps({"answer": "CPU on db-7 reached 7.5% at 14:07.",
                           "evidence": evidence}).encode()

        def flood_and_one_run() -> tuple[list[int], float]:
            with concurrent.futures.ThreadPoolExecutor(20) as pool:
                answers = pool.map(lambda _: sidecar.post(body, path="/v1/judge", timeout=300),
                                   range(20))
                time.sleep(1)
                started = time.perf_counter()
                sidecar.post(agent_run())
                while not any(k.startswith("runs{") for k in sidecar.counts()) and not re.search(
                        r'gsar_sidecar_runs_total\{gsar_sidecar_outcome="judged"',
                        sidecar.get("/metrics")[1].decode()):
                    time.sleep(0.05)
                run_s = time.perf_counter() - started
                return sorted(answers), run_s

        result = during(sidecar, flood_and_one_run)
        answers, run_s = result.pop("result")
        return {**result, "result": {s: answers.count(s) for s in set(answers)},
                "run_judged_after_s": round(run_s, 2),
                "counted": sidecar.counts().get("spans{rejected_judge_busy}")}
    finally:
        sidecar.stop()


def row_forward() -> dict[str, Any]:
    hole = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    threading.Thread(target=lambda: [held.append(hole.accept()[0]) for _ in iter(int, 1)],
                     daemon=True).start()
    sidecar = Sidecar("--forward", f"http://127.0.0.1:{hole.getsockname()[1]}/v1/traces",
                      "--forward-max-bytes", str(64 * 2**20))
    try:
        body = b'{"resourceSpans": []}' + b" " * (2**20)
        result = during(sidecar, lambda: [sidecar.post(body) for _ in range(200)])
        return {**result, "result": {s: result["result"].count(s) for s in set(result["result"])},
                "peak_mb": round(sidecar.peak_mb(), 1),
                "counted": {k: v for k, v in sidecar.counts().items() if "forward" in k}}
    finally:
        sidecar.stop()
        hole.close()


ROWS = {"framing": row_framing, "unauthenticated": row_unauthenticated,
        "slowloris": row_slowloris, "gzip": row_gzip, "grpc": row_grpc,
        "grpc_unauthenticated": row_grpc_unauthenticated, "judge": row_judge,
        "forward": row_forward}


def main() -> None:
    names = sys.argv[1:] or list(ROWS)
    print("| row | result |\n|---|---|")
    for name in names:
        print(f"| {name} | {json.dumps(ROWS[name]())} |", flush=True)


if __name__ == "__main__":
    main()
