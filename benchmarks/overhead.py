"""What @grounded costs the caller, against the floor of emitting one OpenTelemetry span.

Cases, each a call of the same small agent function (it records one evidence item and returns
a one-sentence answer):

- undecorated: the plain function;
- one span (floor): the function inside one SDK span; the cheapest way to emit anything;
- @grounded background, paced: calls far enough apart that the background worker is idle when
  the next call comes (the queue is drained, untimed, between calls): the cost a caller pays;
- @grounded background, sparse: the same, but each call finds the worker's feeder thread asleep
  (as after 2 s without a background call, ``runtime.inbox.LINGER_S``), so the call has to wake it;
  reported, not targeted;
- @grounded background, burst: back-to-back calls while the worker judges the previous ones on
  the other thread (shares the interpreter lock with the caller), reported, not targeted;
- @grounded inline, instant judge: judging, the integrity guard, scoring and telemetry in the
  caller, with a judge that returns a fixed verdict at once;
- scoring + integrity guard alone: the pure core of one evaluation;
- import cost in fresh processes: ``import gsar_otel`` and ``from gsar_otel import grounded``
  against ``import opentelemetry.sdk.trace``, and which heavy modules each pulls in; for context
  also pydantic with one model, and ``grounded`` in a process that already has pydantic and the
  OTel SDK loaded (the marginal cost for most LLM applications).

Telemetry goes to an SDK TracerProvider (SimpleSpanProcessor into an exporter that drops
everything) and an SDK MeterProvider with an in-memory reader, so the cost of building and ending
spans and recording metrics is measured, not the cost of a network.

Targets: background (paced) median <= 2x the one-span floor; each import <= 1.5x the SDK import;
no anthropic or exporter module imported. Run::

    python benchmarks/overhead.py            # full run, table
    python benchmarks/overhead.py --quick --json
    python benchmarks/overhead.py --check    # exit 1 when a target is missed
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, summarize, table, verdict

BACKGROUND_TARGET = 2.0
IMPORT_TARGET = 1.5
FORBIDDEN_PREFIXES = ("anthropic", "opentelemetry.exporter", "grpc")

ANSWER = "CPU on db-prod-1 reached 97.2% at 14:02."
EVIDENCE_ROW = "host=db-prod-1 cpu_pct=97.2 at 14:02:01"

IMPORT_BASELINE = "import opentelemetry.sdk.trace"
IMPORT_MARGINAL = "from gsar_otel import grounded, after pydantic + SDK"
IMPORTS: dict[str, tuple[str, str]] = {
    IMPORT_BASELINE: ("", "import opentelemetry.sdk.trace"),
    "import gsar_otel": ("", "import gsar_otel"),
    "from gsar_otel import grounded": ("", "from gsar_otel import grounded"),
    "import pydantic; class M(BaseModel)": (
        "", "import pydantic\nclass M(pydantic.BaseModel):\n    x: int = 0"),
    # What an application that already uses pydantic (every LLM SDK does) and the OTel SDK pays.
    IMPORT_MARGINAL: ("import pydantic, opentelemetry.sdk.trace\n"
                      "class M(pydantic.BaseModel):\n    x: int = 0",
                      "from gsar_otel import grounded"),
}
TARGETED_IMPORTS = ("import gsar_otel", "from gsar_otel import grounded")

_IMPORT_PROBE = """
import json, sys, time
{setup}
before = set(sys.modules)
t0 = time.perf_counter_ns()
{statement}
t1 = time.perf_counter_ns()
prefixes = {prefixes!r}
loaded = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
print(json.dumps({{"ns": t1 - t0, "forbidden": loaded,
                  "modules": len(set(sys.modules) - before)}}))
"""


# --- telemetry sinks -----------------------------------------------------------------------------


def install_providers() -> Any:
    """Install SDK tracer and meter providers globally; return the metric reader."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class DroppingExporter(SpanExporter):
        """Accepts every span and keeps none: the SDK's work without a network or a list."""

        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(DroppingExporter()))
    trace.set_tracer_provider(provider)
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    return reader


def metric_total(reader: Any, name: str) -> float:
    """Sum of the data points of the metric ``name`` collected so far."""
    data = reader.get_metrics_data()
    total = 0.0
    for resource in getattr(data, "resource_metrics", ()) if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    total += sum(point.value for point in metric.data.data_points)
    return total


# --- the cases -----------------------------------------------------------------------------------


SPARSE = "@grounded background, sparse"


@contextmanager
def feeder_sleeps_at_once() -> Iterator[None]:
    """The worker's feeder sleeps as soon as its inbox is empty (no linger) during the block."""
    try:
        from gsar_otel.runtime import inbox as jobs
    except ImportError:  # code before the runtime package: the inbox was in gsar_otel.otel.jobs
        from gsar_otel.otel import jobs  # type: ignore[no-redef]

    # Code before the inbox (3ad7739 and earlier) has no linger: every call wakes the feeder.
    linger = getattr(jobs, "LINGER_S", None)
    jobs.LINGER_S = 0.0  # type: ignore[misc]
    try:
        yield
    finally:
        if linger is None:
            del jobs.LINGER_S
        else:
            jobs.LINGER_S = linger  # type: ignore[misc]


def drain_until_asleep() -> None:
    """Drain the queue, then wait (at most 1 s) until the feeder sleeps."""
    import gsar_otel
    from gsar_otel.otel.background import current_worker

    gsar_otel.flush(5.0)
    worker = current_worker()
    pause = threading.Event()
    for _ in range(10_000):
        if worker is None or getattr(worker, "asleep", True):
            return
        pause.wait(0.0001)


def build_cases() -> tuple[dict[str, Callable[[], object]], dict[str, Callable[[], None]]]:
    """The timed calls, and for each case an untimed step to run after every call."""
    from opentelemetry import trace

    import gsar_otel
    from gsar_otel.core.capture import record_evidence
    from gsar_otel.core.evidence import EvidenceSet
    from gsar_otel.core.integrity import check_judge_output
    from gsar_otel.core.model import Claim, JudgeOutput
    from gsar_otel.core.scoring import decide, gsar_score

    verdict_output = JudgeOutput(
        grounding_score=1.0, is_grounded=True,
        grounded_claims=[Claim(ANSWER, "tool_match", ["E1"])],
        explanation="Every claim is backed by a tool row.")

    class InstantJudge:
        """Returns a fixed verdict at once: the judge costs nothing, the rest is measured."""

        name = "instant"

        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            return verdict_output

    def answer(question: str) -> str:
        record_evidence(EVIDENCE_ROW)
        return ANSWER

    tracer = trace.get_tracer("benchmarks.overhead")

    def with_span(question: str) -> str:
        with tracer.start_as_current_span("answer"):
            return answer(question)

    background = gsar_otel.grounded(judge=InstantJudge(), mode="background")(answer)
    inline = gsar_otel.grounded(judge=InstantJudge(), mode="inline")(answer)
    evidence = EvidenceSet.coerce([EVIDENCE_ROW])

    def score_and_guard() -> object:
        report = check_judge_output(verdict_output, synthesis=ANSWER, evidence=evidence)
        return decide(gsar_score(report.output.to_partition()))

    def drain() -> None:
        gsar_otel.flush(5.0)

    cases: dict[str, Callable[[], object]] = {
        "undecorated": lambda: answer("cpu?"),
        "one span (floor)": lambda: with_span("cpu?"),
        "@grounded background, paced": lambda: background("cpu?"),
        SPARSE: lambda: background("cpu?"),
        "@grounded background, burst": lambda: background("cpu?"),
        "@grounded inline, instant judge": lambda: inline("cpu?"),
        "scoring + integrity guard": score_and_guard,
    }
    after = {"@grounded background, paced": drain, SPARSE: drain_until_asleep}
    return cases, after


def case_context(name: str) -> AbstractContextManager[None]:
    """What a case runs inside: the sparse case with a feeder that sleeps at once."""
    return feeder_sleeps_at_once() if name == SPARSE else nullcontext()


def time_case(call: Callable[[], object], after: Callable[[], None] | None, *, iterations: int,
              warmup: int) -> list[float]:
    """Per-call nanoseconds of ``iterations`` calls after ``warmup`` untimed ones."""
    clock = time.perf_counter_ns
    for _ in range(warmup):
        call()
        if after is not None:
            after()
    samples: list[float] = []
    append = samples.append
    if after is None:
        for _ in range(iterations):
            start = clock()
            call()
            append(clock() - start)
    else:
        for _ in range(iterations):
            start = clock()
            call()
            append(clock() - start)
            after()
    return samples


def measure_calls(iterations: int, warmup: int, rounds: int) -> tuple[dict[str, Any], float]:
    """Time every case in interleaved rounds; return the summaries and background drops."""
    reader = install_providers()
    import gsar_otel

    cases, after = build_cases()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    per_round = max(1, iterations // rounds)
    for round_index in range(rounds):
        for name, call in cases.items():
            gc.collect()
            with case_context(name):
                samples[name] += time_case(call, after.get(name), iterations=per_round,
                                           warmup=warmup if round_index == 0 else warmup // 10)
                gsar_otel.flush(30.0)
    dropped = metric_total(reader, "gsar.background.dropped")
    return {name: summarize(values) for name, values in samples.items()}, dropped


def measure_imports(runs: int) -> dict[str, Any]:
    """Median cost of each import statement in fresh interpreters, and what each loads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GSAR_", "OTEL_"))}
    times: dict[str, list[float]] = {name: [] for name in IMPORTS}
    forbidden: dict[str, list[str]] = {}
    modules: dict[str, int] = {}
    for _ in range(runs):
        for name, (setup, statement) in IMPORTS.items():
            probe = _IMPORT_PROBE.format(setup=setup, statement=statement,
                                         prefixes=FORBIDDEN_PREFIXES)
            done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                  env=env, check=False, timeout=120)
            if done.returncode != 0:
                raise RuntimeError(f"{statement!r} failed in a fresh process:\n{done.stderr}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            times[name].append(result["ns"] / 1e6)
            forbidden[name] = result["forbidden"]
            modules[name] = result["modules"]
    return {name: {**summarize(values), "unit": "ms", "forbidden_modules": forbidden[name],
                   "modules_loaded": modules[name]}
            for name, values in times.items()}


# --- report -------------------------------------------------------------------------------------


def evaluate_targets(calls: Mapping[str, Any], imports: Mapping[str, Any]) -> list[dict[str, Any]]:
    """PASS/MISS for every target."""
    floor = calls["one span (floor)"]["median"]
    background = calls["@grounded background, paced"]["median"]
    targets = [{
        "name": "background (paced) median / one-span floor median",
        "value": background / floor, "limit": BACKGROUND_TARGET,
        "passed": background / floor <= BACKGROUND_TARGET,
    }]
    base = imports[IMPORT_BASELINE]["median"]
    for name in TARGETED_IMPORTS:
        ratio = imports[name]["median"] / base
        targets.append({"name": f"{name} / {IMPORT_BASELINE} (median, fresh process)",
                        "value": ratio, "limit": IMPORT_TARGET, "passed": ratio <= IMPORT_TARGET})
    for name in TARGETED_IMPORTS:
        loaded = imports[name]["forbidden_modules"]
        targets.append({"name": f"{name} loads no anthropic / exporter module",
                        "value": len(loaded), "limit": 0, "passed": not loaded,
                        "modules": loaded})
    return targets


def render(report: dict[str, Any]) -> str:
    """The report as plain-text tables."""
    calls = report["calls"]
    floor = calls["one span (floor)"]["median"]
    rows = []
    for name, s in calls.items():
        rows.append([name, f"{s['median'] / 1000:.2f}", f"{s['p95'] / 1000:.2f}",
                     f"{s['iqr'] / 1000:.2f}", f"{s['stdev'] / 1000:.2f}",
                     f"{s['median'] / floor:.2f}x", str(s["n"])])
    loads = [", ".join(f"{value:.2f}" for value in report["machine"].get(key) or []) or "unknown"
             for key in ("load_average_at_start", "load_average")]
    out = ["Per-call cost (microseconds)",
           table(["case", "median", "p95", "IQR", "stdev", "vs floor", "calls"], rows), "",
           f"load average {loads[0]} at start, {loads[1]} at the end (1, 5, 15 min) on "
           f"{report['machine']['cores']} cores", ""]
    imports = report["imports"]
    base = imports[IMPORT_BASELINE]["median"]
    rows = [[name, f"{s['median']:.1f}", f"{s['p95']:.1f}", f"{s['iqr']:.1f}",
             f"{s['median'] / base:.2f}x", str(s["modules_loaded"]),
             ", ".join(s["forbidden_modules"]) or "none"] for name, s in imports.items()]
    out += ["Import in a fresh process (milliseconds)",
            table(["statement", "median", "p95", "IQR", "vs SDK", "new modules",
                   "anthropic/exporter"],
                  rows), ""]
    rows = [[t["name"], f"{t['value']:.2f}" if isinstance(t["value"], float) else str(t["value"]),
             f"<= {t['limit']}", verdict(t["passed"])] for t in report["targets"]]
    out += ["Targets", table(["target", "value", "limit", "result"], rows)]
    if report["background_dropped"]:
        out.append(f"\nbackground queue dropped {report['background_dropped']:.0f} evaluation(s) "
                   "during the burst case")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 1 only with --check and a missed target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quick", action="store_true",
                        help="few iterations (seconds, for a smoke test; numbers are noisy)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--iterations", type=int, help="timed calls per case")
    parser.add_argument("--import-runs", type=int, help="fresh processes per import statement")
    args = parser.parse_args(argv)
    iterations = args.iterations or (1_000 if args.quick else 20_000)
    warmup = max(10, iterations // 10)
    rounds = 2 if args.quick else 5
    import_runs = args.import_runs or (3 if args.quick else 15)

    started = time.perf_counter()
    load_at_start = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    calls, dropped = measure_calls(iterations, warmup, rounds)
    imports = measure_imports(import_runs)
    report: dict[str, Any] = {
        "benchmark": "overhead",
        "machine": {**machine(), "load_average_at_start": load_at_start},
        "settings": {"iterations": iterations, "warmup": warmup, "rounds": rounds,
                     "import_runs": import_runs, "quick": args.quick, "unit": "ns"},
        "calls": calls,
        "imports": imports,
        "background_dropped": dropped,
        "targets": [],
    }
    report["targets"] = evaluate_targets(calls, imports)
    report["duration_s"] = time.perf_counter() - started
    print(json.dumps(report, indent=2) if args.json else render(report))
    missed = [t for t in report["targets"] if not t["passed"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
