"""End to end: ``gsar demo`` (the installed command) exporting its trace into a real Phoenix,
configured exactly as docs/backends.md says (traces endpoint, protocol, project resource
attribute)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from gsar_otel import semconv
from tests.support.phoenix import PROJECT_RESOURCE_ATTRIBUTE, PhoenixServer

pytestmark = pytest.mark.e2e

GSAR = Path(sys.executable).with_name("gsar")


@pytest.mark.parametrize("protocol", ["http/protobuf", "grpc"])
def test_gsar_demo_trace_arrives_in_phoenix_with_agent_tool_and_evaluator_spans(
    phoenix: PhoenixServer, protocol: str, tmp_path: Path
) -> None:
    project = f"gsar-demo-{protocol.replace('/', '-')}-{uuid.uuid4().hex[:8]}"
    endpoint = phoenix.otlp_grpc_endpoint if protocol == "grpc" else phoenix.otlp_http_endpoint
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": protocol,
        "OTEL_RESOURCE_ATTRIBUTES": f"{PROJECT_RESOURCE_ATTRIBUTE}={project}",
        "OTEL_SERVICE_NAME": "incident-agent",
    }
    completed = subprocess.run([str(GSAR), "demo"], capture_output=True, text=True, env=env,
                               cwd=tmp_path, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert f"8 span(s) exported to OTLP {protocol} to {endpoint}" in completed.stdout
    assert completed.stderr == ""  # no export errors (metrics stay off OTLP: traces endpoint)

    spans = phoenix.wait_for_spans(project, count=8)
    kinds = sorted((s["name"], s["span_kind"]) for s in spans)
    assert kinds == sorted([
        ("incident_agent.run", "AGENT"),
        ("execute_tool get_alert", "TOOL"), ("execute_tool query_metrics", "TOOL"),
        ("execute_tool query_metrics", "TOOL"), ("execute_tool search_logs", "TOOL"),
        ("gsar.evaluate incident_agent.final_answer", "EVALUATOR"),
        ("gsar.judge", "UNKNOWN"), ("gsar.judge", "UNKNOWN"),
    ])
    [agent] = [s for s in spans if s["name"] == "incident_agent.run"]
    [evaluate] = [s for s in spans if s["span_kind"] == "EVALUATOR"]
    judges = sorted((s for s in spans if s["name"] == semconv.SPAN_JUDGE),
                    key=lambda s: s["attributes"][semconv.GSAR_JUDGE_ROUND])
    assert evaluate["parent_id"] == agent["context"]["span_id"]
    assert all(j["parent_id"] == evaluate["context"]["span_id"] for j in judges)
    assert evaluate["attributes"][semconv.GSAR_DECISION] == "proceed"
    assert evaluate["attributes"][semconv.GSAR_REGENERATIONS] == 1
    assert [(j["attributes"][semconv.GSAR_JUDGE_ACTION], j["attributes"]["gsar.judge.decision"])
            for j in judges] == [("initial", "regenerate"), ("regenerate", "proceed")]
    claims = [e["attributes"] for e in evaluate["events"] if e["name"] == semconv.EVENT_CLAIM]
    assert [c[semconv.GSAR_CLAIM_VERDICT] for c in claims] == ["grounded"] * 4
    # The round that held back the unsupported cause is searchable in Phoenix.
    assert phoenix.filter_span_ids(project, "gsar.judge.decision == 'regenerate'") == [
        judges[0]["context"]["span_id"]]
