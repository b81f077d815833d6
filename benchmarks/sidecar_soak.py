"""Soak: one ``gsar sidecar`` under hostile traffic while a well-behaved agent sends 50 runs/s.

For ``--duration`` seconds (default 300), against one sidecar on loopback, all at once:

- a well-behaved agent: ``--rate`` runs a second (default 50; one request every 0.1 s on
  average from 4 threads, with the token; a 429 is retried after 0.2 s, as OTLP exporters
  retry);
- ``--traces`` concurrent traces (default 10,000) that never settle (no run span), a new wave
  every ``--max-trace-age`` seconds, so about that many are open at any time;
- junk: 0.5 MB/s of traces with no run span;
- ``--slow`` slow connections (default 600) sending one header line every 2 s;
- a stream of 19 MB bodies with a wrong token;
- gzip bombs (80 KB inflating to 80 MB), with the token;
- unrooted 19 MB spans in one trace, with the token.

Reported: the sidecar's peak RSS (``VmHWM``, plus its child processes' peaks) against its budget
(start-up RSS plus ``--max-held-bytes`` plus ``--max-inflight-bytes``, plus a stated constant,
``--constant-mb``),
the well-behaved runs sent and judged,
``/healthz`` and ``/metrics`` latency (p50, p99, max; each probed every 0.25 s from a process of
its own, so the senders' threads do not slow the measuring client), the machine's load average
over the run, what each hostile sender was answered and every count on ``/metrics`` by reason,
so each refused or dropped item can be found there.
Every loop is bounded by the duration and sends to 127.0.0.1 only.

Run::

    python benchmarks/sidecar_soak.py                  # 5 minutes
    python benchmarks/sidecar_soak.py --duration 90 --json
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import multiprocessing
import os
import re
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.reliability_network import Sidecar

MiB = 1024 * 1024
WARM_UP_S = 5.0
"""The first seconds, when the 600 slow connections and the first wave of traces arrive at
once; ``/healthz`` is also reported without them."""
GOOD_SENDERS = 4
"""Threads of the well-behaved agent, each sending every 0.4 s, so a slow answer to one does
not lower the rate."""


def kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def good_runs(count: int) -> tuple[bytes, int]:
    """``count`` complete agent runs (a tool span and its agent span each), one request."""
    final = json.dumps([{"role": "assistant", "parts": [
        {"type": "text", "content": "CPU on db-prod-1 reached 97.2% at 14:02."}]}])
    spans = []
    now = time.time_ns()
    for _ in range(count):
        trace = os.urandom(16).hex()
        spans += [
            {"traceId": trace, "spanId": "eee19b7ec3c1b175", "parentSpanId": "eee19b7ec3c1b174",
             "name": "execute_tool get_metrics", "startTimeUnixNano": str(now + 1),
             "endTimeUnixNano": str(now + 2), "attributes": [
                 kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "m"),
                 kv("gen_ai.tool.call.result", "host=db-prod-1 cpu_pct=97.2 at=14:02:01")]},
            {"traceId": trace, "spanId": "eee19b7ec3c1b174", "name": "invoke_agent bot",
             "startTimeUnixNano": str(now), "endTimeUnixNano": str(now + 3), "attributes": [
                 kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
                 kv("gen_ai.output.messages", final)]}]
    body = {"resourceSpans": [{"resource": {"attributes": [kv("service.name", "good-agent")]},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}
    return json.dumps(body).encode(), count


def fragments(traces: list[str], payload: int) -> bytes:
    """One span per trace whose parent never comes (no run span)."""
    spans = [{"traceId": trace, "spanId": os.urandom(8).hex(), "parentSpanId": "00000000000000ff",
              "name": "step", "attributes": [kv("payload", "j" * payload)]} for trace in traces]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


class Soak:
    def __init__(self, sidecar: Sidecar, args: argparse.Namespace) -> None:
        self.sidecar, self.args = sidecar, args
        self.stop = threading.Event()
        self.answers: dict[str, Counter[int]] = {}
        self.good_sent = 0
        self.health: list[tuple[float, float]] = []
        self.slow_probes: list[tuple[str, float, float]] = []
        self.metrics_probes: list[tuple[float, float]] = []
        self.started = time.monotonic()
        self.health_failed = 0
        self.rss: list[float] = []
        self.load: list[float] = []
        self._lock = threading.Lock()

    def answered(self, what: str, status: int) -> None:
        with self._lock:
            self.answers.setdefault(what, Counter())[status] += 1

    def every(self, seconds: float, work: Any) -> None:
        """Call ``work`` every ``seconds`` until the soak stops (bounded by the duration)."""
        while not self.stop.is_set():
            started = time.monotonic()
            with contextlib.suppress(OSError):
                work()
            self.stop.wait(max(0.0, seconds - (time.monotonic() - started)))

    # --- senders ------------------------------------------------------------------------------

    def good(self) -> None:
        body, count = good_runs(max(1, round(self.args.rate / 10)))
        for _ in range(50):  # a well-behaved exporter retries 429 (bounded)
            status = self.sidecar.post(body)
            self.answered("good", status)
            if status == 200:
                with self._lock:
                    self.good_sent += count
                return
            if self.stop.wait(0.2):
                return

    def concurrent_traces(self) -> None:
        wave = [os.urandom(16).hex() for _ in range(self.args.traces)]
        for start in range(0, len(wave), 500):
            if self.stop.is_set():
                return
            self.answered("concurrent", self.sidecar.post(fragments(wave[start:start + 500],
                                                                    256)))

    def junk(self) -> None:  # 100 KB every 0.2 s: 0.5 MB/s
        self.answered("junk", self.sidecar.post(fragments(
            [os.urandom(16).hex() for _ in range(20)], 5_000)))

    def unauthenticated(self) -> None:
        self.answered("unauthenticated_19mb", self.sidecar.post(b" " * (19 * MiB),
                                                                token="wrong"))

    def gzip_bomb(self, bomb: bytes) -> None:
        self.answered("gzip_bomb", self.sidecar.post(bomb, headers={"Content-Encoding": "gzip"}))

    def unrooted(self, trace: str) -> None:
        body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": trace, "spanId": os.urandom(8).hex(), "parentSpanId": "00000000000000ff",
            "name": "huge", "attributes": [kv("payload", "u" * 19_000_000)]}]}]}]}).encode()
        self.answered("unrooted_19mb_span", self.sidecar.post(body))

    def slow(self) -> None:
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.sidecar.port),
                                              timeout=30) as sock:
                    sock.sendall(b"POST /v1/traces HTTP/1.1\r\n")
                    while not self.stop.wait(2):
                        sock.sendall(b"X-Slow: 1\r\n")
            except OSError:
                self.stop.wait(0.5)

    # --- probes -------------------------------------------------------------------------------

    def sample_rss(self) -> None:
        self.rss.append(self.sidecar.rss_mb())
        self.load.append(os.getloadavg()[0])


def probe_health(port: int, seconds: float, out: Any) -> None:
    """In a process of its own (so the senders' threads do not slow the measuring client):
    ``GET /healthz`` then ``GET /metrics`` every 0.25 s for ``seconds``; puts (``/healthz``
    latencies, failed probes, slow probes, ``/metrics`` latencies)."""
    import urllib.request

    latencies: dict[str, list[tuple[float, float]]] = {"/healthz": [], "/metrics": []}
    failed = 0
    slow: list[tuple[str, float, float]] = []
    begin = time.monotonic()
    while time.monotonic() - begin < seconds:
        cycle = time.perf_counter()
        for path, series in latencies.items():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}",
                                            timeout=30) as response:
                    response.read()
                    status = response.status
            except OSError:
                status = 0
            took = time.perf_counter() - started
            series.append((time.monotonic() - begin, took))
            failed += status != 200
            if took > 0.1:
                slow.append((path, round(time.monotonic() - begin, 1), round(took, 2)))
        time.sleep(max(0.0, 0.25 - (time.perf_counter() - cycle)))
    out.put((latencies["/healthz"], failed, slow, latencies["/metrics"]))


def metrics(sidecar: Sidecar) -> dict[str, int]:
    """Every series on ``/metrics`` with its labels, as ``name{labels}``: value."""
    text = sidecar.get("/metrics")[1].decode()
    out: dict[str, int] = {}
    for name, labels, value in re.findall(r"^(gsar_sidecar_\w+)(\{[^}]*\})? ([0-9.e+]+)$", text,
                                          re.M):
        if name.endswith(("_bucket", "_sum", "_count")):
            continue
        out[f"{name}{labels}"] = int(float(value))
    return out


def judged(counts: dict[str, int]) -> int:
    return sum(v for k, v in counts.items()
               if k.startswith("gsar_sidecar_runs_total") and 'outcome="judged"' in k)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run(args: argparse.Namespace) -> dict[str, Any]:
    held, inflight = args.max_held_mb * MiB, args.max_inflight_mb * MiB
    if args.malloc_mmap_threshold is not None:  # the sidecar's environment is a copy of ours
        os.environ["MALLOC_MMAP_THRESHOLD_"] = str(args.malloc_mmap_threshold)
    sidecar = Sidecar("--max-held-bytes", str(held), "--max-inflight-bytes", str(inflight),
                      "--decision-wait", str(args.decision_wait), "--max-trace-age",
                      str(args.max_trace_age), "--concurrency", "2")
    try:
        start_rss = sidecar.rss_mb()
        soak = Soak(sidecar, args)
        bomb = gzip.compress(b" " * (80 * MiB))
        unrooted_trace = os.urandom(16).hex()
        threads = [
            *(threading.Thread(target=soak.every, args=(0.1 * GOOD_SENDERS, soak.good))
              for _ in range(GOOD_SENDERS)),
            threading.Thread(target=soak.every, args=(args.max_trace_age, soak.concurrent_traces)),
            threading.Thread(target=soak.every, args=(0.2, soak.junk)),
            threading.Thread(target=soak.every, args=(1.0, soak.unauthenticated)),
            threading.Thread(target=soak.every, args=(1.0, lambda: soak.gzip_bomb(bomb))),
            threading.Thread(target=soak.every, args=(2.0, lambda: soak.unrooted(unrooted_trace))),
            threading.Thread(target=soak.every, args=(0.5, soak.sample_rss)),
            *(threading.Thread(target=soak.slow) for _ in range(args.slow)),
        ]
        spawn = multiprocessing.get_context("spawn")
        probes: Any = spawn.Queue()
        prober = spawn.Process(target=probe_health, args=(sidecar.port, args.duration, probes),
                               daemon=True)
        prober.start()
        started = time.monotonic()
        for thread in threads:
            thread.daemon = True
            thread.start()
        soak.stop.wait(args.duration)
        soak.stop.set()
        (soak.health, soak.health_failed, soak.slow_probes,
         soak.metrics_probes) = probes.get(timeout=120)
        prober.join(10)
        for thread in threads:
            thread.join(60)
        sending_s = time.monotonic() - started
        # the last runs settle (decision wait) and are judged: wait, bounded
        end = time.monotonic() + args.decision_wait + 120
        while judged(metrics(sidecar)) < soak.good_sent and time.monotonic() < end:
            time.sleep(0.5)
        counts = metrics(sidecar)
        children = sidecar.children_peak_mb()  # the large-body decoding process
        peak = sidecar.peak_mb() + children
    finally:
        sidecar.stop()
    health = [took for _, took in soak.health]
    steady = [took for at, took in soak.health if at >= WARM_UP_S]
    scraped = [took for _, took in soak.metrics_probes]
    return {
        "duration_s": round(sending_s, 1), "rate_runs_per_s": args.rate,
        "good_runs_sent": soak.good_sent, "runs_judged": judged(counts),
        "every_good_run_judged": judged(counts) >= soak.good_sent,
        "peak_rss_mb": round(peak, 1), "children_peak_rss_mb": round(children, 1),
        "start_rss_mb": round(start_rss, 1),
        "budget_mb": round(start_rss + args.max_held_mb + args.max_inflight_mb, 1),
        "constant_mb": args.constant_mb,
        "peak_within_budget_plus_constant": (
            peak <= start_rss + args.max_held_mb + args.max_inflight_mb + args.constant_mb),
        "max_held_mb": args.max_held_mb, "max_inflight_mb": args.max_inflight_mb,
        "healthz_probes": len(health), "healthz_failed": soak.health_failed,
        "healthz_p50_ms": round(1000 * quantile(health, 0.5), 1),
        "healthz_p99_ms": round(1000 * quantile(health, 0.99), 1),
        "healthz_max_ms": round(1000 * max(health), 1) if health else None,
        "healthz_after_warm_up_p99_ms": round(1000 * quantile(steady, 0.99), 1),
        "healthz_after_warm_up_max_ms": round(1000 * max(steady), 1) if steady else None,
        "metrics_probes": len(scraped),
        "metrics_p50_ms": round(1000 * quantile(scraped, 0.5), 1),
        "metrics_p99_ms": round(1000 * quantile(scraped, 0.99), 1),
        "metrics_max_ms": round(1000 * max(scraped), 1) if scraped else None,
        "load_average_1min": {"min": round(min(soak.load, default=0), 2),
                              "mean": round(sum(soak.load) / max(1, len(soak.load)), 2),
                              "max": round(max(soak.load, default=0), 2)},
        "slow_probes_at_s": soak.slow_probes[:20],
        "rss_mb_samples": [round(x) for x in soak.rss[::max(1, len(soak.rss) // 20)]],
        "answers": {what: dict(sorted(c.items())) for what, c in sorted(soak.answers.items())},
        "metrics": {k: v for k, v in sorted(counts.items()) if v},
    }


def markdown(result: dict[str, Any]) -> str:
    lines = ["| figure | value |", "|---|---|"]
    for key, value in result.items():
        if key not in ("answers", "metrics"):
            lines.append(f"| {key} | {value} |")
    lines += ["", "| sender | answers (status: count) |", "|---|---|"]
    for what, answers in result["answers"].items():
        lines.append(f"| {what} | {answers} |")
    lines += ["", "| /metrics series | count |", "|---|---|"]
    for key, value in result["metrics"].items():
        lines.append(f"| `{key}` | {value} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=300.0, help="seconds (default 300)")
    parser.add_argument("--rate", type=float, default=50.0, help="well-behaved runs a second")
    parser.add_argument("--traces", type=int, default=10_000, help="concurrent traces")
    parser.add_argument("--slow", type=int, default=600, help="slow connections")
    parser.add_argument("--max-held-mb", type=int, default=128)
    parser.add_argument("--max-inflight-mb", type=int, default=128)
    parser.add_argument("--constant-mb", type=int, default=160,
                        help="allowed over the byte budgets: freed large blocks glibc keeps in "
                             "its per-thread arenas (decoding runs on several threads), "
                             "transient copies of one request being parsed")
    parser.add_argument("--malloc-mmap-threshold", type=int, default=None, metavar="BYTES",
                        help="run the sidecar with MALLOC_MMAP_THRESHOLD_ set (glibc then "
                             "returns every block above it to the system when freed)")
    parser.add_argument("--decision-wait", type=float, default=1.0)
    parser.add_argument("--max-trace-age", type=float, default=20.0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    args = parser.parse_args(argv)
    result = run(args)
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0 if result["every_good_run_judged"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
