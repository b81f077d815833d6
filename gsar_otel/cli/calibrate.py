"""`gsar calibrate GRADED.jsonl`: fit the decision thresholds (and rho) on a human-graded set.

Each line of GRADED.jsonl is one graded answer, a JSON object with a human ``label``
(``proceed | regenerate | replan``, or ``ok | not_ok`` where ok means proceed) and either

- ``synthesis`` and ``evidence`` (anything ``EvidenceSet.coerce`` accepts): the answer is judged
  once with the configured judge (``--judge``, else ``GSAR_JUDGE``, else the default), or
- ``partition``: an already judged Partition (``grounded`` / ``ungrounded`` / ``contradicted`` /
  ``complementary`` lists of ``{text, type, evidence_refs}``) or a full JudgeOutput; it is not
  judged again.

An optional ``id`` names the answer. The fitted values are written with ``--output`` as a
settings file that ``GSAR_CONFIG`` points the decorator and the pytest plugin at::

    {"thresholds": {"proceed": 0.74, "regenerate": 0.59}, "contradiction_penalty": 0.5}

The method (grid, objective, cross-validation, bootstrap) is described in
``gsar_otel.measure.calibration``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsar_otel.cli.common import BadInput
from gsar_otel.config import GSARSettings, SettingsError, load_settings
from gsar_otel.core.model import GSARThresholds
from gsar_otel.measure.calibration import (
    DEFAULT_FALSE_PASS_COST,
    DEFAULT_FOLDS,
    DEFAULT_OBJECTIVE,
    OBJECTIVES,
    check_objective,
)
from gsar_otel.measure.calibration_report import DEFAULT_RESAMPLES, build_report, settings_document
from gsar_otel.measure.grades import (
    BINARY_LABELS,
    DEFAULT_RHO,
    MIN_EXAMPLES,
    THREE_WAY_LABELS,
    GradedScore,
    LabelScale,
    check_calibration_input,
    check_calibration_labels,
    label_scale_of,
)

if TYPE_CHECKING:
    from gsar_otel.cli.inputs import NamedPath
    from gsar_otel.measure.graded_input import GradedLine, Judgement

NO_MATPLOTLIB = ("--plot needs matplotlib, which is not installed; install the plot extra from "
                 "a checkout (pip install '.[plot]') or beside the wheel "
                 "(pip install 'gsar_otel-<version>-py3-none-any.whl[plot]'), or matplotlib "
                 "itself")


GRADED_FORMAT = """\
GRADED.jsonl: one human-graded answer per line, a JSON object with
  label      the grade: proceed | regenerate | replan, or ok | not_ok (ok = proceed);
             one file uses one scale
  id         optional name of the answer
  and either
  synthesis + evidence   the answer and its evidence (judged once with --judge), or
  partition              an already judged Partition: grounded / ungrounded / contradicted /
                         complementary lists of {"text", "type", "evidence_refs"}

Example (three lines):
  {"id": "g1", "label": "ok", "synthesis": "CPU on db-1 hit 97%.", "evidence": "cpu_pct=97 on db-1"}
  {"id": "g2", "label": "not_ok", "synthesis": "The deploy caused the outage.", "evidence": "deploy cfg-7781 at 10:01"}
  {"id": "g3", "label": "ok", "partition": {"grounded": [{"text": "db-1 CPU 97%", "type": "tool_match"}]}}

Grade at least {minimum} answers (100-200 recommended), at least --folds of each grade; a
smaller file is refused before anything is judged. The thresholds in force (from GSAR_PROCEED /
GSAR_REGENERATE / GSAR_CONFIG, else 0.80 / 0.65) are kept unless a candidate does strictly
better. The default objective, cost, makes a false pass (an answer not graded ok that the gate
lets proceed) cost --false-pass-cost times a false stop; --objective f1 maximises the F1 of
proceed instead, which can open the gate. A fit that lets more graded-bad answers through than
the thresholds in force is reported with a warning and not written with --output unless
--accept-more-false-passes. --output writes the fit as a GSAR_CONFIG file.
""".replace("{minimum}", str(MIN_EXAMPLES))  # noqa: E501 (example JSON lines are kept whole)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = GRADED_FORMAT
    parser.add_argument("graded", metavar="GRADED.jsonl", type=Path,
                        help="human-graded answers, one JSON object per line")
    parser.add_argument("--judge", metavar="NAME",
                        help="judge for lines with synthesis + evidence (default: the "
                             "configured one, from GSAR_JUDGE or the GSAR_CONFIG file, else "
                             "anthropic when ANTHROPIC_API_KEY is set, else staged)")
    parser.add_argument("--folds", type=int, default=DEFAULT_FOLDS, metavar="K",
                        help="cross-validation folds (default %(default)s)")
    parser.add_argument("--objective", choices=OBJECTIVES, default=DEFAULT_OBJECTIVE,
                        help="cost: a false pass costs --false-pass-cost false stops "
                             "(default); f1: the F1 of proceed (macro F1 for three-way "
                             "grades), which can open the gate")
    parser.add_argument("--false-pass-cost", type=float, default=DEFAULT_FALSE_PASS_COST,
                        metavar="C", help="under --objective cost, what letting a bad answer "
                                          "through costs against holding a good one back "
                                          "(>= 1; default %(default)g)")
    parser.add_argument("--accept-more-false-passes", action="store_true",
                        help="write --output even when the fit lets more graded-bad answers "
                             "proceed than the thresholds in force")
    parser.add_argument("--fit-rho", action="store_true",
                        help="also fit the contradiction penalty rho (0.0-1.0 in steps of 0.1)")
    parser.add_argument("--output", type=Path, metavar="SETTINGS.json",
                        help="write the fitted values here, in the GSAR_CONFIG format")
    parser.add_argument("--plot", type=Path, metavar="SCORES.png",
                        help="draw the score distribution by grade with the thresholds "
                             "(needs the 'plot' extra: matplotlib)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the folds and the bootstrap (default %(default)s)")
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, metavar="B",
                        help="bootstrap resamples for the confidence intervals "
                             "(default %(default)s)")


def file_arguments(args: argparse.Namespace) -> tuple[list[NamedPath], list[NamedPath]]:
    """The files this command writes and reads; ``main`` refuses an output that is an input."""
    from gsar_otel.cli.inputs import settings_file

    return ([("--output", args.output), ("--plot", args.plot)],
            [("GRADED.jsonl", args.graded), settings_file()])


def run(args: argparse.Namespace) -> int:
    """Run the command."""
    if args.folds < 2:
        raise BadInput(f"--folds must be >= 2, got {args.folds}")
    if args.resamples < 1:
        raise BadInput(f"--resamples must be >= 1, got {args.resamples}")
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise BadInput(NO_MATPLOTLIB)
    try:
        check_objective(args.objective, args.false_pass_cost)
    except ValueError as error:
        raise BadInput(f"--false-pass-cost: {error}") from None
    settings = _current_settings()
    lines = read_graded(args.graded)
    try:  # before judging: the grades alone say whether the file can be calibrated
        check_calibration_labels([line.label for line in lines], folds=args.folds)
    except ValueError as error:
        raise BadInput(f"{args.graded}: {error}") from None
    examples, judging = score_lines(lines, judge_name=args.judge or settings.judge,
                                    judge_model=settings.judge_model,
                                    weight_map=settings.weight_map, quiet=args.json,
                                    policies=_policies(settings))
    try:
        scale = check_calibration_input(examples, folds=args.folds)
    except ValueError as error:
        raise BadInput(f"{args.graded}: {error}") from None

    report = build_report(examples, scale=scale, folds=args.folds, fit_rho=args.fit_rho,
                          seed=args.seed, resamples=args.resamples,
                          baseline=settings.thresholds_model(),
                          baseline_rho=settings.contradiction_penalty,
                          objective=args.objective, false_pass_cost=args.false_pass_cost)
    report["defaults"]["source"] = _settings_source(settings)
    report["judging"] = judging
    fitted = report["fitted"]
    thresholds = GSARThresholds(**fitted["thresholds"])
    if report["opens_gate"]:
        print(f"gsar calibrate: warning: {opens_gate_note(report)}", file=sys.stderr)
        if args.output is not None and not args.accept_more_false_passes:
            raise BadInput(f"not writing {args.output}: {opens_gate_note(report)}; keep the "
                           f"thresholds in force, grade more answers, or pass "
                           f"--accept-more-false-passes")
    if args.output is not None:
        document = settings_document(thresholds, fitted["contradiction_penalty"])
        _write(args.output, json.dumps(document, indent=2) + "\n")
        report["settings_file"] = str(args.output)
    if args.plot is not None:
        _plot(args.plot, examples, scale=scale, fitted=thresholds,
              rho=fitted["contradiction_penalty"], baseline=settings.thresholds_model())
        report["plot"] = str(args.plot)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render(report))
    return 0


def opens_gate_note(report: Mapping[str, Any]) -> str:
    """Why a fit is unsafe: it lets more graded-bad answers through than the values in force."""
    fitted, current = report["fitted"], report["defaults"]
    return (f"the fitted thresholds (proceed {fitted['thresholds']['proceed']:.2f}) let "
            f"{fitted['false_passes']} answer(s) not graded ok proceed, the thresholds in force "
            f"(proceed {current['thresholds']['proceed']:.2f}) "
            f"{current['false_passes']}")


def _current_settings() -> GSARSettings:
    """The configured settings (GSAR_CONFIG file and GSAR_* variables): judge and baseline."""
    try:
        return load_settings()
    except SettingsError as error:
        raise BadInput(str(error)) from None


def _policies(settings: GSARSettings) -> dict[str, str]:
    """The decision policies in force: predictions apply their caps as the decision does."""
    return {"conclusion_policy": settings.conclusion_policy,
            "contradiction_policy": settings.contradiction_policy,
            "dispute_policy": settings.dispute_policy}


def _settings_source(settings: GSARSettings) -> str:
    if settings.config_file:
        return f"GSAR_CONFIG={settings.config_file} and environment"
    configured = (settings.thresholds_model() != GSARThresholds()
                  or settings.contradiction_penalty != DEFAULT_RHO)
    return "environment" if configured else "built-in"


# --- input ----------------------------------------------------------------------------------------


def read_graded(path: Path) -> list[GradedLine]:
    """Parse GRADED.jsonl; every problem is reported with its line number.

    Raises:
        BadInput: the file cannot be read, or a line is not a graded answer.
    """
    from gsar_otel.cli.inputs import read_text_file

    text = read_text_file(str(path), "GRADED.jsonl")
    from gsar_otel.measure.graded_input import parse_graded_line

    lines: list[GradedLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                lines.append(parse_graded_line(raw, number))
            except ValueError as error:
                raise BadInput(f"{path}:{number}: {error}") from None
    if not lines:
        raise BadInput(f"{path} holds no graded answers (one JSON object per line)")
    first = lines[0]
    for line in lines:
        if label_scale_of(line.label) != label_scale_of(first.label):
            raise BadInput(
                f"{path}:{line.number}: label {line.label!r} is on the "
                f"{label_scale_of(line.label)} scale but line {first.number} "
                f"({first.label!r}) is on the {label_scale_of(first.label)} scale; grade "
                f"one file with either {' | '.join(THREE_WAY_LABELS)} or "
                f"{' | '.join(BINARY_LABELS)}")
    return lines


# --- judging --------------------------------------------------------------------------------------


def score_lines(
    lines: Sequence[GradedLine], *, judge_name: str | None, quiet: bool,
    judge_model: str | None = None, weight_map: Mapping[str, float] | None = None,
    policies: Mapping[str, str] | None = None,
) -> tuple[list[GradedScore], dict[str, Any]]:
    """Judge the lines that need it and reduce every line to a GradedScore.

    Returns:
        The graded scores in input order, and a summary of the judging (judge, counts).

    Raises:
        BadInput: the judge is unknown, or failed on every answer it was given.
    """
    from gsar_otel.measure.graded_input import graded_scores, judge_lines

    to_judge = [line for line in lines if line.partition is None]
    judged: dict[int, Judgement] = {}
    summary: dict[str, Any] = {"judge": None, "judged": len(to_judge), "judge_errors": 0}
    if to_judge:
        from gsar_otel.judges.factory import make_judge

        try:
            judge = make_judge(judge_name, model=judge_model)
        except ValueError as error:
            raise BadInput(str(error)) from None
        from gsar_otel.core.protocol import judge_name as name_of

        summary["judge"] = name_of(judge)
        if not quiet:
            print(f"judging {len(to_judge)} answer(s) with {summary['judge']} ...",
                  file=sys.stderr)
        judged = asyncio.run(judge_lines(judge, to_judge, weight_map))
        errors = [error for _, _, error in judged.values() if error]
        summary["judge_errors"] = len(errors)
        if errors and len(errors) == len(to_judge):
            raise BadInput(f"the judge failed on every answer ({errors[0]}); check its "
                           f"configuration (key, model, base URL)")
    examples = graded_scores(lines, judged, weight_map, policies)
    summary["abstained"] = sum(1 for e in examples if e.abstained)
    summary["capped"] = sum(1 for e in examples if e.capped and not e.abstained)
    return examples, summary


# --- printing -------------------------------------------------------------------------------------


def render(report: Mapping[str, Any]) -> str:
    """The report as a plain-text table."""
    labels = ", ".join(f"{count} {name}" for name, count in report["labels"].items())
    judging = report["judging"]
    head = [f"{report['examples']} graded answers ({labels})"]
    if judging["judge"]:
        head.append(f"{judging['judged']} judged with {judging['judge']}, "
                    f"{judging['judge_errors']} judge error(s)")
    if judging["abstained"]:
        head.append(f"{judging['abstained']} abstained (counted as replan)")
    if judging.get("capped"):
        head.append(f"{judging['capped']} held at regenerate by a decision policy (never "
                    f"proceed)")
    names = ["precision", "recall", "f1", "accuracy"]
    if report["label_scale"] == "three_way":
        names.append("macro_f1")
    columns = "  ".join(f"{name:<19}" for name in names)
    out = ["; ".join(head),
           f"objective: {report['objective']}; metrics of 'proceed' vs the rest, "
           f"[{report['bootstrap']['confidence']:.0%} bootstrap CI]",
           "",
           f"{'':<22}{'proceed':>8}{'regen':>7}{'rho':>6}  {columns}"]
    current = "defaults" if report["defaults"].get("source", "built-in") == "built-in" else (
        "configured")
    rows = [(current, report["defaults"]), ("fitted (in-sample)", report["fitted"])]
    for title, block in rows:
        t = block["thresholds"]
        out.append(f"{title:<22}{t['proceed']:>8.2f}{t['regenerate']:>7.2f}"
                   f"{block['contradiction_penalty']:>6.2f}  " + _cells(block["metrics"], names))
    fold_fits = report["cross_validated"]["fold_fits"]
    proceeds = [f["thresholds"]["proceed"] for f in fold_fits]
    out.append(f"{str(report['folds']) + '-fold CV (held out)':<22}"
               f"{min(proceeds):>4.2f}-{max(proceeds):<3.2f}{'':>7}{'':>6}  "
               + _cells(report["cross_validated"]["metrics"], names))
    fitted = report["fitted"]
    notes = [f"false passes (answers not graded ok that proceed): "
             f"{report['defaults']['false_passes']} at the thresholds in force, "
             f"{fitted['false_passes']} fitted, "
             f"{report['cross_validated']['false_passes']} cross-validated"]
    if report["opens_gate"]:
        notes.append(f"WARNING: {opens_gate_note(report)}")
    if not fitted["regenerate_fitted"]:
        notes.append("binary grades: tau_regenerate keeps the default band width below "
                     "tau_proceed (not fitted)")
    notes.append("in-sample metrics at fitted values are optimistic; the CV row estimates new "
                 "answers")
    if report["settings_file"]:
        notes.append(f"wrote {report['settings_file']} (use it with "
                     f"GSAR_CONFIG={report['settings_file']})")
    else:
        notes.append("add --output settings.json to save the fitted values")
    if report["plot"]:
        notes.append(f"wrote {report['plot']}")
    return "\n".join([*out, "", *(f"- {note}" for note in notes)])


def _cells(metrics: Mapping[str, Mapping[str, float]], names: Sequence[str]) -> str:
    cells = []
    for name in names:
        m = metrics[name]
        cells.append(f"{m['value']:.2f} [{m['low']:.2f},{m['high']:.2f}]".ljust(19))
    return "  ".join(cells).rstrip()


# --- output files ---------------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None


def _plot(path: Path, examples: Sequence[GradedScore], *, scale: LabelScale,
          fitted: GSARThresholds, rho: float, baseline: GSARThresholds) -> None:
    from gsar_otel.measure.calibration_plot import draw_scores

    try:
        draw_scores(path, examples, scale=scale, fitted=fitted, rho=rho, baseline=baseline)
    except ImportError:
        raise BadInput(NO_MATPLOTLIB) from None
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None
