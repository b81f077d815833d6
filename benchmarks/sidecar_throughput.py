"""The sidecar's throughput and lag, judging with an offline judge, beside the same server
receiving and forwarding without judging, in one run.

An agent traced with the OpenTelemetry SDK produces GenAI-semconv runs (invoke_agent > chat >
execute_tool > chat, 4 spans); batches of runs are encoded by the SDK's own OTLP encoder and
POSTed as OTLP/HTTP protobuf to a sidecar running in this process (its own event loop and judge
thread). Reported per mode:

- spans/s received: spans over the wall time of the POSTs (answered 200, none rejected);
- runs judged/s: runs over the time from the first POST to the last grounding span;
- lag p50 / p99: from a run span's end to its grounding span's end (``--decision-wait`` included);
- the ``forward`` mode judges nothing (sample rate 0) and passes every request on to a local
  OTLP sink, the baseline for the receiving cost;
- ``judge`` sends as fast as it can (the lag then holds the queue's backlog); ``judge@N/s``
  sends N runs a second, below capacity, so the lag is the settle window plus judging;
- ``--realistic``: runs of realistic size instead of the short ones (3-5 tool results of
  2-10 KB of JSON metric rows each, an answer of 3-5 sentences quoting some of them; 7-9
  spans a run);
- ``--client-process``: the agent's spans are built, encoded and POSTed by a process of its own,
  so the sidecar's process (and its interpreter lock) holds the sidecar alone; without it the
  client shares the sidecar's process, as in the figures recorded before this option.

Run::

    python benchmarks/sidecar_throughput.py                 # 2,000 runs, batches of 20
    python benchmarks/sidecar_throughput.py --judge staged --judge lexical   # both judges
    python benchmarks/sidecar_throughput.py --runs 500 --pace 100 --json
    python benchmarks/sidecar_throughput.py --runs 1000 --pace 0 --realistic --client-process
"""

from __future__ import annotations

import argparse
import http.server
import json
import multiprocessing
import random
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from gsar_otel.judges.factory import make_judge
from gsar_otel.judges.process import ProcessJudge
from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from tests.sidecar.support import (
    GROUNDED,
    OVERREACHING,
    agent_tracer,
    run_genai_agent,
    start_sidecar,
)


class _Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _realistic_run(tracer: Any, rng: random.Random) -> None:
    """One agent run of realistic size: 3-5 tool results of 2-10 KB of JSON metric rows, an
    answer of 3-5 sentences quoting values of them (the last one wrong in every other run)."""
    tools = rng.randint(3, 5)
    results: list[list[dict[str, Any]]] = []
    for t in range(tools):
        rows = [{"host": f"web-{t}-{i}", "cpu_pct": round(rng.uniform(5, 99), 1),
                 "p99_ms": rng.randint(20, 900), "errors": rng.randint(0, 40),
                 "at": f"14:{i % 60:02d}:01", "region": rng.choice(["eu-west", "us-east"])}
                for i in range(rng.randint(20, 100))]
        results.append(rows)
    picks = [rng.choice(rows) for rows in results][:rng.randint(3, 5)]
    sentences = [f"Host {row['host']} ran at {row['cpu_pct']}% CPU with a p99 of "
                 f"{row['p99_ms']} ms at {row['at'][:5]}." for row in picks]
    if rng.random() < 0.5:
        sentences[-1] = sentences[-1].replace(" ms ", "0 ms ")
    answer = " ".join(sentences)
    with tracer.start_as_current_span("invoke_agent ops-bot", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops-bot"}) as agent:
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}):
            pass
        for t, rows in enumerate(results):
            with tracer.start_as_current_span("execute_tool query_metrics", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "query_metrics",
                    "gen_ai.tool.call.id": f"call_{t}",
                    "gen_ai.tool.call.result": json.dumps(rows)}):
                pass
        final = [{"role": "assistant", "finish_reason": "stop",
                  "parts": [{"type": "text", "content": answer}]}]
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.output.messages": json.dumps(final)}):
            pass
        agent.set_attribute("gen_ai.output.messages", json.dumps(final))


def _batch(runs: int, realistic: bool = False, seed: int = 0) -> tuple[bytes, int]:
    """``runs`` agent runs, ended just now, as one OTLP protobuf body."""
    copy = InMemorySpanExporter()
    tracer, provider = agent_tracer(copy)
    rng = random.Random(seed)
    for n in range(runs):
        if realistic:
            _realistic_run(tracer, rng)
        else:
            run_genai_agent(tracer, GROUNDED if n % 2 else OVERREACHING)
    spans = copy.get_finished_spans()
    provider.shutdown()
    return encode_spans(spans).SerializeToString(), len(spans)


def _post(url: str, body: bytes) -> None:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200


def _client(url: str, runs: int, batch: int, pace: float | None, realistic: bool,
            out: Any) -> None:
    """The agent in a process of its own: say it is ready (its imports done), then build,
    encode and POST every batch; report the spans sent and the seconds spent posting."""
    out.put("ready")
    spans, posting, start = 0, 0.0, time.perf_counter()
    for index in range(runs // batch):
        if pace:
            time.sleep(max(0.0, start + index * batch / pace - time.perf_counter()))
        body, count = _batch(batch, realistic, seed=index)
        spans += count
        sent = time.perf_counter()
        _post(url, body)
        posting += time.perf_counter() - sent
    out.put((spans, posting))


def measure(mode: str, runs: int, batch: int, decision_wait_s: float,
            pace: float | None = None, judge: str = "staged", realistic: bool = False,
            client_process: bool = False, processes: int = 0) -> dict[str, Any]:
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    judging = not mode.startswith("forward")
    running = start_sidecar(
        judge=ProcessJudge(judge, processes) if processes else make_judge(judge),
        concurrency=max(4, processes),
        limits=AssemblyLimits(decision_wait_s=decision_wait_s, max_age_s=600),
        queue_size=max(1_000, runs), sample_rate=1.0 if judging else 0.0,
        max_body_bytes=64 * 1024 * 1024, max_decompressed_bytes=64 * 1024 * 1024,
        forward=None if judging else f"http://127.0.0.1:{sink.server_address[1]}/v1/traces")
    stats = running.sidecar.stats
    url = f"{running.http}/v1/traces"
    spans = 0
    posting = 0.0
    start = time.perf_counter()
    try:
        if client_process:
            context = multiprocessing.get_context("spawn")
            out = context.Queue()
            client = context.Process(target=_client,
                                     args=(url, runs, batch, pace, realistic, out))
            client.start()
            assert out.get(timeout=120) == "ready"
            start = time.perf_counter()  # the client's start-up is not the sidecar's time
            spans, posting = out.get(timeout=3600)
            client.join(60)
        else:
            for index in range(runs // batch):
                if pace:
                    time.sleep(max(0.0, start + index * batch / pace - time.perf_counter()))
                body, count = _batch(batch, realistic, seed=index)
                spans += count
                sent = time.perf_counter()
                _post(url, body)
                posting += time.perf_counter() - sent
        done = runs // batch * batch
        if judging:
            running.wait_for(lambda: stats.get("runs_judged") >= done, "every run", 3600)
        else:
            running.wait_for(lambda: stats.get("spans", "forward_sent") >= spans, "forwards",
                             3600)
        elapsed = time.perf_counter() - start
        lags = stats.lag_quantiles()
    finally:
        running.stop()
        sink.shutdown()
    return {"mode": mode, "runs": done, "spans": spans,
            "spans_per_s_received": round(spans / posting),
            "runs_judged_per_s": round(done / elapsed, 1) if judging else None,
            "runs_forwarded_per_s": None if judging else round(done / elapsed, 1),
            "lag_p50_s": round(lags["p50"], 3) if lags else None,
            "lag_p99_s": round(lags["p99"], 3) if lags else None,
            "rejected": stats.get("spans", "rejected_busy")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=20, help="runs per OTLP request")
    parser.add_argument("--decision-wait", type=float, default=0.2, metavar="SECONDS")
    parser.add_argument("--pace", type=float, default=200.0, metavar="RUNS_PER_S",
                        help="rate of the paced judging row (200; 0 leaves the row out)")
    parser.add_argument("--judge", action="append", default=None,
                        help="offline judge of the judging rows (repeatable; default staged, "
                             "the sidecar's judge without an API key)")
    parser.add_argument("--realistic", action="store_true",
                        help="runs of realistic size (3-5 tool results of 2-10 KB, an answer "
                             "of 3-5 sentences) instead of the short ones")
    parser.add_argument("--client-process", action="store_true",
                        help="build and send the spans from a process of its own")
    parser.add_argument("--judge-processes", type=int, action="append", default=None,
                        metavar="N", help="also judge in N worker processes "
                        "(--judge-processes, repeatable; 0 is the sidecar's own process)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kind = {"realistic": args.realistic, "client_process": args.client_process}
    rows = [measure("forward", args.runs, args.batch, args.decision_wait, **kind)]
    for judge in args.judge or ["staged"]:
        for processes in args.judge_processes or [0]:
            rows.append(measure(f"{judge}" + (f" x{processes}" if processes else ""),
                                args.runs, args.batch, args.decision_wait, judge=judge,
                                processes=processes, **kind))
        if args.pace:
            rows.append(measure(f"{judge}@{args.pace:g}/s", args.runs, args.batch,
                                args.decision_wait, pace=args.pace, judge=judge, **kind))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'mode':<14} {'runs':>6} {'spans':>7} {'spans/s in':>10} {'runs/s judged':>13} "
          f"{'runs/s fwd':>10} {'lag p50 s':>9} {'lag p99 s':>9}")
    for row in rows:
        print(f"{row['mode']:<14} {row['runs']:>6} {row['spans']:>7} "
              f"{row['spans_per_s_received']:>10} {row['runs_judged_per_s'] or '-':>13} "
              f"{row['runs_forwarded_per_s'] or '-':>10} "
              f"{row['lag_p50_s'] or '-':>9} {row['lag_p99_s'] or '-':>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
