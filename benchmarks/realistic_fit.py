"""The records judge's one tunable, the unverified share an answer may hold and still proceed,
chosen by leave-one-domain-out on the realistic set's development half (never the held-out one).

For each development domain D, the share is chosen on the other five domains pooled (the grid
value with the best objective: faithful answers proceeding minus twice the unfaithful answers
proceeding, both as shares; ties go to the smaller share, the stricter) and D is scored at it.
The default is the value chosen on all six.

    python benchmarks/realistic_fit.py              # the first set's six development domains
    python benchmarks/realistic_fit.py --all-sets   # every set's development domains (24)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from realistic import SETS, SPLITS, load

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import Decision
from gsar_otel.judges.records.judge import RecordsJudge, RecordsSettings

GRID = tuple(round(0.1 * i, 1) for i in range(11))
FALSE_PASS_WEIGHT = 2.0


def decisions(share: float, cases: list[dict[str, Any]]) -> list[tuple[str, bool, bool]]:
    """(domain, faithful, proceeded) per case at ``share``."""
    evaluator = GSAREvaluator(RecordsJudge(RecordsSettings(unverified_share=share)),
                              max_rounds=1)
    out = []
    for case in cases:
        evidence = [{"content": e["content"], "source": e.get("source")}
                    for e in case["evidence"]]
        result = evaluator.evaluate_sync(report_synthesis=case["answer"],
                                         evidence_corpus=evidence)
        out.append((case["domain"], case["label"] == "faithful",
                    result.final_decision is Decision.PROCEED))
    return out


def rates(rows: list[tuple[str, bool, bool]], domains: Sequence[str]) -> tuple[float, float]:
    """(faithful proceed share, false pass share) over ``domains``."""
    faithful = [p for d, f, p in rows if d in domains and f]
    unfaithful = [p for d, f, p in rows if d in domains and not f]
    return sum(faithful) / max(1, len(faithful)), sum(unfaithful) / max(1, len(unfaithful))


def objective(proceed: float, false_pass: float) -> float:
    return proceed - FALSE_PASS_WEIGHT * false_pass


def best(table: dict[float, list[tuple[str, bool, bool]]], domains: Sequence[str]) -> float:
    return max(GRID, key=lambda s: (objective(*rates(table[s], domains)), -s))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all-sets", action="store_true",
                        help="every answer set's development domains, not the first set's only")
    args = parser.parse_args(argv)
    sets = [(d, s["dev"]) for d, s in SETS.values()] if args.all_sets else [
        (SETS["realistic"][0], SPLITS["dev"])]
    dev = [domain for _, domains in sets for domain in domains]
    cases = []
    for directory, domains in sets:
        for domain in domains:
            cases += [{**c, "domain": domain} for c in load([domain], directory)]
    table = {share: decisions(share, cases) for share in GRID}
    print("| left out | share chosen on the other domains | its faithful proceed | "
          "its false passes |")
    print("|---|---|---|---|")
    for left in dev:
        others = [d for d in dev if d != left]
        share = best(table, others)
        proceed, false_pass = rates(table[share], [left])
        print(f"| {left} | {share:.1f} | {proceed:.0%} | {false_pass:.0%} |")
    share = best(table, dev)
    proceed, false_pass = rates(table[share], dev)
    print(f"\nChosen on all {len(dev)}: {share:.1f} (faithful proceed {proceed:.0%}, "
          f"false passes {false_pass:.0%}).")
    print("\n| share | faithful proceed | false passes |\n|---|---|---|")
    for s in GRID:
        p, f = rates(table[s], dev)
        print(f"| {s:.1f} | {p:.0%} | {f:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
