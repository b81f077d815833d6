"""The offline judge (:class:`StagedJudge`, ``--judge staged``): alignment and invariants.

segment -> facts (:mod:`.facts`) -> claim slots (:mod:`.claims`) -> alignment
(:mod:`.alignment`) -> invariants (:mod:`.checks`) -> verdicts (:mod:`.verdicts`) -> one
JudgeOutput. Deterministic, no key, no network, linear in the answer and the evidence.

It fits nothing at run time. Its tunables are rules: the coverage backstop
(:attr:`OfflineSettings.coverage`), a claim whose content words are nearly all absent from its
support is not grounded; and the paraphrase budget (:attr:`OfflineSettings.budget` and
:attr:`OfflineSettings.sentence_budget`), one sentence of the answer may add a few content words
its support lacks, every other sentence at most one. They can only hold a claim back, never
ground one that an invariant refused. Their values were chosen by ``benchmarks/lodo.py`` on the
development domains by the worst domain, which also measures them leave-one-domain-out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Bucket, Claim, JudgeOutput
from gsar_otel.core.scoring import gsar_score
from gsar_otel.judges.staged.alignment import FactIndex, align, build_index
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.checks import COVERAGE_BACKSTOP, check_claim
from gsar_otel.judges.staged.claims import ClaimSlots, slots_of
from gsar_otel.judges.staged.coordination import each_subject
from gsar_otel.judges.staged.levels import check_level
from gsar_otel.judges.staged.plain_names import with_named
from gsar_otel.judges.staged.segment import segment, sentence_of
from gsar_otel.judges.staged.triggers import as_trigger
from gsar_otel.judges.staged.verdicts import (
    PARAPHRASE_BUDGET,
    SENTENCE_BUDGET,
    ClaimVerdict,
    budget_pass,
    decide,
    synthesis_pass,
)

JUDGE_VERSION = "offline-1"
"""Names this judge's rules in bench and calibration reports (changes with any rule)."""
GROUNDED_SCORE = 0.8
"""The judge's own ``is_grounded`` cut-off on its ``grounding_score`` (audit only)."""


@dataclass(frozen=True, slots=True)
class OfflineSettings:
    """The offline judge's tunables: the share of a claim's content words its support must
    hold (the coverage backstop), and how many content words their support lacks the grounded
    claims of the answer's loosest sentence (``budget``) and of each other sentence
    (``sentence_budget``) may hold together (the paraphrase budget; None: no limit)."""

    coverage: float = COVERAGE_BACKSTOP
    budget: int | None = PARAPHRASE_BUDGET
    sentence_budget: int | None = SENTENCE_BUDGET

    def __post_init__(self) -> None:
        if not 0.0 <= self.coverage <= 1.0:
            raise ValueError(f"coverage must be within [0, 1], got {self.coverage!r}")
        for name in ("budget", "sentence_budget"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 0):
                raise ValueError(f"{name} must be an integer >= 0 or None, got {value!r}")


class StagedJudge:
    """The offline judge: explicit claim-to-fact alignment and hard invariants.

    A claim is grounded only when every subject, typed value and categorical value it states is
    found in the facts it aligns with; another value for the same key, the opposite category or
    a negated fact is contradicted; anything found nowhere is ungrounded. The default judge when
    no API key is configured. Implements the :class:`~gsar_otel.core.protocol.Judge` protocol.
    """

    name = "staged"
    deterministic = True
    model: str | None = None
    features_version = JUDGE_VERSION

    def __init__(self, settings: OfflineSettings | None = None) -> None:
        self.settings = settings or OfflineSettings()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence`` (synchronous CPU work)."""
        return self.judge_now(synthesis=synthesis, evidence=evidence)

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The same judgement, synchronously."""
        return assemble(self.explain(synthesis=synthesis, evidence=evidence), evidence)

    def explain(self, *, synthesis: str, evidence: EvidenceSet) -> list[ClaimVerdict]:
        """Every claim with its bucket, type, evidence ids, checks and reason."""
        return judge_claims(synthesis, build_index(evidence), self.settings.coverage,
                            self.settings.budget, self.settings.sentence_budget)


_RELATIVE: Final = re.compile(r"\s*(?:which|who|whose)\b", re.IGNORECASE)
ANTECEDENT_CHARS: Final = 200
"""How far before a relative clause its subject is looked for."""


def judge_claims(synthesis: str, index: FactIndex, coverage: float,
                 budget: int | None = None,
                 sentence_budget: int | None = None) -> list[ClaimVerdict]:
    """The verdict of every claim of ``synthesis`` against an indexed evidence set, with the
    coverage backstop at ``coverage`` and the paraphrase budgets ``budget`` (the loosest
    sentence) and ``sentence_budget`` (each other sentence; None: no limit)."""
    def judged(text: str) -> list[Check]:
        slots = _read(text, index)
        return check_claim(slots, align(slots, index), index, coverage)

    verdicts = []
    spans = segment(synthesis)
    for span in spans:
        slots = _read(span.text, index)
        if not slots.subjects and _RELATIVE.match(span.text):
            # "..., but cart-worker, which was at 26.4%, had p99 604ms": the relative clause is
            # said of the subject just before it
            before = slots_of(synthesis[max(0, span.start - ANTECEDENT_CHARS):span.start])
            if before.subjects:
                slots = _read(f"{before.subjects[-1]} {span.text}", index)
        alignment = align(slots, index)
        # "api-1 and api-2 had 95% CPU": what it says of each listed subject, too
        checks = check_claim(slots, alignment, index, coverage) + each_subject(slots, judged)
        text = synthesis[span.lead_start:span.end]
        if text != span.text and not any(c.kind == "level" for c in checks):
            # "checkout-api logged an error: slow query took 2300ms": the level is in the lead
            level = check_level(slots, alignment, index, text)
            checks += [level] if level is not None else []
        verdicts.append(decide(span, text, slots, alignment, index, checks))
    return budget_pass(synthesis_pass(verdicts), budget, sentence_budget,
                       sentence_of(synthesis, spans))


def _read(text: str, index: FactIndex) -> ClaimSlots:
    """A claim's slots, its plain-word names found (:mod:`.plain_names`) and a run's trigger
    read as its field (:mod:`.triggers`)."""
    return as_trigger(with_named(slots_of(text), index))


def assemble(verdicts: list[ClaimVerdict], evidence: EvidenceSet) -> JudgeOutput:
    """The JudgeOutput of the claims' verdicts; gaps and contradictions carry the reasons."""
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
            gaps.setdefault(f"{verdict.span.text}: {verdict.reason}", None)
        elif verdict.bucket == "contradicted":
            contradictions.setdefault(f"{verdict.span.text}: {verdict.reason}", None)
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
        worst = next((v for v in verdicts if v.bucket == "contradicted"),
                     next((v for v in verdicts if v.bucket == "ungrounded"), None))
        explanation = (f"{total} claim(s) against {len(evidence)} evidence item(s): {parts}."
                       + (f" First problem: {worst.span.text!r}: {worst.reason}."
                          if worst else ""))
    needs_more = bool(counts["ungrounded"] or counts["contradicted"])
    gap_list, contradiction_list = tuple(gaps), tuple(contradictions)
    return partition_output.model_copy(update={
        "grounding_score": score,
        "is_grounded": score >= GROUNDED_SCORE,
        "gaps": gap_list,
        "contradictions": contradiction_list,
        "verification_needed": needs_more,
        "verification_reason": (contradiction_list[0] if contradiction_list else gap_list[0]
                                if gap_list else None) if needs_more else None,
        "explanation": explanation,
        "decision_status": "resolved",
    })
