"""Fault table for the background worker and concurrency: is every evaluation judged or counted,
is the queue bound exact, does memory stay flat, is the caller's OpenTelemetry context restored,
what happens at exit and across a fork?

Rows:

- ``threads``: 64 threads x 200 calls of a ``mode="background"`` function, a slow judge (5 ms per
  round) and a queue of 16: judged (evaluate spans with a decision) + dropped
  (``gsar.background.dropped``) must equal the calls exactly; the most jobs ever seen waiting
  must not pass 16;
- ``async inline``: 1,000 concurrent asyncio tasks, each calling an inline ``@grounded`` async
  function inside a span of its own: every answer returned unchanged, every call judged;
- ``context``: 1,000 calls in each of sync/async x inline/background inside a host span: the
  OpenTelemetry context after the call is the one before it;
- ``memory``: 100,000 background calls (flushed every 1,000 so none is dropped), tracemalloc:
  peak, and growth between call 10,000 and call 100,000 (flat = a few bytes per call at most);
- ``exit``: a process with 1,000 pending jobs and a 0.2 s judge exits with the default budget
  (5 s): judged + counted as dropped (``exit_timeout``) must equal 1,000; time from the last
  call to the end of the process;
- ``fork``: in each of 5 fresh processes, 30 children forked while the worker runs its first jobs,
  each child calling ``flush(1.0)``: none may hang (a child alive after 20 s counts as stuck);
- ``multiprocessing``: 10 children x 10 background calls with the ``fork`` and ``forkserver``
  start methods, the children *not* calling ``flush``: all 100 judged.

Run::

    python benchmarks/reliability_background.py            # table (about five minutes)
    python benchmarks/reliability_background.py --json          # or --markdown
    python benchmarks/reliability_background.py --memory-calls 20000   # a quicker memory row
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import machine, table, verdict  # noqa: E402
from opentelemetry import context as otel_context  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import (  # noqa: E402
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from gsar_otel import flush, grounded, record_evidence  # noqa: E402
from gsar_otel.core.evidence import EvidenceSet  # noqa: E402
from gsar_otel.core.model import Claim, JudgeOutput  # noqa: E402
from gsar_otel.otel import background  # noqa: E402
from gsar_otel.otel import instruments as telemetry  # noqa: E402
from gsar_otel.otel.background import BackgroundWorker  # noqa: E402

ANSWER = "CPU on db-prod-1 reached 97% at 14:02."
ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"


class SleepJudge:
    """Waits ``delay_s`` (an LLM call stand-in), then grounds the answer on E1."""

    name = "sleep"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return JudgeOutput(grounding_score=1.0, is_grounded=True,
                           grounded_claims=[Claim(synthesis, "tool_match", ["E1"])],
                           explanation="Backed by the metrics row.")


class CountingExporter(SpanExporter):
    """Keeps counts, not spans, so memory measures gsar-otel rather than the exporter."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.decided = 0
        self.evaluations = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.lock:
            for span in spans:
                if span.name.startswith("gsar.evaluate"):
                    self.evaluations += 1
                    self.decided += bool((span.attributes or {}).get("gsar.decision"))
        return SpanExportResult.SUCCESS


class Telemetry:
    """Injected providers: a counting span exporter and an in-memory metric reader."""

    def __init__(self) -> None:
        self.spans = CountingExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.tracer = self.tracer_provider.get_tracer("host")
        telemetry.set_providers(tracer_provider=self.tracer_provider,
                                meter_provider=self.meter_provider)

    def dropped(self) -> dict[str, int]:
        found: dict[str, int] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == "gsar.background.dropped":
                        for point in metric.data.data_points:
                            reason = str(point.attributes.get("gsar.drop.reason"))
                            found[reason] = found.get(reason, 0) + int(point.value)
        return found

    def close(self) -> None:
        flush(10.0)
        telemetry.set_providers()
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def fresh_worker(maxsize: int) -> BackgroundWorker:
    """A process worker of its own for one row (the previous one is stopped)."""
    previous = background.current_worker()
    if previous is not None:
        previous.stop(5.0)
    worker = BackgroundWorker(maxsize, on_start=background.register_exit_flush)
    background._worker = worker
    return worker


def row(case: str, size: str, outcome: str, seconds: float, memory: str, ok: bool
        ) -> dict[str, Any]:
    return {"case": case, "input": size, "outcome": outcome, "time_s": round(seconds, 2),
            "memory": memory, "ok": ok}


# -- rows ----------------------------------------------------------------------------------------


def threads_row(threads: int = 64, calls: int = 200, queue: int = 16) -> dict[str, Any]:
    otel = Telemetry()
    worker = fresh_worker(queue)
    restored_wrong = 0
    most_waiting = 0
    done = threading.Event()

    @grounded(judge=SleepJudge(0.005), mode="background", name="threads")
    def agent() -> str:
        record_evidence(ROW)
        return ANSWER

    def watch() -> None:
        nonlocal most_waiting
        while not done.is_set():
            most_waiting = max(most_waiting, worker.pending)

    def work(start: threading.Barrier) -> None:
        nonlocal restored_wrong
        start.wait()
        for _ in range(calls):
            with otel.tracer.start_as_current_span("request"):
                before = otel_context.get_current()
                agent()
                restored_wrong += otel_context.get_current() is not before

    start = threading.Barrier(threads)
    pool = [threading.Thread(target=work, args=(start,)) for _ in range(threads)]
    watcher = threading.Thread(target=watch)
    began = time.perf_counter()
    watcher.start()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    flushed = flush(120.0)
    seconds = time.perf_counter() - began
    done.set()
    watcher.join()
    dropped = otel.dropped()
    judged = otel.spans.decided
    total = threads * calls
    otel.close()
    ok = (flushed and judged + sum(dropped.values()) == total and most_waiting <= queue
          and restored_wrong == 0)
    return row("threads: background, slow judge, small queue",
               f"{threads} threads x {calls} calls, queue {queue}, judge 5 ms",
               f"judged {judged} + dropped {sum(dropped.values())} {dropped} = "
               f"{judged + sum(dropped.values())} of {total}; most waiting {most_waiting}; "
               f"context not restored {restored_wrong}", seconds, "-", ok)


def async_inline_row(tasks: int = 1000) -> dict[str, Any]:
    otel = Telemetry()

    @grounded(judge=SleepJudge(0.005), name="async_inline")
    async def agent(n: int) -> str:
        record_evidence(ROW)
        return f"{ANSWER} Call {n}."

    async def one(n: int) -> tuple[bool, bool]:
        with otel.tracer.start_as_current_span("request"):
            before = otel_context.get_current()
            answer = await agent(n)
            return answer == f"{ANSWER} Call {n}.", otel_context.get_current() is before

    async def main() -> list[tuple[bool, bool]]:
        return await asyncio.gather(*(one(n) for n in range(tasks)))

    began = time.perf_counter()
    results = asyncio.run(main())
    seconds = time.perf_counter() - began
    unchanged = sum(a for a, _ in results)
    restored = sum(c for _, c in results)
    judged = otel.spans.decided
    otel.close()
    ok = unchanged == restored == judged == tasks
    return row("async inline: concurrent tasks", f"{tasks} tasks at once, judge 5 ms",
               f"answers unchanged {unchanged}, judged {judged}, context restored {restored} "
               f"of {tasks}", seconds, "-", ok)


def context_row(calls: int = 1000) -> dict[str, Any]:
    otel = Telemetry()
    fresh_worker(1000)
    judge = SleepJudge(0.0)
    functions: dict[str, Callable[..., Any]] = {}
    for mode in ("inline", "background"):
        @grounded(judge=judge, mode=mode, name=f"sync_{mode}")
        def sync_agent() -> str:
            record_evidence(ROW)
            return ANSWER

        @grounded(judge=judge, mode=mode, name=f"async_{mode}")
        async def async_agent() -> str:
            record_evidence(ROW)
            return ANSWER

        functions[f"sync {mode}"] = sync_agent
        functions[f"async {mode}"] = async_agent
    wrong: dict[str, int] = {}
    began = time.perf_counter()
    for label, fn in functions.items():
        wrong[label] = 0
        if label.startswith("sync"):
            for _ in range(calls):
                with otel.tracer.start_as_current_span("request"):
                    before = otel_context.get_current()
                    fn()
                    wrong[label] += otel_context.get_current() is not before
        else:
            async def run(fn: Callable[..., Any] = fn, label: str = label) -> None:
                for _ in range(calls):
                    with otel.tracer.start_as_current_span("request"):
                        before = otel_context.get_current()
                        await fn()
                        wrong[label] += otel_context.get_current() is not before

            asyncio.run(run())
        flush(60.0)
    seconds = time.perf_counter() - began
    judged = otel.spans.decided
    otel.close()
    ok = sum(wrong.values()) == 0 and judged == 4 * calls
    return row("context restored after every call", f"{calls} calls x 4 (sync/async x "
               "inline/background) in a host span",
               f"context not restored {wrong}; judged {judged} of {4 * calls}", seconds, "-", ok)


def memory_row(calls: int = 100_000, batch: int = 1000) -> dict[str, Any]:
    otel = Telemetry()
    fresh_worker(batch)

    @grounded(judge=SleepJudge(0.0), mode="background", name="memory")
    def agent() -> str:
        record_evidence(ROW)
        return ANSWER

    def run(count: int) -> None:
        for start in range(0, count, batch):
            for _ in range(min(batch, count - start)):
                agent()
            flush(60.0)

    run(1000)  # warm-up: imports, caches, the worker's threads
    gc.collect()
    tracemalloc.start()
    began = time.perf_counter()
    run(10_000)
    gc.collect()
    at_10k = tracemalloc.get_traced_memory()[0]
    run(calls - 10_000)
    gc.collect()
    at_end, peak = tracemalloc.get_traced_memory()
    seconds = time.perf_counter() - began
    tracemalloc.stop()
    judged = otel.spans.decided
    dropped = sum(otel.dropped().values())
    otel.close()
    growth = at_end - at_10k
    per_call = growth / (calls - 10_000)
    ok = judged == calls + 1000 and dropped == 0 and per_call < 16
    return row("memory over many calls (background)", f"{calls:,} calls, flushed every {batch}",
               f"judged {judged - 1000:,}, dropped {dropped}", seconds,
               f"peak {peak / 1e6:.1f} MB; growth 10k->{calls // 1000}k {growth / 1e3:+.1f} kB "
               f"({per_call:+.2f} B/call)", ok)


EXIT_SCRIPT = textwrap.dedent("""
    import asyncio, atexit, json, sys, time
    sys.path.insert(0, sys.argv[1])
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult
    from gsar_otel import grounded
    from gsar_otel.core.model import Claim, JudgeOutput
    from gsar_otel.otel import instruments as telemetry

    judged = []

    class Decisions(SpanExporter):
        def export(self, spans):
            judged.extend(s for s in spans if s.attributes.get("gsar.decision"))
            return SpanExportResult.SUCCESS

    class SlowJudge:
        name = "slow"
        async def judge(self, *, synthesis, evidence):
            await asyncio.sleep(0.2)
            return JudgeOutput(grounding_score=1.0, is_grounded=True,
                               grounded_claims=[Claim(synthesis, "inference")])

    reader = InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Decisions()))
    telemetry.set_providers(tracer_provider=provider,
                            meter_provider=MeterProvider(metric_readers=[reader]))

    def report():  # registered first: runs after gsar-otel's exit flush
        dropped = {}
        for rm in reader.get_metrics_data().resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == "gsar.background.dropped":
                        for p in m.data.data_points:
                            dropped[p.attributes["gsar.drop.reason"]] = p.value
        print(json.dumps({"judged": len(judged), "dropped": dropped}), flush=True)

    atexit.register(report)

    @grounded(judge=SlowJudge(), mode="background", name="late")
    def agent():
        return "The answer."

    for _ in range(int(sys.argv[2])):
        agent()
    print("returned", flush=True)
""")


def exit_row(pending: int = 1000) -> dict[str, Any]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GSAR_")}
    process = subprocess.Popen([sys.executable, "-c", EXIT_SCRIPT, str(ROOT), str(pending)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environ)
    assert process.stdout is not None
    first = process.stdout.readline()
    returned = time.perf_counter()
    rest, stderr = process.communicate(timeout=120)
    seconds = time.perf_counter() - returned
    report = json.loads(rest.splitlines()[-1])
    dropped = sum(report["dropped"].values())
    warned = [line for line in stderr.splitlines() if "not judged within" in line]
    ok = (first.strip() == "returned" and report["judged"] + dropped == pending
          and len(warned) == 1 and process.returncode == 0)
    return row("exit with pending jobs (default budget 5 s)",
               f"{pending} pending, judge 0.2 s, 8 at a time",
               f"judged {report['judged']} + dropped {dropped} {report['dropped']} = "
               f"{report['judged'] + dropped}; {len(warned)} WARNING with the count",
               seconds, "-", ok)


FORK_SCRIPT = textwrap.dedent("""
    import asyncio, json, os, signal, sys, time
    sys.path.insert(0, sys.argv[1])
    from gsar_otel import flush, grounded
    from gsar_otel.core.model import Claim, JudgeOutput

    class SlowJudge:
        name = "slow"
        async def judge(self, *, synthesis, evidence):
            await asyncio.sleep(0.01)
            return JudgeOutput(grounding_score=1.0, is_grounded=True,
                               grounded_claims=[Claim(synthesis, "inference")])

    @grounded(judge=SlowJudge(), mode="background", name="server")
    def agent():
        return "The answer."

    for _ in range(5):
        agent()
    pids = []
    for _ in range(30):  # while the worker starts and runs its first jobs
        pid = os.fork()
        if pid == 0:
            os._exit(0 if flush(1.0) else 3)
        pids.append(pid)
        time.sleep(0.002)
    deadline, codes, stuck = time.monotonic() + 20, [], 0
    for pid in pids:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                codes.append(os.waitstatus_to_exitcode(status))
                break
            if time.monotonic() > deadline:
                stuck += 1
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.005)
    print(json.dumps({"codes": codes, "stuck": stuck}))
""")


def fork_row(rounds: int = 5) -> dict[str, Any]:
    stuck = 0
    flushed = 0
    children = 0
    began = time.perf_counter()
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", FORK_SCRIPT, str(ROOT)],
                              capture_output=True, text=True, timeout=120, check=True)
        result = json.loads(done.stdout.splitlines()[-1])
        stuck += result["stuck"]
        flushed += result["codes"].count(0)
        children += 30
    seconds = time.perf_counter() - began
    return row("fork while the worker runs its first jobs",
               f"{rounds} processes x 30 children, flush(1.0) in each",
               f"stuck {stuck} of {children}; flush True in {flushed}", seconds, "-",
               stuck == 0)


MP_SCRIPT = textwrap.dedent("""
    import json, multiprocessing, sys
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(0, sys.argv[1] + "/benchmarks")
    from reliability_background import mp_child

    if __name__ == "__main__":
        context = multiprocessing.get_context(sys.argv[2])
        children = [context.Process(target=mp_child, args=(f"{sys.argv[3]}/{n}.spans", 10))
                    for n in range(10)]
        for child in children:
            child.start()
        for child in children:
            child.join(60)
        print(json.dumps([child.exitcode for child in children]))
""")


class _FileExporter(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(self.path, "a", encoding="utf-8") as out:
            out.writelines(f"{span.name}\n" for span in spans
                           if span.name.startswith("gsar.evaluate"))
        return SpanExportResult.SUCCESS


def mp_child(path: str, calls: int) -> None:
    """A multiprocessing child: ``calls`` background evaluations and no flush of its own."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_FileExporter(path)))
    telemetry.set_providers(tracer_provider=provider)

    @grounded(judge=SleepJudge(0.01), mode="background", name="child")
    def agent() -> str:
        return ANSWER

    for _ in range(calls):
        agent()


def multiprocessing_row() -> dict[str, Any]:
    outcomes = []
    ok = True
    began = time.perf_counter()
    for method in ("fork", "forkserver"):
        with tempfile.TemporaryDirectory() as directory:
            done = subprocess.run([sys.executable, "-c", MP_SCRIPT, str(ROOT), method, directory],
                                  capture_output=True, text=True, timeout=180, check=True)
            codes = json.loads(done.stdout.splitlines()[-1])
            judged = sum(len(path.read_text().splitlines())
                         for path in Path(directory).glob("*.spans"))
        outcomes.append(f"{method}: {judged} of 100 judged")
        ok = ok and judged == 100 and codes == [0] * 10
    seconds = time.perf_counter() - began
    return row("multiprocessing children (no flush call)", "10 children x 10 calls per method",
               "; ".join(outcomes), seconds, "-", ok)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--memory-calls", type=int, default=100_000)
    args = parser.parse_args(argv)
    for name in [k for k in os.environ if k.startswith("GSAR_")]:
        del os.environ[name]
    rows = [threads_row(), async_inline_row(), context_row(), memory_row(args.memory_calls),
            exit_row(), fork_row(), multiprocessing_row()]
    report = {"machine": machine(), "rows": rows}
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.markdown:
        print("| case | input | outcome | time | memory | check |\n|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['case']} | {r['input']} | {r['outcome']} | {r['time_s']:.2f} s | "
                  f"{r['memory']} | {verdict(r['ok'])} |")
    else:
        print(table(["case", "input", "outcome", "time s", "memory", "check"],
                    [[r["case"], r["input"], r["outcome"], f"{r['time_s']:.2f}", r["memory"],
                      verdict(r["ok"])] for r in rows]))
        print(f"\nload average {report['machine']['load_average']}, "
              f"{report['machine']['cores']} cores, Python {report['machine']['python']}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
