"""`gsar judge`: the table, JSON, exit codes and bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gsar_otel.cli import main
from gsar_otel.cli.judge import render
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from tests.lexical.incident import EVIDENCE_A, OUTAGE_EVIDENCE, OUTAGE_REPORT, SCENARIO_1

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "incident"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    answer = tmp_path / "answer.txt"
    evidence = tmp_path / "evidence.json"
    answer.write_text(SCENARIO_1)
    evidence.write_text(json.dumps(list(EVIDENCE_A)))
    return f"@{answer}", f"@{evidence}"


def test_a_grounded_answer_prints_its_claims_and_exits_0(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    answer, evidence = files
    code = main(["judge", "--synthesis", answer, "--evidence", evidence, "--judge", "staged"])
    out = capsys.readouterr().out
    assert code == 0
    rows = [line.split(None, 5) for line in out.splitlines()[:5]]
    assert rows[0] == ["bucket", "type", "weight", "refs", "adjustments", "claim"]
    assert rows[2] == ["grounded", "tool_match", "1.00", "E1", "-",
                       "CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC."]
    assert rows[3][:4] == ["grounded", "tool_match", "1.00", "E2"]
    assert rows[4][:4] == ["complementary", "synthesis", "0.80", "E1,E2"]
    assert out.rstrip().endswith("S = 1.000  decision: proceed")


def test_an_ungrounded_answer_exits_1_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["judge", "--synthesis", OUTAGE_REPORT, "--evidence",
                 "\n".join(OUTAGE_EVIDENCE), "--judge", "staged"])
    out = capsys.readouterr().out
    assert code == 1
    buckets = [line.split()[:2] for line in out.splitlines()[2:5]]
    # The unstated cause is an inference; a time and a duration found nowhere are tool facts
    # the evidence does not hold, weighed as the tool facts they claim to be.
    assert buckets == [["ungrounded", "inference"], ["ungrounded", "tool_match"],
                       ["ungrounded", "tool_match"]]
    assert "decision: replan" in out


def test_json_prints_the_gsar_result(files: tuple[str, str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    answer, evidence = files
    code = main(["judge", "--synthesis", answer, "--evidence", evidence, "--judge", "staged",
                 "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["final_decision"] == "proceed"
    assert result["judge_name"] == "staged"
    assert [c["evidence_refs"] for c in result["final_partition"]["grounded"]] == [["E1"], ["E2"]]


def test_thresholds_and_rho_change_the_decision(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["judge", "--synthesis", "CPU on db-prod-1 reached 97%. This is probably a runaway "
            "query.", "--evidence", "\n".join(EVIDENCE_A), "--judge", "staged"]
    assert main(base) == 1
    # The second sentence is a speculative conclusion: under the default policy it caps the
    # decision at regenerate whatever the thresholds; the score policy leaves it to S.
    assert main([*base, "--proceed", "0.6", "--regenerate", "0.5"]) == 1
    assert "S = 0.625  decision: regenerate" in capsys.readouterr().out
    assert main([*base, "--proceed", "0.6", "--regenerate", "0.5",
                 "--conclusion-policy", "score"]) == 0
    out = capsys.readouterr().out
    assert "S = 0.625  decision: proceed" in out


def test_a_json_list_of_evidence_items_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    evidence = json.dumps([{"id": "M7", "content": "host=db-prod-1 cpu_pct=97.2"}])
    code = main(["judge", "--synthesis", "CPU on db-prod-1 reached 97%.", "--evidence", evidence,
                 "--judge", "staged"])
    assert code == 0
    assert "M7" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--synthesis", "@/nonexistent/answer.txt", "--evidence", "x"],
     "--synthesis: cannot read '/nonexistent/answer.txt'"),
    (["--synthesis", "CPU reached 97%.", "--evidence", "@/nonexistent/evidence.txt"],
     "--evidence: cannot read"),
    (["--synthesis", "   ", "--evidence", "x"], "--synthesis is empty"),
    (["--synthesis", "CPU reached 97%.", "--evidence", "\n\n"], "--evidence is empty"),
    (["--synthesis", "x", "--evidence", "x", "--proceed", "1.5"], "thresholds.proceed"),
    (["--synthesis", "x", "--evidence", "x", "--proceed", "0.5", "--regenerate", "0.7"],
     "thresholds.regenerate (0.7) must be <= thresholds.proceed (0.5)"),
    (["--synthesis", "x", "--evidence", "x", "--rho", "2"], "contradiction_penalty"),
    (["--synthesis", "x", "--evidence", "x", "--judge", "oracle"], "unknown judge 'oracle'"),
])
def test_bad_input_exits_2_with_a_message_and_no_traceback(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["judge", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_the_installed_gsar_script_judges_the_bundled_example() -> None:
    script = shutil.which("gsar", path=os.path.dirname(sys.executable))
    assert script is not None, "the gsar console script is not installed next to this Python"
    completed = subprocess.run(
        [script, "judge", "--synthesis", f"@{EXAMPLE / 'answer.txt'}",
         "--evidence", f"@{EXAMPLE / 'evidence.json'}", "--judge", "staged"],
        capture_output=True, text=True, timeout=60, check=False)
    # Every fact of the bundled answer is grounded: the CPU row (1.0), the request rate's drop
    # (its row states the value before and the change, 1.0), the alert (0.9), the push (1.0);
    # the cause is an ungrounded inference (0.6). S = 3.9 / 4.5 = 0.867 would proceed; the
    # conclusion policy holds the unsupported root cause back at regenerate.
    assert completed.returncode == 1, completed.stderr
    assert "The outage was caused by the config push." in completed.stdout
    assert "capped at regenerate by an ungrounded or contradicted conclusion" in completed.stdout
    assert "S = 0.867  decision: regenerate" in completed.stdout
    scored = subprocess.run(
        [script, "judge", "--synthesis", f"@{EXAMPLE / 'answer.txt'}",
         "--evidence", f"@{EXAMPLE / 'evidence.json'}", "--judge", "staged",
         "--conclusion-policy", "score"],
        capture_output=True, text=True, timeout=60, check=False)
    # S alone (the paper's rule) lets the unsupported cause through.
    assert scored.returncode == 0, scored.stderr
    assert "S = 0.867  decision: proceed" in scored.stdout


class CitesNothing:
    """A judge that calls every sentence grounded without citing evidence."""

    name = "cites-nothing"

    async def judge(self, *, synthesis: str, evidence: object) -> JudgeOutput:
        return JudgeOutput(grounding_score=1.0, is_grounded=True,
                           grounded_claims=(Claim(synthesis, "tool_match"),))


def test_the_table_shows_the_integrity_guards_adjustments_per_claim() -> None:
    evidence = EvidenceSet.coerce(EVIDENCE_A)
    result = GSAREvaluator(CitesNothing()).evaluate_sync(
        report_synthesis="CPU on db-prod-1 reached 97%.", evidence_corpus=evidence)
    rows = [line.split(None, 5) for line in render(result, evidence).splitlines()]
    assert rows[2] == ["ungrounded", "tool_match", "1.00", "-", "missing_evidence_ref",
                       "CPU on db-prod-1 reached 97%."]


def test_the_deprecated_lexical_name_warns_and_judges_like_staged(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    answer, evidence = files
    argv = ["judge", "--synthesis", answer, "--evidence", evidence, "--json"]
    with pytest.warns(DeprecationWarning, match="use StagedJudge\\(\\) or --judge staged"):
        old_code = main([*argv, "--judge", "lexical"])
    old = json.loads(capsys.readouterr().out)
    new_code = main([*argv, "--judge", "staged"])
    new = json.loads(capsys.readouterr().out)
    assert old_code == new_code == 0
    assert old["judge_name"] == "staged"
    for result in (old, new):
        for entry in result["trajectory"]:
            entry.pop("judge_duration_s")  # wall time, the one figure that may differ
    assert old == new
