"""How judges do on realistic incident cases with true labels (benchmarks.worlds.incidents).

Every case is judged against its whole evidence set by ``GSAREvaluator`` with the default
settings and no regenerate or replan function (one judge round). Per evidence size and judge:

- per unfaithful kind, **false passes**: cases that proceed although one sentence is false;
- per faithful kind, **false alarms**: cases that do not proceed although every sentence is true;
- **claim buckets**: each labelled sentence is matched to the judge's claim sharing most of its
  words (:func:`gsar_otel.measure.claims.best_match`); it agrees when that claim is in the
  labelled bucket, complementary counting as grounded;
- p50 and p95 seconds per judgement.

The targets: no false pass for any unfaithful kind, false alarms under 5%, every claim bucket
at least 0.95.

    .venv/bin/python benchmarks/incident_bench.py --judge staged --truth
    .venv/bin/python benchmarks/incident_bench.py --sizes 2000 --cases 2 --json --out bench.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks.worlds

from _common import machine, quantile

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, Decision, JudgeOutput
from gsar_otel.core.protocol import Judge
from gsar_otel.core.text import states_conclusion
from gsar_otel.judges.factory import make_judge
from gsar_otel.measure.claims import best_match
from benchmarks.worlds.incidents import KINDS, LABELS, IncidentCase, generate

MAX_FALSE_ALARM_RATE = 0.05
MIN_CLAIM_AGREEMENT = 0.95


@dataclass(frozen=True)
class Judged:
    """What the judge made of one case."""

    case: IncidentCase
    decision: str
    seconds: float
    error: str | None
    truncated: bool
    claims: tuple[tuple[str, str | None], ...]
    """(label, the bucket of the best-matching judge claim or None) per labelled sentence."""

    @property
    def wrong(self) -> bool:
        """A false pass (unfaithful, proceeds) or a false alarm (faithful, does not)."""
        return (self.decision == Decision.PROCEED) != self.case.faithful


class TruthJudge:
    """A judge that answers every sentence with its true label and the items it is about.

    Run beside the real judges (``--truth``), it shows what scoring and the integrity guard let
    through even for a perfect verdict: a miss here is not a judge's miss.
    """

    def __init__(self, cases: Sequence[IncidentCase]) -> None:
        self._cases = {case.answer: case for case in cases}

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The true verdict of the case whose answer is ``synthesis``."""
        case = self._cases[synthesis]
        buckets: dict[str, list[Claim]] = {label: [] for label in LABELS}
        for claim in case.claims:
            cited = [evidence.get(ref) for ref in claim.evidence_ids]
            kind = next((item.type for item in cited if item is not None), "inference")
            buckets[claim.label].append(Claim(
                text=claim.text, type=kind, evidence_refs=claim.evidence_ids,
                conclusion=claim.label != "grounded" and states_conclusion(claim.text)))
        return JudgeOutput(grounding_score=1.0 if case.faithful else 0.0,
                           is_grounded=case.faithful, grounded_claims=buckets["grounded"],
                           ungrounded_claims=buckets["ungrounded"],
                           contradicted_claims=buckets["contradicted"])


def judge_case(evaluator: GSAREvaluator, case: IncidentCase) -> Judged:
    """Judge one case against its whole evidence set."""
    evidence = case.evidence_set()
    started = time.perf_counter()
    result = evaluator.evaluate_sync(report_synthesis=case.answer, evidence_corpus=evidence)
    seconds = time.perf_counter() - started
    predicted = [(claim.text, "grounded" if bucket == "complementary" else bucket)
                 for bucket, claims in result.final_partition.buckets() for claim in claims]
    return Judged(case, str(result.final_decision), seconds,
                  result.judge_errors[0] if result.judge_errors else None,
                  result.final_evidence.truncated,
                  tuple((claim.label, best_match(claim.text, predicted))
                        for claim in case.claims))


def summarize(judged: Sequence[Judged]) -> dict[str, Any]:
    """Per-kind rows and totals of one judge at one size."""
    kinds: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        mine = [j for j in judged if j.case.kind == kind]
        if not mine:
            continue
        pairs = [pair for j in mine for pair in j.claims]
        kinds[kind] = {
            "faithful": mine[0].case.faithful, "cases": len(mine),
            "wrong": sum(j.wrong for j in mine),
            "claims": len(pairs), "claims_agree": sum(label == got for label, got in pairs),
            "judge_errors": sum(j.error is not None for j in mine),
            "wrong_ids": [j.case.id for j in mine if j.wrong],
        }
    faithful = [j for j in judged if j.case.faithful]
    unfaithful = [j for j in judged if not j.case.faithful]
    buckets: dict[str, dict[str, Any]] = {}
    for label in LABELS:
        pairs = [(lab, got) for j in judged for lab, got in j.claims if lab == label]
        agree = sum(lab == got for lab, got in pairs)
        buckets[label] = {"claims": len(pairs), "agree": agree,
                          "unmatched": sum(got is None for _, got in pairs),
                          "agreement": agree / len(pairs) if pairs else None}
    seconds = [j.seconds for j in judged]
    false_alarms = sum(j.wrong for j in faithful)
    alarm_rate = false_alarms / len(faithful) if faithful else None
    agreements = [b["agreement"] for b in buckets.values() if b["agreement"] is not None]
    totals = {
        "cases": len(judged), "unfaithful_cases": len(unfaithful),
        "false_passes": sum(j.wrong for j in unfaithful),
        "kinds_with_false_passes": [k for k, row in kinds.items()
                                    if not row["faithful"] and row["wrong"]],
        "faithful_cases": len(faithful), "false_alarms": false_alarms,
        "false_alarm_rate": alarm_rate, "claim_buckets": buckets,
        "judge_errors": sum(j.error is not None for j in judged),
        "truncated_cases": sum(j.truncated for j in judged),
        "p50_s": quantile(seconds, 0.5) if seconds else None,
        "p95_s": quantile(seconds, 0.95) if seconds else None,
        "total_s": sum(seconds),
    }
    totals["meets_targets"] = {
        "zero_false_passes": totals["false_passes"] == 0,
        "false_alarms_under_5pct": alarm_rate is not None and alarm_rate < MAX_FALSE_ALARM_RATE,
        "claim_buckets_at_least_0_95": bool(agreements) and min(agreements) >= MIN_CLAIM_AGREEMENT,
    }
    return {"kinds": kinds, "totals": totals}


def measure(judge: Judge, cases: Sequence[IncidentCase]) -> dict[str, Any]:
    """Judge every case with ``judge`` (one round, default settings) and summarise."""
    evaluator = GSAREvaluator(judge, max_rounds=1)
    return summarize([judge_case(evaluator, case) for case in cases])


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "-"


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: a table per judge and size, then the totals."""
    lines = ["# Incident benchmark", "",
             f"seed {report['seed']}, {report['cases_per_kind']} cases per kind, "
             f"{len(KINDS)} kinds; targets: no false pass for any unfaithful kind, false alarms "
             f"under {MAX_FALSE_ALARM_RATE:.0%}, every claim bucket at least "
             f"{MIN_CLAIM_AGREEMENT}.", ""]
    for run in report["results"]:
        lines += [f"## {run['judge']}, {run['items']} evidence items", "",
                  "| kind | should | cases | wrong | claims agree | wrong cases |",
                  "|---|---|---:|---:|---:|---|"]
        for kind, row in run["kinds"].items():
            lines.append(
                f"| {kind} | {'proceed' if row['faithful'] else 'not proceed'} | {row['cases']} "
                f"| {row['wrong']} | {_ratio(row['claims_agree'], row['claims'])} "
                f"| {', '.join(row['wrong_ids'])} |")
        lines.append("")
    lines += ["## Totals", "",
              "| judge | items | false passes | kinds with false passes | false alarms "
              "| grounded | ungrounded | contradicted | p50 s | p95 s | run s | targets |",
              "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for run in report["results"]:
        totals = run["totals"]
        buckets = totals["claim_buckets"]
        met = totals["meets_targets"]
        lines.append(
            f"| {run['judge']} | {run['items']} "
            f"| {_ratio(totals['false_passes'], totals['unfaithful_cases'])} "
            f"| {', '.join(totals['kinds_with_false_passes']) or 'none'} "
            f"| {_ratio(totals['false_alarms'], totals['faithful_cases'])} "
            f"({_num(totals['false_alarm_rate'] and 100 * totals['false_alarm_rate'], 1)}%) "
            + "".join(f"| {_num(buckets[label]['agreement'])} " for label in LABELS)
            + f"| {_num(totals['p50_s'], 4)} | {_num(totals['p95_s'], 4)} "
            f"| {_num(run['wall_s'], 1)} | {'PASS' if all(met.values()) else 'MISS'} |")
    errors = [(r["judge"], r["items"], r["totals"]) for r in report["results"]
              if r["totals"]["judge_errors"] or r["totals"]["truncated_cases"]]
    for judge, items, totals in errors:
        lines.append(f"\n{judge} at {items} items: {totals['judge_errors']} judge errors, "
                     f"{totals['truncated_cases']} cases with evidence cut.")
    return "\n".join(lines) + "\n"


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes must be integers separated by commas, "
                                         f"got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"--sizes must be integers >= 1, got {text!r}")
    return sizes


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"--cases must be >= 1, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_sizes, default=[1, 10, 200, 2000],
                        help="evidence items per case, comma-separated (default 1,10,200,2000)")
    parser.add_argument("--cases", type=_positive, default=5, help="cases per kind (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--judge", action="append", dest="judges", metavar="NAME",
                        help="a judge by name (gsar_otel.judges.factory); repeatable; "
                             "default: staged, or none with --truth")
    parser.add_argument("--truth", action="store_true",
                        help="also run a judge that gives every sentence its true label, to "
                             "see what scoring and the integrity guard let through")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", type=Path, help="write the report to this file, not stdout")
    args = parser.parse_args(argv)
    names = args.judges or ([] if args.truth else ["staged"])
    try:
        judges = {name: make_judge(name) for name in names}
    except ValueError as error:
        parser.error(str(error))
    results = []
    for items in args.sizes:
        cases = generate(seed=args.seed, cases_per_kind=args.cases, items=items)
        runs: dict[str, Judge] = dict(judges)
        if args.truth:
            runs["truth"] = TruthJudge(cases)
        for name, judge in runs.items():
            started = time.perf_counter()
            run = measure(judge, cases)
            wall = time.perf_counter() - started
            print(f"{name}: {len(cases)} cases of {items} items in {wall:.1f} s", file=sys.stderr)
            results.append({"judge": name, "items": items, "wall_s": wall, **run})
    report = {"benchmark": "incident_bench", "seed": args.seed, "cases_per_kind": args.cases,
              "sizes": args.sizes, "judges": names + ["truth"] * args.truth,
              "machine": machine(), "results": results}
    text = json.dumps(report, indent=2) + "\n" if args.json else markdown(report)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
