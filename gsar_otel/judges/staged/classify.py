"""Stage 6: a claim's bucket, evidence type and evidence ids from its features.

The bucket comes from the class probabilities of a learned model in ``model.json`` (a boosted
tree ensemble per class under ``claim_trees``, :mod:`.trees`, or a multinomial logistic
regression's ``weights``; inference in plain Python) and two named thresholds stored beside it,
after three ordered rules:

0. ``cause_conflict``: a claim naming a cause where a row of the evidence names another root
   cause is contradicted.
1. ``conclusion_unstated``: a claim stating a cause or a conclusion that no aligned unit states
   is ungrounded (type ``inference``), whatever the model says.
1b. ``name_absent`` and ``time_absent`` (each when ``model.json`` lists it under ``rules``): a
   name of the claim (a capitalised whole token) that no unit holds makes a claim on prose
   ungrounded (in tool rows capitalised tokens are mostly labels whose forms vary:
   ``NotReady``/``NodeNotReady``); so does a time or date of the claim that no unit holds.
   ``number_absent``: a number, quantity or time of a claim on tool rows that no unit holds
   (a metric the rows never report, "packet loss of 14%") makes it ungrounded; not on a table
   (``evidence_table``), whose claims reckon with its values (ages, totals, ranges).
1c. ``negation_conflict``: a claim whose polarity differs from the tool row, log line or alert
   that states most of it is contradicted ("cfg-1 was never pushed" against a push log line).
2. ``row_value_conflict``: a value that conflicts with the same key of the same subject in a tool
   row, log line or alert makes the claim contradicted.
3. ``model``: contradicted when P(contradicted) >= ``thresholds.contradicted`` and the claim has
   a conflict signal (a conflicting value, a polarity or quantifier mismatch); else grounded
   (or complementary, when that class is likelier) when P(grounded) + P(complementary) >=
   ``thresholds.grounded_<regime>`` (:data:`REGIMES`); else ungrounded.

Evidence type (documented rules, first that applies): ``inference`` for a conclusion;
``neg_evidence`` for a negated (absence) claim; ``complementary_finding`` for complementary;
the type of the unit its values come from, when one unit matches every value of the claim that
the evidence matches (an aligned unit first; a restated row is that row's claim, whatever other
units share its words); ``synthesis`` when no single unit holds most of the claim but several
together do; else the lead unit's type. A unit's type (:func:`.index.source_type`) is its
evidence item's own type unless that is the default ``tool_match``; else ``tool_match`` for a
metric row or log line, ``specific_data`` for a JSON object (a structured step output) or prose.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from gsar_otel.core.model import Bucket, EvidenceType
from gsar_otel.judges.staged.features import FEATURE_NAMES, FEATURES_VERSION, FeatureVector
from gsar_otel.judges.staged.gate import Gate
from gsar_otel.judges.staged.trees import Ensemble

MODEL_FILE: Final = "model.json"
REGIMES: Final = ("rows", "prose_single", "prose_multi")
"""Where a claim stands, each with its own grounded threshold: against tool rows, log lines or
alerts; against prose in an answer of one or two claims; against prose in a longer answer."""
@dataclass(frozen=True, slots=True)
class TypeSources:
    """Where a claim's evidence type can come from: the lead unit's type, and the type of the
    aligned unit that matches all of the claim's values (None when there is none)."""

    lead: EvidenceType | None
    values: EvidenceType | None = None


SYNTHESIS_LEAD: Final = 0.6
"""A grounded claim whose best unit holds less than this share, while its units together hold
more, is a synthesis across units."""
NEGATION_COVERAGE: Final = 0.6
"""Share of a claim the row or log line of opposite polarity must state (rule 1c)."""
_PACKAGE: Final = __name__.rpartition(".")[0]


@dataclass(frozen=True, slots=True)
class Scored:
    """One vector scored: its class probabilities, the standardised vector, and (trees) per
    class what each feature pushed along the vector's paths."""

    probabilities: dict[str, float]
    x: tuple[float, ...]
    pushes: tuple[tuple[float, ...], ...] | None = None


def _softmax(classes: tuple[str, ...], logits: list[float]) -> dict[str, float]:
    top = max(logits)
    exps = [math.exp(v - top) for v in logits]
    total = sum(exps)
    return {c: e / total for c, e in zip(classes, exps, strict=True)}


@dataclass(frozen=True, slots=True)
class Model:
    """The claim model (boosted trees or logistic weights), standardisation and thresholds."""

    classes: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    grounded_thresholds: dict[str, float]
    contradicted_threshold: float
    version: str
    rules: frozenset[str] = frozenset()
    """Optional rules the model was trained with (``name_absent``)."""
    gate: Gate | None = None
    """The answer gate (:mod:`.gate`), when ``model.json`` has one."""
    trees: tuple[Ensemble, ...] | None = None
    """One boosted tree ensemble per class (``claim_trees``), used instead of the weights when
    ``model.json`` has them: class margins from a walk of each tree."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Model:
        """A model from the parsed ``model.json``.

        Raises:
            ValueError: the file was trained on another feature version or feature list.
        """
        if data.get("features_version") != FEATURES_VERSION or tuple(
                data.get("feature_names", ())) != FEATURE_NAMES:
            raise ValueError(f"model.json was trained on features "
                             f"{data.get('features_version')!r}, the judge computes "
                             f"{FEATURES_VERSION!r}; retrain with benchmarks/train_lexical.py")
        thresholds = data["thresholds"]
        trees = None
        if data.get("claim_trees"):
            trees = tuple(Ensemble.from_json(e) for e in data["claim_trees"])
            if len(trees) != len(data["classes"]) or any(
                    e.features != len(FEATURE_NAMES) for e in trees):
                raise ValueError("model.json's claim trees do not match its classes and "
                                 "features; retrain with benchmarks/train_lexical.py")
        return cls(
            classes=tuple(data["classes"]), mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            weights=tuple(tuple(row) for row in data.get("weights", ())),
            bias=tuple(data.get("bias", ())),
            grounded_thresholds={regime: float(thresholds[f"grounded_{regime}"])
                                 for regime in REGIMES},
            contradicted_threshold=float(thresholds["contradicted"]),
            version=str(data.get("model_version", "")),
            rules=frozenset(data.get("rules", ())),
            gate=Gate.from_json(data["gate"]) if data.get("gate") else None,
            trees=trees,
        )

    def standardise(self, vector: FeatureVector) -> list[float]:
        """The vector scaled as in training."""
        return [(v - m) / s for v, m, s in zip(vector.values, self.mean, self.scale, strict=True)]

    def probabilities(self, vector: FeatureVector) -> dict[str, float]:
        """P(class) for every class."""
        return self.score(vector).probabilities

    def score(self, vector: FeatureVector) -> Scored:
        """P(class) for every class and, for trees, every class's per-feature pushes, from one
        walk of each tree (what :meth:`probabilities` and :meth:`contributions` give)."""
        x = self.standardise(vector)
        if self.trees is None:
            logits = [b + sum(w * v for w, v in zip(row, x, strict=True))
                      for row, b in zip(self.weights, self.bias, strict=True)]
            return Scored(_softmax(self.classes, logits), tuple(x))
        walks = [ensemble.margin_and_pushes(x) for ensemble in self.trees]
        return Scored(_softmax(self.classes, [margin for margin, _ in walks]), tuple(x),
                      tuple(tuple(pushes) for _, pushes in walks))

    def contributions(self, vector: FeatureVector, target: str) -> list[tuple[str, float]]:
        """Each feature's push toward ``target`` against the mean of the other classes, largest
        first."""
        return self.deciding(self.score(vector), target)

    def deciding(self, scored: Scored, target: str) -> list[tuple[str, float]]:
        """:meth:`contributions` of a vector already scored."""
        x = scored.x
        if scored.pushes is not None:
            return _tree_contributions(scored.pushes, self.classes.index(target))
        row = self.weights[self.classes.index(target)]
        others = [r for c, r in zip(self.classes, self.weights, strict=True) if c != target]
        pushes = []
        for position, name in enumerate(FEATURE_NAMES):
            other = sum(r[position] for r in others) / len(others) if others else 0.0
            pushes.append((name, (row[position] - other) * x[position]))
        return sorted(pushes, key=lambda p: -abs(p[1]))


def _tree_contributions(per_class: tuple[tuple[float, ...], ...],
                        target: int) -> list[tuple[str, float]]:
    others = [p for k, p in enumerate(per_class) if k != target]
    pushes = [(name, per_class[target][i] - (sum(p[i] for p in others) / len(others)
                                             if others else 0.0))
              for i, name in enumerate(FEATURE_NAMES)]
    return sorted(pushes, key=lambda p: -abs(p[1]))


def load_model() -> Model:
    """The packaged ``model.json``."""
    text = resources.files(_PACKAGE).joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return Model.from_json(json.loads(text))


@dataclass(frozen=True, slots=True)
class Verdict:
    """A claim's bucket and type, and what decided them (machine-readable)."""

    bucket: Bucket
    type: EvidenceType
    rule: str
    probabilities: tuple[tuple[str, float], ...]
    deciding: tuple[tuple[str, float], ...]
    """The features that pushed hardest toward the bucket, with their pushes."""


def regime_of(named: dict[str, float]) -> str:
    """The claim's regime (see :data:`REGIMES`) from its features."""
    if named["evidence_row"]:
        return "rows"
    return "prose_single" if named["answer_claims"] <= math.log1p(2) + 1e-9 else "prose_multi"


def _bucket(model: Model, vector: FeatureVector,
            p: dict[str, float]) -> tuple[Bucket, str, dict[str, float]]:
    named = vector.named()
    if named["cause_conflict"]:
        return "contradicted", "cause_conflict", p
    if named["conclusion_unstated"]:
        return "ungrounded", "conclusion_unstated", p
    if ("name_absent" in model.rules and named["names_missing_any"]
            and not named["evidence_row"]):
        return "ungrounded", "name_absent", p
    if "time_absent" in model.rules and named["time_absent"]:
        return "ungrounded", "time_absent", p
    if ("number_absent" in model.rules and named["numeric_absent"]
            and named["evidence_row"] and not named["evidence_table"]
            and not named["anchor_conflict_share"]):
        return "ungrounded", "number_absent", p
    if (named["negation_mismatch"] and named["evidence_row"]
            and named["lead_coverage"] >= NEGATION_COVERAGE):
        return "contradicted", "negation_conflict", p
    signal = (named["anchor_conflict_share"] > 0 or named["negation_mismatch"] > 0
              or named["quant_mismatch"] > 0 or named["cause_conflict"] > 0)
    if signal and p.get("contradicted", 0.0) >= model.contradicted_threshold:
        return "contradicted", "model", p
    support = p.get("grounded", 0.0) + p.get("complementary", 0.0)
    if support >= model.grounded_thresholds[regime_of(named)]:
        if p.get("complementary", 0.0) > p.get("grounded", 0.0):
            return "complementary", "model", p
        return "grounded", "model", p
    return "ungrounded", "model", p


def evidence_type(bucket: Bucket, named: dict[str, float], sources: TypeSources) -> EvidenceType:
    """The claim's evidence type by the rules in the module docstring."""
    if named["conclusion"]:
        return EvidenceType.INFERENCE
    if named["claim_negated"] and bucket == "grounded":
        return EvidenceType.NEG_EVIDENCE
    if bucket == "complementary":
        return EvidenceType.COMPLEMENTARY_FINDING
    if sources.values is not None:
        return sources.values
    if (bucket == "grounded" and named["aligned_units"] > 1
            and named["lead_coverage"] < SYNTHESIS_LEAD <= named["coverage"]):
        return EvidenceType.SYNTHESIS
    return sources.lead or EvidenceType.INFERENCE


def classify(model: Model, vector: FeatureVector, sources: TypeSources,
             row_conflict: bool) -> Verdict:
    """The verdict on one claim; ``row_conflict`` is rule 2's input."""
    scored = model.score(vector)
    p = scored.probabilities
    if row_conflict and not vector.named()["conclusion_unstated"]:
        bucket: Bucket = "contradicted"
        rule = "row_value_conflict"
    else:
        bucket, rule, p = _bucket(model, vector, p)
    target = {"complementary": "complementary"}.get(bucket, bucket)
    if target not in model.classes:
        target = "grounded"
    deciding = tuple((name, round(push, 3))
                     for name, push in model.deciding(scored, target)[:3])
    return Verdict(bucket, evidence_type(bucket, vector.named(), sources), rule,
                   tuple((c, round(v, 4)) for c, v in p.items()), deciding)
