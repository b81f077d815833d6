"""Replaying 1,000 recorded cases through the pytest plugin, against 1,000 trivial tests.

In a temporary directory this generates:

- ``trivial/``: one test module with 1,000 trivial tests (``assert i >= 0``, parametrised);
- ``lexical/gsar_cases.jsonl``: 1,000 recorded agent answers with their evidence, judged by the
  offline LexicalJudge (deterministic, so the plugin needs no cassette for it);
- ``anthropic/gsar_cases.jsonl``: the same 1,000 answers judged by the Anthropic judge, whose
  verdicts are recorded once (``--gsar-record-mode=once``) against a local fake Messages API and
  then replayed from the cassettes (``--gsar-record-mode=none``) with no server and no key.

Each suite runs in a fresh ``python -m pytest -q`` process several times (interleaved, so drift
hits every suite alike); the table gives the median wall time of each and its ratio to the
trivial suite. Target: replaying the 1,000 recorded cases costs at most 1.5x the trivial tests.
Run::

    python benchmarks/replay_suite.py              # 1,000 cases, 5 runs each
    python benchmarks/replay_suite.py --json --cases 100 --runs 2
    python benchmarks/replay_suite.py --check      # exit 1 when the target is missed
    python benchmarks/replay_suite.py --workdir /tmp/replay   # keep the suites to profile one
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _common import machine, summarize, table, verdict  # noqa: E402

TARGET = 1.5
SUITES = ("trivial", "lexical", "anthropic replay")

HOSTS = ("db-prod-1", "db-prod-2", "api-gw-3", "cache-7", "queue-4", "web-9")
METRICS = (("cpu_pct", "CPU"), ("mem_pct", "memory"), ("disk_pct", "disk usage"))


def make_case(index: int, rng: random.Random) -> dict[str, Any]:
    """One recorded incident answer and its evidence: grounded, with numbers and times."""
    host = rng.choice(HOSTS)
    key, label = rng.choice(METRICS)
    value = round(rng.uniform(50, 99.9), 1)
    minute = rng.randrange(60)
    rps = rng.randrange(5, 5000)
    alert = f"A-{rng.randrange(1000, 9999)}"
    evidence = [
        f"[tool=query_metrics row=14:{minute:02d}:01] host={host} {key}={value}",
        f"[tool=query_metrics row=14:{minute:02d}:01] host={host} rps={rps}",
        f"[signal] alert_id={alert} fired_at=14:{minute:02d}:00 metric={key} severity=high",
    ]
    synthesis = (f"{label} on host {host} reached {value}% at 14:{minute:02d}. "
                 f"Alert {alert} fired at 14:{minute:02d}. The request rate was {rps} rps.")
    return {"id": f"incident-{index:04d}", "synthesis": synthesis, "evidence": evidence}


def write_suites(base: Path, cases: int, seed: int) -> dict[str, Path]:
    """Write the three suites under ``base``; return each suite's directory."""
    rng = random.Random(seed)
    rows = [make_case(i, rng) for i in range(cases)]
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    dirs = {}
    for suite, folder in (("trivial", "trivial"), ("lexical", "lexical"),
                          ("anthropic replay", "anthropic")):
        path = base / folder
        path.mkdir(parents=True)
        # An ini of its own keeps the project's pytest settings out of the measurement.
        (path / "pytest.ini").write_text("[pytest]\n")
        dirs[suite] = path
    (dirs["trivial"] / "test_trivial.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('i', range({cases}))\n"
        "def test_trivial(i):\n"
        "    assert i >= 0\n")
    (dirs["lexical"] / "gsar_cases.jsonl").write_text(lines)
    (dirs["anthropic replay"] / "gsar_cases.jsonl").write_text(lines)
    return dirs


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GSAR_", "OTEL_", "ANTHROPIC_", "PYTEST_"))}
    env.update(extra)
    return env


def pytest_command(suite: str, record_mode: str = "none") -> list[str]:
    """The pytest invocation for a suite."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if suite == "lexical":
        command.append("--gsar-judge=lexical")
    elif suite == "anthropic replay":
        command += ["--gsar-judge=anthropic", f"--gsar-record-mode={record_mode}"]
    return command


def run_suite(suite: str, directory: Path, *, env: dict[str, str], record_mode: str = "none"
              ) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run one suite in a fresh process; return its wall time and the finished process."""
    started = time.perf_counter()
    done = subprocess.run(pytest_command(suite, record_mode), cwd=directory, env=env,
                          capture_output=True, text=True, check=False, timeout=1800)
    return time.perf_counter() - started, done


def record_cassettes(directory: Path) -> dict[str, Any]:
    """Record the Anthropic judge's verdicts once, against the fake Messages API."""
    sys.path.insert(0, str(ROOT))
    from tests.support.fake_anthropic import FakeMessagesServer

    with FakeMessagesServer() as server:
        env = _environment(ANTHROPIC_BASE_URL=server.base_url,
                           ANTHROPIC_API_KEY="sk-ant-benchmark-placeholder")
        seconds, done = run_suite("anthropic replay", directory, env=env, record_mode="once")
        requests = len(server.message_requests)
    _require_pass("recording the anthropic cassettes", done)
    cassettes = [p for p in directory.rglob("*.json") if p.is_file()]
    return {"seconds": seconds, "requests": requests, "cassette_files": len(cassettes),
            "cassette_bytes": sum(p.stat().st_size for p in cassettes)}


def _require_pass(what: str, done: subprocess.CompletedProcess[str]) -> None:
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise SystemExit(f"{what} failed (exit {done.returncode}):\n{tail}")


def _outcome(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip("= ") if lines else ""


def measure(cases: int, runs: int, seed: int, workdir: Path | None = None) -> dict[str, Any]:
    """Set up the suites, record the cassettes, and time every suite ``runs`` times.

    The suites live in a temporary directory, or in ``workdir`` (kept, for profiling a suite).
    """
    with contextlib.ExitStack() as stack:
        if workdir is None:
            base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gsar-replay-")))
        else:
            if workdir.exists() and any(workdir.iterdir()):
                raise SystemExit(f"--workdir {workdir} must be empty or absent")
            base = workdir
        dirs = write_suites(base, cases, seed)
        recording = record_cassettes(dirs["anthropic replay"])
        env = _environment()
        times: dict[str, list[float]] = {suite: [] for suite in SUITES}
        outcomes: dict[str, str] = {}
        for suite in SUITES:  # warm the file-system cache and check every suite passes
            _, done = run_suite(suite, dirs[suite], env=env)
            _require_pass(f"the {suite} suite", done)
        for _ in range(runs):
            for suite in SUITES:
                seconds, done = run_suite(suite, dirs[suite], env=env)
                _require_pass(f"the {suite} suite", done)
                times[suite].append(seconds)
                outcomes[suite] = _outcome(done)
    summaries = {suite: {**summarize(values), "unit": "s", "outcome": outcomes[suite]}
                 for suite, values in times.items()}
    base = summaries["trivial"]["median"]
    targets = []
    for suite in ("lexical", "anthropic replay"):
        ratio = summaries[suite]["median"] / base
        targets.append({"name": f"{suite} / trivial (median wall time)", "value": ratio,
                        "limit": TARGET, "passed": ratio <= TARGET})
    return {"suites": summaries, "recording": recording, "targets": targets}


def render(report: dict[str, Any]) -> str:
    """The report as plain-text tables."""
    suites = report["suites"]
    base = suites["trivial"]["median"]
    cases = report["settings"]["cases"]
    rows = [[suite, f"{s['median']:.2f}", f"{s['iqr']:.2f}", f"{s['median'] / base:.2f}x",
             f"{(s['median'] - base) / cases * 1000:.2f}", s["outcome"]]
            for suite, s in suites.items()]
    out = [f"{cases} tests per suite, {report['settings']['runs']} runs each "
           "(wall time of a fresh pytest process, seconds)",
           table(["suite", "median", "IQR", "vs trivial", "extra ms/case", "outcome"], rows), ""]
    recording = report["recording"]
    out.append(f"recording the anthropic cassettes once: {recording['seconds']:.1f} s, "
               f"{recording['requests']} requests, {recording['cassette_files']} cassette "
               f"file(s), {recording['cassette_bytes'] / 1e6:.1f} MB")
    rows = [[t["name"], f"{t['value']:.2f}", f"<= {t['limit']}", verdict(t["passed"])]
            for t in report["targets"]]
    out += ["", "Targets", table(["target", "value", "limit", "result"], rows)]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 1 only with --check and a missed target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="tests per suite (default 1000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per suite (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the generated cases")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is missed")
    parser.add_argument("--workdir", type=Path,
                        help="write the suites here and keep them (default: a temporary directory)")
    args = parser.parse_args(argv)
    if args.cases < 1 or args.runs < 1:
        parser.error("--cases and --runs must be >= 1")
    started = time.perf_counter()
    report: dict[str, Any] = {"benchmark": "replay_suite", "machine": machine(),
                              "settings": {"cases": args.cases, "runs": args.runs,
                                           "seed": args.seed}}
    report.update(measure(args.cases, args.runs, args.seed, args.workdir))
    report["duration_s"] = time.perf_counter() - started
    print(json.dumps(report, indent=2) if args.json else render(report))
    missed = [t for t in report["targets"] if not t["passed"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
