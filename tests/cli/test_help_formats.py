"""``gsar bench --help`` and ``gsar calibrate --help`` document their file formats with example
lines that the real parsers accept, and the documentation (docs/measuring.md) shows the same
examples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gsar_otel.cli.main import main
from gsar_otel.measure.datasets import ANSWER_LABELS, CLAIM_LABELS, parse_example
from gsar_otel.measure.graded_input import parse_graded_line
from gsar_otel.measure.grades import ALL_LABELS

MEASURING_PAGE = Path(__file__).resolve().parents[2] / "docs" / "measuring.md"


def help_text(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def example_lines(text: str) -> list[str]:
    block = text.split("Example (three lines):\n", 1)[1]
    return [line.strip() for line in block.splitlines()[:3]]


def test_bench_help_gives_the_format_every_label_and_examples_that_parse(
        capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text("bench", capsys)
    for label in (*ANSWER_LABELS, *CLAIM_LABELS):
        assert label in text
    assert "bag-of-words f" in text and "fraction f" in text
    lines = example_lines(text)
    examples = [parse_example(line) for line in lines]
    assert {e.answer_label for e in examples} == set(ANSWER_LABELS)


def test_calibrate_help_gives_the_format_every_label_and_examples_that_parse(
        capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text("calibrate", capsys)
    for label in ALL_LABELS:
        assert label in text
    for number, line in enumerate(example_lines(text), start=1):
        parse_graded_line(line, number)


def test_the_measuring_page_shows_the_help_examples(
        capsys: pytest.CaptureFixture[str]) -> None:
    section = re.search(r"<!-- section:measure -->(.*)<!-- /section:measure -->",
                        MEASURING_PAGE.read_text(encoding="utf-8"), re.S)
    assert section is not None
    blocks = re.findall(r"```json\n(.*?)```", section.group(1), re.S)
    page_lines = [line for block in blocks for line in block.splitlines()]
    help_lines = (example_lines(help_text("bench", capsys))
                  + example_lines(help_text("calibrate", capsys)))
    assert [json.loads(line) for line in page_lines] == [json.loads(line) for line in help_lines]
