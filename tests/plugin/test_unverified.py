"""An answer the offline judge abstains on as ``unverified`` (too few of its claims checkable,
every checkable one held) passes its test and is counted in the summary; under
``--gsar-strict`` (ini ``gsar_strict``) it fails. A contradicted value fails either way."""

from __future__ import annotations

import pytest

PODS = ("NAME              STATUS             RESTARTS\n"
        "cart-7d9f-tq7wn   CrashLoopBackOff   14\n"
        "payments-6c8f-t6  Running            0")
MOSTLY_PROSE = ("cart-7d9f-tq7wn has restarted 14 times. Nothing else looks unusual. "
                "The logs were captured overnight. The rest of the fleet is quiet.")
WRONG = "cart-7d9f-tq7wn has restarted 3 times."


@pytest.fixture
def suite(gsar_pytester: pytest.Pytester) -> pytest.Pytester:
    gsar_pytester.makepyfile(f"""
        def test_prose(assert_grounded):
            result = assert_grounded({MOSTLY_PROSE!r}, [{PODS!r}], judge="records")
            assert result.final_decision == "abstain"

        def test_wrong(assert_grounded):
            assert_grounded({WRONG!r}, [{PODS!r}], judge="records")
    """)
    return gsar_pytester


def test_an_unverified_abstain_passes_and_is_counted(suite: pytest.Pytester) -> None:
    result = suite.runpytest_inprocess()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*1 passed unverified (too few claims checkable; "
                                 "--gsar-strict fails them)*"])


@pytest.mark.parametrize("how", [["--gsar-strict"], ["-o", "gsar_strict=true"]])
def test_under_strict_an_unverified_abstain_fails(suite: pytest.Pytester,
                                                  how: list[str]) -> None:
    result = suite.runpytest_inprocess(*how)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*decision is abstain, expected proceed*",
                                 "*the judge abstained: unverified: 3 of 4 claims*"])
