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
import importlib
import importlib.util
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gsar_otel.cli.common import BadInput
from gsar_otel.config import GSARSettings, SettingsError, load_settings
from gsar_otel.core.model import GSARThresholds, JudgeOutput, Partition
from gsar_otel.measure import calibration as cal

JUDGE_CONCURRENCY = 4
"""Answers judged at once: enough to hide a remote judge's latency, few enough for rate limits."""

_JUDGE_OUTPUT_KEYS = frozenset(
    {"grounded_claims", "ungrounded_claims", "contradicted_claims", "complementary_claims",
     "grounding_score", "decision_status"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.add_argument("graded", metavar="GRADED.jsonl", type=Path,
                        help="human-graded answers, one JSON object per line")
    parser.add_argument("--judge", metavar="NAME",
                        help="judge for lines with synthesis + evidence (default: the "
                             "configured one, from GSAR_JUDGE or the GSAR_CONFIG file, else "
                             "anthropic when ANTHROPIC_API_KEY is set, else lexical)")
    parser.add_argument("--folds", type=int, default=cal.DEFAULT_FOLDS, metavar="K",
                        help="cross-validation folds (default %(default)s)")
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
    parser.add_argument("--resamples", type=int, default=cal.DEFAULT_RESAMPLES, metavar="B",
                        help="bootstrap resamples for the confidence intervals "
                             "(default %(default)s)")


@dataclass(frozen=True, slots=True)
class GradedLine:
    """One parsed line: its grade and either a partition or an answer still to judge."""

    number: int
    label: str
    answer_id: str | None
    partition: Partition | None = None
    abstained: bool = False
    synthesis: str | None = None
    evidence: Any = None


def run(args: argparse.Namespace) -> int:
    """Run the command."""
    if args.folds < 2:
        raise BadInput(f"--folds must be >= 2, got {args.folds}")
    if args.resamples < 1:
        raise BadInput(f"--resamples must be >= 1, got {args.resamples}")
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise BadInput("--plot needs matplotlib, which is not installed; install it with "
                       "pip install 'gsar-otel[plot]'")
    settings = _current_settings()
    lines = read_graded(args.graded)
    examples, judging = score_lines(lines, judge_name=args.judge or settings.judge,
                                    judge_model=settings.judge_model,
                                    weight_map=settings.weight_map, quiet=args.json)
    try:
        scale = cal.check_calibration_input(examples, folds=args.folds)
    except ValueError as error:
        raise BadInput(f"{args.graded}: {error}") from None

    report = calibrate(examples, scale=scale, folds=args.folds, fit_rho=args.fit_rho,
                       seed=args.seed, resamples=args.resamples,
                       baseline=settings.thresholds_model(),
                       baseline_rho=settings.contradiction_penalty)
    report["defaults"]["source"] = _settings_source(settings)
    report["judging"] = judging
    fitted = report["fitted"]
    thresholds = GSARThresholds(**fitted["thresholds"])
    if args.output is not None:
        document = cal.settings_document(thresholds, fitted["contradiction_penalty"])
        _write(args.output, json.dumps(document, indent=2) + "\n")
        report["settings_file"] = str(args.output)
    if args.plot is not None:
        draw_scores(args.plot, examples, scale=scale, fitted=thresholds,
                    rho=fitted["contradiction_penalty"], baseline=settings.thresholds_model())
        report["plot"] = str(args.plot)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render(report))
    return 0


def _current_settings() -> GSARSettings:
    """The configured settings (GSAR_CONFIG file and GSAR_* variables): judge and baseline."""
    try:
        return load_settings()
    except SettingsError as error:
        raise BadInput(str(error)) from None


def _settings_source(settings: GSARSettings) -> str:
    if settings.config_file:
        return f"GSAR_CONFIG={settings.config_file} and environment"
    configured = (settings.thresholds_model() != GSARThresholds()
                  or settings.contradiction_penalty != cal.DEFAULT_RHO)
    return "environment" if configured else "built-in"


# --- input ----------------------------------------------------------------------------------------


def read_graded(path: Path) -> list[GradedLine]:
    """Parse GRADED.jsonl; every problem is reported with its line number.

    Raises:
        BadInput: the file cannot be read, or a line is not a graded answer.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInput(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not UTF-8 text") from None
    lines: list[GradedLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                lines.append(parse_line(raw, number))
            except ValueError as error:
                raise BadInput(f"{path}:{number}: {error}") from None
    if not lines:
        raise BadInput(f"{path} holds no graded answers (one JSON object per line)")
    first = lines[0]
    for line in lines:
        if cal.label_scale_of(line.label) != cal.label_scale_of(first.label):
            raise BadInput(
                f"{path}:{line.number}: label {line.label!r} is on the "
                f"{cal.label_scale_of(line.label)} scale but line {first.number} "
                f"({first.label!r}) is on the {cal.label_scale_of(first.label)} scale; grade "
                f"one file with either {' | '.join(cal.THREE_WAY_LABELS)} or "
                f"{' | '.join(cal.BINARY_LABELS)}")
    return lines


def parse_line(raw: str, number: int) -> GradedLine:
    """Parse one line of GRADED.jsonl.

    Raises:
        ValueError: saying what is wrong with the line (without its number).
    """
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if "label" not in data:
        raise ValueError(f"'label' is missing; allowed: {', '.join(cal.ALL_LABELS)}")
    label = cal.normalize_label(data["label"])
    answer_id = data.get("id")
    answer_id = None if answer_id is None else str(answer_id)
    if "partition" in data:
        partition, abstained = _parse_partition(data["partition"])
        return GradedLine(number, label, answer_id, partition=partition, abstained=abstained)
    if "synthesis" not in data:
        raise ValueError("give either 'partition' (a judged answer) or 'synthesis' and "
                         "'evidence' (an answer to judge)")
    synthesis = data["synthesis"]
    if not isinstance(synthesis, str):
        raise ValueError(f"'synthesis' must be a string, got {type(synthesis).__name__}")
    if "evidence" not in data:
        raise ValueError("'synthesis' needs 'evidence': a string, a list of strings, or a list "
                         "of {id, content} objects")
    from gsar_otel.core.evidence import EvidenceSet

    try:
        evidence = EvidenceSet.coerce(data["evidence"])
    except (ValueError, TypeError) as error:
        raise ValueError(f"'evidence' is not usable: {_first_line(error)}") from None
    return GradedLine(number, label, answer_id, synthesis=synthesis, evidence=evidence)


def _parse_partition(value: object) -> tuple[Partition, bool]:
    if not isinstance(value, dict):
        raise ValueError(f"'partition' must be a JSON object with grounded / ungrounded / "
                         f"contradicted / complementary lists, got {type(value).__name__}")
    try:
        if _JUDGE_OUTPUT_KEYS & value.keys():
            output = JudgeOutput.model_validate(value)
            return output.to_partition(), output.abstained
        return Partition.model_validate(value), False
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'partition'}: {item['msg']}"
            for item in error.errors()[:3])
        raise ValueError(f"'partition' is not a valid Partition: {problems}") from None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


# --- judging --------------------------------------------------------------------------------------


def score_lines(
    lines: Sequence[GradedLine], *, judge_name: str | None, quiet: bool,
    judge_model: str | None = None, weight_map: Mapping[str, float] | None = None,
) -> tuple[list[cal.GradedScore], dict[str, Any]]:
    """Judge the lines that need it and reduce every line to a GradedScore.

    Returns:
        The graded scores in input order, and a summary of the judging (judge, counts).

    Raises:
        BadInput: the judge is unknown, or failed on every answer it was given.
    """
    to_judge = [line for line in lines if line.partition is None]
    judged: dict[int, tuple[Partition, bool, str | None]] = {}
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
        judged = asyncio.run(_judge_all(judge, to_judge, weight_map))
        errors = [error for _, _, error in judged.values() if error]
        summary["judge_errors"] = len(errors)
        if errors and len(errors) == len(to_judge):
            raise BadInput(f"the judge failed on every answer ({errors[0]}); check its "
                           f"configuration (key, model, base URL)")
    examples: list[cal.GradedScore] = []
    for line in lines:
        if line.partition is not None:
            partition, abstained = line.partition, line.abstained
        else:
            partition, abstained, _ = judged[line.number]
        examples.append(cal.GradedScore.from_partition(partition, line.label,
                                                       abstained=abstained,
                                                       weight_map=weight_map))
    summary["abstained"] = sum(1 for e in examples if e.abstained)
    return examples, summary


async def _judge_all(judge: Any, lines: Sequence[GradedLine],
                     weight_map: Mapping[str, float] | None
                     ) -> dict[int, tuple[Partition, bool, str | None]]:
    from gsar_otel.core.evaluator import GSAREvaluator

    # One-shot: no recovery callbacks, so each answer is judged exactly once.
    evaluator = GSAREvaluator(judge, weight_map=weight_map)
    bound = asyncio.Semaphore(JUDGE_CONCURRENCY)

    async def one(line: GradedLine) -> tuple[int, tuple[Partition, bool, str | None]]:
        async with bound:
            result = await evaluator.evaluate(report_synthesis=line.synthesis or "",
                                              evidence_corpus=line.evidence)
        errors = result.judge_errors
        return line.number, (result.final_partition, result.final_judge_output.abstained,
                             errors[0] if errors else None)

    return dict(await asyncio.gather(*(one(line) for line in lines)))


# --- the fit and the report -----------------------------------------------------------------------


def calibrate(
    examples: Sequence[cal.GradedScore], *, scale: cal.LabelScale, folds: int, fit_rho: bool,
    seed: int, resamples: int, baseline: GSARThresholds | None = None,
    baseline_rho: float = cal.DEFAULT_RHO,
) -> dict[str, Any]:
    """Fit, cross-validate and measure; the report as a JSON-ready dict.

    ``baseline`` and ``baseline_rho`` are the values in force (default: built in); they are
    measured as "defaults", and rho stays at ``baseline_rho`` unless ``fit_rho``.
    """
    defaults = baseline or GSARThresholds()
    default_rho = baseline_rho
    truth = [e.label for e in examples]

    def metrics(predicted: Sequence[str]) -> dict[str, dict[str, float]]:
        intervals = cal.bootstrap_intervals(
            truth, predicted, lambda t, p: cal.decision_metrics(scale, t, p),
            resamples=resamples, seed=seed)
        return {name: interval.as_dict() for name, interval in intervals.items()}

    fit = cal.fit_thresholds(examples, scale=scale, defaults=defaults, default_rho=default_rho,
                             fit_rho=fit_rho)
    cv = cal.cross_validate(examples, scale=scale, folds=folds, seed=seed, defaults=defaults,
                            default_rho=default_rho, fit_rho=fit_rho)
    classes = cal.BINARY_LABELS if scale == "binary" else cal.THREE_WAY_LABELS
    return {
        "examples": len(examples),
        "label_scale": scale,
        "labels": {name: truth.count(name) for name in classes},
        "objective": cal.objective_name(scale),
        "folds": folds,
        "seed": seed,
        "bootstrap": {"resamples": resamples, "confidence": cal.DEFAULT_CONFIDENCE},
        "defaults": {
            **_point(defaults, default_rho),
            "metrics": metrics(cal.predict_all(examples, defaults, default_rho)),
        },
        "fitted": {
            **_point(fit.thresholds, fit.contradiction_penalty),
            "objective": fit.objective,
            "regenerate_fitted": fit.regenerate_fitted,
            "rho_fitted": fit.rho_fitted,
            "metrics": metrics(cal.predict_all(examples, fit.thresholds,
                                               fit.contradiction_penalty)),
        },
        "cross_validated": {
            "metrics": metrics(cv.predictions),
            "fold_fits": [_point(f.thresholds, f.contradiction_penalty) for f in cv.fits],
        },
        "settings_file": None,
        "plot": None,
    }


def _point(thresholds: GSARThresholds, rho: float) -> dict[str, Any]:
    return {"thresholds": {"proceed": thresholds.proceed, "regenerate": thresholds.regenerate},
            "contradiction_penalty": rho}


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
    notes = []
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


def draw_scores(path: Path, examples: Sequence[cal.GradedScore], *, scale: cal.LabelScale,
                fitted: GSARThresholds, rho: float, baseline: GSARThresholds | None = None
                ) -> None:
    """Draw a PNG histogram of S by grade, with the default and fitted thresholds.

    Raises:
        BadInput: matplotlib is missing or the file cannot be written.
    """
    try:
        # Imported by name: matplotlib is an optional extra, absent from most installs.
        figure_module = importlib.import_module("matplotlib.figure")
    except ImportError:
        raise BadInput("--plot needs matplotlib, which is not installed; install it with "
                       "pip install 'gsar-otel[plot]'") from None
    defaults = baseline or GSARThresholds()
    classes = cal.BINARY_LABELS if scale == "binary" else cal.THREE_WAY_LABELS
    colours = {"proceed": "#2a9d8f", "ok": "#2a9d8f", "regenerate": "#e9c46a",
               "replan": "#e76f51", "not_ok": "#e76f51"}
    bins = [i / 20 for i in range(21)]
    figure = figure_module.Figure(figsize=(8, 4.5))
    axes = figure.subplots()
    for name in classes:
        scores = [e.score(rho) for e in examples if e.label == name and not e.abstained]
        if scores:
            axes.hist(scores, bins=bins, alpha=0.5, color=colours[name],
                      label=f"graded {name} (n={len(scores)})")
    lines = [("tau_proceed", fitted.proceed, defaults.proceed, "#264653"),
             ("tau_regenerate", fitted.regenerate, defaults.regenerate, "#6d597a")]
    for name, value, default, colour in lines:
        kept = scale == "binary" and name == "tau_regenerate"
        label = f"{name} {value:.2f} (band kept)" if kept else f"fitted {name} {value:.2f}"
        axes.axvline(value, color=colour, linestyle="-", label=label)
        axes.axvline(default, color=colour, linestyle=":", label=f"default {name} {default:.2f}")
    abstained = sum(1 for e in examples if e.abstained)
    axes.set_xlabel(f"GSAR score S (rho = {rho:.2f})")
    axes.set_ylabel("answers")
    title = "Score distribution by human grade"
    if abstained:
        title += f" ({abstained} abstained not shown)"
    axes.set_title(title)
    axes.set_xlim(0, 1)
    axes.legend(fontsize="small", loc="upper left")
    try:
        figure.savefig(path, format="png", dpi=110, bbox_inches="tight")
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror or error}") from None
