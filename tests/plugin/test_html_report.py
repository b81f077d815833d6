"""--gsar-report: a self-contained HTML page, claims highlighted by bucket, all text escaped."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case, write_cases, write_ini

HOSTILE = '<script>alert("x")</script> & <b>bold</b>'


class Page(HTMLParser):
    """Collects tags, their attributes, marked text and all text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.marks: list[tuple[str, str]] = []
        self.text: list[str] = []
        self._mark: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "mark":
            self._mark = dict(attrs).get("class") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark":
            self._mark = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._mark is not None and data.strip():
            self.marks.append((self._mark, data))


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_the_report_shows_answers_with_claims_marked_by_bucket_and_evidence_by_id(
        gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("good", GOOD), case("half", HALF, expect="replan")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted",
                                               "--gsar-report=out/report.html")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["HTML report: *out/report.html"])
    page = parse(gsar_pytester.path / "out" / "report.html")
    tags = [tag for tag, _ in page.tags]
    assert "link" not in tags and "img" not in tags  # self-contained
    assert [attrs for tag, attrs in page.tags if tag == "script"] == [{}]  # inline, no src
    assert ("b-grounded", GOOD.rstrip(".")) in page.marks
    assert ("b-ungrounded", "The outage was caused by a config push") in page.marks
    ids = {attrs.get("id") for tag, attrs in page.tags if tag == "li"}
    assert {"r1-E1", "r2-E1"} <= ids
    text = "".join(page.text)
    assert METRIC_ROW in text
    assert "gsar_cases.jsonl::half" in text and "S 0.62" in text


def test_all_text_is_escaped(gsar_pytester: pytest.Pytester) -> None:
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("hostile", f"{GOOD} {HOSTILE}", [METRIC_ROW, HOSTILE], min_score=0)])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-report=report.html"
                                      ).assert_outcomes(passed=1)
    raw = (gsar_pytester.path / "report.html").read_text()
    assert raw.count("<script") == 1 and "<b>bold" not in raw  # only the report's own script
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;" in raw
    page = parse(gsar_pytester.path / "report.html")
    assert [tag for tag, _ in page.tags].count("script") == 1
    assert HOSTILE in "".join(page.text)


def test_the_report_path_comes_from_ini_and_lists_failures_first(
        gsar_pytester: pytest.Pytester) -> None:
    write_ini(gsar_pytester, gsar_report="report.html")
    write_cases(gsar_pytester, "gsar_cases.jsonl", [case("a-good", GOOD), case("b-half", HALF)])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted").assert_outcomes(passed=1, failed=1)
    page = parse(gsar_pytester.path / "report.html")
    sections = [attrs.get("class") for tag, attrs in page.tags if tag == "section"]
    assert sections == ["failed", "passed"]
    text = "".join(page.text)
    assert text.index("b-half") < text.index("a-good")
    assert "decision is replan, expected proceed" in text


def test_missing_verdicts_appear_in_the_report(gsar_pytester: pytest.Pytester,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    gsar_pytester.makepyfile(test_agent=f"""
        def test_answer(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
    """)
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-report=report.html"
                                      ).assert_outcomes(failed=1)
    page = parse(gsar_pytester.path / "report.html")
    assert [attrs.get("class") for tag, attrs in page.tags if tag == "section"] == ["missing"]
    assert "no recorded verdict" in "".join(page.text)
