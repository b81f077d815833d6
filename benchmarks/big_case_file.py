"""Collecting a big case file: time and peak memory.

Writes a ``gsar_big.jsonl`` of about ``--mb`` megabytes (cases of about 1 KB: an answer and one
evidence row padded to 900 characters) into a temporary directory, then measures

- ``scan``: :func:`pytest_gsar.cases.scan_cases` in this process (wall time; peak traced Python
  memory in a second, traced pass);
- ``collect``: ``python -m pytest --collect-only -q`` on the file in a fresh process (wall time
  and peak resident memory of that process, pytest's own items included).

Run::

    python benchmarks/big_case_file.py            # 100 MB
    python benchmarks/big_case_file.py --mb 20 --json
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_gsar.cases import scan_cases  # noqa: E402


def write_file(path: Path, megabytes: int) -> int:
    """Write about ``megabytes`` MB of cases to ``path``; the number of cases."""
    target, size, count = megabytes * 2**20, 0, 0
    pad = "x" * 900
    with path.open("w", encoding="utf-8") as out:
        while size < target:
            row = json.dumps({"id": f"c{count}",
                              "synthesis": f"CPU on host db-{count} reached 97% at 14:02.",
                              "evidence": [f"host=db-{count} cpu_pct=97.2 {pad}"]}) + "\n"
            out.write(row)
            size += len(row)
            count += 1
    return count


def collect(directory: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of ``pytest --collect-only`` in a fresh process."""
    (directory / "pytest.ini").write_text("[pytest]\n")
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q",
                                "-p", "no:cacheprovider"], cwd=directory,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("pytest --collect-only failed")
    return elapsed, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        path = directory / "gsar_big.jsonl"
        cases = write_file(path, args.mb)
        start = time.perf_counter()
        scan_cases(path)
        scan_s = time.perf_counter() - start
        tracemalloc.start()
        scan_cases(path)
        scan_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        collect_s, collect_kib = collect(directory)
        result: dict[str, Any] = {
            "file_mb": round(path.stat().st_size / 2**20, 1), "cases": cases,
            "scan_s": round(scan_s, 2), "scan_peak_mib": round(scan_peak / 2**20, 1),
            "collect_s": round(collect_s, 2), "collect_peak_rss_mib": round(collect_kib / 1024),
        }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:22} {value}")


if __name__ == "__main__":
    main()
