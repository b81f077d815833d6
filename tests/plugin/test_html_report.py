"""--gsar-report: a self-contained HTML page, claims highlighted by bucket, all text masked and
escaped; run metadata at the top, a filter box, baseline regressions side by side, contradicted
claims visible on every row."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gsar_otel.plugins import hookimpl
from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case, write_cases, write_ini
from tests.plugin.paid_judge import PAID_JUDGE_CONFTEST

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
        case("hostile", f"{GOOD} {HOSTILE}", [METRIC_ROW, HOSTILE], min_score=0, expect="any")])
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


# --- run metadata, filter box, baseline side by side, visible contradictions ---------------------

VOID = frozenset({"meta", "input", "br", "hr", "img", "link", "wbr", "col", "source"})
CONTRADICTING = "Memory on host db-prod-1 reached 45% at 14:02."
"""Contradicts METRIC_ROW for the scripted judge (45 is no number of the row)."""


@dataclass
class Node:
    """An element of the parsed page."""

    tag: str
    attrs: dict[str, str | None]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        """Descendants with this tag, class and attribute values, in document order."""
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if ((tag is None or child.tag == tag)
                        and (cls is None or cls in (child.attrs.get("class") or "").split())
                        and all(child.attrs.get(k.replace("_", "-")) == v
                                for k, v in attrs.items())):
                    found.append(child)
                found += child.all(tag, cls, **attrs)
        return found

    def one(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node:
        [found] = self.all(tag, cls, **attrs)
        return found

    def inside(self, tag: str) -> bool:
        node = self.parent
        while node is not None:
            if node.tag == tag:
                return True
            node = node.parent
        return False


class Tree(HTMLParser):
    """Builds the page as a tree of :class:`Node`."""

    def __init__(self) -> None:
        super().__init__()
        self.root = self.node = Node("#document", {})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Node(tag, dict(attrs), self.node)
        self.node.children.append(element)
        if tag not in VOID:
            self.node = element

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.node
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.node = node.parent

    def handle_data(self, data: str) -> None:
        self.node.children.append(data)


def tree(path: Path) -> Node:
    parser = Tree()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.root


def run_rows(page: Node) -> list[tuple[str, str]]:
    """The label/value rows of the run metadata table."""
    return [(row.one("th").text(), row.one("td").text())
            for row in page.one("table", id="run").all("tr")]


def section(page: Node, key: str) -> Node:
    [found] = [s for s in page.all("section") if s.one("h2", "key").text() == key]
    return found


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                           *args], cwd=cwd, check=True, capture_output=True, text=True
                          ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_report_opens_with_the_run_metadata(gsar_pytester: pytest.Pytester) -> None:
    from gsar_otel._version import __version__

    _git(gsar_pytester.path, "init", "-q")
    _git(gsar_pytester.path, "commit", "-q", "--allow-empty", "-m", "start")
    head = _git(gsar_pytester.path, "rev-parse", "HEAD")
    (gsar_pytester.path / "strict.json").write_text(json.dumps(
        {"thresholds": {"proceed": 0.9, "regenerate": 0.7}, "contradiction_penalty": 0.25}))
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("one", GOOD), case("two", GOOD), case("three", GOOD, judge="staged")])
    before = datetime.now(UTC).replace(microsecond=0)
    gsar_pytester.runpytest_inprocess(
        "--gsar-judge=scripted", "--gsar-report=report.html", "--gsar-config=strict.json",
        "--gsar-baseline=base/baseline.json", "--gsar-tolerance=0.1").assert_outcomes(passed=3)
    rows = run_rows(tree(gsar_pytester.path / "report.html"))
    labels = [label for label, _ in rows]
    assert labels == ["time (UTC)", "judge", "judge", "thresholds", "settings file",
                      "passing rule", "record mode", "baseline", "versions", "git commit"]
    values = dict(rows)
    moment = datetime.fromisoformat(values["time (UTC)"])
    assert moment.utcoffset() == timedelta(0) and before <= moment <= datetime.now(UTC)
    # Every judge of the run, the case's own one too, with its share of the judgements.
    assert [v for label, v in rows if label == "judge"] == [
        "scripted (2 judgements)", "staged (1 judgement)"]
    assert values["thresholds"] == ("proceed 0.90 · regenerate 0.70 · rho 0.25 · "
                                    "conclusion policy cap · contradiction policy cap")
    assert values["settings file"].endswith("strict.json")
    assert values["passing rule"] == "decision proceed, unless a test sets its own"
    assert values["record mode"] == "none"
    assert values["baseline"] == f"{Path('base', 'baseline.json')} (tolerance 0.10)"
    assert values["versions"] == f"gsar-otel {__version__} · pytest {pytest.__version__}"
    assert values["git commit"] == head


def test_a_judge_with_a_model_is_named_with_it_and_a_tests_own_thresholds_show_on_its_row(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(gsar_pytester.path.parent))
    gsar_pytester.makeconftest(PAID_JUDGE_CONFTEST)
    gsar_pytester.makepyfile(test_agent=f"""
        from gsar_otel.core.model import GSARThresholds

        def test_default(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}])

        def test_lenient(assert_grounded):
            assert_grounded({GOOD!r}, [{METRIC_ROW!r}],
                            thresholds=GSARThresholds(proceed=0.6, regenerate=0.5))
    """)
    gsar_pytester.runpytest_inprocess("--gsar-record-mode=once", "--gsar-min-score=0.5",
                                      "--gsar-report=report.html").assert_outcomes(passed=2)
    page = tree(gsar_pytester.path / "report.html")
    values = dict(run_rows(page))
    assert values["judge"] == "paid · model paid-1 (2 judgements)"
    assert values["record mode"] == "once"
    assert values["passing rule"] == "S >= 0.50 (--gsar-min-score)"
    assert "git commit" not in values  # not a git checkout: left out, the run unharmed
    lenient = section(page, "test_agent.py::test_lenient").all("p", "meta")[0].text()
    assert "thresholds proceed 0.60 · regenerate 0.50 · rho 0.50" in lenient
    default = section(page, "test_agent.py::test_default").all("p", "meta")[0].text()
    assert "thresholds" not in default  # the session's, shown once at the top


def test_the_commit_is_left_out_when_git_is_missing_slow_or_says_nonsense(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_gsar.report_meta import git_commit

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert git_commit(tmp_path / "nowhere") is None  # no such directory
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert git_commit(tmp_path) is None  # git is not installed
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    monkeypatch.setenv("PATH", str(fake.parent))
    fake.write_text("#!/bin/sh\necho 'not a commit <script>'\n")
    fake.chmod(0o755)
    assert git_commit(tmp_path) is None
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    assert git_commit(tmp_path, timeout_s=0.2) is None


def _filter_page(pytester: pytest.Pytester) -> Node:
    write_cases(pytester, "gsar_cases.jsonl", [
        case("good", GOOD), case("half", HALF),
        case("mixed", f"{GOOD} {CONTRADICTING}", min_score=0, expect="any")])
    pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-report=report.html"
                                 ).assert_outcomes(passed=2, failed=1)
    return tree(pytester.path / "report.html")


def test_a_filter_box_and_toggles_filter_the_rows_with_the_reports_own_inline_script(
        gsar_pytester: pytest.Pytester) -> None:
    page = _filter_page(gsar_pytester)
    box = page.one("input", id="gsar-filter")
    assert box.attrs["type"] == "search" and "claim" in (box.attrs["placeholder"] or "")
    assert page.one("input", id="gsar-failed").attrs["type"] == "checkbox"
    assert page.one("input", id="gsar-contradicted").attrs["type"] == "checkbox"
    [script] = page.all("script")
    assert "src" not in script.attrs  # inline: the page works offline, as one file
    # Only that script may run (a Content-Security-Policy with its hash); nothing is fetched.
    digest = base64.b64encode(hashlib.sha256(script.text().encode()).digest()).decode()
    [csp] = [m.attrs["content"] or "" for m in page.all("meta")
             if m.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    # What the script reads: each row's status, contradiction flag, key, claims and decision.
    rows = {s.one("h2", "key").text(): s for s in page.all("section")}
    assert {k: (s.attrs["data-status"], s.attrs["data-contradicted"]) for k, s in rows.items()
            } == {"gsar_cases.jsonl::good": ("passed", "0"),
                  "gsar_cases.jsonl::half": ("failed", "0"),
                  "gsar_cases.jsonl::mixed": ("passed", "1")}
    assert rows["gsar_cases.jsonl::half"].one("span", "decision").text() == "replan"
    assert CONTRADICTING in [c.text() for c in rows["gsar_cases.jsonl::mixed"].all(
        cls="claim-text")]


FAKE_DOM = """
const rows = JSON.parse(process.argv[1]), scenario = JSON.parse(process.argv[2]);
const handlers = {}, ids = {};
for (const id of ["gsar-filter", "gsar-failed", "gsar-contradicted", "gsar-shown"]) {
  ids[id] = {id, value: "", checked: false, textContent: "",
             addEventListener(kind, f) { handlers[id + kind] = f; }};
}
const sections = rows.map(r => ({key: r.key, hidden: false,
  getAttribute: name => r.attrs[name],
  querySelectorAll: () => r.texts.map(t => ({textContent: t}))}));
global.document = {getElementById: id => ids[id], querySelectorAll: () => sections};
eval(scenario.script);
ids["gsar-filter"].value = scenario.query;
ids["gsar-failed"].checked = scenario.failed;
ids["gsar-contradicted"].checked = scenario.contradicted;
handlers["gsar-filterinput"]();
console.log(JSON.stringify([sections.filter(s => !s.hidden).map(s => s.key),
                            ids["gsar-shown"].textContent]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
@pytest.mark.parametrize(("query", "failed", "contradicted", "shown"), [
    ("", False, False, ["good", "half", "mixed"]),
    ("MIXED", False, False, ["mixed"]),  # the test id, any case
    ("config push", False, False, ["half"]),  # a claim's words
    ("reached 45%", False, False, ["mixed"]),
    ("replan", False, False, ["half"]),  # the decision
    ("regenerate", False, False, ["mixed"]),
    ("", True, False, ["half"]),
    ("", False, True, ["mixed"]),
    ("good", False, True, []),
])
def test_the_filter_script_shows_the_rows_that_match(
        gsar_pytester: pytest.Pytester, query: str, failed: bool, contradicted: bool,
        shown: list[str]) -> None:
    page = _filter_page(gsar_pytester)
    rows = [{"key": s.one("h2", "key").text().split("::")[1],
             "attrs": {k: v for k, v in s.attrs.items() if k.startswith("data-")},
             "texts": [n.text() for n in s.all() if {"key", "claim-text", "decision"} & set(
                 (n.attrs.get("class") or "").split())]}
            for s in page.all("section")]
    scenario = {"script": page.one("script").text(), "query": query, "failed": failed,
                "contradicted": contradicted}
    out = subprocess.run(["node", "-e", FAKE_DOM, json.dumps(rows), json.dumps(scenario)],
                         capture_output=True, text=True, check=True).stdout
    visible, count = json.loads(out)
    assert sorted(visible) == shown and count == f"{len(shown)} of 3 shown"


def test_a_baseline_regression_shows_the_stored_and_the_new_score_side_by_side(
        gsar_pytester: pytest.Pytester) -> None:
    (gsar_pytester.path / "baseline.json").write_text(json.dumps({
        "format": "gsar-baseline/1", "entries": {
            "gsar_cases.jsonl::half": {"score": 1.0, "decision": "proceed"},
            "gsar_cases.jsonl::good": {"score": 0.9, "decision": "proceed"}}}))
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case("good", GOOD), case("half", HALF, expect="replan")])
    gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-report=report.html",
                                      "--gsar-baseline=baseline.json"
                                      ).assert_outcomes(passed=1, failed=1)
    page = tree(gsar_pytester.path / "report.html")
    half = section(page, "gsar_cases.jsonl::half")
    table = half.one("table", "baseline")
    assert not table.inside("details")  # seen without expanding anything
    cells = [[c.text() for c in row.children if isinstance(c, Node)] for row in table.all("tr")]
    assert cells == [["", "baseline", "this run", "change"],
                     ["S", "1.00", "0.62", "-0.38"],
                     ["decision", "proceed", "replan", "worse"]]
    assert "baseline regression" in [b.text() for b in half.all("span", "badge")]
    # At the top, every regression in one table, linked to its row.
    [row] = page.one("table", "regressions").all("tr")[1:]
    assert [c.text() for c in row.children if isinstance(c, Node)] == [
        "gsar_cases.jsonl::half", "1.00", "0.62", "-0.38", "proceed", "replan"]
    assert row.one("a").attrs["href"] == f"#{half.attrs['id']}"
    # A judgement that did not regress keeps the one-line comparison.
    good = section(page, "gsar_cases.jsonl::good")
    assert good.all("table", "baseline") == [] and good.attrs["data-regressed"] == "0"
    assert "baseline S 0.90 (+0.10), proceed" in good.all("p", "meta")[0].text()


def test_a_contradicted_claim_in_a_passing_case_is_visible_without_expanding_it(
        gsar_pytester: pytest.Pytester) -> None:
    page = _filter_page(gsar_pytester)
    mixed = section(page, "gsar_cases.jsonl::mixed")
    assert mixed.attrs["class"] == "passed"
    assert "open" not in mixed.one("details").attrs  # its details stay folded
    badge = mixed.one("span", "x")
    assert badge.text() == "1 contradicted" and not badge.inside("details")
    [listed] = mixed.one("ul", "contradicted").all("li")
    assert not listed.inside("details")
    assert listed.one("span", "claim-text").text() == CONTRADICTING
    assert "refs E1" in listed.text()
    good = section(page, "gsar_cases.jsonl::good")
    assert good.all("ul", "contradicted") == [] and good.all("span", "x") == []
    summary = {r.one("th").text(): r.one("td").text() for r in page.one("table", "summary")
               .all("tr")}
    assert summary["with contradicted claims"] == "1"


class HostMasker:
    """A ``gsar_redact`` plugin hiding one host name wherever it occurs."""

    @hookimpl
    def gsar_redact(self, text: str, kind: str) -> str | None:
        return text.replace("db-prod-7", "[HOST]")


def test_a_hostile_test_id_and_claim_are_escaped_and_masked_everywhere(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from gsar_otel.plugins import register, unregister

    password = "hunter2-correct-horse"
    monkeypatch.setenv("AGENT_DB_PASSWORD", password)
    key_shape = "sk-ant-api03-Zq8vK2mXw9LpR4tYb7NcJ1hG"
    hostile_id = f"db-prod-7 <script>alert(1)</script> {password}"
    claim = f"The <script>alert(2)</script> key {key_shape} reached 45% at 14:02."
    write_cases(gsar_pytester, "gsar_cases.jsonl", [
        case(hostile_id, f"{GOOD} {claim}", min_score=0, expect="any")])
    plugin = HostMasker()
    register(plugin, name="tests-host-masker")
    try:
        gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "--gsar-report=report.html"
                                          ).assert_outcomes(passed=1)
    finally:
        unregister(plugin)
    raw = (gsar_pytester.path / "report.html").read_text(encoding="utf-8")
    assert raw.count("<script") == 1  # the report's own, nothing written by a test
    assert password not in raw and key_shape not in raw and "db-prod-7" not in raw
    page = tree(gsar_pytester.path / "report.html")
    [row] = page.all("section")
    key = row.one("h2", "key").text()
    assert "<script>alert(1)</script>" in key and "[HOST]" in key and "[REDACTED" in key
    listed = row.one("ul", "contradicted").one("span", "claim-text").text()
    assert "<script>alert(2)</script>" in listed and "[REDACTED" in listed


ALLOWED_TAGS = frozenset({
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "table", "tr", "th", "td",
    "a", "p", "mark", "div", "input", "label", "span", "section", "details", "summary", "ul",
    "ol", "li", "script"})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40) | st.sampled_from([
    HOSTILE, "</script><script>alert(1)</script>", '" onmouseover="alert(1)', "</textarea>",
    "<!-- x", "]]>", "&amp;", "sk-ant-api03-Zq8vK2mXw9LpR4tYb7NcJ1hG <img src=x>"]))
def test_any_text_anywhere_in_a_record_stays_text(text: str) -> None:
    """Whatever a test id, judge, claim, evidence or setting holds, the page gets no new tag or
    attribute from it, and shows it masked, as text."""
    from pytest_gsar.records import JudgementRecord
    from pytest_gsar.report import Redactor
    from pytest_gsar.report_html import render_html
    from pytest_gsar.report_meta import RunInfo

    mask = Redactor()
    claim = {"bucket": "contradicted", "text": text, "type": text, "refs": [text],
             "adjustments": [text], "weight": 1.0}
    record = JudgementRecord(
        key=f"k::{text}", nodeid="k", passed=True, problems=[text], score=0.5, decision=text,
        counts={"contradicted": 1}, judge=text, baseline_score=0.9, baseline_decision=text,
        regressed=True, details={"synthesis": f"{text} {text}", "claims": [claim],
                                 "evidence": [{"id": text, "type": text, "content": text}],
                                 "explanation": text, "judge": {"backend": text},
                                 "settings": {"proceed": 0.5, "conclusion_policy": text}})
    page = render_html([record], mask=mask, info=RunInfo(rows=((text, text),), thresholds=text))
    parser = Tree()
    parser.feed(page)
    parser.close()
    root = parser.root
    elements = root.all()
    assert {e.tag for e in elements} <= ALLOWED_TAGS
    assert len(root.all("script")) == 1 and len(root.all("section")) == 1
    assert all(not name.startswith("on") for e in elements for name in e.attrs)
    shown = mask(text, "claim")
    assert root.one("h2", "key").text() == mask(f"k::{text}", "explanation")
    assert root.one("ul", "contradicted").one("span", "claim-text").text() == shown
    assert root.one("table", id="run").one("td").text() == mask(text, "explanation")
