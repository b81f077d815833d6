"""Stage 7: :class:`StagedJudge`, the staged offline judge, assembling a JudgeOutput.

segment -> facts -> align -> compare -> features -> classify, then two answer-level passes: an
anaphoric, non-speculative conclusion that adds no specifics of its own ("These two observations
indicate the spike is real") after grounded claims is a synthesis of them (complementary); and
the answer gate (:mod:`.gate`, when ``model.json`` has one) reads the whole answer beside the
rule judge's verdict on it and moves it across the proceed line, or defers to the rule judge in
the regimes where that did better on dev.
"""

from __future__ import annotations

from dataclasses import dataclass

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Bucket, Claim, EvidenceType, JudgeOutput
from gsar_otel.core.scoring import gsar_score
from gsar_otel.core.text import words
from gsar_otel.judges.lexical.judge import LexicalJudge
from gsar_otel.judges.staged.align import Alignment, align
from gsar_otel.judges.staged.classify import (
    Model,
    TypeSources,
    Verdict,
    classify,
    evidence_type,
    load_model,
)
from gsar_otel.judges.staged.compare import Comparison, compare
from gsar_otel.judges.staged.features import (
    FEATURES_VERSION,
    AnswerContext,
    FeatureVector,
    answer_context,
    features,
)
from gsar_otel.judges.staged.gate import (
    AnswerShape,
    Gate,
    GateInput,
    Move,
    gate_input,
    plan_moves,
    proceeds,
)
from gsar_otel.judges.staged.index import EvidenceIndex, build_index
from gsar_otel.judges.staged.segment import ClaimSpan, claim_sentences, segment
from gsar_otel.judges.staged.textual import TextFacts, facts_of

PROMOTABLE_RULES = frozenset({"model", "name_absent", "time_absent", "number_absent"})
"""Ungrounded claims the answer gate may promote: never a conclusion, a contradiction or an
unstated cause."""
GROUNDED_SCORE = 0.8
"""The judge's own ``is_grounded`` cut-off on its ``grounding_score`` (audit only)."""


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One claim as the judge placed it, and why (``rule`` and ``deciding`` features)."""

    text: str
    span: ClaimSpan
    bucket: Bucket
    type: EvidenceType
    evidence_refs: tuple[str, ...]
    conclusion: bool
    rule: str
    facts: TextFacts
    probabilities: tuple[tuple[str, float], ...]
    deciding: tuple[tuple[str, float], ...]
    checks: Comparison


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything the stages computed for one claim (for training and explanation)."""

    span: ClaimSpan
    facts: TextFacts
    alignment: Alignment
    comparison: Comparison
    vector: FeatureVector
    lead_kind: str | None
    sources: TypeSources
    """Where the claim's evidence type comes from (see :mod:`.classify`)."""


def analyse(text: str, index: EvidenceIndex, context: AnswerContext,
            span: ClaimSpan | None = None) -> Analysis:
    """Stages 2-5 for one claim text of an answer with ``context``."""
    facts = facts_of(text)
    alignment = align(facts, index)
    comparison = compare(facts, alignment, index)
    lead = index.units[alignment.units[0]] if alignment.units else None
    # the unit holding all of the claim's values: an aligned one first (alignment may leave out
    # a row that adds no words, e.g. beside an alert that shares them), else the earliest
    holder_at = next((u for u in alignment.units if u in alignment.value_units),
                     min(alignment.value_units, default=None))
    holder = index.units[holder_at] if holder_at is not None else None
    sources = TypeSources(lead.source if lead else None, holder.source if holder else None)
    return Analysis(span or ClaimSpan(text, 0, len(text), 0), facts, alignment, comparison,
                    features(facts, alignment, comparison, index, context),
                    lead.kind if lead else None, sources)


class StagedJudge:
    """An offline, deterministic judge: staged analysis and a learned, calibrated decision.

    The default judge when no API key is configured (``--judge staged``); ``lexical``, the rule
    judge it reads beside its own analysis, stays selectable by name. Implements the
    :class:`~gsar_otel.core.protocol.Judge` protocol; no key, no network.
    """

    name = "staged"
    deterministic = True
    model: str | None = None
    features_version = FEATURES_VERSION

    def __init__(self) -> None:
        self._model: Model | None = None

    def _classifier(self) -> Model:
        if self._model is None:
            self._model = load_model()
        return self._model

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence`` (synchronous CPU work)."""
        return self.judge_now(synthesis=synthesis, evidence=evidence)

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The same judgement, synchronously."""
        verdicts, note = self._explain(synthesis, evidence)
        output = assemble(verdicts, evidence)
        if note:
            output = output.model_copy(update={"explanation": f"{output.explanation} {note}"})
        return output

    def explain(self, *, synthesis: str, evidence: EvidenceSet) -> list[ClaimVerdict]:
        """Every claim with its bucket, type, evidence ids and what decided them."""
        return self._explain(synthesis, evidence)[0]

    def _explain(self, synthesis: str, evidence: EvidenceSet) -> tuple[list[ClaimVerdict], str]:
        """The verdicts, and a note when the answer gate read no rule-judge verdict."""
        index = build_index(evidence)
        spans = segment(synthesis)
        context = answer_context(len(spans), facts_of(synthesis), index)
        analyses = [analyse(span.text, index, context, span) for span in spans]
        model = self._classifier()
        verdicts = decide_claims(model, synthesis, analyses)
        if model.gate is None:
            return verdicts, ""
        shape = answer_shape(synthesis, evidence, index, context, analyses)
        # The rule judge is asked at every answer size: its cost is linear in the answer too
        # (tests/staged/test_cost.py counts both judges' operations).
        lexical = LexicalJudge().judge_now(synthesis=synthesis, evidence=evidence)
        return gate_answer(model.gate, shape, analyses, verdicts, evidence, lexical)[0], ""


def decide_claims(model: Model, synthesis: str, analyses: list[Analysis]) -> list[ClaimVerdict]:
    """Stage 6 and the answer-level pass over analysed claims (shared with training)."""
    verdicts = [_claim_verdict(synthesis, analysis,
                               classify(model, analysis.vector, analysis.sources,
                                        analysis.comparison.row_conflict))
                for analysis in analyses]
    return _synthesis_pass(verdicts)


def answer_shape(synthesis: str, evidence: EvidenceSet, index: EvidenceIndex,
                 context: AnswerContext, analyses: list[Analysis]) -> AnswerShape:
    """The answer-wide facts the gate reads."""
    checks = [c for a in analyses for c in a.comparison.checks]
    return AnswerShape(
        answer_words=len(words(synthesis)),
        evidence_words=sum(len(words(item.content)) for item in evidence),
        coverage=context.coverage, pair_coverage=context.pair_coverage,
        names_missing=sum(a.alignment.names_missing for a in analyses),
        names_total=sum(a.alignment.names_total for a in analyses),
        anchors_absent=sum(1 for c in checks if c.status == "ABSENT"),
        anchors_conflict=sum(1 for c in checks if c.status == "CONFLICT"),
        anchors_total=len(checks), claims=len(analyses),
        rows_led=sum(1 for a in analyses if a.lead_kind not in (None, "prose")),
        evidence_units=len(index.units),
        evidence_rows=sum(1 for u in index.units if u.kind == "row"),
        evidence_tool=sum(1 for u in index.units if u.kind != "prose"),
        sentences=claim_sentences(synthesis, [a.span for a in analyses]))


def support_of(verdict: ClaimVerdict) -> float:
    """P(grounded) + P(complementary) of a claim, as the model gave it."""
    p = dict(verdict.probabilities)
    return p.get("grounded", 0.0) + p.get("complementary", 0.0)


def gate_answer(gate: Gate, shape: AnswerShape, analyses: list[Analysis],
                verdicts: list[ClaimVerdict], evidence: EvidenceSet,
                lexical: JudgeOutput | None) -> tuple[list[ClaimVerdict], GateInput]:
    """The verdicts after the answer gate (see :mod:`.gate`), and the gate's input.

    With no rule-judge verdict (``lexical`` None) the staged verdict stands in for it and the
    gate never defers."""
    supports = [support_of(v) for v in verdicts]
    staged = assemble(verdicts, evidence)
    gate_in = gate_input(shape, staged, supports, lexical or staged)
    if lexical is not None and gate_in.regime in gate.defer:
        return deferred(lexical), gate_in

    def moved(moves: list[Move]) -> list[ClaimVerdict]:
        result = list(verdicts)
        for move in moves:
            old = result[move.position]
            analysis = analyses[move.position]
            bucket: Bucket = "grounded" if move.bucket == "grounded" else "ungrounded"
            kind = evidence_type(bucket, analysis.vector.named(), analysis.sources)
            refs = old.checks.refs if bucket == "grounded" else ()
            result[move.position] = ClaimVerdict(
                old.text, old.span, bucket, kind, refs, old.conclusion, "answer_gate",
                old.facts, old.probabilities, old.deciding, old.checks)
        return result

    moves = plan_moves(gate, gate_in, [v.bucket for v in verdicts], supports,
                       [not v.conclusion and v.rule in PROMOTABLE_RULES for v in verdicts],
                       lambda m: proceeds(assemble(moved(m), evidence)))
    return moved(moves), gate_in


def deferred(lexical: JudgeOutput) -> list[ClaimVerdict]:
    """The rule judge's claims as the staged judge's verdicts (rule ``lexical``)."""
    result = []
    groups: tuple[tuple[Bucket, tuple[Claim, ...]], ...] = (
        ("grounded", lexical.grounded_claims), ("ungrounded", lexical.ungrounded_claims),
        ("contradicted", lexical.contradicted_claims),
        ("complementary", lexical.complementary_claims))
    for bucket, claims in groups:
        for claim in claims:
            facts = facts_of(claim.text)
            checks = Comparison((), False, False, False, False, False, False, False,
                                claim.evidence_refs)
            result.append(ClaimVerdict(
                claim.text, ClaimSpan(claim.text, 0, len(claim.text), 0), bucket,
                EvidenceType(claim.type),
                claim.evidence_refs, claim.conclusion, "lexical", facts, (), (), checks))
    return result


def _claim_verdict(synthesis: str, analysis: Analysis, verdict: Verdict) -> ClaimVerdict:
    span = analysis.span
    refs = analysis.comparison.refs if verdict.bucket != "ungrounded" else ()
    return ClaimVerdict(
        text=synthesis[span.lead_start:span.end] if synthesis else span.text, span=span,
        bucket=verdict.bucket, type=verdict.type, evidence_refs=refs,
        conclusion=analysis.facts.conclusion, rule=verdict.rule, facts=analysis.facts,
        probabilities=verdict.probabilities, deciding=verdict.deciding,
        checks=analysis.comparison)


def _synthesis_pass(verdicts: list[ClaimVerdict]) -> list[ClaimVerdict]:
    """An anaphoric, non-speculative, non-causal conclusion with no anchors, after grounded
    claims, is a synthesis of them: complementary, citing their evidence."""
    result: list[ClaimVerdict] = []
    grounded_refs: dict[str, None] = {}
    for verdict in verdicts:
        facts = verdict.facts
        if (verdict.bucket == "ungrounded" and grounded_refs and facts.anaphoric
                and not facts.speculative and not facts.causal and not facts.anchors):
            verdict = ClaimVerdict(
                verdict.text, verdict.span, "complementary", EvidenceType.SYNTHESIS,
                tuple(grounded_refs), verdict.conclusion, "anaphoric_synthesis", verdict.facts,
                verdict.probabilities, verdict.deciding, verdict.checks)
        if verdict.bucket == "grounded":
            grounded_refs.update(dict.fromkeys(verdict.evidence_refs))
        result.append(verdict)
    return result


def assemble(verdicts: list[ClaimVerdict], evidence: EvidenceSet) -> JudgeOutput:
    """The JudgeOutput of the claims' verdicts."""
    buckets: dict[Bucket, list[Claim]] = {
        "grounded": [], "ungrounded": [], "contradicted": [], "complementary": []}
    seen: set[str] = set()
    gaps: dict[str, None] = {}
    contradictions: dict[str, None] = {}
    for verdict in verdicts:
        key = " ".join(verdict.text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        buckets[verdict.bucket].append(Claim(
            text=verdict.text, type=verdict.type, evidence_refs=verdict.evidence_refs,
            conclusion=verdict.conclusion))
        if verdict.bucket == "ungrounded":
            gaps.setdefault(f"no evidence states: {verdict.span.text} ({verdict.rule})", None)
        if verdict.bucket == "contradicted":
            for check in verdict.checks.checks:
                if check.status == "CONFLICT":
                    contradictions.setdefault(
                        f"{check.claim_value} vs {check.evidence_value} in {check.ref}", None)
            if not any(c.status == "CONFLICT" for c in verdict.checks.checks):
                contradictions.setdefault(f"evidence contradicts: {verdict.span.text}", None)
    partition_output = JudgeOutput(
        grounding_score=0.5, is_grounded=False,
        grounded_claims=tuple(buckets["grounded"]),
        ungrounded_claims=tuple(buckets["ungrounded"]),
        contradicted_claims=tuple(buckets["contradicted"]),
        complementary_claims=tuple(buckets["complementary"]))
    score = gsar_score(partition_output.to_partition())
    counts = {name: len(claims) for name, claims in buckets.items()}
    total = sum(counts.values())
    if total == 0:
        explanation = "The answer holds no checkable claim."
    else:
        parts = ", ".join(f"{counts[name]} {name}" for name in buckets if counts[name])
        worst = next((v for v in verdicts if v.bucket in ("contradicted", "ungrounded")), None)
        explanation = (f"{total} claim(s) against {len(evidence)} evidence item(s): {parts}."
                       + (f" First problem ({worst.rule}{_deciding(worst)}): "
                          f"{worst.span.text!r}." if worst else ""))
    needs_more = bool(counts["ungrounded"] or counts["contradicted"])
    gap_list = tuple(gaps)
    contradiction_list = tuple(contradictions)
    return partition_output.model_copy(update={
        "grounding_score": score,
        "is_grounded": score >= GROUNDED_SCORE,
        "gaps": gap_list,
        "contradictions": contradiction_list,
        "verification_needed": needs_more,
        "verification_reason": (gap_list[0] if gap_list else contradiction_list[0]
                                if contradiction_list else None) if needs_more else None,
        "explanation": explanation,
        "decision_status": "resolved",
    })


def _deciding(verdict: ClaimVerdict) -> str:
    pushes = ", ".join(f"{name}={push:+.2f}" for name, push in verdict.deciding)
    return f"; {pushes}" if pushes else ""
