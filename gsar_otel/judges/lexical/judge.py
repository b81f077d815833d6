"""LexicalJudge: an offline, deterministic GSAR judge for tool-output evidence.

No key, no network, no model: the judge reads the answer and the evidence with plain rules and
gives every claim a bucket, an evidence type and the ids of the evidence it rests on.

1. **Claims.** The answer is split into sentences, and a sentence into clauses where it joins two
   statements that each have their own verb (``CPU reached 97% and request rate dropped to 12
   RPS`` is two claims).
2. **Anchors.** Each claim's checkable specifics are found: numbers with units and percentages,
   clock times, identifiers and host names, quoted strings and capitalised names.
3. **Linking.** The evidence is indexed once per call (sentences of every item, their content
   words, numbers, ``key=value`` pairs). Each claim is linked to the few evidence sentences that
   cover most of its content words; their item ids become the claim's ``evidence_refs``.
4. **Buckets and types.**
   - *contradicted* when the evidence gives the same subject another value (``held steady at 4500
     RPS`` against ``rps=12.4``; ``CPU was 40%`` against ``cpu_pct=97.2``; in prose, a sentence
     that matches the claim but gives another year or amount of the same kind), when a tool row
     or alert shows what an absence claim denies, or when a matching tool row negates the claim;
   - *grounded* when all its anchors and enough of its content words are found in the linked
     items (half once an anchor matched a tool row; most of them, and mostly in one sentence,
     when an answer of several sentences follows its evidence's wording closely, as a summary
     does); typed by the items (``tool_match`` for tool rows, ``signal_match`` for alerts and
     signals, as :attr:`Evidence.type` says), or ``neg_evidence`` for an absence claim (``no
     errors in the last 5 minutes``) that an empty result supports;
   - *ungrounded* (``inference``) otherwise, and always for causal or speculative conclusions
     (``caused by``, ``because``, ``root cause``, ``due to``, ``led to``, ``likely``,
     ``probably``, ``indicates``) unless an evidence sentence itself states them;
   - *complementary* (``synthesis``) for a conclusion that only restates the answer's own
     grounded observations (``These two observations indicate the spike is real``).

   A framing sentence with no content of its own (``Here is a summary:``) is joined to the claim
   after it, so it neither supports nor burdens the answer.

Grounded claims always cite the items holding their numbers and times, so the integrity guard
(:mod:`gsar_otel.core.integrity`) keeps them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Bucket, Claim, EvidenceType, JudgeOutput
from gsar_otel.core.scoring import gsar_score
from gsar_otel.core.text import split_sentences
from gsar_otel.judges.lexical.align import _Verdict
from gsar_otel.judges.lexical.index import _index_of
from gsar_otel.judges.lexical.lexicon import ECHO_CLOSE, ECHO_MIN_SENTENCES, GROUNDED_SCORE
from gsar_otel.judges.lexical.rules import judge_claim, resolve_synthesis
from gsar_otel.judges.lexical.segment import _ClaimFacts, _merge_framing, split_claims


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One claim as the LexicalJudge placed it, and why."""

    text: str
    bucket: Bucket
    type: EvidenceType
    evidence_refs: tuple[str, ...]
    reason: str


# -- the judge -----------------------------------------------------------------------------------

class LexicalJudge:
    """An offline, deterministic judge for tool-output evidence (metric rows, logs, alerts).

    Implements the :class:`~gsar_otel.core.protocol.Judge` protocol. It needs no key and no network
    and returns the same verdict for the same input every time.
    """

    name = "lexical"
    model: str | None = None

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence``."""
        return self.judge_now(synthesis=synthesis, evidence=evidence)

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The same judgement, synchronously."""
        verdicts, conclusions = self._verdicts(synthesis, evidence)
        return _output(verdicts, evidence, conclusions)

    def explain(self, *, synthesis: str, evidence: EvidenceSet) -> list[ClaimVerdict]:
        """Every claim with its bucket, type, evidence ids and the reason for them."""
        return [ClaimVerdict(text, v.bucket, v.type, tuple(v.refs), v.reason)
                for text, v in self._verdicts(synthesis, evidence)[0]]

    def _verdicts(self, synthesis: str, evidence: EvidenceSet
                  ) -> tuple[list[tuple[str, _Verdict]], set[str]]:
        """The verdict of every claim, and the texts of the claims that state a cause or a
        conclusion (causal, speculative or concluding wording)."""
        index = _index_of(evidence)
        claims = _merge_framing([(_ClaimFacts.of(text), text) for text in split_claims(synthesis)])
        # An answer that follows its evidence's wording closely (a summary) is held to its
        # words; one that paraphrases freely is held mainly to its anchors. A single sentence is
        # a claim, not a summary: its few word pairs cannot tell close following from chance
        # overlap, and it may rightly join facts from several evidence sentences.
        close = (len(split_sentences(synthesis)) >= ECHO_MIN_SENTENCES
                 and index.echo(synthesis) >= ECHO_CLOSE)
        verdicts: list[tuple[str, _Verdict]] = []
        for facts, text in claims:
            if not facts.stems and not facts.has_specifics:
                continue
            verdicts.append((text, judge_claim(facts, index, close=close)))
        conclusions = {text for facts, text in claims
                       if facts.causal or facts.speculative or facts.conclusion}
        return resolve_synthesis(claims, verdicts, index), conclusions


def _output(verdicts: list[tuple[str, _Verdict]], evidence: EvidenceSet,
            conclusions: set[str]) -> JudgeOutput:
    buckets: dict[Bucket, list[Claim]] = {
        "grounded": [], "ungrounded": [], "contradicted": [], "complementary": []}
    seen: set[str] = set()
    for text, verdict in verdicts:
        key = " ".join(text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        buckets[verdict.bucket].append(
            Claim(text=text, type=verdict.type, evidence_refs=tuple(verdict.refs),
                  conclusion=text in conclusions))
    partition_output = JudgeOutput(
        grounding_score=0.5, is_grounded=False,
        grounded_claims=tuple(buckets["grounded"]),
        ungrounded_claims=tuple(buckets["ungrounded"]),
        contradicted_claims=tuple(buckets["contradicted"]),
        complementary_claims=tuple(buckets["complementary"]),
    )
    score = gsar_score(partition_output.to_partition())
    gaps = tuple(dict.fromkeys(v.gap for _, v in verdicts if v.gap))
    contradictions = tuple(dict.fromkeys(v.contradiction for _, v in verdicts if v.contradiction))
    counts = {name: len(claims) for name, claims in buckets.items()}
    total = sum(counts.values())
    if total == 0:
        explanation = "The answer holds no checkable claim."
    else:
        parts = [f"{counts[name]} {name}" for name in buckets if counts[name]]
        worst = next((f"{text!r}: {v.reason}" for text, v in verdicts
                      if v.bucket in ("contradicted", "ungrounded")), None)
        explanation = (f"{total} claim(s) against {len(evidence)} evidence item(s): "
                       f"{', '.join(parts)}." + (f" First problem: {worst}." if worst else ""))
    needs_more = bool(counts["ungrounded"] or counts["contradicted"])
    return partition_output.model_copy(update={
        "grounding_score": score,
        "is_grounded": score >= GROUNDED_SCORE,
        "gaps": gaps,
        "contradictions": contradictions,
        "verification_needed": needs_more,
        "verification_reason": (gaps[0] if gaps else contradictions[0] if contradictions
                                else None) if needs_more else None,
        "explanation": explanation,
    })
