"""Running one framework's agent against a real sidecar and reading its verdicts.

Each framework lives in a venv of its own (``requirements/<name>.txt``, built by
``venvs.sh`` / ``make framework-venvs`` under ``$GSAR_FRAMEWORK_VENVS``, default
``~/.cache/gsar-otel/frameworks``, one directory per requirements file content). The agent
script runs there as a subprocess and exports OTLP/HTTP to the sidecar (the in-process server
the end-to-end tests use), which forwards everything to a receiver (``--forward``) and judges
each run with the offline judge; a recording wrapper keeps the answer and evidence the judge was
given, so a test can check them exactly.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from gsar_otel import semconv as sc
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.judge import StagedJudge
from tests.sidecar.support import start_sidecar

HERE = Path(__file__).parent
AGENTS = HERE / "agents"
REQUIREMENTS = HERE / "requirements"

ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01"
CORRECT = "CPU on db-prod-1 reached 97.2% at 14:02."
WRONG_NUMBER = "CPU on db-prod-1 reached 99.9% at 14:02."
UNSTATED_CAUSE = ("CPU on db-prod-1 reached 97.2% at 14:02. The spike was caused by a runaway "
                  "query from the billing service.")
ANSWERS = (CORRECT, WRONG_NUMBER, UNSTATED_CAUSE)


def venvs_root() -> Path:
    return Path(os.environ.get("GSAR_FRAMEWORK_VENVS")
                or Path.home() / ".cache" / "gsar-otel" / "frameworks")


VERCEL = "vercel"
"""The Node.js environment of ``vercel_agent/`` (npm packages instead of a venv)."""
VERCEL_AGENT = HERE / "vercel_agent"


def venv_dir(name: str) -> Path:
    """Where the venv of ``requirements/<name>.txt`` lives (keyed by the file's content); for
    ``vercel``, the npm install of ``vercel_agent/package.json``."""
    source = (VERCEL_AGENT / "package.json" if name == VERCEL
              else REQUIREMENTS / f"{name}.txt")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
    return venvs_root() / f"{name}-{digest}"


def built(name: str) -> Path:
    """The environment's directory; skips when it is not built, fails in CI (``CI=true``)."""
    where = venv_dir(name)
    if not (where / ".installed").exists():
        message = (f"the {name} framework environment is not built at {where} "
                   f"(make framework-venvs, or tests/conformance/venvs.sh {name})")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return where


def agent_command(venv: str, script: str) -> list[str]:
    """How to start ``script`` in its environment (a Node.js agent runs from beside its
    node_modules, so it is copied there)."""
    where = built(venv)
    if venv == VERCEL:
        shutil.copy(VERCEL_AGENT / script, where / script)
        return ["node", str(where / script)]
    return [str(where / "bin" / "python"), str(AGENTS / script)]


def installed_versions(name: str, packages: tuple[str, ...]) -> dict[str, str]:
    """Versions of ``packages`` in the venv, from its ``pip freeze`` (npm's package.json files
    for the Node.js agent)."""
    if name == VERCEL:
        modules = venv_dir(name) / "node_modules"
        return {p: json.loads((modules / p / "package.json").read_text()).get("version", "?")
                if (modules / p / "package.json").exists() else "?" for p in packages}
    frozen: dict[str, str] = {}
    freeze = venv_dir(name) / "freeze.txt"
    for line in freeze.read_text().splitlines() if freeze.exists() else ():
        package, _, version = line.partition("==")
        frozen[package.strip().lower().replace("_", "-")] = version.strip()
    return {p: frozen.get(p, "?") for p in packages}


class RecordingJudge:
    """The offline judge, keeping what it was asked to judge: answer -> evidence texts."""

    def __init__(self) -> None:
        self.inner = StagedJudge()
        self.name = getattr(self.inner, "name", "staged")
        self.seen: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> Any:
        with self._lock:
            self.seen[synthesis] = [item.content for item in evidence.items]
        return await self.inner.judge(synthesis=synthesis, evidence=evidence)


class _Receiver(http.server.BaseHTTPRequestHandler):
    paths: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Verdict:
    """What the sidecar made of one run."""

    answer: str
    trace_id: str
    span: ReadableSpan | None
    """The ``gsar.evaluate`` span in the run's trace (None: none was written)."""
    skipped: ReadableSpan | None
    judged_answer: str | None
    evidence: list[str] | None

    def attribute(self, key: str) -> Any:
        span = self.span or self.skipped
        return None if span is None or span.attributes is None else span.attributes.get(key)

    @property
    def decision(self) -> str | None:
        value = self.attribute(sc.GSAR_DECISION)
        return str(value) if value is not None else None


@dataclass
class Outcome:
    verdicts: list[Verdict]
    forwarded: int
    seconds: float
    stderr: str = ""
    judged: list[str] = field(default_factory=list)
    """Every answer text the judge was given (to show a mismatch)."""


def run_agent(venv: str, script: str, *, mode: str = "", env: dict[str, str] | None = None,
              answers: tuple[str, ...] = ANSWERS, timeout_s: float = 240.0) -> Outcome:
    """Run ``agents/<script>`` in the ``venv`` framework venv against a sidecar with a receiver
    behind ``--forward``; one verdict per answer, in order."""
    import time

    command = agent_command(venv, script)
    _Receiver.paths = []
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    judge = RecordingJudge()
    running = start_sidecar(judge=judge, decision_wait_s=0.3, max_age_s=60.0,
                            forward=f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces")
    started = time.monotonic()
    try:
        command = [*command, "--endpoint", running.http,
                   *(["--mode", mode] if mode else []), *answers]
        child_env = {k: v for k, v in os.environ.items()
                     if not k.startswith(("OTEL_", "PYTHONPATH", "VIRTUAL_ENV"))}
        child_env.update({"PYTHONPATH": str(AGENTS), "PYTHONUNBUFFERED": "1",
                          "OTEL_SDK_DISABLED": "false", **(env or {})})
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                              cwd=Path(command[1]).parent, env=child_env)
        assert done.returncode == 0, f"{script} failed:\n{done.stderr[-4000:]}"
        runs = json.loads(done.stdout.strip().splitlines()[-1])["runs"]
        ids = [r["trace_id"] for r in runs]

        def marked() -> set[str]:
            spans = running.exporter.get_finished_spans()
            return {f"{s.context.trace_id:032x}" for s in spans
                    if s.name.startswith(sc.SPAN_EVALUATE) or s.name == sc.SPAN_SIDECAR_SKIPPED}

        running.wait_for(lambda: set(ids) <= marked(), "a verdict or a skipped mark per run",
                         bound_s=60.0)
        spans = running.exporter.get_finished_spans()
    finally:
        running.stop()
        receiver.shutdown()
    verdicts = []
    for run in runs:
        in_trace = [s for s in spans if f"{s.context.trace_id:032x}" == run["trace_id"]]
        evaluation = next((s for s in in_trace if s.name.startswith(sc.SPAN_EVALUATE)), None)
        skipped = next((s for s in in_trace if s.name == sc.SPAN_SIDECAR_SKIPPED), None)
        verdicts.append(Verdict(answer=run["answer"], trace_id=run["trace_id"],
                                span=evaluation, skipped=skipped,
                                judged_answer=run["answer"] if run["answer"] in judge.seen
                                else None, evidence=judge.seen.get(run["answer"])))
    return Outcome(verdicts=verdicts, forwarded=len(_Receiver.paths),
                   seconds=time.monotonic() - started, stderr=done.stderr,
                   judged=list(judge.seen))

