"""Stage 5: a claim's bucket, evidence type, citations and reason, from its checks.

- any CONFLICT: contradicted, typed by the fact that contradicts it, citing it;
- else any ABSENT: ungrounded (``inference``), its reason the first absent check;
- else grounded, typed by the fact holding its values (``neg_evidence`` for an absence claim).

Then two answer-level passes: an anaphoric, non-speculative conclusion that states nothing of its
own ("These two observations point to the same host") after grounded claims is a synthesis of
them (complementary, citing their evidence); and the answer's paraphrase budget (see
:func:`budget_pass`): its grounded claims may together use only a few content words that their
support lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gsar_otel.core.model import Bucket, EvidenceType
from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.segment import ClaimSpan

SUMMARY_STEMS: Final = frozenset(root(w) for w in str.split(
    "observation observations evidence data signal signals real genuine consistent confirm "
    "confirms same pattern spike event events incident finding findings result results picture "
    "story together both all"))
"""Words a summing-up sentence uses without stating anything new."""
PARAPHRASE_BUDGET: Final = 4
"""Content words their support lacks that an answer's grounded claims may hold together. Chosen
with the coverage backstop by ``benchmarks/lodo.py`` on all development domains by the worst
domain's margin over the bag-of-words and length rules; left out in turn, HaluEval alone picks
it (the other domains are indifferent), so its figure there is not a held-out one."""


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One claim as the judge placed it, and why."""

    text: str
    span: ClaimSpan
    bucket: Bucket
    type: EvidenceType
    evidence_refs: tuple[str, ...]
    conclusion: bool
    rule: str
    """The kind of the deciding check (``value``, ``subject``, ``coverage`` ...) or
    ``grounded`` / ``synthesis``."""
    reason: str
    """What decided it, in words a person can act on."""
    coverage: float
    checks: tuple[Check, ...]
    slots: ClaimSlots
    missing: tuple[str, ...] = ()
    """The claim's content stems its support lacks."""


def decide(span: ClaimSpan, text: str, slots: ClaimSlots, alignment: Alignment,
           index: FactIndex, checks: list[Check]) -> ClaimVerdict:
    """The bucket of one claim from its checks (see the module docstring)."""
    conflict = next((c for c in checks if c.status == "CONFLICT"), None)
    absent = next((c for c in checks if c.status == "ABSENT"), None)
    conclusion = slots.conclusion
    if conflict is not None:
        fact = index.facts[conflict.position] if conflict.position is not None else None
        kind = fact.source if fact else EvidenceType.TOOL_MATCH
        return ClaimVerdict(text, span, "contradicted", kind,
                            (conflict.ref,) if conflict.ref else (), conclusion, conflict.kind,
                            conflict.reason, alignment.coverage, tuple(checks), slots,
                            alignment.missing)
    if absent is not None:
        # A claim stating a tool fact (a subject or a typed value) that the evidence does not
        # hold is weighed as the tool fact it claims to be, not as a soft inference: one made-up
        # host beside three true rows must not carry the answer (GSAR-SPEC 11.7).
        kind = (EvidenceType.TOOL_MATCH if absent.kind in ("subject", "value", "category")
                and (slots.subjects or slots.values) else EvidenceType.INFERENCE)
        return ClaimVerdict(text, span, "ungrounded", kind, (), conclusion,
                            absent.kind, absent.reason, alignment.coverage, tuple(checks), slots,
                            alignment.missing)
    cited = [c.position for c in checks if c.status == "MATCH" and c.position is not None]
    positions = list(dict.fromkeys([*cited, *alignment.support[:1]]))
    if not positions and slots.stems:  # whatever the backstop: no fact holds any of its words
        return ClaimVerdict(text, span, "ungrounded", EvidenceType.INFERENCE, (), conclusion,
                            "coverage", f"the evidence lacks "
                            f"{', '.join(alignment.missing[:4]) or 'its words'} "
                            "(none of the claim's words found)", alignment.coverage,
                            tuple(checks), slots, alignment.missing)
    if not positions:  # "She said: 'Couldn't be.'": no content word, and no value or name matched
        return ClaimVerdict(text, span, "complementary", EvidenceType.SYNTHESIS, (), conclusion,
                            "synthesis", "states nothing an evidence item could hold",
                            alignment.coverage, tuple(checks), slots, alignment.missing)
    refs = tuple(dict.fromkeys(index.facts[p].ref for p in positions))
    kind = EvidenceType.NEG_EVIDENCE if slots.absent else index.facts[positions[0]].source
    return ClaimVerdict(text, span, "grounded", kind, refs, conclusion, "grounded",
                        f"stated in {', '.join(refs)}", alignment.coverage, tuple(checks), slots,
                        alignment.missing)


def synthesis_pass(verdicts: list[ClaimVerdict]) -> list[ClaimVerdict]:
    """An anaphoric, non-speculative, non-causal conclusion with no values or subjects, after
    grounded claims, is a synthesis of them: complementary, citing their evidence."""
    result: list[ClaimVerdict] = []
    grounded_refs: dict[str, None] = {}
    said: set[str] = set()
    for verdict in verdicts:
        slots = verdict.slots
        facts = slots.facts
        # It may name nothing new: "the spike is real" sums up, "a noisy neighbour" diagnoses.
        new_words = {w for w in slots.stems - said - SUMMARY_STEMS if not w.isdigit()}
        if (verdict.bucket == "ungrounded" and grounded_refs and facts.anaphoric
                and slots.modality == "observation" and not slots.values
                and not slots.subjects and not slots.categories and len(new_words) <= 1
                and not any(c.status == "CONFLICT" for c in verdict.checks)):
            verdict = ClaimVerdict(
                verdict.text, verdict.span, "complementary", EvidenceType.SYNTHESIS,
                tuple(grounded_refs), verdict.conclusion, "synthesis",
                "a synthesis of the claims before it", verdict.coverage, verdict.checks,
                verdict.slots, verdict.missing)
        if verdict.bucket == "grounded":
            grounded_refs.update(dict.fromkeys(verdict.evidence_refs))
            said |= slots.stems | {root(s) for s in slots.subjects}
        result.append(verdict)
    return result


def budget_pass(verdicts: list[ClaimVerdict], budget: int | None) -> list[ClaimVerdict]:
    """The answer's paraphrase budget: its grounded claims may together hold at most ``budget``
    content words that their support lacks (None: no budget).

    One claim's coverage allows a paraphrase; an answer whose grounded claims each add a word or
    two the evidence never states adds content, however well each claim covers on its own. Past
    the budget, the grounded claims adding the most words (the earliest on a tie) become
    ungrounded until the rest fit. Only the answer's own claims decide: adding or reordering
    evidence items the claims do not align with changes nothing here.
    """
    if budget is None:
        return verdicts
    grounded = [i for i, v in enumerate(verdicts) if v.bucket == "grounded"]
    total = sum(len(verdicts[i].missing) for i in grounded)
    if total <= budget:
        return verdicts
    result = list(verdicts)
    for place in sorted(grounded, key=lambda i: (-len(verdicts[i].missing), i)):
        if total <= budget:
            break
        verdict = verdicts[place]
        total -= len(verdict.missing)
        shown = ", ".join(verdict.missing[:4])
        result[place] = ClaimVerdict(
            verdict.text, verdict.span, "ungrounded", EvidenceType.INFERENCE, (),
            verdict.conclusion, "budget", f"the answer adds words no evidence item states; "
            f"this claim adds {shown}", verdict.coverage, verdict.checks, verdict.slots,
            verdict.missing)
    return result
