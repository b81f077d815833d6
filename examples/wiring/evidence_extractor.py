"""Wiring 2: the tools ran earlier in the agent loop; ``evidence=`` hands their results over.

    python examples/wiring/evidence_extractor.py

The usual agent shape: a loop calls the tools, then a final function writes the answer. Decorate
the final function and give ``evidence=`` a function of the call (its ``args``, ``kwargs`` and
``result``) that returns the evidence: text, or a list of strings, dicts or tool rows.
"""

from __future__ import annotations

from typing import Any

from gsar_otel import GroundedCall, grounded


def tool_results(call: GroundedCall) -> list[Any]:
    return call.kwargs["observations"]


@grounded(judge="staged", on_low="raise", evidence=tool_results)
def final_answer(*, observations: list[Any]) -> str:
    return "CPU on host db-prod-1 reached 97% at 14:02."


if __name__ == "__main__":
    # What the agent loop gathered before it asked for the final answer.
    gathered = [{"host": "db-prod-1", "cpu_pct": 97.2, "ts": "14:02:01"}]
    print(final_answer(observations=gathered))
    print("grounded: proceed")
