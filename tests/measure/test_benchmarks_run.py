"""The benchmarks still run and report the agreed shape (timings are not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cost

ROOT = Path(__file__).resolve().parents[2]
CALL_CASES = {
    "undecorated", "one span (floor)", "@grounded background, paced",
    "@grounded background, sparse", "@grounded background, burst",
    "@grounded inline, instant judge", "scoring + integrity guard",
}
IMPORT_STATEMENTS = {
    "import opentelemetry.sdk.trace", "import gsar_otel", "from gsar_otel import grounded",
    "import pydantic; class M(BaseModel)", "from gsar_otel import grounded, after pydantic + SDK",
}


def run_benchmark(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_overhead_quick_json_reports_every_case_import_and_target() -> None:
    report = run_benchmark("overhead.py", "--quick", "--json", "--iterations", "400",
                           "--import-runs", "2")
    assert report["benchmark"] == "overhead"
    assert set(report["machine"]) >= {"cpu", "cores", "python", "os", "packages"}
    assert set(report["calls"]) == CALL_CASES
    for stats in report["calls"].values():
        assert set(stats) >= {"median", "p95", "iqr", "stdev", "n"}
        assert stats["n"] == 400
        assert 0 < stats["median"] <= stats["p95"]
    assert set(report["imports"]) == IMPORT_STATEMENTS
    for stats in report["imports"].values():
        assert stats["n"] == 2 and stats["median"] > 0
        assert isinstance(stats["forbidden_modules"], list)
    assert len(report["targets"]) == 5
    for target in report["targets"]:
        assert set(target) >= {"name", "value", "limit", "passed"}
        assert isinstance(target["passed"], bool)


def test_replay_suite_runs_a_small_suite_and_reports_both_ratios() -> None:
    report = run_benchmark("replay_suite.py", "--json", "--cases", "5", "--runs", "1")
    assert report["benchmark"] == "replay_suite"
    assert set(report["suites"]) == {"trivial", "lexical", "anthropic replay", "vcrpy replay"}
    for stats in report["suites"].values():
        assert stats["n"] == 1 and stats["median"] > 0
        assert stats["outcome"].startswith("5 passed")
    # Both replays recorded their five judgements once against the fake Messages API.
    for suite in ("anthropic replay", "vcrpy replay"):
        assert report["recording"][suite]["requests"] == 5
        assert report["recording"][suite]["cassette_files"] >= 1
    assert report["recording"]["anthropic replay"]["guard_reports"] == 5  # replayed with them
    assert [t["name"] for t in report["targets"]] == [
        "pytest_gsar replay / trivial (median wall time)",
        "pytest_gsar replay / vcrpy replay (median wall time)"]
