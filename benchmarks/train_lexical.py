"""Train the staged StagedJudge's classifier and write its model.json (beside classify.py).

    .venv/bin/python benchmarks/train_lexical.py [--data DIR] [--synthetic FILE] [--folds 5]
        [--l2 X] [--no-gate] [--rules name_absent,time_absent[,number_absent]]
        [--claim-learner logistic|trees] [--gate-learner logistic|trees]

Training reads only the dev split, decided exactly as ``gsar bench`` decides it
(``gsar_otel.measure.datasets.split_of``: sha256 of ``pair`` if present else ``id``, 30% held
out). Claim rows come from labelled claims (FaithBench, WiCE,
SciTab, InfoTabs, synthetic incidents); HaluEval has answer labels only and enters through the
answer-level objective that picks the decision thresholds. The L2 strength is chosen by grouped
cross-validation on dev; the thresholds by out-of-fold answer-level balanced accuracy on dev
(mean over data sets, plus claim accuracy on the synthetic set). Then the answer gate
(``benchmarks/train_gate.py``) is stacked on the fold models' out-of-fold verdicts and the rule
judge's. Held-out rows are never read beyond their split key.

    .venv/bin/python benchmarks/train_lexical.py --claim-learner trees   # the shipped model.json
    .venv/bin/python benchmarks/train_lexical.py --l2 0.01   # the logistic claim model (0.3)

``--claim-learner trees`` fits one boosted tree ensemble per class (``benchmarks/train_trees.py``,
deterministic, seed recorded) to the same objective, its round count chosen by the same
grouped cross-validation; ``--gate-learner trees`` does the same for the answer gate.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import train_gate
import train_trees
from train_claims import (
    CLAIM_TREE_ROUNDS,
    CLAIM_TREES,
    CLASSES,
    L2_GRID,
    SEED,
    AnswerRows,
    choose_capacity,
    fit,
    fit_trees,
    sample_weights,
)

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import check_judge_output
from gsar_otel.core.model import Decision
from gsar_otel.core.scoring import apply_conclusion_policy, decide, gsar_score
from gsar_otel.judges.staged import anchoring
from gsar_otel.judges.staged import classify as classify_module
from gsar_otel.judges.staged.classify import REGIMES, Model, Scored, classify
from gsar_otel.judges.staged.features import (
    FEATURE_NAMES,
    FEATURES_VERSION,
    FeatureVector,
    answer_context,
)
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.judge import Analysis, analyse, assemble, decide_claims
from gsar_otel.judges.staged.segment import segment
from gsar_otel.judges.staged.textual import facts_of
from gsar_otel.measure.datasets import SPLIT_RULE, split_of

ROOT = Path(__file__).resolve().parent.parent
MODEL_PATH = Path(classify_module.__file__).parent / classify_module.MODEL_FILE
LABEL_CLASS = {"grounded": "grounded", "ungrounded": "ungrounded",
               "partially_supported": "ungrounded", "contradicted": "contradicted",
               "complementary": "complementary"}
GROUNDED_GRID = tuple(round(0.2 + 0.025 * i, 3) for i in range(29))
CONTRADICTED_GRID = (0.4, 0.6, 0.8, 1.01)


@dataclass
class Example:
    dataset: str
    id: str
    fold: int
    faithful: bool
    synthesis: str
    evidence: EvidenceSet
    claim_rows: list[tuple[Analysis, int]]
    answer: list[Analysis]


def _split_key(data: dict[str, Any]) -> str:
    pair = data.get("pair")
    return pair if isinstance(pair, str) and pair else str(data["id"])


def _fold(key: str, folds: int) -> int:
    return int(hashlib.sha256(f"fold:{key}".encode()).hexdigest()[:8], 16) % folds


def load(paths: list[Path], folds: int) -> list[Example]:
    examples = []
    for path in paths:
        dataset = path.stem
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            data = json.loads(line)
            if split_of(_split_key(data)) != "dev":
                continue  # held-out rows are never analysed here
            evidence = EvidenceSet.coerce(data["evidence"])
            index = build_index(evidence)
            spans = segment(data["synthesis"])
            context = answer_context(len(spans), facts_of(data["synthesis"]), index)
            rows = []
            for claim in data.get("claims") or []:
                label = LABEL_CLASS.get(claim.get("label", ""))
                if label is not None:
                    rows.append((analyse(claim["text"], index, context),
                                 CLASSES.index(label)))
            answer = [analyse(span.text, index, context, span) for span in spans]
            examples.append(Example(dataset, data["id"], _fold(_split_key(data), folds),
                                    data["answer_label"] == "faithful", data["synthesis"],
                                    evidence, rows, answer))
    return examples


def answer_rows(examples: list[Example], mean: np.ndarray, scale: np.ndarray) -> tuple[
        AnswerRows, np.ndarray]:
    """Answer-level rows of every answer (the product objective: all claims of a faithful
    answer are grounded), and each answer's fold."""
    chosen = [e for e in examples if e.answer]
    if not chosen:
        return AnswerRows(np.zeros((0, len(mean))), np.zeros(0, int), np.zeros(0, bool),
                          np.zeros(0)), np.zeros(0, int)
    x = np.array([a.vector.values for e in chosen for a in e.answer])
    group = np.array([n for n, e in enumerate(chosen) for _ in e.answer])
    y = np.array([e.faithful for e in chosen])
    counts: dict[tuple[str, bool], int] = defaultdict(int)
    for e in chosen:
        counts[(e.dataset, e.faithful)] += 1
    w = np.array([1.0 / (2 * counts[(e.dataset, e.faithful)]) for e in chosen])
    return AnswerRows((x - mean) / scale, group, y, w), np.array([e.fold for e in chosen])


RULES: list[str] = ["name_absent", "time_absent", "number_absent"]


def model_json(weights: Any, bias: Any, mean: np.ndarray, scale: np.ndarray,
               grounded: dict[str, float], contradicted: float) -> dict[str, Any]:
    """The claim model's section; ``weights`` is a tuple of per-class ensembles (``bias``
    None) for the boosted model."""
    if isinstance(weights, tuple):
        return {"rules": RULES,
                "features_version": FEATURES_VERSION, "feature_names": list(FEATURE_NAMES),
                "classes": list(CLASSES), "mean": mean.tolist(), "scale": scale.tolist(),
                "claim_trees": [e.to_json() for e in weights],
                "thresholds": {**{f"grounded_{r}": grounded[r] for r in REGIMES},
                               "contradicted": contradicted}}
    return {
        "rules": RULES,
        "features_version": FEATURES_VERSION, "feature_names": list(FEATURE_NAMES),
        "classes": list(CLASSES), "mean": mean.tolist(), "scale": scale.tolist(),
        "weights": weights.tolist(), "bias": bias.tolist(),
        "thresholds": {**{f"grounded_{r}": grounded[r] for r in REGIMES},
                       "contradicted": contradicted},
    }


class MemoModel(Model):
    """A claim model whose class probabilities are computed once per vector (the threshold
    search re-reads every dev claim under each candidate threshold; the trees do not change)."""

    __slots__ = ()

    def score(self, vector: FeatureVector) -> Scored:
        key = (id(self.trees if self.trees is not None else self.weights), vector.values)
        if key not in _MEMO:
            _MEMO[key] = Model.score(self, vector)
        return _MEMO[key]


_MEMO: dict[tuple[int, tuple[float, ...]], Scored] = {}


def answer_proceeds(model: Model, example: Example, cache: dict[Any, bool]) -> bool:
    """The product rule: the answer is faithful when the evaluator's decision is proceed."""
    verdicts = decide_claims(model, example.synthesis, example.answer)
    key = (example.id, tuple((v.bucket, v.type, v.evidence_refs) for v in verdicts))
    if key not in cache:
        output = assemble(verdicts, example.evidence)
        output = check_judge_output(output, synthesis=example.synthesis,
                                    evidence=example.evidence).output
        partition = output.to_partition()
        decision, _ = apply_conclusion_policy(decide(gsar_score(partition)), partition, "cap")
        cache[key] = decision is Decision.PROCEED
    return cache[key]


def balanced(pairs: list[tuple[bool, bool]]) -> float:
    pos = [p for t, p in pairs if t]
    neg = [not p for t, p in pairs if not t]
    parts = [sum(pos) / len(pos)] if pos else []
    parts += [sum(neg) / len(neg)] if neg else []
    return sum(parts) / len(parts) if parts else 0.0


def evaluate(models: dict[int, Model], examples: list[Example],
             cache: dict[Any, bool]) -> dict[str, float]:
    """Answer-level balanced accuracy per data set (each example judged by its fold's model)
    and claim bucket accuracy on the synthetic set."""
    pairs: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    claim_hits = claim_total = 0
    for example in examples:
        model = models[example.fold]
        pairs[example.dataset].append((example.faithful,
                                       answer_proceeds(model, example, cache)))
        if example.dataset.startswith("synthetic"):
            for analysis, label in example.claim_rows:
                claim_total += 1
                verdict = classify(model, analysis.vector, analysis.sources,
                                   analysis.comparison.row_conflict)
                claim_hits += verdict.bucket == CLASSES[label]
    scores = {d: balanced(v) for d, v in sorted(pairs.items())}
    if claim_total:
        scores["synthetic_claims"] = claim_hits / claim_total
    return scores


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "grounding")
    parser.add_argument("--synthetic", type=Path, default=ROOT / "benchmarks" /
                        "synthetic_incidents.jsonl")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--l2", type=float, default=None,
                        help="fix the claim model's L2 strength instead of choosing it by CV")
    parser.add_argument("--no-gate", action="store_true", help="train no answer gate")
    parser.add_argument("--claim-learner", choices=("logistic", "trees"), default="logistic",
                        help="the claim model: logistic regression or boosted trees")
    parser.add_argument("--gate-learner", choices=("logistic", "trees"), default="logistic",
                        help="the answer gate: logistic regression or boosted trees")
    parser.add_argument("--rules", default="name_absent,time_absent,number_absent",
                        help="comma-separated optional rules (name_absent, time_absent, "
                        "number_absent), or ''")
    args = parser.parse_args(argv)
    RULES[:] = [r for r in args.rules.split(",") if r]
    paths = sorted(args.data.glob("*.jsonl"))
    if args.synthetic.exists():
        paths.append(args.synthetic)
    started = time.perf_counter()
    examples = load(paths, args.folds)
    print(f"analysed {len(examples)} dev examples in {time.perf_counter() - started:.0f}s "
          f"(anchors from {anchoring.SOURCE})", file=sys.stderr)
    rows = [(e.dataset, e.fold, np.array(a.vector.values), c)
            for e in examples for a, c in e.claim_rows]
    x = np.array([r[2] for r in rows])
    y = np.array([r[3] for r in rows])
    datasets = [r[0] for r in rows]
    fold_of = np.array([r[1] for r in rows])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (x - mean) / scale
    w = sample_weights(datasets, y)
    answers, answer_fold = answer_rows(examples, mean, scale)
    # 1. L2 strength (or the trees' round count) by grouped cross-validated weighted log-loss.
    best_l2, best_loss, best_fits = choose_capacity(xs, y, w, fold_of, answers, answer_fold,
                                                    args.folds, args.claim_learner, args.l2)
    # 2. Thresholds by out-of-fold answer-level balanced accuracy, coordinate-wise.
    cache: dict[Any, bool] = {}
    grounded = dict.fromkeys(REGIMES, 0.5)
    contradicted = 0.6

    base = {f: MemoModel.from_json(model_json(*best_fits[f], mean, scale, grounded,
                                              contradicted)) for f in range(args.folds)}

    def score(g: dict[str, float], x: float) -> tuple[float, dict[str, float]]:
        models: dict[int, Model] = {
            f: dataclasses.replace(base[f], grounded_thresholds=g, contradicted_threshold=x)
            for f in range(args.folds)}
        scores = evaluate(models, examples, cache)
        return sum(scores.values()) / len(scores), scores

    objective, scores = score(grounded, contradicted)
    for _ in range(2):
        for regime in REGIMES:
            for value in GROUNDED_GRID:
                trial = grounded | {regime: value}
                result, trial_scores = score(trial, contradicted)
                if result > objective + 1e-9:
                    objective, scores, grounded = result, trial_scores, trial
        for value in CONTRADICTED_GRID:
            result, trial_scores = score(grounded, value)
            if result > objective + 1e-9:
                objective, scores, contradicted = result, trial_scores, value
    print(f"thresholds grounded={grounded} contradicted={contradicted}: dev out-of-fold "
          + ", ".join(f"{k} {v:.3f}" for k, v in scores.items()), file=sys.stderr)
    # 3. The answer gate, stacked on the fold models' out-of-fold verdicts.
    gate = None
    if not args.no_gate:
        fold_models: dict[int, Model] = {
            f: dataclasses.replace(base[f], grounded_thresholds=grounded,
                                   contradicted_threshold=contradicted)
            for f in range(args.folds)}
        gate = train_gate.train(train_gate.prepare(examples), fold_models, args.folds,
                                learner=args.gate_learner)
    # 4. The final fit on all of dev.
    if args.claim_learner == "trees":
        final = dataclasses.replace(CLAIM_TREES, rounds=int(best_l2))
        weights, bias = fit_trees(xs, y, w, answers, final), None
    else:
        weights, bias = fit(xs, y, w, answers, best_l2)
    data = model_json(weights, bias, mean, scale, grounded, contradicted)
    if gate is not None:
        data["gate"] = gate
    data["model_version"] = f"{FEATURES_VERSION}+{datetime.date.today().isoformat()}"
    data["training"] = {
        "command": "python benchmarks/train_lexical.py " + " ".join(argv or sys.argv[1:]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seed": SEED, "split_rule": SPLIT_RULE, "folds": args.folds,
        "fold_rule": "int(sha256('fold:' + split key)[:8], 16) % folds",
        "objective": "weighted multinomial cross-entropy on labelled claims (each data set and "
                     "class weighing the same) + answer-level log-loss with P(faithful) = "
                     "product over the answer's claims of P(grounded) + P(complementary)",
        "claim_learner": args.claim_learner,
        **({"trees": dataclasses.asdict(dataclasses.replace(CLAIM_TREES, rounds=int(best_l2))),
            "rounds_grid": list(CLAIM_TREE_ROUNDS), "trees_seed": train_trees.SEED}
           if args.claim_learner == "trees" else
           {"l2": best_l2, "l2_grid": [args.l2] if args.l2 is not None else list(L2_GRID)}),
        "cv_log_loss": round(best_loss, 4),
        "threshold_objective": "mean over data sets of out-of-fold dev answer balanced "
                               "accuracy (+ synthetic claim accuracy)",
        "dev_out_of_fold": {k: round(v, 4) for k, v in scores.items()},
        "claim_rows": len(y),
        "claim_rows_by_class": {c: int((y == i).sum()) for i, c in enumerate(CLASSES)},
        "dev_examples": len(examples), "anchors": anchoring.SOURCE,
        "files": [{"name": p.name, "sha256": sha256(p)} for p in paths],
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
