"""What a mistyped command line gets: one line under the prefix of the command it belongs to,
with the closest valid option or command as a hint; the top-level help says where batch
judging is; ``gsar bench`` on data of one class warns that balanced accuracy means nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsar_otel.cli.main import main


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    return capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(("argv", "expected"), [
    (["judge", "--synthsis", "x", "--evidence", "y"],
     "gsar judge: error: unrecognized arguments: --synthsis x; did you mean --synthesis?"),
    (["judge", "--synthesis", "x", "--evidance=y"],
     "gsar judge: error: unrecognized arguments: --evidance=y; did you mean --evidence?"),
    (["bench", "--limt", "3", "data.jsonl"],
     "gsar bench: error: unrecognized arguments: --limt; did you mean --limit?"),
    (["jugde"], "gsar: error: argument COMMAND: invalid choice: 'jugde'"),
])
def test_a_mistyped_option_gets_the_close_match_under_its_commands_prefix(
        argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    [line] = usage_error(argv, capsys)
    assert line.startswith(expected)
    if argv == ["jugde"]:
        assert "did you mean 'judge'?" in line


def test_batch_points_to_judge_batch(capsys: pytest.CaptureFixture[str]) -> None:
    [line] = usage_error(["batch", "answers.jsonl"], capsys)
    assert "did you mean 'gsar judge --batch FILE.jsonl'?" in line
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "gsar judge --batch FILE.jsonl" in " ".join(capsys.readouterr().out.split())


def test_a_bad_number_is_one_line_not_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    lines = usage_error(["judge", "--synthesis", "x", "--evidence", "y", "--proceed", "abc"],
                        capsys)
    assert lines == ["gsar judge: error: argument --proceed: invalid float value: 'abc' "
                     "(see 'gsar judge --help')"]


def test_no_hint_when_nothing_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    [line] = usage_error(["judge", "--zzzzzz"], capsys)
    assert line == ("gsar judge: error: unrecognized arguments: --zzzzzz "
                    "(see 'gsar judge --help')")


def test_bench_on_one_class_warns_that_balanced_accuracy_is_meaningless(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "faithful.jsonl"
    rows = [{"id": f"a{n}", "evidence": [f"host=db-{n} cpu_pct=97.2"],
             "synthesis": f"CPU on host db-{n} reached 97%.", "answer_label": "faithful"}
            for n in range(3)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["bench", str(data), "--judge", "staged"]) == 0
    err = capsys.readouterr().err
    assert ("gsar bench: warning: all 3 example(s) judged from " in err
            and "are faithful: balanced accuracy needs both faithful and unfaithful answers "
                "and is meaningless here" in " ".join(err.split()))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(data.read_text(encoding="utf-8") + json.dumps(
        {**rows[0], "id": "b", "answer_label": "unfaithful"}) + "\n", encoding="utf-8")
    assert main(["bench", str(mixed), "--judge", "staged"]) == 0
    assert "warning" not in capsys.readouterr().err
