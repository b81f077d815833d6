"""Hostile inputs, one row each: what was given, its size, seconds, peak memory and the outcome.

Library rows run ``GSAREvaluator`` with an offline judge (``--judge``: ``staged``, the default
without a key; default limits) in this process, with
``tracemalloc`` measuring the peak of Python allocations (which slows the run 2x-10x, most where
the code allocates most, so the seconds are upper bounds). CLI rows run ``gsar judge`` / ``gsar
bench`` in a child process and report its exit code and first stderr line. Run::

    python benchmarks/reliability_inputs.py            # the table
    python benchmarks/reliability_inputs.py --judge staged --no-cli
    python benchmarks/reliability_inputs.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gsar_otel import GSAREvaluator
from gsar_otel.judges.factory import make_judge

ROW = "host=db-prod-1 cpu_pct=97.2 p99_ms=850 ts=2024-05-01T14:02:01Z "


def _numbers(n: int) -> str:
    return "CPU " + " ".join(f"{i % 97}.{i % 10}% at {i % 24}:{i % 60:02d}" for i in range(n)) + "."


LIBRARY: dict[str, Callable[[], tuple[str, Any]]] = {
    "answer 'A. ' x 33k (100 KB)": lambda: ("A. " * 33_334, ["cpu_pct=97.2"]),
    "answer '1.' x 50k (100 KB)": lambda: ("1." * 50_000, ["cpu_pct=97.2"]),
    "answer 'a.' x 50k (100 KB)": lambda: ("a." * 50_000, ["cpu_pct=97.2"]),
    "answer 'cpu rose and ' x 7.7k (100 KB)": lambda: ("cpu rose and " * 7_700, ["cpu rose"]),
    "answer 'a1-b_2.' x 14k (100 KB)": lambda: ("x" + "a1-b_2." * 14_285, ["x"]),
    "answer 'cpu high and ' x 7.7k (100 KB)": lambda: ("cpu high and " * 7_700, ["cpu"]),
    "answer 'and was the ' x 8.3k (100 KB)": lambda: ("and was the " * 8_333, ["cpu"]),
    "20 items 'a-' x 10k (400 KB)": lambda: ("CPU hit 97%.", ["a-" * 10_000] * 20),
    "10k numbers in one sentence": lambda: (_numbers(10_000)[:100_000], ["x 1.1"]),
    "2k answer numbers vs 40k evidence numbers": lambda: (
        " ".join(f"v {i}.5 ms." for i in range(2_000)),
        [" ".join(f"{j}.25" for j in range(i * 20, (i + 1) * 20)) for i in range(2_000)]),
    "50,000-word sentence": lambda: (
        "CPU on db-prod-1 rose " + " ".join(f"w{i % 977}" for i in range(50_000)) + ".", [ROW]),
    "10 MB evidence item": lambda: ("CPU on db-prod-1 reached 97%.",
                                    [ROW * (10_000_000 // len(ROW))]),
    "5,000 evidence items": lambda: ("CPU on db-7 was 7.5%.",
                                     [f"host=db-{i} cpu_pct={i % 100}.5" for i in range(5_000)]),
    "NUL, lone surrogates, RTL, zero-width": lambda: (
        "CPU\x00 hit \u202e97%\u200b on db\ud800-prod-1.\ufeff", ["cpu_pct=97.2\x00 \u200f"]),
    "40-digit number": lambda: ("CPU was " + "1" * 40 + ".", ["cpu=" + "1" * 39 + "2"]),
}


def library_row(name: str, make: Callable[[], tuple[str, Any]],
                judge: str = "staged") -> dict[str, Any]:
    """One evaluation under tracemalloc."""
    answer, evidence = make()
    size = len(answer) + sum(len(e) for e in evidence)
    evaluator = GSAREvaluator(make_judge(judge))
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = evaluator.evaluate_sync(report_synthesis=answer, evidence_corpus=evidence)
        cut = [a.kind for a in result.adjustments if a.kind in ("synthesis_truncated",
                                                                  "invalid_characters")]
        outcome = (f"{result.final_decision.value} S={result.final_score:.2f}"
                   + (f" abstain: {result.final_judge_output.abstain_reason}"
                      if result.final_judge_output.abstained else "")
                   + (f" [{', '.join(cut)}]" if cut else "")
                   + (" [evidence cut]" if result.final_evidence.truncated else ""))
    except Exception as error:
        outcome = f"raised {type(error).__name__}: {error}"
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"input": name, "chars": size, "seconds": seconds, "peak_mb": peak / 1e6,
            "outcome": outcome}


def cli_rows(workdir: Path) -> list[dict[str, Any]]:
    """``gsar`` on hostile files and arguments, each in a child process."""
    gsar = str(Path(sys.executable).parent / "gsar")
    fifo = workdir / "pipe"
    os.mkfifo(fifo)
    deep = workdir / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    binary = workdir / "binary.jsonl"
    binary.write_bytes(b'{"id": "\xff"}\n')
    big = workdir / "big.txt"
    big.write_bytes(b"CPU hit 97%. " * (17 * 1024 * 1024 // 13))
    surrogate = b"CPU hit 97% \xff.".decode("utf-8", "surrogateescape")
    cases = [
        ("gsar judge --synthesis @/dev/zero", [gsar, "judge", "--synthesis", "@/dev/zero",
                                               "--evidence", "x"], 0),
        ("gsar judge --evidence @FIFO (no writer)", [gsar, "judge", "--synthesis", "x",
                                                     "--evidence", f"@{fifo}"], 0),
        ("gsar judge 100k-deep JSON evidence", [gsar, "judge", "--synthesis", "x", "--evidence",
                                                f"@{deep}"], deep.stat().st_size),
        ("gsar judge --json undecodable argument", [gsar, "judge", "--json", "--synthesis",
                                                    surrogate, "--evidence", "x"], 16),
        ("gsar judge 17 MiB answer file", [gsar, "judge", "--synthesis", f"@{big}",
                                           "--evidence", "x"], big.stat().st_size),
        ("gsar bench non-UTF-8 file", [gsar, "bench", str(binary)], binary.stat().st_size),
    ]
    rows = []
    for name, argv, size in cases:
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, timeout=300, check=False,
                              env={**os.environ, "GSAR_JUDGE": "staged"})
        seconds = time.perf_counter() - started
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()
        rows.append({"input": name, "chars": size, "seconds": seconds, "peak_mb": None,
                     "outcome": f"exit {done.returncode}: {first[-1] if first else ''}"})
    return rows


def render(rows: Sequence[dict[str, Any]]) -> str:
    """The table."""
    lines = [f"{'input':44} {'chars':>11} {'seconds':>8} {'peak MB':>8}  outcome"]
    for row in rows:
        peak = "-" if row["peak_mb"] is None else f"{row['peak_mb']:.1f}"
        lines.append(f"{row['input'][:44]:44} {row['chars']:>11,} {row['seconds']:>8.2f} "
                     f"{peak:>8}  {row['outcome'][:110]}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--no-cli", action="store_true", help="skip the gsar command rows")
    parser.add_argument("--judge", default="staged",
                        help="offline judge of the library rows (default staged)")
    args = parser.parse_args(argv)
    rows = []
    for name, make in LIBRARY.items():
        rows.append(library_row(name, make, args.judge))
        print(f"  {name}: {rows[-1]['seconds']:.2f} s", file=sys.stderr)
    if not args.no_cli:
        with tempfile.TemporaryDirectory() as workdir:
            rows += cli_rows(Path(workdir))
    print(json.dumps(rows, indent=2) if args.json else render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
