"""The framework conformance suite: every test here is marked ``conformance``."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/conformance/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.conformance)
