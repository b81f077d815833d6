"""An output path that is one of the command's inputs is refused before anything is written:
``gsar judge --batch F --output F`` used to empty F (200 lines -> 0). The rule is the same for
every command with an output path (``judge --batch --output``, ``bench --csv / --jsonl``,
``calibrate --output / --plot``): the same file by path, through a symlink or a hard link, the
settings file ``GSAR_CONFIG`` names, and two outputs naming one file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gsar_otel.cli import main

ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2"
ANSWER = {"synthesis": "CPU on host db-prod-1 reached 97% at 14:02.", "evidence": [ROW]}


def answers(kind: str, count: int = 200) -> str:
    """``count`` lines of the input format of ``kind`` (batch, bench, calibrate)."""
    extra: dict[str, object] = {"batch": {}, "bench": {"answer_label": "faithful"},
                                "calibrate": {"label": "ok"}}[kind]
    return "".join(json.dumps({"id": f"a{n}", **ANSWER, **extra}) + "\n" for n in range(count))


def link(kind: str) -> Callable[[Path, Path], Path]:
    """How the output path reaches the input file: itself, a symlink, a hard link."""
    def make(source: Path, directory: Path) -> Path:
        if kind == "same path":
            return source
        target = directory / f"{kind.replace(' ', '-')}.out"
        (os.symlink if kind == "symlink" else os.link)(source, target)
        return target
    return make


@dataclass(frozen=True)
class Case:
    kind: str
    argv: Callable[[Path, Path], list[str]]
    """The command line, given the input file and the output path."""
    expected: Callable[[Path, Path], str]


CASES = {
    "judge --batch --output": Case(
        "batch", lambda i, o: ["judge", "--judge", "staged", "--batch", str(i), "--output", str(o)],
        lambda i, o: f"gsar judge: error: --output: '{o}' is the --batch input file '{i}'; "
                     f"writing it would destroy that input, give another path"),
    "bench --csv": Case(
        "bench", lambda i, o: ["bench", "--judge", "staged", str(i), "--csv", str(o)],
        lambda i, o: f"gsar bench: error: --csv: '{o}' is the DATA.jsonl input file '{i}'; "
                     f"writing it would destroy that input, give another path"),
    "bench --jsonl, second input": Case(
        "bench", lambda i, o: ["bench", "--judge", "staged", str(i.with_name("other.jsonl")),
                               str(i), "--jsonl", str(o)],
        lambda i, o: f"gsar bench: error: --jsonl: '{o}' is the DATA.jsonl input file '{i}'; "
                     f"writing it would destroy that input, give another path"),
    "calibrate --output": Case(
        "calibrate", lambda i, o: ["calibrate", "--judge", "staged", str(i), "--output", str(o)],
        lambda i, o: f"gsar calibrate: error: --output: '{o}' is the GRADED.jsonl input file "
                     f"'{i}'; writing it would destroy that input, give another path"),
    "calibrate --plot": Case(
        "calibrate", lambda i, o: ["calibrate", "--judge", "staged", str(i), "--plot", str(o)],
        lambda i, o: f"gsar calibrate: error: --plot: '{o}' is the GRADED.jsonl input file "
                     f"'{i}'; writing it would destroy that input, give another path"),
}


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize("name", list(CASES))
def test_an_output_that_is_an_input_is_refused_before_anything_is_written(
        name: str, how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GSAR_CONFIG", raising=False)
    case = CASES[name]
    source = tmp_path / "answers.jsonl"
    source.write_text(answers(case.kind), encoding="utf-8")
    source.with_name("other.jsonl").write_text(answers(case.kind, 4), encoding="utf-8")
    before = source.read_bytes()
    output = link(how)(source, tmp_path)
    line = _refused(capsys, case.argv(source, output))
    assert line == case.expected(source, output)
    assert source.read_bytes() == before  # 200 lines, untouched
    assert len(before.splitlines()) == 200


@pytest.mark.parametrize("argv", [
    lambda s, i: ["judge", "--judge", "staged", "--batch", str(i), "--output", str(s)],
    lambda s, i: ["calibrate", "--judge", "staged", str(i), "--output", str(s)],
])
def test_the_settings_file_in_force_is_an_input_too(
        argv: Callable[[Path, Path], list[str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    settings = tmp_path / "gsar.json"
    settings.write_text('{"judge": "staged"}\n', encoding="utf-8")
    monkeypatch.setenv("GSAR_CONFIG", str(settings))
    source = tmp_path / "answers.jsonl"
    source.write_text(answers("calibrate"), encoding="utf-8")
    command = argv(settings, source)
    line = _refused(capsys, command)
    assert line == (f"gsar {command[0]}: error: --output: '{settings}' is the GSAR_CONFIG "
                    f"settings file '{settings}'; writing it would destroy that input, give "
                    f"another path")
    assert settings.read_text(encoding="utf-8") == '{"judge": "staged"}\n'


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(answers("bench", 4), encoding="utf-8")
    rows = tmp_path / "rows.out"
    line = _refused(capsys, ["bench", "--judge", "staged", str(source), "--csv", str(rows),
                             "--jsonl", str(tmp_path / "." / "rows.out")])
    assert line == (f"gsar bench: error: --jsonl: '{tmp_path / '.' / 'rows.out'}' is also the "
                    f"--csv output '{rows}'; give each output its own file")
    assert not rows.exists()


def test_stdin_and_stdout_and_distinct_files_pass(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(answers("batch", 3), encoding="utf-8")
    results = tmp_path / "results.jsonl"
    assert main(["judge", "--judge", "staged", "--batch", str(source), "--output",
                 str(results)]) == 0
    assert len(results.read_text(encoding="utf-8").splitlines()) == 3
    assert main(["judge", "--judge", "staged", "--batch", str(source), "--output", "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
