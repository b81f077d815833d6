"""Rendering the HTML report (``--gsar-report``): time and page size by number of judgements.

Each judgement has its own answer (three sentences), three claims (one of them contradicted)
and five evidence rows, as a case file's would; every text goes through the Redactor, as in a
real run. Prints the median of ``--repeat`` renders per size.

Run::

    python benchmarks/report_html.py                   # 100, 1000 and 5000 judgements
    python benchmarks/report_html.py --sizes 200 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, table

from pytest_gsar.records import JudgementRecord
from pytest_gsar.report import Redactor
from pytest_gsar.report_html import render_html
from pytest_gsar.report_meta import RunInfo


def record(i: int) -> JudgementRecord:
    """One judgement with texts of its own."""
    texts = (("grounded", f"CPU on host db-prod-{i} reached 97% at 14:02."),
             ("ungrounded", f"The outage of case {i} was caused by a config push."),
             ("contradicted", f"Memory on host db-prod-{i} reached 45%."))
    claims = [{"bucket": b, "text": t, "type": "tool_match", "refs": ["E1"], "adjustments": [],
               "weight": 1.0} for b, t in texts]
    evidence = [{"id": f"E{j}", "type": "tool_match",
                 "content": f"[tool=query_metrics row=14:02:0{j}] host=db-prod-{i} cpu_pct=97.2"}
                for j in range(1, 6)]
    return JudgementRecord(
        key=f"tests/gsar_cases.jsonl::case-{i}", nodeid="tests/gsar_cases.jsonl", score=0.42,
        passed=i % 3 != 0, decision="replan", judge="lexical",
        counts={"grounded": 1, "ungrounded": 1, "contradicted": 1},
        details={"synthesis": " ".join(t for _, t in texts), "claims": claims,
                 "evidence": evidence, "explanation": "1 grounded, 1 ungrounded, 1 contradicted",
                 "judge": {"backend": "lexical"}, "settings": {"proceed": 0.8}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = []
    info = RunInfo(rows=(("time (UTC)", "2026-01-01T00:00:00+00:00"),))
    for size in args.sizes:
        records = [record(i) for i in range(size)]
        samples, page = [], ""
        for _ in range(args.repeat):
            start = time.perf_counter()
            page = render_html(records, mask=Redactor(), info=info)
            samples.append(time.perf_counter() - start)
        median = statistics.median(samples)
        rows.append((str(size), f"{median:.3f}", f"{median / size * 1e3:.2f}",
                     f"{len(page.encode()) / 1e6:.2f}"))
    print(table(("judgements", "median s", "ms / judgement", "page MB"), rows))
    print(f"machine: {machine()}")


if __name__ == "__main__":
    main()
