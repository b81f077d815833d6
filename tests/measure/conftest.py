"""Fixtures for the measurement tests (calibration, benchmarks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.measure.synthetic import graded_rows, write_jsonl


@pytest.fixture
def graded_file(tmp_path: Path) -> Callable[..., Path]:
    """Write a synthetic graded set (see ``graded_rows``) and return its path."""

    def make(name: str = "graded.jsonl", **options: Any) -> Path:
        options.setdefault("count", 120)
        options.setdefault("proceed", 0.7)
        options.setdefault("regenerate", 0.5)
        return write_jsonl(tmp_path / name, graded_rows(**options))

    return make
