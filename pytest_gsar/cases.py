"""Recorded agent outputs as test cases: ``gsar_*.jsonl`` and ``*.gsar.jsonl`` files.

Each non-blank line is one JSON object, one case, collected as the test item ``FILE::ID``::

    {"id": "db-outage", "synthesis": "CPU on db-prod-1 reached 97%.",
     "evidence": ["host=db-prod-1 cpu_pct=97.2"], "expect": "proceed"}

Fields: ``id`` (required, unique in the file), ``synthesis`` (required: the agent's answer),
``evidence`` (required: a string, one item per line, or a list of strings and
``{"id", "content", "type", "source"}`` objects), ``expect`` (the decision the answer must get),
``min_score`` (lowest passing S), ``judge`` (a judge name for this case) and ``meta`` (free-form,
ignored). A line that is not a valid case is a collection error naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_gsar.errors import GroundingFailure

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

REQUIRED_FIELDS: Final = ("id", "synthesis", "evidence")
OPTIONAL_FIELDS: Final = ("expect", "min_score", "judge", "meta")
DECISIONS: Final = ("proceed", "regenerate", "replan", "abstain")


class CaseFormatError(Exception):
    """A line of a case file is not a valid case."""


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
    if not isinstance(case_id, str) or not case_id.strip() or "::" in case_id or "\n" in case_id:
        raise _field_error(path, line, f"field 'id' must be a non-empty string without '::' or "
                                       f"line breaks, got {case_id!r}")
    synthesis = data["synthesis"]
    if not isinstance(synthesis, str) or not synthesis.strip():
        raise _field_error(path, line, f"field 'synthesis' must be a non-empty string, got "
                                       f"{_short(synthesis)}")
    from gsar_otel.core.evidence import EvidenceSet

    evidence = data["evidence"]
    try:
        # Text, or a list of texts, always makes a valid EvidenceSet: only other shapes need the
        # full check here (a big suite of plain cases collects faster).
        if not (isinstance(evidence, str) or (isinstance(evidence, list)
                                              and all(isinstance(e, str) for e in evidence))):
            EvidenceSet.coerce(evidence)
    except ValueError as error:
        raise _field_error(path, line, f"field 'evidence': {_first_line(error)}") from None
    expect = data.get("expect")
    if expect is not None and (not isinstance(expect, str) or expect.strip().lower()
                               not in DECISIONS):
        raise _field_error(path, line, f"field 'expect' must be one of {', '.join(DECISIONS)}, "
                                       f"got {expect!r}")
    min_score = data.get("min_score")
    if min_score is not None and (isinstance(min_score, bool)
                                  or not isinstance(min_score, int | float)
                                  or not 0 <= min_score <= 1):
        raise _field_error(path, line, f"field 'min_score' must be a number between 0 and 1, "
                                       f"got {min_score!r}")
    judge = data.get("judge")
    if judge is not None and (not isinstance(judge, str) or not judge.strip()):
        raise _field_error(path, line, f"field 'judge' must be a judge name, got {judge!r}")
    return Case(id=case_id.strip(), synthesis=synthesis, evidence=evidence, line=line,
                expect=None if expect is None else expect.strip().lower(),
                min_score=None if min_score is None else float(min_score),
                judge=None if judge is None else judge.strip())


def read_cases(path: Path) -> list[Case]:
    """Every case of the file at ``path``, in order.

    Raises:
        CaseFormatError: a line is not a valid case, or two cases share an id.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseFormatError(f"{path}: cannot read the case file: {error}") from None
    cases: list[Case] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        case = parse_case(line, path=path, line=number)
        if case.id in first_line:
            raise _field_error(path, number, f"duplicate case id {case.id!r} (first on line "
                                             f"{first_line[case.id]})")
        first_line[case.id] = number
        cases.append(case)
    return cases


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


class GSARCaseFile(pytest.File):
    """A file of recorded agent outputs; each line becomes a :class:`GSARCase`."""

    def collect(self) -> Iterator[GSARCase]:
        """One item per case, named by its id."""
        for case in read_cases(self.path):
            yield GSARCase.from_parent(self, name=case.id, case=case)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        """A bad case file shows its one-line explanation, not a traceback."""
        if isinstance(excinfo.value, CaseFormatError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class GSARCase(pytest.Item):
    """One recorded agent output, judged like ``assert_grounded`` would judge it."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    @property
    def gsar_cassette_name(self) -> str:
        """Every case of one file shares the file's cassette, named after the file."""
        return f"{self.path.name.removesuffix('.jsonl')}.json"

    def runtest(self) -> None:
        """Judge the case; fails with the readable grounding report when it falls short."""
        from pytest_gsar.judging import judge_in_test

        judge_in_test(self, self.case.synthesis, self.case.evidence,
                      min_score=self.case.min_score, decision=self.case.expect,
                      judge=self.case.judge, origin=f"case {self.case.id!r}", defer_save=True)

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
