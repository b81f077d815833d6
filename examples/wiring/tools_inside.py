"""Wiring 1: the tools run inside the decorated call.

    python examples/wiring/tools_inside.py

A tool decorated with ``@tool_evidence`` records what it returns as evidence of the ``@grounded``
call it runs in, so decorate the function that calls the tools and returns the answer.
"""

from __future__ import annotations

from gsar_otel import grounded, tool_evidence


@tool_evidence(source="query_metrics")
def query_metrics(host: str) -> dict[str, object]:
    return {"host": host, "cpu_pct": 97.2, "ts": "14:02:01"}


@grounded(judge="staged", on_low="raise")
def answer(host: str) -> str:
    row = query_metrics(host)  # recorded as evidence E1
    return f"CPU on host {row['host']} reached 97% at 14:02."


if __name__ == "__main__":
    print(answer("db-prod-1"))
    print("grounded: proceed")
