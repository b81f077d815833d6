"""`gsar bench DATA.jsonl [DATA.jsonl ...] [--judge NAME ...]`: measure judges on labelled
grounding data.

For one file and one judge it prints answer-level balanced accuracy (proceed = predicted
faithful) with a bootstrap interval, precision and recall for unfaithful answers, the confusion
matrix, claim-level agreement per bucket, time and tokens per judgement, and the bag-of-words and
length-only baselines computed in the same run, for the dev and held-out splits. For several files
or judges it judges each file with each judge and prints one comparison table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gsar_otel.cli.progress import Progress

if TYPE_CHECKING:
    from gsar_otel.cli.inputs import NamedPath
    from gsar_otel.measure.bench import BenchReport, Outcome
    from gsar_otel.measure.datasets import BenchExample

ROW_FIELDS = ("data", "judge", "id", "split", "label", "S", "decision", "predicted", "correct",
              "ms", "judge_error")
"""The columns of ``--csv`` / ``--jsonl``: label and predicted are faithful or unfaithful
(predicted faithful = the decision is proceed); ms is the judge's time for the example."""


DATA_FORMAT = """\
DATA.jsonl: one labelled answer per line, a JSON object with
  id            string, unique in the file
  evidence      the text the answer must rest on: a string, or a list of items (strings,
                or objects with "content" and optional "id", "type") as everywhere else
  synthesis     string, the answer
  answer_label  "faithful" or "unfaithful" (the human label of the whole answer)
  claims        optional list of {"text": ..., "label": ...}, label one of grounded,
                ungrounded, contradicted, complementary, unclear, partially_supported
                (gives the claim agreement table)
  pair          optional; rows with the same pair share a split (default: the id)

Example (three lines):
  {"id": "a1", "evidence": "cpu_pct=97 on db-1 at 10:02", "synthesis": "CPU on db-1 hit 97%.", "answer_label": "faithful"}
  {"id": "a2", "evidence": "cpu_pct=97 on db-1 at 10:02", "synthesis": "CPU on db-1 hit 55%.", "answer_label": "unfaithful", "claims": [{"text": "CPU on db-1 hit 55%.", "label": "contradicted"}]}
  {"id": "a3", "evidence": "deploy cfg-7781 at 10:01", "synthesis": "The deploy caused the outage.", "answer_label": "unfaithful"}

Splits: a SHA-256 of pair (else id) puts about 30% of rows in "heldout"; tune on "dev" only.
Columns: bal.acc is answer-level balanced accuracy (proceed = predicted faithful) with a
bootstrap 95% interval; prec/rec(unf) are precision and recall of held-back answers.
Baselines, fitted on dev and applied to every split: "bag-of-words f" predicts faithful when at
least a fraction f of the answer's content words occur in the evidence (f is the fitted value,
bal.acc its score); "length" predicts faithful from the answer's word count alone. A judge
worth using beats both.
"""  # noqa: E501 (example JSON lines are kept whole)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = DATA_FORMAT
    parser.add_argument("data", metavar="DATA.jsonl", nargs="+",
                        help="labelled examples, one JSON per line; several files are compared")
    parser.add_argument("--judge", action="append", default=None,
                        help="staged, lexical, anthropic or a plugin's judge (default: "
                             "GSAR_JUDGE, else anthropic with a key, else staged); repeat it "
                             "to compare judges side by side")
    parser.add_argument("--model", default=None, help="model for a model-backed judge")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="judge at most N examples of the chosen split")
    parser.add_argument("--split", choices=("all", "dev", "heldout"), default="all",
                        help="which examples to judge (a hash of the id keeps ~30%% held out)")
    parser.add_argument("--concurrency", type=int, default=4, metavar="N",
                        help="judgements in flight at once (default 4)")
    parser.add_argument("--proceed", type=float, default=None, metavar="X",
                        help="proceed threshold (default 0.80)")
    parser.add_argument("--regenerate", type=float, default=None, metavar="Y",
                        help="regenerate threshold (default 0.65)")
    parser.add_argument("--rho", type=float, default=0.5, metavar="R",
                        help="contradiction penalty in [0, 1] (default 0.5)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--csv", metavar="FILE", default=None,
                        help="also write one row per judged example as CSV: "
                             + ", ".join(ROW_FIELDS))
    parser.add_argument("--jsonl", metavar="FILE", default=None,
                        help="also write one row per judged example as JSON Lines (the same "
                             "fields as --csv)")


def file_arguments(args: argparse.Namespace) -> tuple[list[NamedPath], list[NamedPath]]:
    """The files this command writes and reads; ``main`` refuses an output that is an input."""
    return [("--csv", args.csv), ("--jsonl", args.jsonl)], [("DATA.jsonl", p) for p in args.data]


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print the report."""
    from gsar_otel.cli.common import BadInput
    from gsar_otel.cli.inputs import check_regular
    from gsar_otel.cli.judge import parse_thresholds
    from gsar_otel.core.model import check_unit_interval
    from gsar_otel.core.protocol import judge_name
    from gsar_otel.judges.factory import make_judge
    from gsar_otel.measure import bench, datasets

    if args.limit is not None and args.limit < 1:
        raise BadInput(f"--limit must be an integer >= 1, got {args.limit}")
    if args.concurrency < 1:
        raise BadInput(f"--concurrency must be an integer >= 1, got {args.concurrency}")
    thresholds = parse_thresholds(args.proceed, args.regenerate)
    try:
        rho = check_unit_interval("--rho", args.rho)
    except ValueError as error:
        raise BadInput(str(error)) from None
    names = args.judge or [None]
    if len(set(names)) < len(names):
        raise BadInput(f"--judge names a judge twice: {', '.join(str(n) for n in names)}")
    try:
        judges = [make_judge(name, model=args.model) for name in names]
    except (ValueError, ImportError) as error:
        raise BadInput(str(error)) from None
    sinks = check_sinks(args.csv, args.jsonl)
    reports = []
    rows: list[dict[str, object]] = []
    for path in args.data:
        check_regular(path, "DATA.jsonl")
        try:
            examples = datasets.load_examples(path)
        except OSError as error:
            raise BadInput(f"DATA.jsonl: cannot read {path!r}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise BadInput(f"DATA.jsonl: {path!r} is not UTF-8 text (byte {error.start})") from None
        except ValueError as error:
            raise BadInput(str(error)) from None
        chosen = datasets.select(examples, args.split, args.limit)
        if not chosen:
            raise BadInput(f"{path} has no examples in split {args.split!r}")
        warn_one_class(path, chosen)
        for judge in judges:
            progress = Progress(sys.stderr, len(chosen), label=f"{judge_name(judge)} on {path}")
            watch = bench.Stopwatch()
            outcomes = asyncio.run(bench.judge_examples(
                chosen, judge, thresholds=thresholds, contradiction_penalty=rho,
                concurrency=args.concurrency, progress=progress.of_total))
            progress.finish()
            rows += example_rows(path, judge_name(judge), outcomes)
            reports.append(bench.build_report(
                data=path, judge=judge_name(judge), examples=examples, outcomes=outcomes,
                split=args.split, thresholds=thresholds, contradiction_penalty=rho,
                wall_seconds=watch.seconds()))
    write_rows(rows, sinks)
    if len(reports) == 1:
        print(reports[0].model_dump_json(indent=2) if args.json else render(reports[0]))
    elif args.json:
        print(json.dumps({"reports": [r.model_dump(mode="json") for r in reports]}, indent=2))
    else:
        print(render_comparison(reports))
    return 0


def warn_one_class(path: str, chosen: Sequence[BenchExample]) -> None:
    """Warn (stderr) when every chosen example has one label: balanced accuracy then measures
    one class only and says nothing about telling faithful answers from unfaithful ones."""
    labels = {example.answer_label for example in chosen}
    if len(labels) == 1:
        print(f"gsar bench: warning: all {len(chosen)} example(s) judged from {path} are "
              f"{labels.pop()}: balanced accuracy needs both faithful and unfaithful answers "
              "and is meaningless here", file=sys.stderr)


def example_rows(data: str, judge: str, outcomes: list[Outcome]) -> list[dict[str, object]]:
    """One row per judged example, in the columns of :data:`ROW_FIELDS`."""
    rows: list[dict[str, object]] = []
    for outcome in outcomes:
        label = "faithful" if outcome.faithful else "unfaithful"
        predicted = "faithful" if outcome.predicted_faithful else "unfaithful"
        rows.append({"data": data, "judge": judge, "id": outcome.id, "split": outcome.split,
                     "label": label, "S": round(outcome.score, 6),
                     "decision": str(outcome.decision), "predicted": predicted,
                     "correct": predicted == label, "ms": round(outcome.duration_s * 1000, 3),
                     "judge_error": outcome.judge_error})
    return rows


def check_sinks(csv_path: str | None, jsonl_path: str | None) -> list[tuple[str, str]]:
    """The ``--csv`` / ``--jsonl`` files, checked writable before any judging (without
    emptying them: a run that fails later leaves them as they were).

    Raises:
        BadInput: a file cannot be written.
    """
    from gsar_otel.cli.common import BadInput

    sinks = [(kind, path) for kind, path in (("csv", csv_path), ("jsonl", jsonl_path))
             if path is not None]
    for kind, path in sinks:
        try:
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as error:
            raise BadInput(f"--{kind}: cannot write {path!r}: {error.strerror or error}"
                           ) from None
    return sinks


def write_rows(rows: list[dict[str, object]], sinks: list[tuple[str, str]]) -> None:
    """Write ``rows`` to every sink, replacing what it held."""
    import csv

    for kind, path in sinks:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            if kind == "csv":
                writer = csv.DictWriter(handle, fieldnames=ROW_FIELDS)
                writer.writeheader()
                writer.writerows({**row, "judge_error": row["judge_error"] or ""}
                                 for row in rows)
            else:
                handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render(report: BenchReport) -> str:
    """The report as readable tables."""
    lines = [
        f"gsar bench {report.data}: judge {report.judge}, thresholds "
        f"{report.thresholds.proceed:.2f}/{report.thresholds.regenerate:.2f}, "
        f"rho {report.contradiction_penalty:.2f}, {report.wall_seconds:.1f} s wall",
        "",
        f"{'split':<8} {'n':>5} {'bal.acc':>8} {'95% interval':>13} {'prec(unf)':>10} "
        f"{'rec(unf)':>9} {'bag-of-words f':>14} {'bal.acc':>8} {'length':>7}",
    ]
    for row in report.splits:
        interval = row.balanced_accuracy_ci95
        spread = "n/a" if interval is None else f"{interval[0]:.3f}-{interval[1]:.3f}"
        lines.append(
            f"{row.split:<8} {row.examples:>5} {_fmt(row.balanced_accuracy):>8} {spread:>13} "
            f"{_fmt(row.precision_unfaithful):>10} {_fmt(row.recall_unfaithful):>9} "
            f"{row.baseline.fraction:>14.2f} {_fmt(row.baseline.balanced_accuracy):>8} "
            f"{_fmt(row.length_baseline.balanced_accuracy if row.length_baseline else None):>7}")
    for row in report.splits:
        judge_m, base_m = row.confusion, row.baseline.confusion
        lines += [
            "",
            f"[{row.split}] confusion (rows: actual; columns: predicted)",
            f"{'':<12} {'judge: proceed':>15} {'held back':>10}   "
            f"{'baseline: faithful':>18} {'unfaithful':>10}",
            f"{'faithful':<12} {judge_m.tn:>15} {judge_m.fp:>10}   "
            f"{base_m.tn:>18} {base_m.fp:>10}",
            f"{'unfaithful':<12} {judge_m.fn:>15} {judge_m.tp:>10}   "
            f"{base_m.fn:>18} {base_m.tp:>10}",
        ]
        if row.claim_agreement:
            lines += ["", f"[{row.split}] claim agreement (gold bucket -> judge's bucket); "
                          f"bucket accuracy {_fmt(row.claim_accuracy)}",
                      f"{'gold':<14} {'claims':>6} {'agree':>6} {'share':>6} {'unmatched':>9}  "
                      "judge's buckets"]
            for agreement in row.claim_agreement:
                spread = ", ".join(f"{k} {v}" for k, v in agreement.predicted.items())
                lines.append(
                    f"{agreement.gold:<14} {agreement.claims:>6} {agreement.agree:>6} "
                    f"{_fmt(agreement.agreement, 2):>6} {agreement.unmatched:>9}  {spread}")
        per = row.seconds_per_judgement
        median = row.median_seconds_per_judgement
        tokens = ("n/a (judge reports no usage)" if row.input_tokens_per_judgement is None else
                  f"{row.input_tokens_per_judgement:.0f} in / "
                  f"{_fmt(row.output_tokens_per_judgement, 0)} out")
        lines += ["", f"[{row.split}] per judgement: mean "
                      f"{'n/a' if per is None else f'{per * 1000:.1f} ms'}, median "
                      f"{'n/a' if median is None else f'{median * 1000:.1f} ms'}; tokens {tokens}; "
                      f"judge errors {row.judge_errors}"]
    return "\n".join(lines)


def render_comparison(reports: list[BenchReport]) -> str:
    """One row per data set, judge and split: balanced accuracy with its interval beside both
    baselines, claim-level bucket accuracy and the time per judgement."""
    first = reports[0]
    lines = [
        f"gsar bench: {len(reports)} runs, thresholds {first.thresholds.proceed:.2f}/"
        f"{first.thresholds.regenerate:.2f}, rho {first.contradiction_penalty:.2f}",
        "",
        f"{'data':<24} {'judge':<12} {'split':<8} {'n':>5} {'bal.acc':>8} {'95% interval':>13} "
        f"{'bag-of-words':>12} {'length':>7} {'claims':>7} {'ms/judgement':>13}",
    ]
    for report in reports:
        for row in report.splits:
            if row.split == "all" and len(report.splits) > 1:
                continue
            interval = row.balanced_accuracy_ci95
            spread = "n/a" if interval is None else f"{interval[0]:.3f}-{interval[1]:.3f}"
            length = row.length_baseline.balanced_accuracy if row.length_baseline else None
            per = row.seconds_per_judgement
            lines.append(
                f"{Path(report.data).stem[:24]:<24} {report.judge[:12]:<12} {row.split:<8} "
                f"{row.examples:>5} {_fmt(row.balanced_accuracy):>8} {spread:>13} "
                f"{_fmt(row.baseline.balanced_accuracy):>12} {_fmt(length):>7} "
                f"{_fmt(row.claim_accuracy):>7} "
                f"{'n/a' if per is None else f'{per * 1000:.1f}':>13}")
    lines += ["", "bal.acc: answer-level balanced accuracy (proceed = predicted faithful); "
                  "baselines fitted on dev; claims: share of labelled claims in their gold bucket"]
    return "\n".join(lines)
