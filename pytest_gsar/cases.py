"""Recorded agent outputs as test cases: ``gsar_*.jsonl`` and ``*.gsar.jsonl`` files.

Each non-blank line is one JSON object, one case, collected as the test item ``FILE::ID``::

    {"id": "db-outage", "synthesis": "CPU on db-prod-1 reached 97%.",
     "evidence": ["host=db-prod-1 cpu_pct=97.2"], "expect": "proceed"}

Fields: ``id`` (required, unique in the file), ``synthesis`` (required: the agent's answer),
``evidence`` (required: a string, one item per line, or a list of strings and
``{"id", "content", "type", "source"}`` objects), ``expect`` (the decision the answer must get,
default ``proceed``; ``any`` checks no decision; ``not_proceed`` any but proceed), ``min_score``
(lowest passing S, checked as well as the decision), ``judge`` (a judge name for this case),
``meta`` (free-form, ignored), and a captured run's ``trace_id``, ``run_id``, ``sources`` and
``recorded`` (:mod:`pytest_gsar.captured`; without ``expect`` it must reach the recorded
decision). A line that is not a valid case is a collection error naming the file and line;
one error names every bad line of the file.

The file is UTF-8 (a byte order mark is allowed), lines end in ``\n`` or ``\r\n``, blank lines
are skipped. It is read a line at a time and, past :data:`KEEP_CASES_BYTES`, each case is read
again from its line when it runs, so a big file costs little memory; a smaller one keeps the
cases collection parsed, used while the file is unchanged (same size, modification and change
times). One line may hold at most :data:`MAX_LINE_BYTES`.
"""

from __future__ import annotations

import contextlib
import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

import pytest

from pytest_gsar.captured import CAPTURE_FIELDS, Recorded, check_capture_fields
from pytest_gsar.errors import CaseFormatError as CaseFormatError
from pytest_gsar.errors import GroundingFailure

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

REQUIRED_FIELDS: Final = ("id", "synthesis", "evidence")
OPTIONAL_FIELDS: Final = ("expect", "min_score", "judge", "meta", *CAPTURE_FIELDS)
DECISIONS: Final = ("proceed", "regenerate", "replan", "abstain", "any", "not_proceed")
"""What ``expect`` may name: a decision, ``any`` (no decision check, ``min_score`` alone), or
``not_proceed`` (any decision but proceed: a known-bad answer)."""
MAX_LINE_BYTES: Final = 16 * 2**20
"""Longest line of a case file: far past what a judge sees (evidence is cut to 400,000
characters), short enough that one bad line cannot exhaust memory."""
MAX_REPORTED: Final = 200
"""Bad lines of one file explained in full in its collection error; further ones are counted."""
KEEP_CASES_BYTES: Final = 4 * 2**20
"""Largest case file whose parsed cases are kept from collection to the run (bigger ones are
read again case by case, so a big suite does not hold every answer)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One recorded agent output and what its judgement must be."""

    id: str
    synthesis: str
    evidence: Any
    """The evidence as written in the file: checked at collection, coerced when judged (a big
    suite keeps only the plain JSON alive, which the garbage collector hardly looks at)."""
    line: int
    expect: str | None = None
    min_score: float | None = None
    judge: str | None = None
    recorded: Recorded | None = None  # a captured case's trace and verdict at capture


@dataclass(frozen=True, slots=True)
class CaseEntry:
    """A checked case as collection keeps it: where it is and what it expects, not its text
    (read again from the file when it runs, so a big suite does not hold every answer)."""

    id: str
    line: int
    offset: int
    """Byte offset of the case's line in its file."""
    expect: str | None = None
    min_score: float | None = None
    judge: str | None = None
    kept: Case | None = None
    """The case as collection parsed it, for a file of at most ``KEEP_CASES_BYTES``."""


def file_stamp(path: Path) -> tuple[int, ...] | None:
    """What changes when a file is written: device, inode, size, modification and change times
    (None when it cannot be read)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _field_error(path: Path, line: int, message: str) -> CaseFormatError:
    return CaseFormatError(f"{path}:{line}: {message}")


def parse_case(text: str, *, path: Path, line: int) -> Case:
    """The case on one line of ``path``.

    Raises:
        CaseFormatError: naming the file, the line and what is wrong.
    """
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise _field_error(path, line, f"not valid JSON ({error.msg} at column {error.colno})"
                           ) from None
    except RecursionError:
        raise _field_error(path, line, "not a case: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise _field_error(path, line, f"a case must be a JSON object, got "
                                       f"{type(data).__name__}")
    unknown = sorted(set(data) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise _field_error(path, line, f"unknown field(s) {', '.join(map(repr, unknown))}; "
                                       f"allowed: {', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}")
    missing = [name for name in REQUIRED_FIELDS if name not in data]
    if missing:
        raise _field_error(path, line, f"missing required field(s) {', '.join(map(repr, missing))}")
    case_id = data["id"]
    if not isinstance(case_id, str) or not case_id.strip() or "::" in case_id or any(
            unicodedata.category(char) in ("Cc", "Cs") for char in case_id):
        raise _field_error(path, line, f"field 'id' must be a non-empty string without '::', "
                                       f"line breaks or control characters, got "
                                       f"{_short(case_id)}")
    synthesis = data["synthesis"]
    if not isinstance(synthesis, str) or not synthesis.strip():
        raise _field_error(path, line, f"field 'synthesis' must be a non-empty string, got "
                                       f"{_short(synthesis)}")
    from gsar_otel.core.evidence import coerce_evidence

    evidence = data["evidence"]
    try:
        # Text, or a list of texts, always makes a valid EvidenceSet: only other shapes need the
        # full check here (a big suite of plain cases collects faster).
        if not (isinstance(evidence, str) or (isinstance(evidence, list)
                                              and all(isinstance(e, str) for e in evidence))):
            coerce_evidence(evidence)
    except ValueError as error:
        raise _field_error(path, line, f"field 'evidence': {_first_line(error)}") from None
    expect = data.get("expect")
    if expect is not None and (not isinstance(expect, str) or expect.strip().lower()
                               not in DECISIONS):
        raise _field_error(path, line, f"field 'expect' must be one of {', '.join(DECISIONS)}, "
                                       f"got {_short(expect)}")
    min_score = data.get("min_score")
    if min_score is not None and (isinstance(min_score, bool)
                                  or not isinstance(min_score, int | float)
                                  or not 0 <= min_score <= 1):
        raise _field_error(path, line, f"field 'min_score' must be a number between 0 and 1, "
                                       f"got {_short(min_score)}")
    judge = data.get("judge")
    if judge is not None and (not isinstance(judge, str) or not judge.strip()):
        raise _field_error(path, line, f"field 'judge' must be a judge name, got {_short(judge)}")
    try:
        recorded = check_capture_fields(data)
    except ValueError as error:
        raise _field_error(path, line, str(error)) from None
    return Case(id=case_id.strip(), synthesis=synthesis, evidence=evidence, line=line,
                expect=None if expect is None else expect.strip().lower(),
                min_score=None if min_score is None else float(min_score),
                judge=None if judge is None else judge.strip(), recorded=recorded)


def read_cases(path: Path) -> list[Case]:
    """Every case of the file at ``path``, in order (each held whole in memory).

    Raises:
        CaseFormatError: naming every bad line (see :func:`scan_cases`).
    """
    return [read_case_at(path, entry) for entry in scan_cases(path)]


def scan_cases(path: Path, *, keep: bool = False) -> list[CaseEntry]:
    """Check every line of the case file at ``path`` and say where each case is (with ``keep``,
    also what it holds).

    The file is streamed a line at a time: only one case is parsed at once and, without
    ``keep``, none is kept, so a 100 MB file costs one line of memory, not the whole file.

    Raises:
        CaseFormatError: the file cannot be read, or lines are bad; one error names every bad
            line (the first :data:`MAX_REPORTED` in full, the rest counted).
    """
    entries: list[CaseEntry] = []
    problems: list[str] = []
    hidden = 0
    first_line: dict[str, int] = {}
    for number, offset, text in _lines(path):
        try:
            if isinstance(text, CaseFormatError):
                raise text
            case = parse_case(text, path=path, line=number)
            if case.id in first_line:
                raise _field_error(path, number, f"duplicate case id {_short(case.id)} (first on "
                                                 f"line {first_line[case.id]})")
        except CaseFormatError as error:
            if len(problems) < MAX_REPORTED:
                problems.append(str(error))
            else:
                hidden += 1
            continue
        first_line[case.id] = number
        entries.append(CaseEntry(id=case.id, line=number, offset=offset, expect=case.expect,
                                 min_score=case.min_score, judge=case.judge,
                                 kept=case if keep else None))
    if problems:
        if len(problems) == 1:
            raise CaseFormatError(problems[0])
        count = len(problems) + hidden
        more = [f"... and {hidden} more bad line(s) not shown"] if hidden else []
        raise CaseFormatError("\n".join([f"{path}: {count} bad lines", *problems, *more]))
    return entries


def read_case_at(path: Path, entry: CaseEntry) -> Case:
    """The whole case ``entry`` points at, read again from its line of ``path``.

    Raises:
        CaseFormatError: the file changed since ``entry`` was scanned.
    """
    for number, _, text in _lines(path, start=entry.offset, first_number=entry.line):
        case = None if isinstance(text, CaseFormatError) else _parse_or_none(text, path, number)
        if case is not None and case.id == entry.id:
            return case
        break
    raise CaseFormatError(f"{path}:{entry.line}: the case file changed after collection (case "
                          f"{_short(entry.id)} is no longer on this line); run pytest again")


def _parse_or_none(text: str, path: Path, line: int) -> Case | None:
    with contextlib.suppress(CaseFormatError):
        return parse_case(text, path=path, line=line)
    return None


def _lines(path: Path, *, start: int = 0, first_number: int = 1
           ) -> Iterator[tuple[int, int, str | CaseFormatError]]:
    """``(line number, byte offset, text or what is wrong with it)`` of each non-blank line.

    Lines end at ``\n`` only (a JSON string may hold U+2028 or a form feed); a ``\r`` before
    it and a UTF-8 byte order mark at the start are dropped.

    Raises:
        CaseFormatError: the file cannot be opened or read.
    """
    try:
        handle = path.open("rb")
    except OSError as error:
        raise CaseFormatError(f"{path}: cannot read the case file: {error}") from None
    with handle:
        try:
            if not path.is_file():
                raise CaseFormatError(f"{path}: cannot read the case file: not a regular file")
            handle.seek(start)
            offset, number = start, first_number
            while raw := handle.readline(MAX_LINE_BYTES + 1):
                line_offset, offset = offset, offset + len(raw)
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    offset += _skip_rest_of_line(handle)
                    yield number, line_offset, _field_error(
                        path, number, f"line longer than {_size(MAX_LINE_BYTES)}; a case "
                                      f"this big is beyond what a judge sees (evidence is cut "
                                      f"to {_evidence_limit()} characters)")
                elif line_offset == 0 and raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    yield number, line_offset, _field_error(
                        path, number, "the file is UTF-16 (it starts with a UTF-16 byte order "
                                      "mark); save it as UTF-8")
                    return
                else:
                    if line_offset == 0:
                        raw = raw.removeprefix(b"\xef\xbb\xbf")
                    text = _decode(raw.rstrip(b"\r\n"), path, number)
                    if isinstance(text, CaseFormatError) or text.strip():
                        yield number, line_offset, text
                number += 1
        except OSError as error:
            raise CaseFormatError(f"{path}: cannot read the case file: {error}") from None


def _skip_rest_of_line(handle: BinaryIO) -> int:
    skipped = 0
    while chunk := handle.readline(1 << 20):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def _decode(raw: bytes, path: Path, line: int) -> str | CaseFormatError:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = raw[error.start:error.start + 1].hex()
        return _field_error(path, line, f"not UTF-8 (byte 0x{byte} at byte {error.start + 1} "
                                        f"of the line); save the file as UTF-8")


def _size(count: int) -> str:
    return f"{count // 2**20} MiB" if count % 2**20 == 0 else f"{count:,} bytes"


def _evidence_limit() -> str:
    from gsar_otel.core.evidence import DEFAULT_MAX_TOTAL_CHARS

    return f"{DEFAULT_MAX_TOTAL_CHARS:,}"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


class GSARCaseFile(pytest.File):
    """A file of recorded agent outputs; each line becomes a :class:`GSARCase`."""

    stamp: tuple[int, ...] | None = None
    """:func:`file_stamp` of the file when it was collected, taken before reading it."""

    def collect(self) -> Iterator[GSARCase]:
        """One item per case, named by its id."""
        self.stamp = file_stamp(self.path)
        keep = self.stamp is not None and self.stamp[2] <= KEEP_CASES_BYTES
        for entry in scan_cases(self.path, keep=keep):
            yield GSARCase.from_parent(self, name=entry.id, entry=entry)

    def unchanged(self) -> bool:
        """True while the file is as it was when collected."""
        return self.stamp is not None and file_stamp(self.path) == self.stamp

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        """A bad case file shows its one-line explanation, not a traceback."""
        if isinstance(excinfo.value, CaseFormatError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class GSARCase(pytest.Item):
    """One recorded agent output, judged like ``assert_grounded`` would judge it."""

    def __init__(self, *, entry: CaseEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = entry

    @property
    def gsar_cassette_name(self) -> str:
        """Every case of one file shares the file's cassette, named after the file."""
        return f"{self.path.name.removesuffix('.jsonl')}.json"

    def runtest(self) -> None:
        """Judge the case; fails with the readable grounding report when it falls short."""
        from pytest_gsar.judging import judge_in_test

        parent = self.parent
        try:
            case = self.case.kept
            if case is None or not (isinstance(parent, GSARCaseFile) and parent.unchanged()):
                case = read_case_at(self.path, self.case)
        except CaseFormatError as error:
            raise GroundingFailure(str(error).removeprefix(f"{self.path}:{self.case.line}: ")
                                   ) from None
        recorded = case.recorded
        expect = case.expect or (recorded.decision if recorded else None)
        try:
            judge_in_test(self, case.synthesis, case.evidence, min_score=case.min_score,
                          decision=expect, judge=case.judge, origin=f"case {case.id!r}",
                          defer_save=True)
        except GroundingFailure as failure:
            if recorded is None:
                raise
            raise GroundingFailure(f"{failure}\n{recorded.describe()}") from None

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        """A grounding failure shows its explanation, not a traceback into the plugin."""
        if isinstance(excinfo.value, GroundingFailure):
            return f"{self.path.name}:{self.case.line}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """The case file, the case's line and its id."""
        return self.path, self.case.line - 1, f"gsar case {self.case.id}"
