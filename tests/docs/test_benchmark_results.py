"""benchmarks/README.md is generated from the results files the benchmarks write.

The committed README must be exactly what ``benchmarks/results_tables.py`` builds from
``benchmarks/results/*.md``; recording runs a real command and keeps what it prints."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from benchmarks import results_tables


def write(directory: Path, name: str, section: str, title: str, body: str = "| a |\n|---|") -> None:
    (directory / f"{name}.md").write_text(
        f"<!--\nsection: {section}\ntitle: {title}\nmeasured: today\n-->\n{body}\n",
        encoding="utf-8")


def test_the_committed_readme_is_what_the_results_give() -> None:
    assert results_tables.main(["--check"]) == 0, (
        "benchmarks/README.md differs from benchmarks/results/*.md: run "
        "python benchmarks/results_tables.py")


def test_every_results_file_has_a_section_of_its_own() -> None:
    results = results_tables.load()
    assert len(results) >= 10
    sections = [result.section for result in results]
    assert len(sections) == len(set(sections))
    readme = results_tables.render(results)
    for result in results:
        assert f"\n## {result.heading}\n" in readme
        assert f"(#{result.anchor})" in readme


def test_sections_are_in_number_order(tmp_path: Path) -> None:
    for name, section in (("a", "10"), ("b", "3c"), ("c", "3"), ("d", "0"), ("e", "9")):
        write(tmp_path, name, section, f"title {name}")
    headings = [result.heading for result in results_tables.load(tmp_path)]
    assert headings == ["title d", "3. title c", "3c. title b", "9. title e", "10. title a"]


def test_a_results_file_without_its_header_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_text("| a |\n|---|\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape("bad.md: no <!-- ... --> header")):
        results_tables.load(tmp_path)
    (tmp_path / "bad.md").write_text("<!--\nsection: 1\ncolour: red\n-->\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape("'colour: red' is not one of")):
        results_tables.load(tmp_path)


def test_recording_keeps_what_the_benchmark_prints_and_the_note(tmp_path: Path) -> None:
    write(tmp_path, "demo", "8", "Old title", body="| old |\n|---|")
    (tmp_path / "demo.md").write_text(
        (tmp_path / "demo.md").read_text(encoding="utf-8").replace(
            "measured: today", "measured: today\nnote: Read this first."), encoding="utf-8")
    printing = "print('| case | s |'); print('|---|---:|'); print('| x | 1.5 |')"
    command = [sys.executable, "-c", printing]
    results_tables.record("demo", "8", "New title", command, directory=tmp_path)
    result = results_tables.parse(tmp_path / "demo.md")
    assert result.title == "New title"
    assert result.body == "| case | s |\n|---|---:|\n| x | 1.5 |"
    assert result.note == "Read this first."
    assert result.commands == (" ".join(command),)
    assert "load average" in result.measured


def test_plain_text_output_is_kept_in_a_text_block(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "print('case  s'); print('x     1.5')"]
    results_tables.record("plain", "9", "Plain", command, directory=tmp_path)
    body = results_tables.parse(tmp_path / "plain.md").body
    assert body == "```text\ncase  s\nx     1.5\n```"
