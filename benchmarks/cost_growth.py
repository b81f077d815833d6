"""How judging cost grows with input size: the offline judge and the integrity guard, against
answer size and evidence size, with a fitted exponent (1 = linear).

Shapes (each grown by repeating a realistic unit, so sizes are exact):

- answer: an incident answer (numbers, percents, times, hosts, ids, a causal sentence) grown
  from 1 KB to the largest size, against a fixed 20-item evidence set;
- evidence items: 1 ... 5,000 metric rows and log lines of about 80 bytes, against a fixed answer;
- evidence bytes: one evidence item grown from 1 KB to the largest size (a huge tool result);
- hostile (``--hostile-bytes``, 1 MB by default): the ReDoS shapes of the adversarial sweep
  ("A. ", "1.", "a.", "cpu rose and ", "a1-b_2." answers, one "a-" evidence item) and answer
  numbers against twenty times as many evidence numbers, all growing together.

Seconds depend on the machine and its load; sizes up to ``--operations-up-to`` (30,000) also
have their operations counted (Python line events plus characters handed to the text modules'
regexes, as in ``tests/core/test_linear_cost.py``), a measure no other process can disturb.

Every case calls the judge directly (``judge.judge``) and then ``check_judge_output``, with no
evaluator in between, so the evaluator's size limits (which would cut a 10 MB answer to 100,000
characters) do not hide growth. The exponent is the least-squares slope of log(time) against
log(size) over the larger half of the sizes (at the small end, fixed costs dominate). Run::

    python benchmarks/cost_growth.py                     # up to 10 MB and 5,000 items, table
    python benchmarks/cost_growth.py --max-bytes 1000000 --json
    python benchmarks/cost_growth.py --plot benchmarks/cost_growth.png
    python benchmarks/cost_growth.py --check             # exit 1 when an exponent is over 1.2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from _common import machine

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.core.protocol import Judge
from gsar_otel.judges.factory import make_judge

ANSWER_UNIT = (
    "CPU on db-prod-{i} reached 97% at 14:02 UTC while p99 latency rose to 850 ms. "
    "The 5xx rate on edge-lb-{i} hit 41.2% after cfg-{i} was pushed by deploy-bot. "
    "The outage was probably caused by the config push. "
)
ROW_UNITS = (
    "host=db-prod-{i} cpu_pct=97.2 p99_ms=850 ts=2024-05-01T14:02:01Z",
    "2024-05-01 14:01:30 UTC INFO deploy-bot: pushed cfg-{i} to edge-lb-{i} (v2.3.{i})",
    "host=edge-lb-{i} http_5xx_rate=41.2% rps=1240 region=eu-west-1",
)
GROWTH_LIMIT = 1.2


def grow(unit: str, size: int) -> str:
    """Repeat ``unit`` (numbered) until the text is ``size`` characters, then cut it there."""
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        part = unit.format(i=i % 997)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)[:size]


def rows(count: int) -> list[str]:
    """``count`` evidence rows of the three shapes."""
    return [ROW_UNITS[i % 3].format(i=i % 997) for i in range(count)]


REPEAT_UNDER_S = 2.0
"""A case faster than this is run three times and its fastest time kept: on a shared machine
the fastest run is the least disturbed one."""


def time_case(judge: Judge, synthesis: str, evidence: EvidenceSet) -> dict[str, float]:
    """Seconds for one judgement and for the guard on its output (fastest of up to three)."""
    best: dict[str, float] = {}
    for _ in range(3):
        forget_indexes()
        started = time.perf_counter()
        output = asyncio.run(judge.judge(synthesis=synthesis, evidence=evidence))
        judged = time.perf_counter()
        check_judge_output(output, synthesis=synthesis, evidence=evidence)
        guarded = time.perf_counter()
        for key, seconds in (("judge_s", judged - started), ("guard_s", guarded - judged)):
            best[key] = min(best.get(key, seconds), seconds)
        if guarded - started > REPEAT_UNDER_S:
            break
    return best


def forget_indexes() -> None:
    """Drop the remembered evidence indexes and cached per-text results, so a repeat measures
    the work again."""
    import importlib
    import pkgutil

    import gsar_otel.core
    import gsar_otel.judges.staged

    names = [f"{package.__name__}.{info.name}"
             for package in (gsar_otel.core, gsar_otel.judges.staged)
             for info in pkgutil.iter_modules(package.__path__)]
    for name in names:
        module = importlib.import_module(name)
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", None) == name:
                clear()
        indexes = getattr(module, "_INDEXES", None)
        if isinstance(indexes, dict):
            indexes.clear()


def exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float | None:
    """Least-squares slope of log(seconds) on log(size); None with fewer than two points."""
    points = [(math.log(s), math.log(max(t, 1e-6))) for s, t in zip(sizes, seconds, strict=True)]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    denominator = sum((x - mean_x) ** 2 for x, _ in points)
    if denominator == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / denominator


def byte_sizes(largest: int) -> list[int]:
    """1 KB, then x~3.16 steps up to ``largest``."""
    sizes, size = [], 1_000
    while size <= largest:
        sizes.append(size)
        size = round(size * math.sqrt(10))
    return sizes


def run_series(name: str, judge: Judge, sizes: Sequence[int],
               build: Callable[[int], tuple[str, EvidenceSet]], unit: str) -> dict[str, Any]:
    """Time one series and fit its exponents."""
    points = []
    for size in sizes:
        synthesis, evidence = build(size)
        timing = time_case(judge, synthesis, evidence)
        if size <= OPERATIONS_UP_TO[0]:
            timing |= count_case(judge, synthesis, evidence)
        points.append({"size": size, **timing})
        print(f"  {name}: {size:>10} {unit}  judge {timing['judge_s'] * 1000:9.1f} ms  "
              f"guard {timing['guard_s'] * 1000:8.1f} ms", file=sys.stderr)
    fitted = points[len(points) // 2:] if len(points) >= 4 else points
    counted = [p for p in points if "judge_ops" in p]
    counted = (counted[len(counted) // 2:] if len(counted) >= 4
               else counted[1:] if len(counted) == 3 else counted)
    return {
        "series": name, "unit": unit, "points": points,
        "judge_exponent": exponent([p["size"] for p in fitted], [p["judge_s"] for p in fitted]),
        "guard_exponent": exponent([p["size"] for p in fitted], [p["guard_s"] for p in fitted]),
        "judge_ops_exponent": exponent([p["size"] for p in counted],
                                       [p["judge_ops"] for p in counted]),
        "guard_ops_exponent": exponent([p["size"] for p in counted],
                                       [p["guard_ops"] for p in counted]),
    }


OPERATIONS_UP_TO = [30_000]
"""Sizes up to this also have their operations counted (``--operations-up-to``)."""


def count_case(judge: Judge, synthesis: str, evidence: EvidenceSet) -> dict[str, float]:
    """Operations (Python line events plus characters handed to the text modules' regexes,
    ``tests/support/cost.py``) of one judgement and of the guard: independent of the machine
    and its load, unlike seconds."""
    import importlib
    import pkgutil

    import gsar_otel.core
    import gsar_otel.judges.staged
    from tests.support.cost import operations

    modules = [importlib.import_module(f"{package.__name__}.{info.name}")
               for package in (gsar_otel.core, gsar_otel.judges.staged)
               for info in pkgutil.iter_modules(package.__path__)]
    forget_indexes()
    holder: list[Any] = []
    judged = operations(lambda: holder.append(asyncio.run(
        judge.judge(synthesis=synthesis, evidence=evidence))), modules=modules)
    guarded = operations(check_judge_output, holder[0], synthesis=synthesis, evidence=evidence,
                         modules=modules)
    return {"judge_ops": float(judged), "guard_ops": float(guarded)}


HOSTILE_ANSWERS = {
    "answer 'A. '": "A. ",
    "answer '1.'": "1.",
    "answer 'a.'": "a.",
    "answer 'cpu rose and '": "cpu rose and ",
    "answer 'a1-b_2.'": "a1-b_2.",
}
"""ReDoS-shaped answers: each used to cost quadratic time or worse somewhere in judging."""


def hostile_series(judge: Judge, max_bytes: int) -> list[dict[str, Any]]:
    """The ReDoS shapes grown like the answer, one evidence item grown of "a-", and answer
    numbers against evidence numbers growing together (the old all-pairs comparison)."""
    sizes = byte_sizes(max_bytes)
    fixed = EvidenceSet.coerce(rows(20))
    series = [run_series(name, judge, sizes, lambda n, u=unit: (grow(u, n), fixed), "bytes")
              for name, unit in HOSTILE_ANSWERS.items()]
    series.append(run_series(
        "evidence item 'a-'", judge, sizes,
        lambda n: ("CPU hit 97%.", EvidenceSet.coerce([grow("a-", n)], max_item_chars=n,
                                                      max_total_chars=n)), "bytes"))
    series.append(run_series(
        "answer numbers x evidence numbers", judge, [n for n in (100, 300, 1_000, 3_000, 10_000)
                                                     if n * 10 <= max_bytes],
        lambda n: (" ".join(f"v {i}.5 ms." for i in range(n)), EvidenceSet.coerce(
            [" ".join(f"{j}.25" for j in range(i * 20, (i + 1) * 20)) for i in range(n)],
            max_items=n, max_total_chars=10**9)), "answer numbers (x20 evidence)"))
    return series


def measure(judge_name: str, max_bytes: int, max_items: int,
            hostile_bytes: int = 0) -> dict[str, Any]:
    """Every series for one judge."""
    judge = make_judge(judge_name)
    fixed_evidence = EvidenceSet.coerce(rows(20))
    fixed_answer = grow(ANSWER_UNIT, 1_000)
    item_counts = [n for n in (1, 3, 10, 30, 100, 300, 1_000, 2_000, 5_000) if n <= max_items]
    series = [
        run_series("answer", judge, byte_sizes(max_bytes),
                   lambda n: (grow(ANSWER_UNIT, n), fixed_evidence), "bytes"),
        run_series("evidence items", judge, item_counts,
                   lambda n: (fixed_answer, EvidenceSet.coerce(rows(n), max_items=n)), "items"),
        run_series("evidence bytes", judge, byte_sizes(max_bytes),
                   lambda n: (fixed_answer, EvidenceSet.coerce(
                       [grow(" ".join(ROW_UNITS) + " ", n)], max_item_chars=n,
                       max_total_chars=n)), "bytes"),
    ]
    if hostile_bytes:
        series += hostile_series(judge, hostile_bytes)
    return {"judge": judge_name, "machine": machine(), "series": series}


def render(report: dict[str, Any]) -> str:
    """The table: time per size for each series, and the fitted exponents."""
    lines = [f"cost growth of judge {report['judge']!r} and the integrity guard", ""]
    for series in report["series"]:
        ops = ""
        if series.get("judge_ops_exponent") is not None:
            ops = (f"; in operations judge {series['judge_ops_exponent']:.2f}, guard "
                   f"{series['guard_ops_exponent']:.2f}")
        lines.append(f"{series['series']} ({series['unit']}): exponent in seconds judge "
                     f"{series['judge_exponent']:.2f}, guard {series['guard_exponent']:.2f}{ops}")
        lines.append(f"  {'size':>10}  {'judge ms':>10}  {'guard ms':>9}  {'judge ops':>12}  "
                     f"{'guard ops':>11}")
        for point in series["points"]:
            judge_ops = f"{point['judge_ops']:>12,.0f}" if "judge_ops" in point else f"{'-':>12}"
            guard_ops = f"{point['guard_ops']:>11,.0f}" if "guard_ops" in point else f"{'-':>11}"
            lines.append(f"  {point['size']:>10}  {point['judge_s'] * 1000:>10.1f}  "
                         f"{point['guard_s'] * 1000:>9.1f}  {judge_ops}  {guard_ops}")
        lines.append("")
    return "\n".join(lines)


def plot(report: dict[str, Any], path: str) -> None:
    """A log-log PNG of every series (needs matplotlib, the ``plot`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    count = len(report["series"])
    columns = min(count, 4)
    rows_ = (count + columns - 1) // columns
    figure, grid = plt.subplots(rows_, columns, figsize=(5 * columns, 4 * rows_), squeeze=False)
    axes = [axis for row in grid for axis in row]
    for axis in axes[count:]:
        axis.set_visible(False)
    for axis, series in zip(axes, report["series"], strict=False):
        sizes = [p["size"] for p in series["points"]]
        for key, label in (("judge_s", "judge"), ("guard_s", "guard")):
            fit = series[f"{key.removesuffix('_s')}_exponent"]
            axis.loglog(sizes, [max(p[key], 1e-6) for p in series["points"]], marker="o",
                        label=f"{label} (slope {fit:.2f})")
        title = series["series"]
        if series.get("judge_ops_exponent") is not None:
            title += (f"\nops slope judge {series['judge_ops_exponent']:.2f}, "
                      f"guard {series['guard_ops_exponent']:.2f}")
        axis.set_title(title, fontsize=9)
        axis.set_xlabel(series["unit"])
        axis.set_ylabel("seconds")
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="lexical", help="judge name (default lexical)")
    parser.add_argument("--max-bytes", type=int, default=10_000_000)
    parser.add_argument("--max-items", type=int, default=5_000)
    parser.add_argument("--hostile-bytes", type=int, default=1_000_000,
                        help="largest ReDoS-shaped input (0: skip those series)")
    parser.add_argument("--operations-up-to", type=int, default=OPERATIONS_UP_TO[0],
                        metavar="N", help="also count operations for sizes up to N (slow: "
                                          "about 30x the time; 0: never)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--plot", metavar="PNG", help="write a log-log plot")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when an exponent is over {GROWTH_LIMIT}")
    args = parser.parse_args(argv)
    OPERATIONS_UP_TO[0] = args.operations_up_to
    report = measure(args.judge, args.max_bytes, args.max_items, args.hostile_bytes)
    print(json.dumps(report, indent=2) if args.json else render(report))
    if args.plot:
        plot(report, args.plot)
    worst = max((s[k] or 0.0) for s in report["series"]
                for k in ("judge_exponent", "guard_exponent", "judge_ops_exponent",
                          "guard_ops_exponent"))
    return 1 if args.check and worst > GROWTH_LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
