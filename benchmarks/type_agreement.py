"""Evidence-type agreement of a judge on the synthetic set's grounded claims (dev split by default).

A labelled grounded claim is matched to the judge's claims as ``gsar bench`` matches them
(:func:`gsar_otel.measure.claims.best_match`); where the judge also grounds it, its evidence type
is compared with the label's (``tool_match`` for metric rows and log lines, ``signal_match`` for
the alert, ``specific_data`` for JSON results).

    .venv/bin/python benchmarks/type_agreement.py --judge staged --judge lexical
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.judges.factory import make_judge
from gsar_otel.measure.claims import best_match
from gsar_otel.measure.datasets import split_of

DATA = Path(__file__).resolve().parent / "synthetic_incidents.jsonl"
BUCKETS = ("grounded_claims", "ungrounded_claims", "contradicted_claims", "complementary_claims")


def agreement(judge_name: str, split: str, path: Path = DATA) -> tuple[int, int, Counter[str]]:
    """(grounded claims the judge also grounds, of them with the labelled type, confusions)."""
    judge = make_judge(judge_name)
    matched = agreed = 0
    confusions: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if split != "all" and split_of(data.get("pair") or data["id"]) != split:
            continue
        evidence = EvidenceSet.coerce(data["evidence"].split("\n"))
        output = judge.judge_now(synthesis=data["synthesis"],  # type: ignore[attr-defined]
                                 evidence=evidence)
        output = check_judge_output(output, synthesis=data["synthesis"],
                                    evidence=evidence).output
        predicted = [(c.text, f"{bucket}|{c.type.value}") for bucket in BUCKETS
                     for c in getattr(output, bucket)]
        for claim in data["claims"]:
            if claim["label"] != "grounded" or "type" not in claim:
                continue
            found = best_match(claim["text"], predicted)
            if not found or not found.startswith("grounded_claims|"):
                continue
            kind = found.split("|", 1)[1]
            matched += 1
            agreed += kind == claim["type"]
            if kind != claim["type"]:
                confusions[f"{claim['type']} -> {kind}"] += 1
    return matched, agreed, confusions


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="append", default=None)
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    args = parser.parse_args(argv)
    for name in args.judge or ["staged"]:
        matched, agreed, confusions = agreement(name, args.split)
        share = agreed / matched if matched else 0.0
        print(f"{name} ({args.split}): {agreed} of {matched} grounded claims typed as labelled "
              f"({share:.3f}); most common other: "
              + ", ".join(f"{k} {v}" for k, v in confusions.most_common(4)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
