"""Stage 8: the answer gate, one learned decision about the whole answer.

Some data sets label only whole answers (a summary is faithful or not), and some failures show
only across an answer: a summary much longer than its source, names and numbers the evidence
never holds, or the rule judge (``lexical``) and the claim model disagreeing. The gate reads
:data:`GATE_FEATURES` of the answer (the claims' verdicts and probabilities, the rule judge's
verdict on the same answer, the answer's size against its evidence and how much of it the
evidence holds) and gives P(faithful) from a logistic regression whose weights are stored in
``model.json`` under ``gate``, one weight set per :data:`GATE_REGIMES` (interactions), or from
a boosted tree ensemble under ``gate.trees`` (``--gate-learner trees``), trained
on dev splits only by ``benchmarks/train_gate.py`` (called from ``train_lexical.py``).

In a regime listed under ``defer`` (chosen on dev: where the rule judge alone did better than
the gate) the judge returns the rule judge's claims as they are (rule ``lexical``). Elsewhere the
gate only moves an answer across the proceed line, claim by claim and visibly (rule
``answer_gate``):

- P(faithful) < ``demote_<regime>`` while the claims would proceed: the weakest supported claims
  become ungrounded, weakest first, until the answer no longer proceeds;
- P(faithful) >= ``promote_<regime>`` while it would not: claims the model (not a rule) left
  ungrounded become grounded, strongest first, until it proceeds. Contradicted claims and
  conclusions are never promoted, so the conclusion policy still caps an over-reaching answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel.core.model import Decision, JudgeOutput
from gsar_otel.core.scoring import apply_conclusion_policy, decide
from gsar_otel.judges.staged.trees import Ensemble

GATE_VERSION: Final = "gate-6"
"""The gate section the judge reads (logistic weights, or a boosted tree ensemble under
``trees``), prose answers split by sentences; ``gate-4`` and ``gate-5`` split them by claims (one
or two against more), so their weights and thresholds belong to other regimes."""
GATE_REGIMES: Final = ("table", "tool", "prose_single", "prose_multi")
"""Where an answer stands: against a table (evidence nearly all ``key=value`` rows); against tool
output (mostly rows, log lines and alerts); against prose, as one sentence (a claim to verify,
however many clauses it splits into) or several (a summary)."""
GATE_FEATURES: Final = (
    "staged_score", "staged_proceeds", "staged_min_support", "staged_mean_support",
    "staged_ungrounded_share", "staged_contradicted_share",
    "lexical_score", "lexical_proceeds", "lexical_ungrounded_share",
    "lexical_contradicted_share",
    "answer_words", "evidence_words", "length_ratio", "answer_coverage",
    "answer_pair_coverage", "names_missing_share", "anchors_absent_share",
    "anchors_conflict_share", "claims", "evidence_row_share",
)
"""The answer's features, in vector order (each also crossed with the regime)."""


@dataclass(frozen=True, slots=True)
class GateInput:
    """What the gate reads about one answer, before its regime crossing."""

    regime: str
    values: tuple[float, ...]

    def named(self) -> dict[str, float]:
        """The features by name."""
        return dict(zip(GATE_FEATURES, self.values, strict=True))


def expand(gate_input: GateInput) -> list[float]:
    """The regime-crossed vector: per regime, its indicator and the features inside it."""
    row: list[float] = []
    for regime in GATE_REGIMES:
        inside = 1.0 if gate_input.regime == regime else 0.0
        row.append(inside)
        row.extend(v * inside for v in gate_input.values)
    return row


def tree_vector(gate_input: GateInput) -> list[float]:
    """What a tree ensemble reads: the regime as indicators, then the features (a tree crosses
    them itself)."""
    return [1.0 if gate_input.regime == r else 0.0 for r in GATE_REGIMES] + list(gate_input.values)


def tree_names() -> tuple[str, ...]:
    """Names of :func:`tree_vector`'s positions."""
    return tuple(f"regime_{r}" for r in GATE_REGIMES) + GATE_FEATURES


def expanded_names() -> tuple[str, ...]:
    """Names of :func:`expand`'s positions."""
    names: list[str] = []
    for regime in GATE_REGIMES:
        names.append(f"{regime}:bias")
        names.extend(f"{regime}:{name}" for name in GATE_FEATURES)
    return tuple(names)


@dataclass(frozen=True, slots=True)
class Gate:
    """The gate's weights, standardisation and thresholds."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    demote: dict[str, float]
    promote: dict[str, float]
    defer: frozenset[str] = frozenset()
    """Regimes where the rule judge's verdict on the answer did better on dev than the gate:
    there the staged judge returns the rule judge's claims (rule ``lexical``)."""
    trees: Ensemble | None = None
    """A boosted tree ensemble over :func:`tree_vector`, used instead of the weights when
    present."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Gate:
        """A gate from the ``gate`` section of ``model.json``.

        Raises:
            ValueError: the section was trained on another gate version or feature list.
        """
        version = data.get("version")
        if version != GATE_VERSION or tuple(
                data.get("feature_names", ())) != GATE_FEATURES:
            raise ValueError(f"model.json's gate is {version!r}, the judge computes "
                             f"{GATE_VERSION!r}; retrain with benchmarks/train_lexical.py")
        trees = Ensemble.from_json(data["trees"]) if data.get("trees") else None
        if trees is not None and trees.features != len(GATE_REGIMES) + len(GATE_FEATURES):
            raise ValueError("model.json's gate trees read another feature count; retrain "
                             "with benchmarks/train_lexical.py")
        return cls(tuple(data.get("mean", ())), tuple(data.get("scale", ())),
                   tuple(data.get("weights", ())), float(data.get("bias", 0.0)),
                   {r: float(data["thresholds"][f"demote_{r}"]) for r in GATE_REGIMES},
                   {r: float(data["thresholds"][f"promote_{r}"]) for r in GATE_REGIMES},
                   frozenset(data.get("defer", ())) & frozenset(GATE_REGIMES), trees)

    def probability(self, gate_input: GateInput) -> float:
        """P(the answer is faithful)."""
        if self.trees is not None:
            z = self.trees.margin(tree_vector(gate_input))
        else:
            z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(
                self.weights, expand(gate_input), self.mean, self.scale, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def proceeds(output: JudgeOutput) -> bool:
    """Whether the default decision (paper thresholds, conclusion cap) proceeds."""
    partition = output.to_partition()
    decision, _ = apply_conclusion_policy(decide(output.grounding_score), partition, "cap")
    return decision is Decision.PROCEED


def bucket_shares(output: JudgeOutput) -> tuple[float, float]:
    """Shares of the output's claims that are ungrounded and contradicted."""
    total = (len(output.grounded_claims) + len(output.ungrounded_claims)
             + len(output.contradicted_claims) + len(output.complementary_claims))
    if not total:
        return 0.0, 0.0
    return len(output.ungrounded_claims) / total, len(output.contradicted_claims) / total


@dataclass(frozen=True, slots=True)
class AnswerShape:
    """Answer-wide facts the gate reads beside the two judges' verdicts."""

    answer_words: int
    evidence_words: int
    coverage: float
    pair_coverage: float
    names_missing: int
    names_total: int
    anchors_absent: int
    anchors_conflict: int
    anchors_total: int
    claims: int
    rows_led: int
    """Claims whose best unit is a tool row, log line or alert."""
    evidence_units: int
    evidence_rows: int
    """Evidence units that are ``key=value`` rows."""
    evidence_tool: int
    """Evidence units that are rows, log lines or alerts (not prose)."""
    sentences: int
    """Sentences of the answer that hold a claim."""


TABLE_ROWS: Final = 0.8
"""Share of ``key=value`` rows in the evidence above which it is a table."""
TABLE_MIN_UNITS: Final = 3
"""Fewest evidence units a table has (two metric rows are tool output)."""


def is_table(units: int, rows: int) -> bool:
    """Whether evidence of ``units`` units, ``rows`` of them ``key=value`` rows, is a table: a
    table's values are facts a claim paraphrases and reckons with (ages, totals, ranges), where
    tool output's values are measurements a claim restates."""
    return units >= TABLE_MIN_UNITS and rows >= TABLE_ROWS * units


def regime_of_answer(shape: AnswerShape) -> str:
    """The answer's :data:`GATE_REGIMES` entry, from the shape of its evidence and its size."""
    units = max(1, shape.evidence_units)
    if is_table(shape.evidence_units, shape.evidence_rows):
        return "table"
    if shape.evidence_tool * 2 > units:
        return "tool"
    return "prose_single" if shape.sentences <= 1 else "prose_multi"


def gate_input(shape: AnswerShape, staged: JudgeOutput, supports: Sequence[float],
               lexical: JudgeOutput) -> GateInput:
    """The gate's input for one answer."""
    s_ungrounded, s_contradicted = bucket_shares(staged)
    l_ungrounded, l_contradicted = bucket_shares(lexical)
    anchors = shape.anchors_total
    values = (
        staged.grounding_score, 1.0 if proceeds(staged) else 0.0,
        min(supports, default=1.0), sum(supports) / len(supports) if supports else 1.0,
        s_ungrounded, s_contradicted,
        lexical.grounding_score, 1.0 if proceeds(lexical) else 0.0,
        l_ungrounded, l_contradicted,
        math.log1p(shape.answer_words), math.log1p(shape.evidence_words),
        math.log((shape.answer_words + 1) / (shape.evidence_words + 1)),
        shape.coverage, shape.pair_coverage,
        shape.names_missing / shape.names_total if shape.names_total else 0.0,
        shape.anchors_absent / anchors if anchors else 0.0,
        shape.anchors_conflict / anchors if anchors else 0.0,
        math.log1p(shape.claims),
        shape.evidence_rows / shape.evidence_units if shape.evidence_units else 0.0,
    )
    return GateInput(regime_of_answer(shape), values)


@dataclass(frozen=True, slots=True)
class Move:
    """One claim the gate moves: its position and its new bucket."""

    position: int
    bucket: str


def plan_moves(gate: Gate, gate_in: GateInput, buckets: Sequence[str],
               supports: Sequence[float], promotable: Sequence[bool],
               would_proceed: Callable[[list[Move]], bool]) -> list[Move]:
    """The fewest claims to move so the answer lands on the gate's side of the proceed line.

    ``would_proceed(moves)`` says whether the answer proceeds after ``moves``. Candidates are
    ordered (weakest supported first to demote, strongest promotable first to promote); the
    shortest prefix that crosses the line is found by bisection (moving more claims only pushes
    further the same way), so the plan costs O(log n) assemblies, not O(n).
    """
    p = gate.probability(gate_in)
    if p < gate.demote[gate_in.regime] and would_proceed([]):
        order = sorted((i for i, b in enumerate(buckets) if b in ("grounded", "complementary")),
                       key=lambda i: (supports[i], i))
        candidates = [Move(i, "ungrounded") for i in order]
        return _shortest(candidates, lambda moves: not would_proceed(moves))
    if p >= gate.promote[gate_in.regime] and not would_proceed([]):
        order = sorted((i for i, b in enumerate(buckets) if b == "ungrounded" and promotable[i]),
                       key=lambda i: (-supports[i], i))
        candidates = [Move(i, "grounded") for i in order]
        return _shortest(candidates, would_proceed)
    return []


def _shortest(candidates: list[Move], done: Callable[[list[Move]], bool]) -> list[Move]:
    """The shortest prefix of ``candidates`` that is ``done`` (none when even all is not)."""
    if not candidates or not done(candidates):
        return []
    low, high = 1, len(candidates)
    while low < high:
        middle = (low + high) // 2
        if done(candidates[:middle]):
            high = middle
        else:
            low = middle + 1
    return candidates[:low]
