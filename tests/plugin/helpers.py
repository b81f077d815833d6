"""Sample answers and helpers for the pytest plugin's tests."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

METRIC_ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2"
GOOD = "CPU on host db-prod-1 reached 97% at 14:02."
"""Grounded in METRIC_ROW: S = 1.0, proceed (with the scripted judge and the staged one)."""
HALF = "CPU on host db-prod-1 reached 97% at 14:02. The outage was caused by a config push."
"""One grounded claim and one ungrounded causal claim: S = 0.625, replan."""
CONTRADICTED = "CPU on host db-prod-1 reached 45% at 14:02."
"""Contradicts METRIC_ROW: S = 0.0, replan."""



def case(case_id: str, synthesis: str, evidence: Any = (METRIC_ROW,), **extra: Any
         ) -> dict[str, Any]:
    """One case-file line as a dict."""
    return {"id": case_id, "synthesis": synthesis, "evidence": list(evidence)
            if isinstance(evidence, tuple) else evidence, **extra}


def write_cases(pytester: pytest.Pytester, name: str, cases: Iterable[Mapping[str, Any]]
                ) -> Path:
    """Write a case file (one JSON object per line) into the pytester directory."""
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def read_json(path: Path) -> Any:
    """The JSON document at ``path``."""
    return json.loads(path.read_text(encoding="utf-8"))


def write_ini(pytester: pytest.Pytester, **options: str) -> None:
    """Write the inner session's pytest.ini with these ini options."""
    lines = ["[pytest]", "asyncio_default_fixture_loop_scope = function",
             *(f"{name} = {value}" for name, value in options.items())]
    pytester.makefile(".ini", pytest="\n".join(lines) + "\n")
