"""Trace judging beside ``/v1/judge``: how long after it is sent an ordinary agent run is judged,
alone and while ``/v1/judge`` is loaded with heavy requests, on a fresh ``gsar sidecar`` (the
offline ``staged`` judge, default limits) on loopback.

- ``alone``: one agent run (a tool span and its agent span, OTLP/JSON), nothing else;
- ``under_load``: 20 concurrent ``/v1/judge`` requests of 2,000 evidence items of about 140
  characters each, and one agent run sent a second later.

Reported per row: the seconds from sending the run to its ``runs_total{outcome="judged"}``
count on ``/metrics`` (``--decision-wait 0.1`` included), and for ``under_load`` the answers to
the ``/v1/judge`` requests by status and the ``rejected_judge_busy`` count.

Run::

    python benchmarks/sidecar_judge_share.py            # both rows, a markdown table
    python benchmarks/sidecar_judge_share.py alone
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reliability_network import Sidecar, agent_run

EVIDENCE = [f"host=db-{n} cpu_pct={n % 100}.5 mem_pct={n % 77}.1 disk_io={n * 7 % 1000} "
            f"net_rx={n * 13 % 999}kB region=eu-west-{n % 3} at=14:{n % 60:02d}:01 status=ok "
            f"pid={n * 31} user=svc-{n % 9} msg=request served in {n % 500} ms"
            for n in range(2_000)]
"""2,000 evidence items of about 140 characters (280 KB, under the 400,000-character cap)."""
ANSWER = ("CPU on db-7 reached 7.5% at 14:07. Memory on db-8 was 8.1%. The disk io on db-9 "
          "was 63 and region eu-west-0.")
JUDGED = re.compile(r'gsar_sidecar_runs_total\{gsar_sidecar_outcome="judged",[^}]*\} (\d+)')


def judged(sidecar: Sidecar) -> int:
    return sum(int(n) for n in JUDGED.findall(sidecar.get("/metrics")[1].decode()))


def time_one_run(sidecar: Sidecar, bound_s: float = 300.0) -> float:
    before = judged(sidecar)
    started = time.perf_counter()
    assert sidecar.post(agent_run()) == 200
    while judged(sidecar) == before:
        if time.perf_counter() - started > bound_s:
            return float("inf")
        time.sleep(0.02)
    return round(time.perf_counter() - started, 2)


def row_alone() -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "0.1")
    try:
        time_one_run(sidecar)  # warm-up: imports and the judge's first call
        return {"run_judged_after_s": [time_one_run(sidecar) for _ in range(3)]}
    finally:
        sidecar.stop()


def row_under_load() -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "0.1")
    try:
        time_one_run(sidecar)  # warm-up
        body = json.dumps({"answer": ANSWER, "evidence": EVIDENCE}).encode()
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            answers = pool.map(lambda _: sidecar.post(body, path="/v1/judge", timeout=600),
                               range(20))
            time.sleep(1)
            run_s = time_one_run(sidecar)
            codes = sorted(answers)
        busy = sidecar.counts().get("spans{rejected_judge_busy}")
        return {"run_judged_after_s": run_s,
                "judge_answers": {str(c): codes.count(c) for c in sorted(set(codes))},
                "rejected_judge_busy": busy}
    finally:
        sidecar.stop()


ROWS = {"alone": row_alone, "under_load": row_under_load}


def main() -> None:
    names = sys.argv[1:] or list(ROWS)
    print("| row | result |\n|---|---|")
    for name in names:
        print(f"| {name} | {json.dumps(ROWS[name]())} |", flush=True)


if __name__ == "__main__":
    main()
