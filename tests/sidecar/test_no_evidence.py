"""The sidecar's two ways in follow the evaluator's one no-evidence rule: ``POST /v1/judge`` and a
traced run without tool results abstain with the degraded reason ``no_evidence``."""

from __future__ import annotations

import json

from tests.sidecar.support import start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post


def test_v1_judge_without_evidence_abstains_no_evidence() -> None:
    running = start_sidecar()
    try:
        for payload in ({"answer": "x", "evidence": []}, {"answer": "x"},
                        {"answer": "CPU on db-prod-1 reached 97.2%.", "evidence": ""}):
            status, body = post(running, json.dumps(payload).encode(), path="/v1/judge")
            assert status == 200
            result = json.loads(body)
            assert result["final_decision"] == "abstain", payload
            assert result["degraded_reason"] == "no_evidence"
            assert result["final_score"] == 0.0
    finally:
        running.stop()


def test_a_traced_run_without_tool_results_abstains_no_evidence() -> None:
    running = start_sidecar()
    try:
        assert post(running, otlp_json(agent_spans()[1]))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run")
        (span,) = running.evaluations()
        assert span.attributes is not None
        assert span.attributes["gsar.decision"] == "abstain"
        assert span.attributes["gsar.degraded.reason"] == "no_evidence"
    finally:
        running.stop()
