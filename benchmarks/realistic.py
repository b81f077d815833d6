"""The realistic answer set: agents' answers over verbatim tool outputs, judged and scored.

``benchmarks/realistic/<domain>.jsonl`` holds, per domain, 10 faithful and 10 unfaithful answers
(each unfaithful one with exactly one error, its ``error_span`` marked), written without sight
of any judge. Domains are split into a development half and a held-out half (:data:`SPLITS`);
tune on the first, look at the second once per change. ``--set realistic2`` reads the second
set (``benchmarks/realistic2/``, twelve other domains), fixed before the changes it measures;
``--set realistic3`` the third (``benchmarks/realistic3/``, twelve more), fixed before any
judge was run on it.

    python benchmarks/realistic.py --judge staged --split dev
    python benchmarks/realistic.py --judge staged records --split heldout --markdown
    python benchmarks/realistic.py --set realistic2 --judge records --split dev

Reported per domain and overall: false passes (unfaithful answers that proceed); faithful
answers holding a contradicted claim; faithful answers proceeding, abstaining, regenerated or
replanned; the precision of grounded (verified) and of contradicted claims (a claim is wrong
when it overlaps the answer's error span); p50 and max time per answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import quantile

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import coerce_evidence as evidence_set
from gsar_otel.core.model import Claim, Decision
from gsar_otel.judges.factory import make_judge

HERE = Path(__file__).resolve().parent / "realistic"
SPLITS: dict[str, tuple[str, ...]] = {
    "dev": ("kubernetes", "sql", "errors", "terraform", "prometheus", "applogs"),
    "heldout": ("aws", "ci", "orders", "security", "docs", "dbops"),
}
"""Development and held-out domains (fixed before any judge was run on the set)."""
SETS: dict[str, tuple[Path, dict[str, tuple[str, ...]]]] = {
    "realistic": (HERE, SPLITS),
    "realistic2": (HERE.parent / "realistic2", {
        "dev": ("redis", "kafka", "nginx", "systemd", "github", "billing"),
        "heldout": ("crm", "dns", "vault", "elasticsearch", "datadog", "airflow"),
    }),
    "realistic3": (HERE.parent / "realistic3", {
        "dev": ("postgres", "docker", "linux", "argocd", "jenkins", "rabbitmq"),
        "heldout": ("gcp", "pagerduty", "jira", "mongodb", "envoy", "tls"),
    }),
    "realistic4": (HERE.parent / "realistic4", {
        "dev": ("haproxy", "cassandra", "consul", "celery", "nomad", "clickhouse"),
        "heldout": ("istio", "minio", "cloudflare", "zookeeper", "spark", "snowflake"),
    }),
}
"""Each answer set's directory and its halves (``benchmarks/<set>/README.md``)."""


def load(domains: Sequence[str], directory: Path = HERE) -> list[dict[str, Any]]:
    """The cases of ``domains`` in ``directory`` (missing files are skipped)."""
    cases = []
    for domain in domains:
        path = directory / f"{domain}.jsonl"
        if path.exists():
            cases += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return cases


@dataclass
class Tally:
    """Counts for one domain (or all)."""

    faithful: int = 0
    unfaithful: int = 0
    false_passes: int = 0
    faithful_contradicted: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    grounded: int = 0
    grounded_wrong: int = 0
    contradicted: int = 0
    contradicted_right: int = 0
    unverified: int = 0
    claims: int = 0
    times: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("faithful", "unfaithful", "false_passes", "faithful_contradicted",
                     "grounded", "grounded_wrong", "contradicted", "contradicted_right",
                     "unverified", "claims"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, count in other.decisions.items():
            self.decisions[key] = self.decisions.get(key, 0) + count
        self.times += other.times


def overlaps(answer: str, claim: Claim, span: str | None) -> bool:
    """True when ``claim`` holds (part of) the answer's error span."""
    if not span:
        return False
    at = answer.find(span)
    where = answer.find(claim.text)
    if at < 0 or where < 0:
        return span in claim.text or claim.text in span
    return where < at + len(span) and at < where + len(claim.text)


def judge_case(evaluator: GSAREvaluator, case: dict[str, Any], tally: Tally,
               show: bool) -> None:
    """Judge one case and count it."""
    evidence = [{"content": e["content"], "source": e.get("source")} for e in case["evidence"]]
    started = time.perf_counter()
    result = evaluator.evaluate_sync(report_synthesis=case["answer"], evidence_corpus=evidence)
    tally.times.append(time.perf_counter() - started)
    decision = result.final_decision
    output = result.final_judge_output
    faithful = case["label"] == "faithful"
    span = case.get("error_span")
    if faithful:
        tally.faithful += 1
        tally.decisions[decision.value] = tally.decisions.get(decision.value, 0) + 1
        tally.faithful_contradicted += bool(output.contradicted_claims)
    else:
        tally.unfaithful += 1
        tally.false_passes += decision is Decision.PROCEED
    for claim in output.grounded_claims:
        tally.grounded += 1
        tally.grounded_wrong += (not faithful) and overlaps(case["answer"], claim, span)
    for claim in output.contradicted_claims:
        tally.contradicted += 1
        tally.contradicted_right += (not faithful) and overlaps(case["answer"], claim, span)
    partition = output.to_partition()
    tally.claims += partition.total_claims
    tally.unverified += sum(not c.verifiable for c in partition.all_claims())
    if show:
        bad = (faithful and decision is not Decision.PROCEED) or (
            not faithful and decision is Decision.PROCEED)
        mark = "BAD " if bad else "ok  "
        print(f"{mark}{case['id']} {case['label']} -> {decision.value} "
              f"S={result.final_score:.2f} {case.get('error_kind') or ''}")
        if bad or show == 2:
            for name, claims in partition.buckets():
                for claim in claims:
                    tag = "" if claim.verifiable else " (unverified)"
                    print(f"    [{name}{tag}] {claim.text}")
            explain = getattr(evaluator.judge, "explain", None)
            if explain is not None and hasattr(evaluator.judge, "settings") and hasattr(
                    evaluator.judge.settings, "unverified_share"):
                for outcome in explain(synthesis=case["answer"], evidence=evidence_set(evidence)):
                    for check in outcome.checks:
                        if check.outcome != "verified":
                            print(f"      - {check.outcome}: {check.reason}")
            else:
                for line in (*output.contradictions, *output.gaps):
                    print(f"      - {line}")
            for note in result.adjustments:
                print(f"      ~ guard {note.kind}: {note.reason[:160]}")
            if output.abstained:
                print(f"      - abstain: {output.abstain_reason}")
            if not faithful:
                print(f"      ! error: {span} ({case.get('error_note')})")


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100.0 * part / whole:.0f}%)" if whole else "-"


def _precision(right: int, whole: int) -> str:
    return f"{100.0 * right / whole:.1f}% of {whole}" if whole else "-"


def row(name: str, t: Tally) -> str:
    """One Markdown row."""
    f = t.faithful
    return (f"| {name} | {_share(t.false_passes, t.unfaithful)} | "
            f"{_share(t.faithful_contradicted, f)} | "
            f"{_share(t.decisions.get('proceed', 0), f)} | "
            f"{_share(t.decisions.get('abstain', 0), f)} | "
            f"{_share(t.decisions.get('regenerate', 0) + t.decisions.get('replan', 0), f)} | "
            f"{_precision(t.grounded - t.grounded_wrong, t.grounded)} | "
            f"{_precision(t.contradicted_right, t.contradicted)} | "
            f"{_share(t.unverified, t.claims)} | "
            f"{1000 * quantile(t.times, 0.5):.1f} / {1000 * max(t.times):.1f} |")


HEADER = ("| domain | false passes | faithful with a contradicted claim | faithful proceed | "
          "faithful abstain | faithful regenerate/replan | verified precision | "
          "contradicted precision | unverified claims | ms p50 / max |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", nargs="+", default=["staged"])
    parser.add_argument("--set", choices=sorted(SETS), default="realistic", dest="answer_set",
                        help="which answer set (default: the first, benchmarks/realistic/)")
    parser.add_argument("--split", choices=["dev", "heldout", "all"], default="dev")
    parser.add_argument("--domain", action="append", help="only these domains")
    parser.add_argument("--show", action="count", default=0,
                        help="print each case (twice: every claim)")
    args = parser.parse_args(argv)
    directory, splits = SETS[args.answer_set]
    domains = (args.domain or (splits["dev"] + splits["heldout"] if args.split == "all"
                               else splits[args.split]))
    for judge_name in args.judge:
        evaluator = GSAREvaluator(make_judge(judge_name), max_rounds=1)
        total = Tally()
        lines = []
        for domain in domains:
            cases = load([domain], directory)
            if not cases:
                continue
            tally = Tally()
            for case in cases:
                judge_case(evaluator, case, tally, bool(args.show) and args.show or False)
            total.add(tally)
            lines.append(row(domain, tally))
        print(f"\n### `{judge_name}`, {args.answer_set} {args.split} ({', '.join(domains)})\n")
        print(HEADER)
        print("\n".join(lines))
        if total.times:
            print(row("**all**", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
