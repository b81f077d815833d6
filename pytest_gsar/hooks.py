"""Hooks a ``conftest.py`` can implement to shape how gsar judges a test suite.

Example::

    # conftest.py
    def pytest_gsar_make_judge(config):
        from my_company.judges import PolicyJudge
        return PolicyJudge()

    def pytest_gsar_result(item, result):
        item.user_properties.append(("gsar_rounds", result.rounds))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult


@pytest.hookspec(firstresult=True)
def pytest_gsar_make_judge(config: pytest.Config) -> Judge | None:
    """Build the judge the session uses when no judge is named (by CLI, ini or marker).

    Called once per session (per xdist worker); the first non-None result wins. Return None
    to fall back to ``GSAR_CONFIG`` / ``GSAR_JUDGE`` and the built-in default.
    """


def pytest_gsar_result(item: pytest.Item, result: GSARResult) -> None:
    """Called after every judgement made by ``assert_grounded`` or a case file, before the
    checks decide whether the test fails. Runs in the process that ran the test."""
