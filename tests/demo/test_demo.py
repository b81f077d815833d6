"""``gsar demo``: the example incident agent, its recovery, its output and its exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.cli import demo_agent, main
from gsar_otel.core.capture import collect_evidence
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput, safe_default_judge_output
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.plugins import hookimpl, register
from tests.support.fake_anthropic import (
    FakeMessagesServer,
    RecordedRequest,
    ScriptedResponse,
    all_grounded_verdict,
    forced_tool,
    tool_use_message,
    verdict_message,
)

GSAR = Path(sys.executable).with_name("gsar")
CAUSAL = demo_agent.OVERREACHING_CLAIM
# Every fact of the first answer is grounded: CPU (1.00), the request rate's drop (its metrics
# row states the value before and the change, 1.00), the push (1.00), the alert (signal, 0.90);
# the cause is an ungrounded inference (0.60): S = 3.9 / 4.5 = 0.867, which the default bar
# (0.80) would let through and the demo's (0.90) holds at regenerate. The rewrite drops the
# cause and proceeds.
TREND = "the request rate dropped to 12.4 requests per second."
ALERT = "Alert A-9912 fired at 14:02:00 UTC with high severity."
CPU_AND_TREND = f"CPU utilisation on db-prod-1 reached 97.2% at 14:02:01 UTC and {TREND}"
PUSH = "Config push cfg-4471 was applied to db-prod-1 at 14:01:30."


def run_demo(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["demo", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def round_section(output: str, number: int) -> str:
    match = re.search(rf"^Round {number} .*?(?=^\S|\Z)", output, re.MULTILINE | re.DOTALL)
    assert match, f"no Round {number} in the output:\n{output}"
    return match.group(0)


# --- the command ---------------------------------------------------------------------------------


def test_demo_shows_the_causal_claim_ungrounded_then_recovers_to_proceed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_demo(capsys)
    assert code == 0
    first = round_section(out, 0)
    assert re.search(r"^Round 0 \(initial\): S = 0\.867 -> regenerate$", first, re.MULTILINE)
    [causal_row] = [line for line in first.splitlines() if CAUSAL in line]
    assert re.match(r"\s+\d+\s+UNGROUNDED\s+inference\s+0\.60\s", causal_row)
    [trend_row] = [line for line in first.splitlines() if TREND in line]
    assert re.match(r"\s+\d+\s+grounded\s+tool_match\s+1\.00\s+E3\s", trend_row)
    assert "UNGROUNDED" not in first.replace(causal_row, "")  # only the cause is caught
    [alert_row] = [line for line in first.splitlines() if ALERT in line]
    assert re.match(r"\s+\d+\s+grounded\s+signal_match\s+0\.90\s+E1\s", alert_row)
    assert "grounded      tool_match" in first  # the facts are grounded
    second = round_section(out, 1)
    assert second.startswith("Round 1 (regenerate): S = 1.000 -> proceed")
    assert CAUSAL not in second and TREND in second
    trajectory = out.split("Trajectory", 1)[1]
    assert re.search(r"^\s+0\s+initial\s+0\.867\s+regenerate$", trajectory, re.MULTILINE)
    assert re.search(r"^\s+1\s+regenerate\s+1\.000\s+proceed$", trajectory, re.MULTILINE)
    final = out.split("Final answer", 1)[1]
    assert final.startswith(" (proceed, S = 1.000, 1 regeneration(s), 0 replan(s))")
    answer = " ".join(line.strip() for line in final.split("Held back")[0].splitlines()[1:])
    assert answer == f"{CPU_AND_TREND} {ALERT} {PUSH}"
    assert "Held back as not grounded" in final
    assert [line for line in final.splitlines() if line.startswith("  - ")] == [
        f"  - {CAUSAL}"]


def test_demo_prints_a_span_summary_not_raw_span_json_by_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_demo(capsys)
    assert code == 0
    telemetry = out.split("\nTelemetry\n", 1)[1]
    assert "8 span(s), shown here only" in telemetry
    assert re.search(r"^  incident_agent\.run  \(trace [0-9a-f]{32}\)$", telemetry, re.MULTILINE)
    assert re.search(r"^    gsar\.evaluate incident_agent\.final_answer  gsar\.score=1\.000 "
                     r"gsar\.decision=proceed gsar\.rounds=2 gsar\.degraded=false "
                     r"\[4 gsar\.claim events\]$", telemetry, re.MULTILINE)
    assert len(re.findall(r"^      gsar\.judge  gsar\.judge\.round=\d", telemetry,
                          re.MULTILINE)) == 2
    assert "gsar.decisions{proceed=1}" in telemetry
    assert "gsar.claims{grounded=4}" in telemetry
    assert '"trace_id"' not in out + err  # the SDK's console JSON only comes with --console


def test_demo_console_flag_prints_the_sdk_span_json_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_demo(capsys, "--console")
    assert code == 0
    assert '"name": "gsar.evaluate incident_agent.final_answer"' in err
    assert '"gsar.decision": "proceed"' in err
    assert '"name": "gsar.claim"' in err
    assert "Trajectory" in out and '"trace_id"' not in out


def test_demo_json_carries_the_whole_trajectory(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_demo(capsys, "--json", "--repeat", "2")
    assert code == 0
    document = json.loads(out)
    assert document["judge"] == "staged"
    assert document["thresholds"] == {"proceed": 0.9, "regenerate": 0.7}
    assert len(document["runs"]) == 2
    for run in document["runs"]:
        result = run["result"]
        first, last = result["trajectory"][0], result["trajectory"][-1]
        assert first["decision"] == "regenerate"
        assert [(c["text"], c["type"]) for c in first["judge_output"]["ungrounded_claims"]] == [
            (CAUSAL, "inference")]
        assert last["action"] == "regenerate" and last["decision"] == "proceed"
        assert result["final_decision"] == "proceed" and result["degraded"] is False
        assert run["answer"] == result["final_report"] and CAUSAL not in run["answer"]


def test_demo_exits_1_when_the_answer_cannot_be_recovered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class AbstainingJudge:
        name = "always-abstain"

        async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
            return safe_default_judge_output("this judge never decides")

    class Plugin:
        @hookimpl
        def gsar_make_judge(self, name: str, model: str | None) -> Any:
            return AbstainingJudge() if name == "always-abstain" else None

        @hookimpl
        def gsar_judge_names(self) -> list[str]:
            return ["always-abstain"]

    register(Plugin())
    code, out, _ = run_demo(capsys, "--judge", "always-abstain")
    assert code == 1
    assert "judge: always-abstain" in out
    assert re.search(r"^Final answer \(abstain, .*degraded: ", out, re.MULTILINE)
    assert re.search(r"^\s+1\s+replan\s", out.split("Trajectory", 1)[1], re.MULTILINE)


@pytest.mark.parametrize(("argv", "message"), [
    (["--repeat", "0"], "--repeat must be between 1 and"),
    (["--judge", "no-such-judge"],
     "unknown judge 'no-such-judge'; available: staged, anthropic, records, tiered, lexical"),
    (["--serve-seconds", "5"], "--serve-seconds needs --prometheus-port"),
    (["--prometheus-port", "70000"], "--prometheus-port must be between 0 and 65535"),
    (["--judge", "anthropic"], "AnthropicJudge needs an Anthropic API key"),
])
def test_demo_rejects_bad_input_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_demo(capsys, *argv)
    assert code == 2
    assert err.startswith("gsar demo: error: ") and message in err
    assert out == ""


def test_demo_judges_with_claude_when_an_api_key_is_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    fake_anthropic: FakeMessagesServer,
) -> None:
    def judge_like_claude(request: RecordedRequest) -> ScriptedResponse:
        # A verdict that finds the causal sentence ungrounded, everything else grounded.
        data = all_grounded_verdict(request)
        causal = [c for c in data["grounded_claims"] if c["text"] == CAUSAL]
        data["grounded_claims"] = [c for c in data["grounded_claims"] if c["text"] != CAUSAL]
        data["ungrounded_claims"] = [{**c, "type": "inference"} for c in causal]
        tool = forced_tool(request)
        body = (tool_use_message(data, name=tool) if tool else verdict_message(data))
        return ScriptedResponse(body=body)

    secret = "sk-ant-test-secret-value"
    fake_anthropic.respond_with(judge_like_claude)
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    code, out, err = run_demo(capsys)
    assert code == 0
    assert out.startswith("gsar demo: incident-response agent, alert A-9912\njudge: anthropic (")
    assert len(fake_anthropic.message_requests) == 2  # the first answer, then the rewrite
    assert re.search(rf"UNGROUNDED\s+inference\s+0\.60\s+\S+\s+{re.escape(CAUSAL)}",
                     round_section(out, 0))
    assert "-> proceed" in round_section(out, 1)
    assert secret not in out + err


def test_installed_gsar_demo_runs_as_a_subprocess_with_no_key_and_no_servers(
    tmp_path: Path,
) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    started = time.monotonic()
    completed = subprocess.run([str(GSAR), "demo"], capture_output=True, text=True, env=env,
                               cwd=tmp_path, timeout=120)
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr
    assert re.search(rf"UNGROUNDED\s+inference\s+0\.60\s+\S+\s+{re.escape(CAUSAL)}",
                     round_section(completed.stdout, 0))
    assert "Final answer (proceed, S = 1.000" in completed.stdout
    assert completed.stderr == ""
    assert elapsed < 60


def test_demo_serves_its_metrics_to_a_prometheus_scraper(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [str(GSAR), "demo", "--repeat", "3", "--prometheus-port", "0", "--serve-seconds", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    try:
        assert process.stdout is not None
        url = None
        for line in process.stdout:
            found = re.match(r"serving metrics on (http://127\.0\.0\.1:\d+/metrics)", line)
            if found:
                url = found.group(1)
                break
        assert url, process.stderr.read() if process.stderr else ""
        with urllib.request.urlopen(url, timeout=10) as response:
            exposition = response.read().decode()
    finally:
        process.terminate()
        process.wait(timeout=10)
    decisions = re.search(r'^gsar_decisions_total\{[^}]*gsar_decision="proceed"[^}]*\} (\S+)$',
                          exposition, re.MULTILINE)
    assert decisions and float(decisions.group(1)) == 3.0
    assert re.search(r'^gsar_score_bucket\{[^}]*le="0\.9"[^}]*\} ', exposition, re.MULTILINE)


# --- the agent's recovery callbacks ------------------------------------------------------------


def test_dropping_unsupported_claims_keeps_grounded_facts_from_a_dropped_sentence() -> None:
    synthesis = "CPU hit 97.2% on db-prod-1, so the push caused it. Alert A-9912 fired."
    output = JudgeOutput(
        grounding_score=0.5, is_grounded=False,
        grounded_claims=[Claim("CPU hit 97.2% on db-prod-1", "tool_match", ["E1"]),
                         Claim("Alert A-9912 fired.", "signal_match", ["E2"])],
        ungrounded_claims=[Claim("the push caused it", "inference")])
    assert demo_agent.drop_unsupported_claims(synthesis, output) == (
        "Alert A-9912 fired. CPU hit 97.2% on db-prod-1.")


def test_dropping_unsupported_claims_leaves_a_fully_grounded_answer_unchanged() -> None:
    synthesis = "CPU hit 97.2% on db-prod-1. Alert A-9912 fired."
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim("CPU hit 97.2% on db-prod-1.", "tool_match", ["E1"]),
        Claim("Alert A-9912 fired.", "signal_match", ["E2"])])
    assert demo_agent.drop_unsupported_claims(synthesis, output) == synthesis


def test_the_rewritten_answer_proceeds_with_the_offline_judge() -> None:
    with collect_evidence() as collected:
        first = demo_agent.investigate()
    evaluator = GSAREvaluator(StagedJudge(), demo_agent.drop_unsupported_claims,
                              thresholds=demo_agent.INCIDENT_THRESHOLDS)
    result = evaluator.evaluate_sync(report_synthesis=first, evidence_corpus=list(collected))
    assert first.endswith(CAUSAL)
    assert [e.decision.value for e in result.trajectory] == ["regenerate", "proceed"]
    # Only the unsupported cause is dropped; every grounded sentence stays as written.
    assert result.final_report == f"{CPU_AND_TREND} {ALERT} {PUSH}"


def test_widening_the_investigation_adds_new_log_lines_with_stable_ids() -> None:
    with collect_evidence() as collected:
        first = demo_agent.investigate()
    evidence = EvidenceSet.coerce(list(collected))
    output = JudgeOutput(grounding_score=0.5, is_grounded=False,
                         ungrounded_claims=[Claim(CAUSAL, "inference")])
    answer, wider = demo_agent.widen_investigation(first, evidence, output)
    assert wider.items[: len(evidence)] == evidence.items
    assert len(wider) == len(evidence) + 1
    assert "connection pool at 100%" in wider.items[-1].content
    assert wider.items[-1].id == f"E{len(evidence) + 1}"
    assert CAUSAL not in answer


def test_the_example_script_runs_the_same_agent(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "examples" / "incident_agent.py"
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                               cwd=tmp_path, timeout=120,
                               env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == ("[incident_agent.final_answer] round 0 (initial): S = 0.867 -> "
                        "regenerate")
    assert lines[1:2] == [f"    not grounded: {CAUSAL}"]
    assert lines[2] == ("[incident_agent.final_answer] round 1 (regenerate): S = 1.000 -> "
                        "proceed")
    assert CAUSAL not in completed.stdout.split("Final answer:", 1)[1]
    # with no endpoint set, one line per evaluation on stderr (GSAR_CONSOLE=spans: the spans)
    assert re.search(r"^gsar: incident_agent\.final_answer proceed S=1\.00 claims G\d+ U0 X0 K0 "
                     r"judge=staged trace=[0-9a-f]{32}$", completed.stderr, re.M), completed.stderr
