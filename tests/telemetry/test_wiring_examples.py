"""The three evidence wirings of ``examples/wiring/`` run as scripts (offline, StagedJudge) and
their answer proceeds: with ``on_low="raise"`` a call that gathered no evidence would raise
``GroundingError`` naming ``no_evidence`` instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "wiring"


@pytest.mark.parametrize("script", ["tools_inside.py", "evidence_extractor.py",
                                    "record_by_hand.py"])
def test_each_wiring_example_runs_and_proceeds(script: str) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={"PATH": "/usr/bin:/bin", "OTEL_SDK_DISABLED": "true"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["CPU on host db-prod-1 reached 97% at 14:02.",
                                        "grounded: proceed"]
