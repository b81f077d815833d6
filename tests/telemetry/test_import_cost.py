"""Importing and decorating stay cheap: the heavy modules load on the first call, not before."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.core.model import GSARThresholds
from gsar_otel.decorator.api import THRESHOLD_DEFAULTS, grounded

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("pydantic", "asyncio", "opentelemetry", "gsar_otel.core.evaluator", "gsar_otel.core.model",
         "gsar_otel.config", "gsar_otel.core.evidence")

_PROBE = textwrap.dedent("""
    import json, sys

    def heavy():
        return sorted(m for m in sys.modules
                      if any(m == p or m.startswith(p + ".") for p in {heavy!r}))

    from gsar_otel import GroundingError, flush, grounded

    @grounded
    def bare(question):
        return "The answer."

    @grounded(mode="background", thresholds={{"proceed": 0.9}}, contradiction_penalty=0.3,
              k_max=1, sample_rate=0.5, name="options")
    async def with_options(question):
        return "The answer."

    after_decorating = heavy()
    answer = bare("why?")
    print(json.dumps({{"after_decorating": after_decorating, "answer": answer,
                      "after_first_call": heavy()}}))
""")


def test_importing_grounded_and_decorating_loads_no_heavy_module_until_the_first_call() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["after_decorating"] == []
    assert report["answer"] == "The answer."
    # the first call did load what judging needs, so the probe above can see a heavy module
    assert {"pydantic", "asyncio", "gsar_otel.core.evaluator"} <= set(report["after_first_call"])


def test_the_decorators_threshold_defaults_are_those_of_gsar_thresholds() -> None:
    assert dict(THRESHOLD_DEFAULTS) == GSARThresholds().model_dump()


THRESHOLD_CASES: list[dict[str, Any]] = [
    {"proceed": 0.9},
    {"regenerate": 0.5},
    {"proceed": 0.7, "regenerate": 0.7},
    {"proceed": 1, "regenerate": 0},
    {"proceed": 0.5},
    {"regenerate": 0.9},
    {"proceed": "high"},
    {"proceed": True},
    {"regenerate": math.nan},
    {"proceed": -0.1},
    {"proceed": 0.9, "bogus": 0.1},
]


@pytest.mark.parametrize("thresholds", THRESHOLD_CASES, ids=[str(c) for c in THRESHOLD_CASES])
def test_thresholds_checked_at_decoration_agree_with_gsar_thresholds(
        thresholds: dict[str, Any]) -> None:
    try:
        expected: GSARThresholds | None = GSARThresholds(**thresholds)
    except ValueError as error:
        expected, model_error = None, str(error)
    if expected is not None:
        core = grounded(thresholds=thresholds)(lambda: "x").__gsar_grounded__  # type: ignore[attr-defined]
        assert core._build_thresholds() == expected
        return
    with pytest.raises(ValueError) as raised:
        grounded(thresholds=thresholds)
    message = str(raised.value)
    assert message.startswith("thresholds")
    if "bogus" not in thresholds:  # the model words an unknown key its own way
        assert message in model_error
