"""Wiring 3: record evidence by hand with ``record_evidence``.

    python examples/wiring/record_by_hand.py

For evidence that comes from no decorated tool (a message from a queue, an alert payload, a
retrieved document), call ``record_evidence`` inside the ``@grounded`` call.
"""

from __future__ import annotations

from gsar_otel import grounded, record_evidence

ALERT = "[alert] HighCPU fired_at=14:02:05 host=db-prod-1 cpu_pct=97.2"


@grounded(judge="staged", on_low="raise")
def answer(alert: str) -> str:
    record_evidence(alert, source="alertmanager")
    return "CPU on host db-prod-1 reached 97% at 14:02."


if __name__ == "__main__":
    print(answer(ALERT))
    print("grounded: proceed")
