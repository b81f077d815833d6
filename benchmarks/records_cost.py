"""What the offline judges cost, side by side: the realistic answer set (3-5 sentence answers
over 2-10 KB of verbatim tool outputs) and N claims against N table rows.

Each realistic answer is judged three times by the judge alone (``judge.judge``, no evaluator)
and its best time kept; p50 and max are over the 240 answers. The table rows are a kubectl-style
table of N rows in items of 250 rows (the evaluator's item limit is 20,000 characters), the
answer N sentences each restating one row's restarts and memory. The records judge's targets:
p50 at most 10 ms and max at most 50 ms on the realistic set, 2,000 claims against 2,000 rows
under 2 s. ::

    python benchmarks/records_cost.py [--judge staged records] [--rows 250 500 1000 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

from _common import quantile
from realistic import SPLITS, load

from gsar_otel.core.evidence import EvidenceSet, coerce_evidence
from gsar_otel.judges.factory import make_judge

HEADER = "NAME                 CPU_PCT   MEM_MB   RESTARTS"
ROWS_PER_ITEM = 250


def best_of(judge: object, answer: str, evidence: EvidenceSet, times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        asyncio.run(judge.judge(synthesis=answer, evidence=evidence))  # type: ignore[attr-defined]
        best = min(best, time.perf_counter() - started)
    return best


def realistic(name: str) -> tuple[float, float]:
    judge = make_judge(name)
    seconds = []
    for case in load(SPLITS["dev"] + SPLITS["heldout"]):
        evidence = coerce_evidence([{"content": e["content"], "source": e.get("source")}
                                    for e in case["evidence"]])
        seconds.append(best_of(judge, case["answer"], evidence))
    return quantile(seconds, 0.5), max(seconds)


def table(name: str, n: int) -> tuple[float, int]:
    rows = [f"svc-{i:04d}-x{i % 7}   {i % 100}   {1000 + i}   {i % 13}" for i in range(n)]
    items = ["\n".join([HEADER, *rows[k:k + ROWS_PER_ITEM]])
             for k in range(0, n, ROWS_PER_ITEM)]
    answer = " ".join(f"Pod svc-{i:04d}-x{i % 7} has {i % 13} restarts and {1000 + i} MB."
                      for i in range(n))
    judge = make_judge(name)
    started = time.perf_counter()
    output = asyncio.run(judge.judge(synthesis=answer, evidence=EvidenceSet.coerce(items)))
    return time.perf_counter() - started, len(output.grounded_claims)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", nargs="+", default=["staged", "records"])
    parser.add_argument("--rows", nargs="+", type=int, default=[250, 500, 1000, 2000])
    args = parser.parse_args(argv)
    print("| judge | realistic set: ms p50 / max | "
          + " | ".join(f"{n} claims x {n} rows: s (grounded)" for n in args.rows) + " |")
    print("|---|---|" + "---|" * len(args.rows))
    for name in args.judge:
        p50, worst = realistic(name)
        cells = []
        for n in args.rows:
            seconds, grounded = table(name, n)
            cells.append(f"{seconds:.2f} ({grounded})")
        print(f"| `{name}` | {1000 * p50:.1f} / {1000 * worst:.1f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
