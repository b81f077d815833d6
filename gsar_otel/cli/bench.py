"""`gsar bench DATA.jsonl`: measure a judge on labelled grounding data.

Prints answer-level balanced accuracy (proceed = predicted faithful), precision and recall for
unfaithful answers, the confusion matrix, claim-level agreement per bucket, time and tokens per
judgement, and a bag-of-words baseline computed in the same run, for the dev and held-out splits.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from gsar_otel.measure.bench import BenchReport

BAR_WIDTH = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.add_argument("data", metavar="DATA.jsonl", help="labelled examples, one JSON per line")
    parser.add_argument("--judge", default=None,
                        help="lexical, anthropic or a plugin's judge (default: GSAR_JUDGE, else "
                             "anthropic with a key, else lexical)")
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


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print the report."""
    from gsar_otel.cli.common import BadInput
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
    try:
        examples = datasets.load_examples(args.data)
    except OSError as error:
        raise BadInput(f"cannot read {args.data}: {error.strerror or error}") from None
    except ValueError as error:
        raise BadInput(str(error)) from None
    chosen = datasets.select(examples, args.split, args.limit)
    if not chosen:
        raise BadInput(f"{args.data} has no examples in split {args.split!r}")
    try:
        judge = make_judge(args.judge, model=args.model)
    except (ValueError, ImportError) as error:
        raise BadInput(str(error)) from None

    progress = Progress(sys.stderr)
    watch = bench.Stopwatch()
    outcomes = asyncio.run(bench.judge_examples(
        chosen, judge, thresholds=thresholds, contradiction_penalty=rho,
        concurrency=args.concurrency, progress=progress.update))
    progress.finish()
    report = bench.build_report(
        data=args.data, judge=judge_name(judge), examples=examples, outcomes=outcomes,
        split=args.split, thresholds=thresholds, contradiction_penalty=rho,
        wall_seconds=watch.seconds())
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(render(report))
    return 0


class Progress:
    """A one-line progress bar on a stream; plain lines every 10% when it is not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = -1

    def update(self, done: int, total: int) -> None:
        """Show ``done`` of ``total``."""
        share = done / total if total else 1.0
        if self.tty:
            filled = round(share * BAR_WIDTH)
            self.stream.write(f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}")
            self.stream.flush()
            return
        decile = int(share * 10)
        if decile != self.last_decile:
            self.last_decile = decile
            self.stream.write(f"judged {done}/{total}\n")
            self.stream.flush()

    def finish(self) -> None:
        """End the bar's line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


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
        f"{'rec(unf)':>9} {'baseline f':>11} {'baseline bal.acc':>17}",
    ]
    for row in report.splits:
        interval = row.balanced_accuracy_ci95
        spread = "n/a" if interval is None else f"{interval[0]:.3f}-{interval[1]:.3f}"
        lines.append(
            f"{row.split:<8} {row.examples:>5} {_fmt(row.balanced_accuracy):>8} {spread:>13} "
            f"{_fmt(row.precision_unfaithful):>10} {_fmt(row.recall_unfaithful):>9} "
            f"{row.baseline.fraction:>11.2f} {_fmt(row.baseline.balanced_accuracy):>17}")
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
            lines += ["", f"[{row.split}] claim agreement (gold bucket -> judge's bucket)",
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
