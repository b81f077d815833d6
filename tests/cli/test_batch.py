"""``gsar judge --batch FILE.jsonl`` and ``gsar bench --csv / --jsonl``: results as rows to keep.

The offline judge (staged) needs no key; the evaluator, the file reading and the output are the
real ones.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gsar_otel.cli import main
from gsar_otel.cli.batch import Row, judge_rows, parse_row
from gsar_otel.cli.progress import Progress
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.judges.staged.judge import StagedJudge

ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2"
GOOD = {"id": "good", "synthesis": "CPU on host db-prod-1 reached 97% at 14:02.",
        "evidence": [ROW]}
BAD = {"id": "bad", "synthesis": "CPU on host db-prod-1 reached 45% at 14:02.", "evidence": ROW}


def write(path: Path, *lines: Any) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines), encoding="utf-8")
    return path


def batch(capsys: pytest.CaptureFixture[str], path: Path, *extra: str
          ) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["judge", "--batch", str(path), "--judge", "staged", *extra])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_every_answer_gets_one_row_in_input_order(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = batch(capsys, write(tmp_path / "a.jsonl", GOOD, BAD, {**GOOD, "id": 3}))
    assert code == 1  # one answer does not proceed
    assert [(r["id"], r["line"], r["decision"]) for r in rows] == [
        ("good", 1, "proceed"), ("bad", 2, "replan"), ("3", 3, "proceed")]
    first, second = rows[0], rows[1]
    assert first["S"] == 1.0 and first["error"] is None and first["degraded"] is False
    assert first["counts"] == {"grounded": 1, "ungrounded": 0, "contradicted": 0,
                               "complementary": 0}
    assert first["claims"] == [{"bucket": "grounded", "type": "tool_match", "refs": ["E1"],
                                "text": GOOD["synthesis"], "verifiable": True}]
    assert first["unverified_share"] == 0.0
    assert second["claims"][0]["bucket"] == "contradicted" and second["abstain_reason"] is None
    assert "3 judged, 2 proceed, 1 do not, 0 bad line(s)" in err


def test_all_proceed_exits_0_and_output_goes_to_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.jsonl"
    code, rows, _ = batch(capsys, write(tmp_path / "a.jsonl", GOOD, GOOD), "--output", str(out))
    assert code == 0 and rows == []
    assert [json.loads(line)["decision"] for line in out.read_text().splitlines()] == [
        "proceed", "proceed"]


def test_a_bad_line_is_an_error_row_named_by_file_and_line_and_the_batch_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.jsonl", GOOD, "not json", "", ["a list"],
                 {"id": "x", "synthesis": "text"}, {"id": True, **{k: GOOD[k] for k in
                                                                   ("synthesis", "evidence")}},
                 GOOD)
    path.write_bytes(path.read_bytes() + b'{"synthesis": "\xff", "evidence": "e"}\n')
    code, rows, err = batch(capsys, path)
    assert code == 2
    assert [r["line"] for r in rows] == [1, 2, 4, 5, 6, 7, 8]  # the blank line 3 is skipped
    errors = {r["line"]: r["error"] for r in rows if r["error"]}
    where = str(path)
    assert errors == {
        2: f"{where}:2: not JSON (Expecting value, column 1)",
        4: f"{where}:4: expected a JSON object, got list",
        5: f"{where}:5: evidence is missing or empty",
        6: f"{where}:6: id must be a string or an integer, got bool",
        8: f"{where}:8: not UTF-8 text (byte 15)",
    }
    assert rows[3]["id"] == "x" and rows[3]["S"] is None
    assert [r["decision"] for r in rows if not r["error"]] == ["proceed", "proceed"]
    for message in errors.values():
        assert f"gsar judge: {message}" in err
    assert "2 judged, 2 proceed, 0 do not, 5 bad line(s)" in err


def test_a_line_over_the_input_limit_is_an_error_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long = {**GOOD, "synthesis": "CPU on host db-prod-1 reached 97% at 14:02. " * 50}
    code, rows, _ = batch(capsys, write(tmp_path / "a.jsonl", long, GOOD),
                          "--max-input-bytes", "1000")
    assert code == 2
    assert rows[0]["error"].endswith(":1: line longer than the input limit of 1,000 bytes "
                                     "(--max-input-bytes)")
    assert rows[1]["line"] == 2 and rows[1]["decision"] == "proceed"


def test_conflicting_options_are_refused(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.jsonl", GOOD)
    assert main(["judge", "--batch", str(path), "--judge", "staged", "--synthesis", "x"]) == 2
    assert ("--batch judges the answers of its file: give --batch, or --synthesis and "
            "--evidence, not both") in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        main(["judge", "--batch", str(path), "--concurrency", "0"])
    assert raised.value.code == 2
    assert "argument --concurrency: must be a positive whole number" in capsys.readouterr().err


def test_an_empty_or_missing_file_is_bad_input(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = batch(capsys, write(tmp_path / "a.jsonl", "", "  "))
    assert (code, rows) == (2, [])
    assert "holds no answers" in err
    code, rows, err = batch(capsys, tmp_path / "none.jsonl")
    assert (code, rows) == (2, [])
    assert "--batch: cannot read" in err and "none.jsonl" in err
    assert main(["judge", "--judge", "staged"]) == 2
    assert "give --synthesis and --evidence, or --batch FILE.jsonl" in capsys.readouterr().err


def test_progress_is_periodic_lines_off_a_terminal(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = batch(capsys, write(tmp_path / "a.jsonl", *[GOOD] * 20))
    assert [line for line in err.splitlines() if line.startswith("judged")] == [
        f"judged {n}/20" for n in (1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20)]
    assert "\r" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_carriage_return_bar_on_a_terminal() -> None:
    stream = _Terminal()
    progress = Progress(stream, 4)
    for done in range(1, 5):
        progress.update(done, errors=done // 3)
    progress.finish()
    frames = stream.getvalue().split("\r")[1:]
    assert frames[0] == "[" + "#" * 8 + "." * 22 + "] 1/4"
    assert frames[-1] == "[" + "#" * 30 + "] 4/4, 1 bad\n"
    unknown = _Terminal()
    Progress(unknown, None).update(7, 0)
    assert unknown.getvalue() == "\rjudged 7"


class _CountingJudge:
    """The offline judge, yielding to the loop first and counting judgements in flight."""

    name = "counting"

    def __init__(self) -> None:
        self.inner = StagedJudge()
        self.active = self.most = self.calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.active += 1
        self.calls += 1
        self.most = max(self.most, self.active)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            return await self.inner.judge(synthesis=synthesis, evidence=evidence)
        finally:
            self.active -= 1


def _rows(count: int) -> list[Row]:
    evidence = EvidenceSet.coerce([ROW])
    return [Row(line=n, id=f"r{n}", synthesis=str(GOOD["synthesis"]), evidence=evidence)
            for n in range(1, count + 1)]


@pytest.mark.parametrize("concurrency", [1, 3, 8])
def test_no_more_than_concurrency_judgements_run_at_once(concurrency: int) -> None:
    judge = _CountingJudge()
    out = io.StringIO()
    tally = asyncio.run(judge_rows(iter(_rows(40)), GSAREvaluator(judge), out,
                                   concurrency=concurrency))
    assert judge.calls == 40 and judge.most == concurrency
    assert (tally.judged, tally.proceed, tally.errors, tally.exit_code()) == (40, 40, 0, 0)
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == [
        f"r{n}" for n in range(1, 41)]


LINES = st.sampled_from([GOOD, BAD, "not json", "", {"synthesis": "no evidence"}, [1]])


# One example per exit code, so each is checked whatever hypothesis draws.
@example(lines=[GOOD, "", GOOD], concurrency=2)  # all proceed: 0
@example(lines=[GOOD, BAD], concurrency=1)  # one does not proceed: 1
@example(lines=[GOOD, "not json", BAD], concurrency=3)  # a bad line: 2
@example(lines=[""], concurrency=1)  # nothing to judge: 2
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=12), concurrency=st.integers(1, 5))
def test_any_file_gives_one_row_per_non_blank_line_and_the_exit_code_says_what_happened(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[Any],
        concurrency: int) -> None:
    path = write(tmp_path / "any.jsonl", *lines)
    code, rows, _ = batch(capsys, path, "--concurrency", str(concurrency))
    expected = [n for n, line in enumerate(lines, 1) if line != ""]
    assert [r["line"] for r in rows] == expected
    bad = sum(1 for line in lines if line not in ("", GOOD, BAD))
    if not expected or bad:
        assert code == 2
    else:
        assert code == (1 if BAD in lines else 0)
    assert sum(1 for r in rows if r["error"]) == bad


def test_parse_row_takes_evidence_as_text_lines_a_json_string_or_a_list() -> None:
    for evidence in (ROW + "\nsecond item", json.dumps([ROW, "second item"]),
                     [ROW, "second item"]):
        data = json.dumps({"synthesis": "s", "evidence": evidence}).encode()
        row = parse_row(data, 1, "f", 10_000)
        assert row is not None and row.error is None and row.evidence is not None
        assert [e.content for e in row.evidence.items] == [ROW, "second item"]


def test_bench_writes_one_row_per_judged_example(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = write(tmp_path / "d.jsonl",
                 {"id": "a1", "evidence": "cpu_pct=97 on db-1 at 10:02",
                  "synthesis": "CPU on db-1 hit 97%.", "answer_label": "faithful"},
                 {"id": "a2", "evidence": "cpu_pct=97 on db-1 at 10:02",
                  "synthesis": "CPU on db-1 hit 55%.", "answer_label": "faithful"})
    table, lines = tmp_path / "rows.csv", tmp_path / "rows.jsonl"
    assert main(["bench", str(data), "--judge", "staged", "--csv", str(table),
                 "--jsonl", str(lines)]) == 0
    capsys.readouterr()
    with table.open(newline="", encoding="utf-8") as handle:
        from_csv = list(csv.DictReader(handle))
    from_jsonl = [json.loads(line) for line in lines.read_text().splitlines()]
    assert [(r["id"], r["label"], r["decision"], r["predicted"], r["correct"])
            for r in from_csv] == [("a1", "faithful", "proceed", "faithful", "True"),
                                   ("a2", "faithful", "replan", "unfaithful", "False")]
    assert list(from_csv[0]) == ["data", "judge", "id", "split", "label", "S", "decision",
                                 "predicted", "correct", "ms", "judge_error"]
    assert [(r["id"], r["S"], r["correct"], r["judge"]) for r in from_jsonl] == [
        ("a1", 1.0, True, "staged"), ("a2", 0.0, False, "staged")]
    assert all(r["split"] in ("dev", "heldout") and r["ms"] >= 0 for r in from_jsonl)


def test_bench_refuses_an_unwritable_row_file_before_judging(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write(tmp_path / "d.jsonl", {"id": "a1", "evidence": "e", "synthesis": "s",
                                        "answer_label": "faithful"})
    assert main(["bench", str(data), "--judge", "staged", "--csv",
                 str(tmp_path / "no" / "dir.csv")]) == 2
    assert "--csv: cannot write" in capsys.readouterr().err
