"""Every ``gsar`` command reads its input through one set of helpers: endless or blocking inputs,
deep JSON, bytes that are not UTF-8 and oversize input each end in exit 2 with one line naming
the argument and the file, never a traceback, a hang or unbounded memory."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.cli import main
from gsar_otel.cli.common import BadInput
from gsar_otel.cli.inputs import (
    DEFAULT_MAX_INPUT_BYTES,
    MAX_JSON_DEPTH,
    check_json_depth,
    json_depth,
    read_argument,
)

GOOD = ["--evidence", "cpu_pct=97.2 host=db-1", "--judge", "lexical"]


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_a_device_is_refused_without_reading_it(capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, ["judge", "--synthesis", "@/dev/zero", *GOOD])
    assert line == ("gsar judge: error: --synthesis: '/dev/zero' is a device, not a regular "
                    "file; give a file, or @- to read stdin")


def test_a_fifo_with_no_writer_is_refused_instead_of_blocking(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    line = _error(capsys, ["judge", "--evidence", f"@{fifo}", "--synthesis", "CPU hit 97%."])
    assert f"--evidence: '{fifo}' is a FIFO, not a regular file" in line


def test_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, ["judge", "--synthesis", f"@{tmp_path}", *GOOD])
    assert "is a directory, not a regular file" in line


def test_deep_json_evidence_is_refused_before_parsing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    line = _error(capsys, ["judge", "--synthesis", "CPU hit 97%.", "--evidence", f"@{deep}"])
    assert line == f"gsar judge: error: --evidence: JSON nested deeper than {MAX_JSON_DEPTH} levels"


def test_json_at_the_depth_limit_passes_and_one_deeper_does_not() -> None:
    check_json_depth("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "--evidence")
    with pytest.raises(BadInput, match="nested deeper"):
        check_json_depth("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "--evidence")
    check_json_depth('["' + "[" * 1000 + '"]', "--evidence")  # brackets inside a string


def test_an_undecodable_argument_is_refused_with_json_output(
        capsys: pytest.CaptureFixture[str]) -> None:
    argument = b"CPU hit 97% \xff.".decode("utf-8", "surrogateescape")
    line = _error(capsys, ["judge", "--json", "--synthesis", argument, *GOOD])
    assert line == "gsar judge: error: --synthesis: the argument is not UTF-8 text"


def test_json_evidence_escaping_a_lone_surrogate_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(capsys, ["judge", "--json", "--synthesis", "CPU hit 97%.", "--evidence",
                           '["cpu_pct=97.2 \\ud800"]'])
    assert "--evidence: the JSON escapes a lone surrogate" in line


def test_a_file_over_the_limit_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "answer.txt"
    big.write_text("CPU hit 97%. " * 100)
    line = _error(capsys, ["judge", "--max-input-bytes", "1000", "--synthesis", f"@{big}", *GOOD])
    assert line == (f"gsar judge: error: --synthesis: '{big}' is larger than the input limit of "
                    f"1,000 bytes (--max-input-bytes)")


def test_endless_stdin_is_read_only_up_to_the_limit() -> None:
    class Endless(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            buffer[:] = b"a" * len(buffer)
            self.served += len(buffer)
            return len(buffer)

    source = Endless()
    with pytest.raises(BadInput, match="stdin is larger than the input limit of 4,096 bytes"):
        read_argument("@-", "--synthesis", limit=4096, stdin=io.BufferedReader(source))
    assert source.served <= 4096 + 1 + io.DEFAULT_BUFFER_SIZE


def test_stdin_under_the_limit_is_read() -> None:
    text = read_argument("@-", "--evidence", stdin=io.BytesIO(b"cpu_pct=97.2\n"))
    assert text == "cpu_pct=97.2\n"


def test_the_default_limit_is_stated_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["judge", "--help"])
    assert str(DEFAULT_MAX_INPUT_BYTES) in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", [["bench"], ["calibrate"]])
def test_bench_and_calibrate_give_the_same_messages(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "data.jsonl"
    bad.write_bytes(b'{"id": "\xff"}\n')
    line = _error(capsys, [*command, str(bad)])
    assert line.endswith(f"'{bad}' is not UTF-8 text (byte 8)")
    line = _error(capsys, [*command, "/dev/zero"])
    assert "'/dev/zero' is a device, not a regular file" in line


# Strings full of brackets, quotes and backslashes, so the scanner must skip them correctly.
JSON_VALUES = st.recursive(
    st.text(alphabet='[]{}"\\ax,', max_size=8) | st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(alphabet='[]{}"\\ax,', max_size=4), inner, max_size=4),
    max_leaves=20)


@given(JSON_VALUES, st.sampled_from([None, 0, 2]))
def test_json_depth_is_the_parsers_nesting(value: object, indent: int | None) -> None:
    # Generated as JSON, so every example checks the scanner (random text is almost never JSON).
    text = json.dumps(value, indent=indent)
    data = json.loads(text)

    def depth(value: object) -> int:
        if isinstance(value, list):
            return 1 + max((depth(v) for v in value), default=0)
        if isinstance(value, dict):
            return 1 + max((depth(v) for v in value.values()), default=0)
        return 0

    assert json_depth(text) == depth(data)


def test_the_console_script_exits_2_on_dev_zero() -> None:
    script = Path(sys.executable).parent / "gsar"
    result = subprocess.run([str(script), "judge", "--synthesis", "@/dev/zero", "--evidence", "x"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
