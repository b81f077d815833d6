"""JUnit XML: every judging test carries gsar_score and gsar_decision properties."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case, write_cases


def properties(testcase: ET.Element) -> list[tuple[str, str]]:
    return [(p.get("name", ""), p.get("value", "")) for p in testcase.iter("property")]


def test_each_item_has_its_score_and_decision(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("good", GOOD), case("half", HALF)])
    gsar_pytester.makepyfile(test_agent=f"""
        def test_two(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
            assert_grounded({HALF!r}, [{METRIC_ROW!r}], min_score=0.5, decision="any")

        def test_plain():
            pass
    """)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--junitxml=junit.xml")
    result.assert_outcomes(passed=3, failed=1)
    root = ET.parse(gsar_pytester.path / "junit.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert properties(cases["good"]) == [("gsar_score", "1.0000"), ("gsar_decision", "proceed")]
    assert properties(cases["half"]) == [("gsar_score", "0.6250"), ("gsar_decision", "replan")]
    assert properties(cases["test_two"]) == [
        ("gsar_score", "1.0000"), ("gsar_decision", "proceed"),
        ("gsar_score", "0.6250"), ("gsar_decision", "replan")]
    assert properties(cases["test_plain"]) == []
