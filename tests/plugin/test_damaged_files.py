"""Damaged cassettes and baselines, and paths a symlink leads out of the project.

Every kind of damage (truncated JSON, merge conflict markers, wrong types, another format
version, binary garbage, an empty file, a FIFO, a directory) ends in one clear line naming the
path, never a traceback or a hang; record mode ``all`` records over a damaged cassette and keeps
the damaged bytes beside it; nothing is ever read or written through a symlink leaving the
project unless the user allows it.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tests.plugin.helpers import read_json, write_cases, write_ini
from tests.plugin.paid_judge import PAID_JUDGE_CONFTEST, host_case

GOOD_CASSETTE = {"format": "gsar-cassette/1", "verdicts": {}}
DAMAGE = {
    "truncated": json.dumps(GOOD_CASSETTE, indent=2)[:20].encode(),
    "merge-conflict": b'{\n<<<<<<< HEAD\n  "format": "gsar-cassette/1",\n=======\n>>>>>>> b\n}\n',
    "verdicts-a-list": json.dumps({"format": "gsar-cassette/1", "verdicts": []}).encode(),
    "a-json-list": b"[1, 2, 3]\n",
    "format-2": json.dumps({"format": "gsar-cassette/2", "verdicts": {}}).encode(),
    "binary-garbage": random.Random(7).randbytes(4096),
    "empty": b"",
    "deeply-nested": b"[" * 200_000,
}
WHAT_IS_WRONG = {
    "truncated": "not valid JSON: * (line 2, column *)*",
    "merge-conflict": "not valid JSON (it holds merge conflict markers)*",
    "verdicts-a-list": "\"verdicts\" must be a JSON object, got list*",
    "a-json-list": "is not a gsar cassette (expected a JSON object *, got a JSON list)",
    "format-2": "has format 'gsar-cassette/2', which this gsar cannot read*",
    "binary-garbage": "not UTF-8 text (byte *), the file is damaged*",
    "empty": "the file is empty*",
    "deeply-nested": "*JSON nested too deeply*",
}


def paid_suite(pytester: pytest.Pytester, cases: int = 3) -> Path:
    """A case file judged by the paid stand-in judge; returns the path of its cassette."""
    pytester.makeconftest(PAID_JUDGE_CONFTEST)
    write_cases(pytester, "gsar_cases.jsonl", [host_case(n) for n in range(cases)])
    return pytester.path / "cassettes" / "gsar" / "gsar_cases.json"


def damage(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_cassette_fails_each_case_naming_the_path_and_the_damage(
        gsar_pytester: pytest.Pytester, kind: str) -> None:
    cassette = paid_suite(gsar_pytester)
    damage(cassette, DAMAGE[kind])
    result = gsar_pytester.runpytest_inprocess()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines([f"*{cassette}*{WHAT_IS_WRONG[kind]}"])
    assert "Traceback" not in result.stdout.str()
    assert cassette.read_bytes() == DAMAGE[kind]  # replay never writes


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_record_mode_all_records_over_a_damaged_cassette_and_keeps_the_damaged_bytes(
        gsar_pytester: pytest.Pytester, kind: str) -> None:
    cassette = paid_suite(gsar_pytester)
    damage(cassette, DAMAGE[kind])
    result = gsar_pytester.runpytest_inprocess("--gsar-record-mode=all")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"*CassetteWarning: record mode 'all' replaced the damaged "
                                 f"cassette {cassette}*kept as {cassette}.damaged"])
    assert len(read_json(cassette)["verdicts"]) == 3
    assert Path(f"{cassette}.damaged").read_bytes() == DAMAGE[kind]
    # The new cassette replays on its own.
    gsar_pytester.runpytest_inprocess().assert_outcomes(passed=3)


def test_record_mode_all_cannot_replace_a_directory_and_says_so(
        gsar_pytester: pytest.Pytester) -> None:
    cassette = paid_suite(gsar_pytester, cases=1)
    (cassette / "inside").mkdir(parents=True)
    result = gsar_pytester.runpytest_inprocess("--gsar-record-mode=all")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*cannot read cassette {cassette}: not a regular file*"])
    assert (cassette / "inside").is_dir()


def test_a_fifo_where_the_cassette_should_be_fails_at_once_instead_of_hanging(
        gsar_pytester: pytest.Pytester) -> None:
    cassette = paid_suite(gsar_pytester, cases=1)
    cassette.parent.mkdir(parents=True)
    os.mkfifo(cassette)
    result = gsar_pytester.runpytest_subprocess(timeout=120)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*cannot read cassette {cassette}: not a regular file*"])


def test_a_malformed_verdict_names_its_key_and_the_cassette(
        gsar_pytester: pytest.Pytester) -> None:
    cassette = paid_suite(gsar_pytester, cases=1)
    gsar_pytester.runpytest_inprocess("--gsar-record-mode=once").assert_outcomes(passed=1)
    data = read_json(cassette)
    [key] = data["verdicts"]
    data["verdicts"][key]["verdict"]["output"] = "not an output"
    cassette.write_text(json.dumps(data))
    result = gsar_pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*verdict {key} in {cassette} is malformed*"])
    assert "Traceback" not in result.stdout.str()


# --- baselines ------------------------------------------------------------------------------------


def baseline_with(entries: object, fmt: str = "gsar-baseline/1") -> bytes:
    return json.dumps({"format": fmt, "entries": entries}).encode()


BAD_BASELINES = {
    "truncated": (b'{"format": "gsar-baseline/1", "entr', "not valid JSON: * (line 1, column *)*"),
    "binary-garbage": (random.Random(3).randbytes(2048), "not UTF-8 text*"),
    "empty": (b"", "the file is empty*"),
    "deeply-nested": (b"{\"a\":" * 100_000, "JSON nested too deeply*"),
    "format-2": (baseline_with({}, "gsar-baseline/2"),
                 "has format 'gsar-baseline/2', which this gsar cannot read*"),
    "nan-score": (b'{"format": "gsar-baseline/1", "entries": {"t": {"score": NaN, '
                  b'"decision": "proceed"}}}', "*entry 't' needs a \"score\" between 0 and 1, "
                                                  "got nan*"),
    "text-score": (baseline_with({"t": {"score": "0.9", "decision": "proceed"}}),
                   "*entry 't' needs a \"score\" between 0 and 1, got '0.9'*"),
    "score-above-one": (baseline_with({"t": {"score": 7, "decision": "proceed"}}),
                        "*entry 't' needs a \"score\" between 0 and 1, got 7*"),
    "entry-a-list": (baseline_with({"t": [0.9, "proceed"]}),
                     "*entry 't' must be an object with \"score\" and \"decision\", got list*"),
}


@pytest.mark.parametrize("kind", sorted(BAD_BASELINES))
def test_a_damaged_baseline_is_a_usage_error_naming_the_path(
        gsar_pytester: pytest.Pytester, kind: str) -> None:
    content, message = BAD_BASELINES[kind]
    (gsar_pytester.path / "baseline.json").write_bytes(content)
    gsar_pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*baseline*{gsar_pytester.path / 'baseline.json'}*{message}"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_every_bad_baseline_entry_is_named_in_one_error(gsar_pytester: pytest.Pytester) -> None:
    (gsar_pytester.path / "baseline.json").write_bytes(baseline_with({
        "a": {"score": 0.5, "decision": "proceed"}, "b": {"score": -1, "decision": "proceed"},
        "c": {"score": 0.5, "decision": "maybe"}, "d": {"score": 0.5, "decision": "replan",
                                                         "judge": 3}}))
    gsar_pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*3 bad entries: entry 'b' *; entry 'c' has decision 'maybe'*; "
                                 "entry 'd' has \"judge\" 3*"])


# --- symlinks leaving the project -----------------------------------------------------------------


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory outside the inner session's project."""
    return tmp_path_factory.mktemp("outside-the-project")


def test_a_cassette_symlinked_out_of_the_project_is_refused(
        gsar_pytester: pytest.Pytester, outside: Path) -> None:
    cassette = paid_suite(gsar_pytester, cases=1)
    gsar_pytester.runpytest_inprocess("--gsar-record-mode=once").assert_outcomes(passed=1)
    target = outside / "elsewhere.json"
    cassette.replace(target)
    cassette.symlink_to(target)
    recorded = target.read_bytes()

    for mode in ("none", "all"):
        result = gsar_pytester.runpytest_inprocess(f"--gsar-record-mode={mode}")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines([f"*cassette {cassette} is inside the project but a symlink "
                                     f"leads it to {target}, outside the project*"
                                     "--gsar-allow-outside-links*"])
        assert target.read_bytes() == recorded and cassette.is_symlink()

    result = gsar_pytester.runpytest_inprocess("--gsar-allow-outside-links")
    result.assert_outcomes(passed=1)
    # Allowed, recording goes through the link to its target; the link stays a link.
    inode = target.stat().st_ino
    result = gsar_pytester.runpytest_inprocess("--gsar-allow-outside-links",
                                               "--gsar-record-mode=all")
    result.assert_outcomes(passed=1)
    assert cassette.is_symlink() and target.stat().st_ino != inode
    assert len(read_json(target)["verdicts"]) == 1


def test_a_cassette_directory_symlinked_out_of_the_project_is_refused(
        gsar_pytester: pytest.Pytester, outside: Path) -> None:
    paid_suite(gsar_pytester, cases=1)
    (gsar_pytester.path / "cassettes").symlink_to(outside, target_is_directory=True)
    result = gsar_pytester.runpytest_inprocess("--gsar-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a symlink leads it to *outside-the-project*"])
    assert list(outside.iterdir()) == []

    write_ini(gsar_pytester, gsar_allow_outside_links="true")
    gsar_pytester.runpytest_inprocess("--gsar-record-mode=once").assert_outcomes(passed=1)
    assert (outside / "gsar" / "gsar_cases.json").is_file()


def test_a_baseline_symlinked_out_of_the_project_is_refused(
        gsar_pytester: pytest.Pytester, outside: Path) -> None:
    target = outside / "baseline.json"
    target.write_bytes(baseline_with({"test_x.py::test_x": {"score": 1, "decision": "proceed"}}))
    (gsar_pytester.path / "baseline.json").symlink_to(target)
    gsar_pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = gsar_pytester.runpytest_inprocess("--gsar-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*baseline {gsar_pytester.path / 'baseline.json'} is inside "
                                 f"the project but a symlink leads it to {target}*"])

    result = gsar_pytester.runpytest_inprocess("--gsar-baseline=baseline.json",
                                               "--gsar-allow-outside-links",
                                               "--gsar-update-baseline")
    result.assert_outcomes(passed=1)
    assert (gsar_pytester.path / "baseline.json").is_symlink()
    assert read_json(target)["entries"] == {}  # test_x judged nothing: its entry vanished


def test_a_path_given_outside_the_project_is_the_users_choice(
        gsar_pytester: pytest.Pytester, outside: Path) -> None:
    paid_suite(gsar_pytester, cases=1)
    result = gsar_pytester.runpytest_inprocess("--gsar-record-mode=once",
                                               f"--gsar-cassette-dir={outside}",
                                               f"--gsar-baseline={outside / 'baseline.json'}",
                                               "--gsar-update-baseline")
    result.assert_outcomes(passed=1)
    assert (outside / "gsar_cases.json").is_file()
    assert (outside / "baseline.json").is_file()
