"""The captured-case writer: whole lines under threads and processes, a partial line left by a
killed writer cut before the next append, files rotated by size and by (UTC) day."""

from __future__ import annotations

import calendar
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gsar_otel.measure.case_writer import CaptureError, CaseWriter, check_directory

DAY = float(calendar.timegm((2026, 11, 29, 12, 0, 0)))
WRITER = """
import sys
from gsar_otel.measure.case_writer import CaseWriter
writer = CaseWriter(sys.argv[1], max_bytes=int(sys.argv[3]))
for n in range(int(sys.argv[2])):
    writer.write({"id": f"{sys.argv[4]}-{n}", "synthesis": "x" * 9000, "evidence": ["e"]},
                 now=float(sys.argv[5]))
"""


def lines_of(directory: Path) -> list[dict[str, object]]:
    found = []
    for path in sorted(directory.glob("*.jsonl")):
        data = path.read_bytes()
        assert data.endswith(b"\n"), path
        found.extend(json.loads(line) for line in data.decode().splitlines())
    return found


def test_files_rotate_by_size_and_by_day(tmp_path: Path) -> None:
    writer = CaseWriter(tmp_path, max_bytes=300)
    for n in range(6):
        writer.write({"id": f"c{n}", "synthesis": "y" * 100, "evidence": []}, now=DAY)
    writer.write({"id": "next-day", "synthesis": "z", "evidence": []}, now=DAY + 86_400)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["gsar_captured_20261129.jsonl", "gsar_captured_20261129_1.jsonl",
                     "gsar_captured_20261129_2.jsonl", "gsar_captured_20261130.jsonl"]
    for name in names:
        assert (tmp_path / name).stat().st_size <= 300
    assert [line["id"] for line in lines_of(tmp_path)] == [
        "c0", "c1", "c2", "c3", "c4", "c5", "next-day"]


def test_a_partial_last_line_is_cut_before_the_next_append(tmp_path: Path) -> None:
    writer = CaseWriter(tmp_path)
    writer.write({"id": "whole", "synthesis": "a", "evidence": []}, now=DAY)
    path = tmp_path / "gsar_captured_20261129.jsonl"
    with path.open("ab") as handle:  # what a writer killed mid-line leaves
        handle.write(b'{"id": "torn", "synthesis": "hal')
    CaseWriter(tmp_path).write({"id": "after", "synthesis": "b", "evidence": []}, now=DAY)
    assert [line["id"] for line in lines_of(tmp_path)] == ["whole", "after"]


def test_processes_sharing_a_directory_write_whole_lines(tmp_path: Path) -> None:
    processes = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "60",
                                   "200000", f"p{n}", str(DAY)]) for n in range(4)]
    for process in processes:
        assert process.wait(120) == 0
    lines = lines_of(tmp_path)
    assert len(lines) == 240
    assert len({line["id"] for line in lines}) == 240
    assert all(path.stat().st_size <= 200_000 for path in tmp_path.iterdir())


def test_a_killed_writer_leaves_only_whole_lines(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "100000",
                                "10000000000", "k", str(DAY)])
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("*.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(30)
    CaseWriter(tmp_path).write({"id": "after", "synthesis": "b", "evidence": []}, now=DAY)
    lines = lines_of(tmp_path)
    assert lines[-1]["id"] == "after" and len(lines) > 1


def test_an_unusable_directory_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CaptureError, match="is not a directory"):
        check_directory(blocker)
    with pytest.raises(CaptureError, match="cannot be created"):
        check_directory(blocker / "below")
    with pytest.raises(ValueError, match="max_bytes"):
        CaseWriter(tmp_path, max_bytes=0)
