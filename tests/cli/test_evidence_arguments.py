"""``gsar judge --evidence``: a file is one item (a JSON list file one item per element), text one
item per line, and a repeated ``--evidence`` adds its items after the earlier ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.cli import main

ANSWER = "Pod api-7f9 is in CrashLoopBackOff with 14 restarts."
KUBECTL = """NAME       READY   STATUS             RESTARTS   AGE
api-7f9    0/1     CrashLoopBackOff   14         2h
web-1a2    1/1     Running            0          3d
"""


def judged(capsys: pytest.CaptureFixture[str], *evidence: str) -> dict[str, Any]:
    argv = ["judge", "--synthesis", ANSWER, "--judge", "staged", "--json"]
    for value in evidence:
        argv += ["--evidence", value]
    main(argv)
    captured = capsys.readouterr()
    result: dict[str, Any] = json.loads(captured.out)
    return result


def items(result: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = result["final_evidence"]["items"]
    return found


def test_a_file_is_one_item_named_after_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pods = tmp_path / "pods.txt"
    pods.write_text(KUBECTL)
    result = judged(capsys, f"@{pods}")
    [item] = items(result)
    assert item["content"] == KUBECTL.strip("\n")
    assert item["source"] == "pods.txt"
    assert result["final_decision"] == "proceed"


def test_a_json_list_file_is_one_item_per_element(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "rows.json"
    listed.write_text(json.dumps(["host=a cpu=1", {"id": "k", "content": KUBECTL,
                                                   "source": "kubectl"}]))
    assert [(i["id"], i["source"]) for i in items(judged(capsys, f"@{listed}"))] == [
        ("E1", None), ("k", "kubectl")]


def test_repeated_evidence_appends_in_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pods = tmp_path / "pods.txt"
    pods.write_text(KUBECTL)
    events = tmp_path / "events.log"
    events.write_text("Back-off restarting failed container api in pod api-7f9\n")
    result = judged(capsys, f"@{pods}", "line one\nline two", f"@{events}", '["x=1"]')
    assert [i["content"] for i in items(result)] == [
        KUBECTL.strip("\n"), "line one", "line two",
        "Back-off restarting failed container api in pod api-7f9", "x=1"]
    assert [i["id"] for i in items(result)] == ["E1", "E2", "E3", "E4", "E5"]


def test_stdin_is_one_item(capsys: pytest.CaptureFixture[str]) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", "import sys; from gsar_otel.cli import main; sys.exit(main())",
         "judge", "--synthesis", ANSWER, "--evidence", "@-", "--judge", "staged", "--json"],
        input=KUBECTL, capture_output=True, text=True, timeout=60, check=False)
    [item] = items(json.loads(completed.stdout))
    assert item["source"] == "stdin" and item["content"] == KUBECTL.strip("\n")


def test_help_says_how_evidence_is_split(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["judge", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "repeat it to add more" in text
    assert "is one item, the whole file" in text
    assert "JSON list (one item per element" in text


def test_a_bad_file_among_several_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pods = tmp_path / "pods.txt"
    pods.write_text(KUBECTL)
    code = main(["judge", "--synthesis", ANSWER, "--evidence", f"@{pods}",
                 "--evidence", f"@{tmp_path / 'missing.txt'}"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--evidence: cannot read" in err and "missing.txt" in err
