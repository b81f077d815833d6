"""Case files as editors, exports and accidents write them: a byte order mark, CRLF, characters
that other tools treat as line breaks, bytes that are not UTF-8, UTF-16, over-long lines, deep
JSON, many bad lines at once, a big file, a file edited after collection.

Each works, or gives one collection error naming the file and every bad line.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gsar.cases import read_cases, scan_cases
from tests.plugin.helpers import GOOD, HALF, METRIC_ROW, case


def write_lines(pytester: pytest.Pytester, lines: list[bytes], *, name: str = "gsar_cases.jsonl",
                newline: bytes = b"\n", prefix: bytes = b"") -> Path:
    path = pytester.path / name
    path.write_bytes(prefix + b"".join(line + newline for line in lines))
    return path


def line(case_id: str, synthesis: str = GOOD, **extra: object) -> bytes:
    return json.dumps(case(case_id, synthesis, **extra), ensure_ascii=False).encode()


def test_a_byte_order_mark_and_crlf_line_ends_work(gsar_pytester: pytest.Pytester) -> None:
    write_lines(gsar_pytester, [line("first"), b"", line("second", HALF, expect="replan")],
                newline=b"\r\n", prefix=b"\xef\xbb\xbf")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(passed=2)


def test_characters_other_tools_split_lines_at_stay_inside_their_case(
        gsar_pytester: pytest.Pytester) -> None:
    # U+2028, U+0085 and a form feed may stand raw in a JSON string; only \n ends a case.
    answer = GOOD + "\u2028\u0085\x0c"
    write_lines(gsar_pytester, [line("odd-breaks", answer), line("after", GOOD, expect="proceed")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted", "-v")
    result.assert_outcomes(passed=2)
    [first, second] = read_cases(gsar_pytester.path / "gsar_cases.jsonl")
    assert (first.synthesis, first.line, second.line) == (answer, 1, 2)


def test_bytes_that_are_not_utf8_name_the_line_and_the_byte(
        gsar_pytester: pytest.Pytester) -> None:
    write_lines(gsar_pytester, [line("fine"), b'{"id": "latin-1", "synthesis": "caf\xe9"}'])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*gsar_cases.jsonl:2: not UTF-8 (byte 0xe9 at byte 36 of the "
                                 "line); save the file as UTF-8*"])


def test_a_utf16_file_says_to_save_it_as_utf8(gsar_pytester: pytest.Pytester) -> None:
    path = gsar_pytester.path / "gsar_cases.jsonl"
    path.write_bytes((line("fine").decode() + "\n").encode("utf-16"))
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*gsar_cases.jsonl:1: the file is UTF-16*save it as UTF-8*"])


def test_every_bad_line_is_named_in_one_collection_error(gsar_pytester: pytest.Pytester) -> None:
    write_lines(gsar_pytester, [
        line("fine"),
        b'{"id": "cut", "synthesis": ',
        b"[1, 2]",
        line("fine"),
        b'{"id": "no-evidence", "synthesis": "x"}',
        b"\xff\xfe",
        b"[" * 100_000,
        line("bell\x07", GOOD),
        line("also-fine"),
    ])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "*gsar_cases.jsonl: 7 bad lines",
        "*gsar_cases.jsonl:2: not valid JSON (Expecting value at column 28)",
        "*gsar_cases.jsonl:3: a case must be a JSON object, got list",
        "*gsar_cases.jsonl:4: duplicate case id 'fine' (first on line 1)",
        "*gsar_cases.jsonl:5: missing required field(s) 'evidence'",
        "*gsar_cases.jsonl:6: not UTF-8 (byte 0xff at byte 1 of the line)*",
        "*gsar_cases.jsonl:7: not a case: JSON nested too deeply",
        "*gsar_cases.jsonl:8: field 'id' must be a non-empty string without '::', line breaks or "
        "control characters, got 'bell\\x07'",
    ])
    assert "Traceback" not in result.stdout.str()


def test_past_two_hundred_bad_lines_the_rest_are_counted(gsar_pytester: pytest.Pytester) -> None:
    write_lines(gsar_pytester, [b"[]"] * 250)
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert output.count("a case must be a JSON object, got list") == 200
    result.stdout.fnmatch_lines(["*gsar_cases.jsonl: 250 bad lines",
                                 "... and 50 more bad line(s) not shown"])


def test_an_over_long_line_is_named_without_reading_it_whole(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_gsar.cases.MAX_LINE_BYTES", 4096)
    write_lines(gsar_pytester, [line("fine"), line("huge", GOOD + " x" * 10_000), line("next")])
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*gsar_cases.jsonl:2: line longer than 4,096 bytes; a case "
                                 "this big is beyond what a judge sees*"])
    assert "gsar_cases.jsonl:3" not in result.stdout.str()  # the next line is read correctly


def test_a_case_file_changed_after_collection_fails_its_cases_instead_of_judging_stale_text(
        gsar_pytester: pytest.Pytester) -> None:
    path = write_lines(gsar_pytester, [line("first"), line("second")])
    gsar_pytester.makeconftest(f"""
from pathlib import Path

def pytest_collection_finish(session):
    Path({str(path)!r}).write_text({(line("second").decode() + chr(10))!r})
""")
    result = gsar_pytester.runpytest_inprocess("--gsar-judge=scripted")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["gsar_cases.jsonl:1: the case file changed after collection "
                                 "(case 'first' is no longer on this line); run pytest again"])


COUNT_READS = """
import pytest_gsar.cases as cases

reads = []
real_read = cases.read_case_at

def counting_read(*args, **kwargs):
    reads.append(1)
    return real_read(*args, **kwargs)

cases.read_case_at = counting_read

def pytest_unconfigure(config):
    print(f"READS {len(reads)}")
"""


def test_a_small_unchanged_case_file_is_not_read_again_per_case(
        gsar_pytester: pytest.Pytester) -> None:
    write_lines(gsar_pytester, [line("first"), line("second", HALF, expect="replan")])
    gsar_pytester.makeconftest(COUNT_READS)
    result = gsar_pytester.runpytest_subprocess("--gsar-judge=staged", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["READS 0"])


def test_a_case_file_rewritten_after_collection_with_the_same_size_is_read_again(
        gsar_pytester: pytest.Pytester) -> None:
    """The kept cases stand only while the file is untouched: a same-size edit (97% -> 45%)
    after collection is judged as it now reads."""
    path = write_lines(gsar_pytester, [line("first")])
    edited = line("first").replace(b"97%", b"45%")
    assert len(edited) == len(line("first"))
    rewrite = edited + b"\n"
    gsar_pytester.makeconftest(COUNT_READS + f"""
from pathlib import Path

def pytest_collection_finish(session):
    Path({str(path)!r}).write_bytes({rewrite!r})
""")
    result = gsar_pytester.runpytest_subprocess("--gsar-judge=staged", "-s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*45%*", "READS 1"])


def test_a_big_case_file_is_streamed_not_held(tmp_path: Path) -> None:
    # 20,000 cases of about 1 KB: scanning keeps where each case is, never every answer.
    path = tmp_path / "gsar_big.jsonl"
    pad = "x" * 900
    with path.open("w", encoding="utf-8") as out:
        for n in range(20_000):
            out.write(json.dumps(case(f"c{n}", GOOD, [f"{METRIC_ROW} {pad}"])) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        entries = scan_cases(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(entries) == 20_000 and entries[-1].line == 20_000
    assert peak < size / 4, f"peak {peak} bytes for a {size}-byte file"


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda text: text.strip() != "")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers=st.lists(_TEXT, min_size=1, max_size=6),
       blank=st.lists(st.sampled_from(["", " ", "\t", "\r"]), max_size=6),
       newline=st.sampled_from(["\n", "\r\n"]), bom=st.booleans(),
       ascii_only=st.booleans())
def test_any_answer_text_round_trips_with_true_line_numbers(
        tmp_path_factory: pytest.TempPathFactory, answers: list[str], blank: list[str],
        newline: str, bom: bool, ascii_only: bool) -> None:
    rows: list[str] = []
    expected: list[tuple[str, str, int]] = []
    for index, answer in enumerate(answers):
        if index < len(blank):
            rows.append(blank[index])
        rows.append(json.dumps(case(f"c{index}", answer), ensure_ascii=ascii_only))
        expected.append((f"c{index}", answer, len(rows)))
    path = tmp_path_factory.mktemp("cases") / "gsar_cases.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"")
                     + "".join(row + newline for row in rows).encode("utf-8"))
    assert [(c.id, c.synthesis, c.line) for c in read_cases(path)] == expected
