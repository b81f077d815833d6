"""`gsar cases`: captured runs as a regression suite.

- ``gsar cases import TRACES --into DIR``: stored traces (OTLP JSON lines or protobuf) judged
  and written as case lines, as ``gsar sidecar --capture-cases`` writes them live;
- ``gsar cases list PATH...``: the cases of files or directories with their recorded verdicts,
  filtered (``--decision``, ``--min-score`` / ``--max-score``, ``--agent``, ``--since`` /
  ``--until``) and deduplicated by answer and evidence (``--dedupe``);
- ``gsar cases expect EXPECT FILE [--id ID ...]``: set what the cases expect (``proceed``,
  ``not_proceed``, ``any``, a decision; ``recorded`` removes it, so the recorded decision is);
- ``gsar cases promote PATH... --to SUITE.jsonl``: add the selected cases to a suite file
  (cases already in it, by id or content, are skipped), optionally with ``--expect``.

Exit codes: 0 done, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gsar_otel.cli.common import EXIT_OK, BadInput

if TYPE_CHECKING:
    from gsar_otel.cli.inputs import NamedPath
    from gsar_otel.measure.case_files import CaseFilter

EXPECT_CHOICES = ("proceed", "regenerate", "replan", "abstain", "not_proceed", "any", "recorded")


def _unit(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {value!r}")
    return number


def _selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="case files, or directories of gsar_*.jsonl files")
    parser.add_argument("--decision", action="append", default=[],
                        choices=("proceed", "regenerate", "replan", "abstain", "not_proceed"),
                        help="keep cases recorded with this decision (repeatable)")
    parser.add_argument("--min-score", type=_unit, default=None, metavar="S",
                        help="keep cases recorded with S >= this")
    parser.add_argument("--max-score", type=_unit, default=None, metavar="S",
                        help="keep cases recorded with S <= this")
    parser.add_argument("--agent", action="append", default=[], metavar="NAME",
                        help="keep cases of this agent (repeatable)")
    parser.add_argument("--since", default=None, metavar="TIME",
                        help="keep cases recorded at or after this UTC time (2026-12-07 or "
                             "2026-12-07T10:00:00Z)")
    parser.add_argument("--until", default=None, metavar="TIME",
                        help="keep cases recorded before this UTC time")
    parser.add_argument("--dedupe", action="store_true",
                        help="keep the first of cases with the same answer and evidence")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the subcommands."""
    from gsar_otel.cli.main import Parser

    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                parser_class=Parser)
    imported = sub.add_parser("import", help="judge stored traces (OTLP JSON lines from the "
                              "Collector's file exporter, or OTLP protobuf) into case lines")
    imported.add_argument("traces", metavar="TRACES", help="the stored traces file")
    imported.add_argument("--into", required=True, metavar="DIR",
                          help="directory to write gsar_captured_<day>.jsonl files into")
    imported.add_argument("--judge", default=None,
                          help="judge name (default: GSAR_JUDGE, else anthropic with a key, "
                               "else staged)")
    imported.add_argument("--model", default=None, help="model for a model-backed judge")
    listed = sub.add_parser("list", help="list cases with their recorded verdicts")
    _selection(listed)
    listed.add_argument("--json", action="store_true", help="one JSON object per case")
    expect = sub.add_parser("expect", help="set what cases of a file expect")
    expect.add_argument("expect", choices=EXPECT_CHOICES,
                        help="the expectation; recorded: expect the recorded decision")
    expect.add_argument("file", metavar="FILE", help="the case file (rewritten in place)")
    expect.add_argument("--id", action="append", default=None, dest="ids", metavar="ID",
                        help="only this case (repeatable; default every case of the file)")
    promote = sub.add_parser("promote", help="add selected cases to a suite file")
    _selection(promote)
    promote.add_argument("--to", required=True, metavar="SUITE.jsonl",
                         help="the suite file (created if missing; name it gsar_*.jsonl so "
                              "pytest collects it)")
    promote.add_argument("--expect", choices=EXPECT_CHOICES, default=None,
                         help="set this expectation on each promoted case")
    for child in (imported, listed, expect, promote):
        child.set_defaults(_parser=child)


def file_arguments(args: argparse.Namespace) -> tuple[list[NamedPath], list[NamedPath]]:
    """``promote --to`` must not be one of the files it reads."""
    if args.action != "promote":
        return [], []
    from gsar_otel.measure.case_files import CaseFileError, case_paths

    try:
        inputs = case_paths(args.paths)
    except CaseFileError as error:
        raise BadInput(str(error)) from None
    return [("--to", args.to)], [("PATH", str(path)) for path in inputs]


def run(args: argparse.Namespace) -> int:
    from gsar_otel.measure.case_files import CaseFileError

    try:
        if args.action == "import":
            return _import(args)
        if args.action == "expect":
            return _expect(args)
        return _select(args)
    except CaseFileError as error:
        raise BadInput(str(error)) from None


def _filter(args: argparse.Namespace) -> CaseFilter:
    from gsar_otel.measure.case_files import CaseFilter

    if args.min_score is not None and args.max_score is not None and \
            args.min_score > args.max_score:
        raise BadInput(f"--min-score {args.min_score} is above --max-score {args.max_score}")
    return CaseFilter(decisions=tuple(args.decision), min_score=args.min_score,
                      max_score=args.max_score, agents=tuple(args.agent),
                      since=args.since, until=args.until)


def _select(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gsar_otel.measure.case_files import promote, read_all, select

    rows = select(read_all(args.paths), _filter(args), dedupe=args.dedupe)
    if args.action == "promote":
        expect = None if args.expect in (None, "recorded") else args.expect
        added, skipped = promote(rows, Path(args.to), expect=expect)
        print(f"promoted {added} case(s) to {args.to}; {skipped} already there (same id or "
              f"content)", file=sys.stderr)
        return EXIT_OK
    import json

    for row in rows:
        recorded = row.recorded
        if args.json:
            print(json.dumps({"path": str(row.path), "line": row.line, "id": row.data["id"],
                              "expect": row.data.get("expect"), "digest": row.digest,
                              "trace_id": row.data.get("trace_id"), **recorded}))
            continue
        score = "-" if row.score is None else f"{row.score:.2f}"
        print(f"{row.path.name}:{row.line}  {row.decision or '-':<10} S={score:<5} "
              f"expect={row.data.get('expect') or 'recorded'}  agent={recorded.get('agent', '-')}"
              f"  at={recorded.get('at', '-')}  judge={recorded.get('judge', '-')}  "
              f"trace={row.data.get('trace_id', '-')}")
    if not args.json:
        print(f"{len(rows)} case(s)", file=sys.stderr)
    return EXIT_OK


def _expect(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gsar_otel.measure.case_files import set_expect

    expect = None if args.expect == "recorded" else args.expect
    changed = set_expect(Path(args.file), args.ids, expect)
    print(f"set expect={args.expect} on {changed} case(s) of {args.file}", file=sys.stderr)
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gsar_otel.cli import cases_import
    from gsar_otel.cli.judge import load_cli_settings
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.judges.factory import make_judge
    from gsar_otel.measure.case_writer import CaseWriter

    settings = load_cli_settings()
    try:
        judge: Any = make_judge(args.judge or settings.judge,
                                model=args.model or settings.judge_model)
        writer = CaseWriter(args.into)
    except ValueError as error:
        raise BadInput(str(error)) from None
    evaluator = GSAREvaluator(judge, settings=settings)
    counts = cases_import.import_file(Path(args.traces), evaluator, writer)
    print(f"gsar cases import: {cases_import.summary(counts)}", file=sys.stderr)
    return EXIT_OK
