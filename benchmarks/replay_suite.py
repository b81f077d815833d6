"""Replaying 1,000 recorded cases through the pytest plugin, against 1,000 trivial tests and
against the same replay done with pytest-recording / vcrpy.

In a temporary directory this generates:

- ``trivial/``: one test module with 1,000 trivial tests (``assert i >= 0``, parametrised);
- ``lexical/gsar_cases.jsonl``: 1,000 recorded agent answers with their evidence, judged by the
  offline StagedJudge (deterministic, so the plugin needs no cassette for it);
- ``anthropic/gsar_cases.jsonl``: the same 1,000 answers judged by the Anthropic judge, whose
  verdicts are recorded once (``--gsar-record-mode=once``) against a local fake Messages API and
  then replayed from the cassettes (``--gsar-record-mode=none``) with no server and no key (each
  verdict with the integrity guard's recorded report, see ``gsar_otel.core.guard_memo``);
- ``vcrpy/``: the same 1,000 answers the way a suite without the plugin would replay them: one
  parametrised test per case marked ``@pytest.mark.vcr`` (pytest-recording), each sending the
  judge's request through the real ``anthropic`` SDK, recorded once into one vcrpy cassette per
  test against the same fake server (``--record-mode=once``), then replayed with
  ``--record-mode=none --block-network``; the verdict is scored by gsar's core
  (``GSAREvaluator``: integrity guard, score, decision), and must be ``proceed``, as the plugin
  requires of a case without ``expect``.

Each suite runs in a fresh ``python -m pytest -q`` process several times (interleaved, so drift
hits every suite alike); the table gives the median wall time of each, its spread and its ratio
to the trivial suite. Target: replaying the 1,000 recorded cases through the plugin costs at
most 1.2x the trivial tests, and less than the vcrpy replay. The machine's load average is
printed with the figures. Run::

    python benchmarks/replay_suite.py              # 1,000 cases, 5 runs each
    python benchmarks/replay_suite.py --suites trivial,anthropic,vcrpy --runs 7
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
import resource
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

TARGET = 1.2
"""Most the plugin's replay may cost, against the trivial suite (median wall time)."""
SUITES = ("trivial", "lexical", "anthropic replay", "vcrpy replay")
SHORT_NAMES = {"trivial": "trivial", "lexical": "lexical", "anthropic": "anthropic replay",
               "vcrpy": "vcrpy replay"}
REPLAY_KEY = "sk-ant-replay-placeholder"
"""The SDK will not start without a key; replaying sends nothing, so any value does."""

VCR_TEST = '''"""The recorded judgements replayed by pytest-recording, scored by gsar's core."""

import asyncio
import json
import pathlib

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.judges.anthropic import AnthropicJudge

CASES = [json.loads(line) for line in
         pathlib.Path(__file__).with_name("cases.jsonl").read_text().splitlines() if line]


@pytest.fixture(scope="module")
def vcr_config():
    return {"filter_headers": ["x-api-key", "authorization"]}


@pytest.fixture(scope="session")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="session")
def evaluator():
    return GSAREvaluator(AnthropicJudge())


@pytest.mark.vcr
@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case, loop, evaluator):
    result = loop.run_until_complete(evaluator.evaluate(
        report_synthesis=case["synthesis"], evidence_corpus=case["evidence"]))
    assert str(result.final_decision) == "proceed", result.final_judge_output.explanation
'''

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
                          ("anthropic replay", "anthropic"), ("vcrpy replay", "vcrpy")):
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
    # Not a gsar_*.jsonl name: the plugin leaves this suite's cases alone.
    (dirs["vcrpy replay"] / "cases.jsonl").write_text(lines)
    (dirs["vcrpy replay"] / "test_vcr_replay.py").write_text(VCR_TEST)
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
        command.append("--gsar-judge=staged")
    elif suite == "anthropic replay":
        command += ["--gsar-judge=anthropic", f"--gsar-record-mode={record_mode}"]
    elif suite == "vcrpy replay":
        command.append(f"--record-mode={record_mode}")
        if record_mode == "none":
            command.append("--block-network")
    return command


def run_suite(suite: str, directory: Path, *, env: dict[str, str], record_mode: str = "none"
              ) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run one suite in a fresh process; return its wall time and the finished process."""
    started = time.perf_counter()
    done = subprocess.run(pytest_command(suite, record_mode), cwd=directory, env=env,
                          capture_output=True, text=True, check=False, timeout=1800)
    return time.perf_counter() - started, done


def _children_cpu() -> float:
    """User plus system CPU seconds of the finished child processes so far: less sensitive to
    other work on the machine than wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def record_cassettes(suite: str, directory: Path) -> dict[str, Any]:
    """Record the suite's judge calls once, against the fake Messages API.

    The vcrpy suite replays against the URL it recorded from (vcrpy matches requests by host and
    port); the server is gone by then, and ``--block-network`` refuses any connection.
    """
    sys.path.insert(0, str(ROOT))
    from tests.support.fake_anthropic import FakeMessagesServer

    with FakeMessagesServer() as server:
        env = _environment(ANTHROPIC_BASE_URL=server.base_url,
                           ANTHROPIC_API_KEY="sk-ant-benchmark-placeholder")
        seconds, done = run_suite(suite, directory, env=env, record_mode="once")
        requests = len(server.message_requests)
        base_url = server.base_url
    _require_pass(f"recording the {suite} cassettes", done)
    pattern = "*.json" if suite == "anthropic replay" else "*.yaml"
    cassettes = [p for p in directory.rglob(pattern) if p.is_file()]
    recording = {"seconds": seconds, "requests": requests, "cassette_files": len(cassettes),
                 "cassette_bytes": sum(p.stat().st_size for p in cassettes),
                 "base_url": base_url}
    if suite == "anthropic replay":
        verdicts = [entry for path in cassettes
                    for entry in json.loads(path.read_text(encoding="utf-8"))["verdicts"].values()]
        recording["guard_reports"] = sum("guard" in entry["verdict"] for entry in verdicts)
        recording["verdicts"] = len(verdicts)
    return recording


def replay_environment(suite: str, recording: dict[str, Any] | None) -> dict[str, str]:
    """The environment a suite replays in: no key and no server for the plugin; for vcrpy the
    recorded URL (nothing listens there) and a placeholder key."""
    if suite == "vcrpy replay" and recording is not None:
        return _environment(ANTHROPIC_BASE_URL=recording["base_url"],
                            ANTHROPIC_API_KEY=REPLAY_KEY)
    return _environment()


def _require_pass(what: str, done: subprocess.CompletedProcess[str]) -> None:
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise SystemExit(f"{what} failed (exit {done.returncode}):\n{tail}")


def _outcome(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip("= ") if lines else ""


def measure(cases: int, runs: int, seed: int, workdir: Path | None = None,
            suites: Sequence[str] = SUITES) -> dict[str, Any]:
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
        recordings = {suite: record_cassettes(suite, dirs[suite])
                      for suite in ("anthropic replay", "vcrpy replay") if suite in suites}
        envs = {suite: replay_environment(suite, recordings.get(suite)) for suite in suites}
        times: dict[str, list[float]] = {suite: [] for suite in suites}
        cpu: dict[str, list[float]] = {suite: [] for suite in suites}
        outcomes: dict[str, str] = {}
        for suite in suites:  # warm the file-system cache and check every suite passes
            _, done = run_suite(suite, dirs[suite], env=envs[suite])
            _require_pass(f"the {suite} suite", done)
        loads = [os.getloadavg()[0]]
        for _ in range(runs):
            for suite in suites:
                before = _children_cpu()
                seconds, done = run_suite(suite, dirs[suite], env=envs[suite])
                cpu[suite].append(_children_cpu() - before)
                _require_pass(f"the {suite} suite", done)
                times[suite].append(seconds)
                outcomes[suite] = _outcome(done)
            loads.append(os.getloadavg()[0])
    summaries = {suite: {**summarize(values), "unit": "s", "outcome": outcomes[suite],
                         "runs": values, "cpu_median": summarize(cpu[suite])["median"]}
                 for suite, values in times.items()}
    return {"suites": summaries, "recording": recordings, "targets": targets_of(summaries),
            "load_during": {"min": min(loads), "max": max(loads)}}


def targets_of(summaries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The plugin's replay against the trivial suite (<= TARGET) and against vcrpy (< 1x)."""
    targets = []
    if "trivial" in summaries and "anthropic replay" in summaries:
        ratio = summaries["anthropic replay"]["median"] / summaries["trivial"]["median"]
        targets.append({"name": "pytest_gsar replay / trivial (median wall time)",
                        "value": ratio, "limit": TARGET, "passed": ratio <= TARGET})
    if "vcrpy replay" in summaries and "anthropic replay" in summaries:
        ratio = summaries["anthropic replay"]["median"] / summaries["vcrpy replay"]["median"]
        targets.append({"name": "pytest_gsar replay / vcrpy replay (median wall time)",
                        "value": ratio, "limit": 1.0, "passed": ratio < 1.0})
    return targets


def render(report: dict[str, Any]) -> str:
    """The report as plain-text tables."""
    suites = report["suites"]
    base = suites["trivial"]["median"] if "trivial" in suites else None
    cases = report["settings"]["cases"]
    cpu_base = suites["trivial"]["cpu_median"] if "trivial" in suites else None
    rows = [[suite, f"{s['median']:.2f}", f"{min(s['runs']):.2f}-{max(s['runs']):.2f}",
             f"{s['iqr']:.2f}", f"{s['median'] / base:.2f}x" if base else "-",
             f"{(s['median'] - base) / cases * 1000:.2f}" if base else "-",
             f"{s['cpu_median']:.2f}", f"{s['cpu_median'] / cpu_base:.2f}x" if cpu_base else "-",
             s["outcome"]]
            for suite, s in suites.items()]
    load = report["machine"]["load_average"]
    during = report["load_during"]
    out = [f"{cases} tests per suite, {report['settings']['runs']} runs each, interleaved "
           "(wall time of a fresh pytest process, seconds)",
           table(["suite", "median", "range", "IQR", "vs trivial", "extra ms/case", "CPU s",
                  "CPU vs trivial", "outcome"], rows), "",
           f"load average at start {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (1, 5, 15 min); "
           f"1-min load between rounds {during['min']:.2f}-{during['max']:.2f} "
           f"on {report['machine']['cores']} cores; PYTHONDONTWRITEBYTECODE="
           f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}"]
    for suite, recording in report["recording"].items():
        out.append(f"recording the {suite} cassettes once: {recording['seconds']:.1f} s, "
                   f"{recording['requests']} requests, {recording['cassette_files']} cassette "
                   f"file(s), {recording['cassette_bytes'] / 1e6:.1f} MB")
        if "guard_reports" in recording:
            out.append(f"  {recording['guard_reports']} of {recording['verdicts']} recorded "
                       f"verdicts carry the integrity guard's report (reused on replay while "
                       f"its digest matches; the guard runs for the rest)")
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
    parser.add_argument("--suites", default=",".join(SHORT_NAMES),
                        help="comma-separated suites to run: trivial, lexical, anthropic, vcrpy "
                             "(default: all)")
    args = parser.parse_args(argv)
    if args.cases < 1 or args.runs < 1:
        parser.error("--cases and --runs must be >= 1")
    chosen = [name.strip() for name in args.suites.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SHORT_NAMES]
    if unknown or not chosen:
        parser.error(f"--suites: unknown suite(s) {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(SHORT_NAMES)}")
    suites = [SHORT_NAMES[name] for name in SHORT_NAMES if name in chosen]
    started = time.perf_counter()
    report: dict[str, Any] = {"benchmark": "replay_suite", "machine": machine(),
                              "settings": {"cases": args.cases, "runs": args.runs,
                                           "seed": args.seed, "suites": suites}}
    report.update(measure(args.cases, args.runs, args.seed, args.workdir, suites))
    report["duration_s"] = time.perf_counter() - started
    print(json.dumps(report, indent=2) if args.json else render(report))
    missed = [t for t in report["targets"] if not t["passed"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
