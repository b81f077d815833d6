"""The rules: the bucket and evidence type of one claim, causal and speculative conclusions, and
an answer's anaphoric conclusions that only restate its grounded observations.
"""

from __future__ import annotations

from gsar_otel.core.model import EvidenceType
from gsar_otel.judges.lexical.align import _content, _item_type, _Support, _support, _Verdict
from gsar_otel.judges.lexical.compare import (
    _absence,
    _polarity_contradiction,
    _value_contradiction,
)
from gsar_otel.judges.lexical.index import _EvidenceIndex
from gsar_otel.judges.lexical.lexicon import (
    _COUNT_WORDS,
    COVERAGE_ANCHORED,
    COVERAGE_GROUNDED,
    COVERAGE_LOOSE,
    COVERAGE_PROSE_ANCHORED,
    COVERAGE_STATED,
    LEAD_COVERAGE,
)
from gsar_otel.judges.lexical.segment import _ClaimFacts, _is_framing


def judge_claim(facts: _ClaimFacts, index: _EvidenceIndex, *, close: bool = True) -> _Verdict:
    """The bucket, evidence type, evidence ids and reason of one claim."""
    if _is_framing(facts):
        return _Verdict("complementary", EvidenceType.SYNTHESIS, [],
                        "frames the answer; no content of its own")
    if not index.items:
        return _Verdict("ungrounded", EvidenceType.INFERENCE, [], "there is no evidence",
                        gap=f"evidence for: {facts.text}")
    contradiction = _value_contradiction(facts, index)
    if contradiction is not None:
        return contradiction
    support = _support(facts, index)
    if facts.negated and not facts.causal:
        absence = _absence(facts, index, support)
        if absence is not None:
            return absence
    polarity = _polarity_contradiction(facts, index, support)
    if polarity is not None:
        return polarity
    if support.unmatched:
        return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs,
                        f"{', '.join(support.unmatched)} found in no evidence item",
                        gap=f"evidence for {', '.join(support.unmatched)}")
    if facts.causal or facts.speculative or facts.conclusion:
        return _conclusion(facts, index, support)
    needed = (COVERAGE_ANCHORED if support.anchored
              else COVERAGE_PROSE_ANCHORED if support.prose_anchored
              else COVERAGE_GROUNDED if close else COVERAGE_LOOSE)
    lead_needed = LEAD_COVERAGE if close else 0.0
    if (support.coverage >= needed and support.refs
            and support.lead_coverage >= lead_needed):
        return _Verdict("grounded", _item_type(index, support), support.refs,
                        f"{support.coverage:.0%} of its content found in "
                        f"{', '.join(support.refs)}")
    missing = ", ".join(sorted(support.missing)[:6])
    if support.coverage >= needed and support.refs:
        reason = (f"no single evidence item holds {lead_needed:.0%} of its content; it is "
                  f"pieced together from {', '.join(support.refs)}")
    else:
        reason = (f"only {support.coverage:.0%} of its content found in the evidence"
                  + (f" (missing: {missing})" if missing else ""))
    return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs, reason,
                    gap=f"evidence for: {facts.text}")

def resolve_synthesis(
    claims: list[tuple[_ClaimFacts, str]],
    verdicts: list[tuple[str, _Verdict]],
    index: _EvidenceIndex,
) -> list[tuple[str, _Verdict]]:
    """Let an anaphoric conclusion that adds nothing new stand as a synthesis (K)."""
    grounded = [v for _, v in verdicts if v.bucket == "grounded"]
    if not grounded:
        return verdicts
    grounded_refs = list(dict.fromkeys(ref for v in grounded for ref in v.refs))
    facts_by_text = {text: facts for facts, text in claims}
    resolved = []
    for text, verdict in verdicts:
        facts = facts_by_text[text]
        if (verdict.bucket == "ungrounded" and facts.conclusion and facts.anaphoric
                and not facts.causal and not facts.speculative and not facts.has_specifics
                and _adds_nothing(facts, index)):
            verdict = _Verdict("complementary", EvidenceType.SYNTHESIS, grounded_refs,
                               "a conclusion drawn only from the answer's grounded "
                               "observations")
        resolved.append((text, verdict))
    return resolved


def _conclusion(facts: _ClaimFacts, index: _EvidenceIndex, support: _Support) -> _Verdict:
    """Causal and speculative conclusions stand only where an evidence sentence states them."""
    content = _content(facts, index, anchored=support.anchored)
    for unit_index in support.units:
        unit = index.units[unit_index]
        states = (unit.states_cause if facts.causal
                  else unit.hedged or unit.states_conclusion if facts.speculative
                  else unit.states_conclusion or unit.states_cause)
        if not states:
            continue
        if not content or len(unit.stems & content) >= COVERAGE_STATED * len(content):
            return _Verdict("grounded", _item_type(index, support), support.refs,
                            f"{index.items[unit.item].evidence.id} states it")
    kind = "causal" if facts.causal else "speculative" if facts.speculative else "concluding"
    return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs,
                    f"{kind} claim that no evidence item states",
                    gap=f"evidence that establishes: {facts.text}")


def _adds_nothing(facts: _ClaimFacts, index: _EvidenceIndex) -> bool:
    content = _content(facts, index, anchored=True) - _COUNT_WORDS
    return all(word in index.postings for word in content)
