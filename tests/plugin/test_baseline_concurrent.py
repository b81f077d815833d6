"""Two pytest runs updating one baseline at once keep each other's entries.

Each run reads the baseline when it starts and writes it when it ends. Two runs of disjoint case
files against one baseline used to keep only the last writer's entries (5 of 5 rounds kept 30 of
60). The runs here are held at a barrier after both have read the baseline and before either
writes, so the interleaving that lost entries happens on every run, not by chance; the update is
now a read-merge-write under an exclusive lock, so both runs' entries are kept.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gsar.baseline import BaselineEntry, load_baseline, merged_entries
from tests.plugin.helpers import GOOD, case, read_json, write_cases

ROOT = Path(__file__).resolve().parents[2]
CASES = 30
BARRIER_CONFTEST = """
import os
import time
from pathlib import Path


def pytest_collection_finish(session):
    # Both runs have read the baseline (pytest_configure) before either passes this point, and
    # both write it after (pytest_sessionfinish).
    here = Path(str(session.config.rootpath))
    run = os.environ["BARRIER_RUN"]
    (here / f"ready-{run}").write_text("")
    others = [name for name in ("a", "b") if name != run]
    waited = 0.0
    while not all((here / f"ready-{name}").exists() for name in others):
        if waited > 300:
            raise RuntimeError("the other run never reached the barrier")
        time.sleep(0.05)
        waited += 0.05
"""


def test_two_concurrent_updates_of_one_baseline_keep_every_entry(
        gsar_pytester: pytest.Pytester) -> None:
    gsar_pytester.makeconftest(BARRIER_CONFTEST)
    for run in ("a", "b"):
        write_cases(gsar_pytester, f"gsar_{run}.jsonl",
                    [case(f"{run}{n}", GOOD) for n in range(CASES)])
    baseline = gsar_pytester.path / "baseline.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    runs = {run: subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"gsar_{run}.jsonl",
         "--gsar-judge=staged", "--gsar-baseline=baseline.json", "--gsar-update-baseline"],
        cwd=gsar_pytester.path, env={**env, "BARRIER_RUN": run}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True) for run in ("a", "b")}
    outputs = {run: process.communicate(timeout=600)[0] for run, process in runs.items()}
    for run, process in runs.items():
        assert process.returncode == 0, outputs[run][-3000:]
        assert f"{CASES} passed" in outputs[run], outputs[run][-3000:]
    entries = read_json(baseline)["entries"]
    assert sorted(entries) == sorted(f"gsar_{run}.jsonl::{run}{n}"
                                     for run in ("a", "b") for n in range(CASES))
    assert {entry["decision"] for entry in entries.values()} == {"proceed"}
    assert sorted(p.name for p in baseline.parent.iterdir() if p.name.endswith(".tmp")) == []


def _entry(score: float) -> BaselineEntry:
    return BaselineEntry(score=score, decision="proceed", judge="staged")


def test_the_merge_keeps_what_another_run_changed_since_this_run_read_the_baseline(
        tmp_path: Path) -> None:
    read = {"kept": _entry(0.9), "judged": _entry(0.5), "vanished": _entry(0.7),
            "rewritten": _entry(0.6)}
    # Meanwhile another run rewrote "rewritten", added "theirs" and dropped "kept".
    current = {"judged": _entry(0.5), "vanished": _entry(0.7), "rewritten": _entry(0.8),
               "theirs": _entry(1.0)}
    ours = {"judged": _entry(1.0), "ours": _entry(0.95)}
    merged = merged_entries(current, read=read, judged=ours, vanished={"vanished", "rewritten"})
    assert merged == {"judged": _entry(1.0), "ours": _entry(0.95), "rewritten": _entry(0.8),
                      "theirs": _entry(1.0)}
    assert load_baseline(tmp_path / "missing.json") == {}
