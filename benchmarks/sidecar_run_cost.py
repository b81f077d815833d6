"""What one pathological run costs the sidecar's judging: an agent run whose answer states
``--claims`` numeric sentences against ``--rows`` tool results of one metric row each (the
issue's limit case: 1,000 x 1,000), judged by ``gsar sidecar --judge staged`` in a fresh
process on loopback (``benchmarks/reliability_network.py``'s harness).

Reported per row: seconds from sending the run to its count on ``/metrics`` (the time a judging
thread is held by it), the outcome and reason it was counted under, and the seconds until a
small ordinary run sent right after it was judged. Extra sidecar flags go after ``--``::

    python benchmarks/sidecar_run_cost.py                       # 1,000 x 1,000, then 100 x 100
    python benchmarks/sidecar_run_cost.py --claims 1000 --rows 1000 -- --max-run-claims 0
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.reliability_network import Sidecar


def _kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: str, parent: str, name: str, attributes: list[dict[str, Any]]
          ) -> dict[str, Any]:
    return {"traceId": trace, "spanId": span, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": "1000", "endTimeUnixNano": "2000", "attributes": attributes}


def run_body(trace: str, claims: int, rows: int) -> bytes:
    """One GenAI run: ``rows`` execute_tool spans and an answer of ``claims`` sentences."""
    answer = " ".join(f"Host web-{i} CPU reached {i % 100}.{i % 7}% at 14:{i % 60:02d} UTC."
                      for i in range(claims))
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                         "finish_reason": "stop"}])
    root = "a" * 16
    spans = [_span(trace, root, "", "invoke_agent bot", [
        _kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "bot"),
        _kv("gen_ai.output.messages", final)])]
    for i in range(rows):
        row = (f"host=web-{i} cpu_pct={(i * 13) % 100}.{i % 9} p99_ms={i * 3} "
               f"at=14:{i % 60:02d}:01")
        spans.append(_span(trace, f"{i + 1:016x}", root, "execute_tool get_metrics", [
            _kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", "get_metrics"),
            _kv("gen_ai.tool.call.id", f"call_{i}"), _kv("gen_ai.tool.call.result", row)]))
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        _kv("service.name", "bench")]}, "scopeSpans": [{"spans": spans}]}]}).encode()


def runs(sidecar: Sidecar) -> dict[str, int]:
    text = sidecar.get("/metrics")[1].decode()
    return {f"{outcome}{{{reason}}}": int(value) for outcome, reason, value in re.findall(
        r'^gsar_sidecar_runs_total\{gsar_sidecar_outcome="(\w+)",'
        r'gsar_sidecar_reason="([^"]+)"\} (\d+)$', text, re.M)}


def notes(sidecar: Sidecar, name: str) -> dict[str, int]:
    return {k: v for k, v in sidecar.counts().items() if k.startswith(name)}


def measure(claims: int, rows: int, flags: list[str]) -> dict[str, Any]:
    sidecar = Sidecar("--decision-wait", "0.2", *flags)
    try:
        sent = time.monotonic()
        assert sidecar.post(run_body("1" * 32, claims, rows)) == 200
        small_sent = time.monotonic()
        assert sidecar.post(run_body("2" * 32, 3, 3)) == 200
        big_s = small_s = None
        end = time.monotonic() + 600
        while time.monotonic() < end and (big_s is None or small_s is None):
            counted = sum(runs(sidecar).values())
            now = time.monotonic()
            if counted >= 1 and small_s is None:
                small_s = now - small_sent  # the first counted (the small one, or the big)
            if counted >= 2 and big_s is None:
                big_s = now - sent
            time.sleep(0.02)
        return {"claims": claims, "rows": rows, "flags": " ".join(flags) or "(defaults)",
                "both_counted_s": round(big_s or -1, 2), "first_counted_s": round(small_s or -1, 2),
                "runs": runs(sidecar), "judging_budget": notes(sidecar, "judging_budget")}
    finally:
        sidecar.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, nargs="*", default=[1000, 100])
    parser.add_argument("--rows", type=int, nargs="*", default=[1000, 100])
    parser.add_argument("flags", nargs="*", help="extra gsar sidecar flags (after --)")
    args = parser.parse_args()
    print("| claims x rows | flags | both runs counted (s) | first run counted (s) | runs |")
    print("|---|---|---|---|---|")
    for claims, rows in zip(args.claims, args.rows, strict=True):
        row = measure(claims, rows, args.flags)
        print(f"| {claims} x {rows} | `{row['flags']}` | {row['both_counted_s']} | "
              f"{row['first_counted_s']} | {json.dumps(row['runs'])} "
              f"{json.dumps(row['judging_budget']) if row['judging_budget'] else ''} |",
              flush=True)


if __name__ == "__main__":
    main()
