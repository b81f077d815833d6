"""`gsar judge` shows which claims the judge could not check and their share, and `--batch`
writes both, so an `unverified` abstain is read as what it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PODS = ("NAME              STATUS             RESTARTS\n"
        "cart-7d9f-tq7wn   CrashLoopBackOff   14\n")
ANSWER = ("cart-7d9f-tq7wn has restarted 14 times. Nothing else looks unusual. "
          "The logs were captured overnight. The rest of the fleet is quiet.")


def gsar(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "gsar"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_judge_marks_unverified_claims_and_reports_their_share(tmp_path: Path) -> None:
    (tmp_path / "pods.json").write_text(json.dumps([PODS]))
    done = gsar("judge", "--judge", "records", "--synthesis", ANSWER, "--evidence",
                "@pods.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("ungrounded (unverified)") for line in lines) == 3
    assert any(line.startswith("grounded ") and "14 times" in line for line in lines)
    assert ("unverified: 3 of 4 claims could not be checked against any record (left out of "
            "S; share 0.75)") in lines
    assert "judge abstained: unverified: 3 of 4 claims could not be checked against any " \
           "record" in lines
    assert lines[-1] == "S = 1.000  decision: abstain"


def test_batch_rows_carry_the_share_and_each_claims_verifiability(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps(
        {"id": "a", "synthesis": ANSWER, "evidence": [PODS]}) + "\n")
    done = gsar("judge", "--judge", "records", "--batch", "in.jsonl", cwd=tmp_path)
    row = json.loads(done.stdout.splitlines()[0])
    assert row["decision"] == "abstain" and row["unverified_share"] == 0.75
    assert [c["verifiable"] for c in row["claims"]].count(False) == 3
