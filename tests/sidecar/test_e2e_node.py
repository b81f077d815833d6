"""End to end with a Node.js agent: the OpenTelemetry JS SDK from the npm registry exports
GenAI-semconv spans over OTLP/HTTP protobuf to a running sidecar, whose grounding span lands in
the agent's trace as a child of the run span."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gsar_otel import semconv as sc
from tests.sidecar.support import CPU_ROW, GROUNDED, OVERREACHING, RunningSidecar, start_sidecar

AGENT = Path(__file__).parent / "node_agent"
pytestmark = pytest.mark.e2e


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


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar()
    yield running
    running.stop()


@pytest.mark.parametrize(("answer", "proceeds"), [(GROUNDED, True), (OVERREACHING, False)])
def test_a_node_agent_is_judged_in_its_own_trace(node_agent: Path, sidecar: RunningSidecar,
                                                 answer: str, proceeds: bool) -> None:
    done = subprocess.run(["node", "agent.mjs", f"{sidecar.http}/v1/traces", answer, CPU_ROW],
                          cwd=node_agent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    ids = json.loads(done.stdout.strip().splitlines()[-1])
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == 1, "the grounding span")
    (evaluation,) = sidecar.evaluations()
    assert f"{evaluation.context.trace_id:032x}" == ids["trace_id"]
    assert evaluation.parent is not None and f"{evaluation.parent.span_id:016x}" == ids["span_id"]
    attributes = evaluation.attributes
    assert attributes is not None
    assert attributes[sc.GSAR_FUNCTION] == "node-bot"
    assert attributes[sc.GSAR_EVIDENCE_COUNT] == 1
    assert (attributes[sc.GSAR_DECISION] == "proceed") is proceeds
