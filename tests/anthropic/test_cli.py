"""`gsar judge --judge anthropic` through ANTHROPIC_BASE_URL, and the fake server run on its own."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

from gsar_otel import cli
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from tests.anthropic.conftest import API_KEY, INCIDENT_ANSWER
from tests.support.fake_anthropic import (
    FakeMessagesServer,
    claim,
    overloaded,
    verdict,
    verdict_message,
)
from tests.support.servers import free_port, wait_for_http

EVIDENCE_LINES = ("[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2\n"
                  "[tool=query_metrics row=14:02:01] host=db-prod-1 rps=12.4")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def anthropic_env(fake_anthropic: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)


@pytest.mark.usefixtures("anthropic_env")
def test_gsar_judge_with_the_anthropic_judge_talks_to_the_configured_base_url(
        fake_anthropic: FakeMessagesServer, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["judge", "--synthesis", INCIDENT_ANSWER, "--evidence", EVIDENCE_LINES,
                     "--judge", "anthropic", "--model", "claude-sonnet-4-6", "--json"])

    out = capsys.readouterr()
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["final_decision"] == "proceed"
    assert result["judge_name"] == "anthropic"
    assert result["judge_model"] == "claude-sonnet-4-6"
    request = fake_anthropic.last_request
    assert request.body["model"] == "claude-sonnet-4-6"
    assert '<item id="E2" type="tool_match">' in request.user_text()
    assert API_KEY not in out.out + out.err


@pytest.mark.usefixtures("anthropic_env")
def test_gsar_judge_reports_a_contradiction_the_model_found(
        fake_anthropic: FakeMessagesServer, capsys: pytest.CaptureFixture[str]) -> None:
    fake_anthropic.enqueue(verdict_message(verdict(
        grounded=[claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC", refs=["E1"])],
        contradicted=[claim("Request rate dropped to 12 RPS at the same time", refs=["E2"])],
    )))
    code = cli.main(["judge", "--synthesis", INCIDENT_ANSWER, "--evidence", EVIDENCE_LINES,
                     "--judge", "anthropic"])
    out = capsys.readouterr().out
    assert code == 1
    assert "contradicted" in out and "decision: regenerate" in out


@pytest.mark.usefixtures("anthropic_env")
def test_gsar_judge_survives_an_overloaded_api_and_says_so(
        fake_anthropic: FakeMessagesServer, capsys: pytest.CaptureFixture[str]) -> None:
    fake_anthropic.enqueue(*(overloaded() for _ in range(3)))
    code = cli.main(["judge", "--synthesis", INCIDENT_ANSWER, "--evidence", EVIDENCE_LINES,
                     "--judge", "anthropic"])
    out = capsys.readouterr().out
    assert code == 1
    assert "judge abstained: judge model call failed: OverloadedError (HTTP 529)" in out


def test_gsar_judge_without_a_key_exits_2_and_says_how_to_set_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["judge", "--synthesis", "x.", "--evidence", "y", "--judge", "anthropic"])
    err = capsys.readouterr().err
    assert code == 2
    assert "ANTHROPIC_API_KEY" in err and "StagedJudge" in err


def test_the_fake_server_runs_standalone_for_record_mode_tools() -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_anthropic", "--port", str(port)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", timeout_s=30)
        client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=f"http://127.0.0.1:{port}",
                                          max_retries=0)
        result = asyncio.run(AnthropicJudge(client=client).judge_verdict(
            synthesis="CPU on db-prod-1 reached 97%.",
            evidence=EvidenceSet.coerce("host=db-prod-1 cpu_pct=97.2")))
        assert result.error_type is None
        assert [c.evidence_refs for c in result.output.grounded_claims] == [("E1",)]
    finally:
        process.terminate()
        stdout, _ = process.communicate(timeout=10)
    assert process.returncode == 0
    assert stdout.strip() == f"http://127.0.0.1:{port}"
