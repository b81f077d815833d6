"""End to end with a Node.js agent: the OpenTelemetry JS SDK from the npm registry exports
GenAI-semconv spans over OTLP/HTTP protobuf to a running sidecar, whose grounding span lands in
the agent's trace as a child of the run span, read back from a real Phoenix: the grounded run as
a tee (the agent exports to Phoenix and to the sidecar), the over-reaching one in line (only to
the sidecar, which forwards)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gsar_otel import semconv as sc
from tests.sidecar.readback import new_project, read_back, sidecar_into_phoenix
from tests.sidecar.support import CPU_ROW, GROUNDED, OVERREACHING
from tests.support.phoenix import PhoenixServer

AGENT = Path(__file__).parent / "node_agent"
pytestmark = pytest.mark.e2e
AGENT_SPANS = 4  # invoke_agent, chat, execute_tool, chat


@pytest.fixture(scope="module")
def node_agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent with its packages installed in a scratch directory (the tree stays clean)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "the Node.js end-to-end test needs node and npm on PATH"
    where = tmp_path_factory.mktemp("node-agent")
    for name in ("package.json", "agent.mjs"):
        shutil.copy(AGENT / name, where / name)
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=where, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return where


@pytest.mark.parametrize(("placement", "answer", "decision"), [
    ("tee", GROUNDED, "proceed"), ("inline", OVERREACHING, "replan")])
def test_a_node_agent_is_judged_in_its_own_trace_in_phoenix(
        node_agent: Path, phoenix: PhoenixServer, placement: str, answer: str,
        decision: str) -> None:
    project = new_project(f"node-{placement}")
    running = sidecar_into_phoenix(phoenix, project, inline=placement == "inline")
    try:
        urls = [f"{running.http}/v1/traces"]
        if placement == "tee":
            urls.append(phoenix.otlp_http_endpoint)
        done = subprocess.run(["node", "agent.mjs", ",".join(urls), answer, CPU_ROW, project],
                              cwd=node_agent, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        ids = json.loads(done.stdout.strip().splitlines()[-1])
        running.wait_for(lambda: len(running.evaluations()) == 1, "the grounding span")
    finally:
        running.stop()
    (evaluation,) = running.evaluations()
    assert f"{evaluation.context.trace_id:032x}" == ids["trace_id"]
    assert evaluation.parent is not None and f"{evaluation.parent.span_id:016x}" == ids["span_id"]
    assert [f"{link.context.span_id:016x}" for link in evaluation.links] == [ids["span_id"]]
    attributes = evaluation.attributes
    assert attributes is not None
    assert attributes[sc.GSAR_FUNCTION] == "node-bot"
    assert attributes[sc.GSAR_EVIDENCE_COUNT] == 1
    read_back(phoenix, project, trace_id=ids["trace_id"], run_span_id=ids["span_id"],
              agent_spans=AGENT_SPANS, decision=decision, convention="genai")
