"""Stage 5: a claim's bucket, evidence type, citations and reason, from its checks.

- any CONFLICT: contradicted, typed by the fact that contradicts it, citing it;
- else any ABSENT: ungrounded (``inference``), its reason the first absent check;
- else grounded, typed by the fact holding its values (``neg_evidence`` for an absence claim).

Then two answer-level passes: an anaphoric, non-speculative conclusion that states nothing of its
own ("These two observations point to the same host") after grounded claims is a synthesis of
them (complementary, citing their evidence); and the answer's paraphrase budget (see
:func:`budget_pass`): one sentence's grounded claims may together use a few content words that
their support lacks, every other sentence's at most one.
"""

from __future__ import annotations

from collections.abc import Sequence
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
"""Content words their support lacks that the grounded claims of an answer's loosest sentence
may hold together."""
SENTENCE_BUDGET: Final = 1
"""Content words their support lacks that the grounded claims of each other sentence may hold
together. Both budgets were chosen with the coverage backstop by ``benchmarks/lodo.py`` on all
development domains by the worst domain's margin over the bag-of-words and length rules, and
are measured there leave-one-domain-out."""


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


def budget_pass(verdicts: list[ClaimVerdict], budget: int | None,
                sentence_budget: int | None = None,
                sentences: Sequence[int] | None = None) -> list[ClaimVerdict]:
    """The answer's paraphrase budget (see :func:`over_budget`) applied to its verdicts: a
    claim cut by it becomes ungrounded (``inference``, rule ``budget``), the words it adds in
    its reason."""
    where = list(sentences) if sentences is not None else list(range(len(verdicts)))
    cut = over_budget([len(v.missing) if v.bucket == "grounded" else None for v in verdicts],
                      where, budget, sentence_budget)
    result = list(verdicts)
    for place, by_budget in cut.items():
        verdict = verdicts[place]
        why = ("the answer adds words no evidence item states" if by_budget else
               "another sentence of the answer already adds words no evidence item states")
        result[place] = ClaimVerdict(
            verdict.text, verdict.span, "ungrounded", EvidenceType.INFERENCE, (),
            verdict.conclusion, "budget", f"{why}; this claim adds "
            f"{', '.join(verdict.missing[:4])}", verdict.coverage, verdict.checks,
            verdict.slots, verdict.missing)
    return result


def over_budget(added: Sequence[int | None], sentences: Sequence[int], budget: int | None,
                sentence_budget: int | None) -> dict[int, bool]:
    """The claims the paraphrase budget holds back, each with whether it was cut by ``budget``
    (True) or by ``sentence_budget`` (False).

    ``added[i]`` is how many content words claim ``i``'s support lacks (None: not grounded),
    ``sentences[i]`` its sentence of the answer. The loosest sentence's grounded claims may
    together add at most ``budget`` words, every other sentence's at most ``sentence_budget``
    (None: no limit of that kind). One sentence's paraphrase is latitude (a summary's lead, a
    reading of a table row); an answer whose other sentences each add a word or two the
    evidence never states adds content, however well each claim covers on its own. Past a
    limit, a sentence's claims adding the most words (the earliest on a tie) are cut until the
    rest fit; the loosest sentence is the one whose claims then add the most (the earliest on a
    tie). Only the answer's own claims decide: adding or reordering evidence items the claims
    do not align with changes nothing here.
    """
    cut: dict[int, bool] = {}

    def fit(places: list[int], allowed: int | None, by_budget: bool) -> int:
        total = sum(added[i] or 0 for i in places)
        for place in sorted(places, key=lambda i: (-(added[i] or 0), i)):
            if allowed is None or total <= allowed:
                break
            total -= added[place] or 0
            cut[place] = by_budget
        return total

    by_sentence: dict[int, list[int]] = {}
    for place, count in enumerate(added):
        if count:
            by_sentence.setdefault(sentences[place], []).append(place)
    held = {sentence: fit(places, budget, True) for sentence, places in by_sentence.items()}
    loosest = min(held, key=lambda s: (-held[s], s), default=None)
    for sentence, places in by_sentence.items():
        if sentence != loosest:
            fit([p for p in places if p not in cut], sentence_budget, False)
    return cut
