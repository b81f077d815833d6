"""Where a fact states a negation of a claim: the polarity the checks compare.

A record (a row, an alert) states its polarity plainly: any negation in it is its own. In
text (a sentence, a log line) a negation counts only where it stands in its clause just before
one of the claim's acts: "Ticket 5, which was filed Monday, was not merged" negates the merge,
while "could not reach pod web-1, so pod web-1 was restarted" negates the reaching ("pod", the
word naming what the subject is, is no act). A word of absence is no negation of an act
("merged without issues") unless the claim says it too, "not only" states what follows, and a
failure of an act negates it ("failed to mount", a ``FailedMount`` event). A field of the
claim's key says it too: ``merged: false`` plainly, ``restarts=0`` as "no restart" (though
"restarted 0 times" is no negation of it). Linear in the fact's text.

:func:`check_polarity` compares that with the claim's own polarity.
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.core.text import words
from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import number_of
from gsar_otel.judges.staged.categories import category_of
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.lexicon import key_stems
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.textual import negation_at

SHORT_PROSE: Final = 20
"""A prose sentence this short, of one clause, states its polarity plainly."""
REACH: Final = 3
"""How many words before a claim's word a negation of it may stand ("was not yet merged")."""
WEAK: Final = frozenset({"without", "absent", "lacks", "lacked", "lacking", "missing", "zero",
                         "insufficient", "inadequate", "unable", "nothing", "nobody", "none"})
"""Negation words that say what is missing, not that an act did not happen: "went missing
after leaving her friends" negates no leaving, "merged without issues" no merge."""
POLARITY_COVERAGE: Final = 0.8
"""Share of a claim's words a fact must hold before its opposite polarity contradicts it."""
EMPTY: Final = frozenset({"", "none", "null", "false", "no", "n/a", "-", "[]", "{}"})
"""A field value holding nothing."""


def plain(fact: Fact) -> bool:
    """A fact whose polarity is the whole fact's: a row, log line or alert, or a short sentence
    of one clause."""
    return fact.kind != "prose" or (fact.facts.word_count <= SHORT_PROSE
                                    and "," not in fact.text and ";" not in fact.text)


def negates(fact: Fact, slots: ClaimSlots, strict: bool = False, anywhere: bool = False) -> bool:
    """The fact states a negation of the claim (see the module docstring); ``strict`` leaves
    out empty and zero fields, ``anywhere`` takes a negation in any clause holding a word of
    the claim."""
    said = words(slots.text)
    # the claim's words with its categories ("closed"): the act a negation must stand before
    stems = (slots.stems - _ADVERBS) | {root(w) for w in said if category_of(w) is not None}
    named = {n.lower() for n in (*slots.names, *slots.subjects)}
    if not stems:  # names alone: "web-0 was never OOMKilled"
        stems = frozenset(root(w) for n in named for w in words(n))
    # a word naming what a subject is ("pod" of "pod web-1") is no act: "could not reach pod
    # web-1, so pod web-1 was restarted" negates the reaching
    nouns = {root(said[at + step]) for at, w in enumerate(said) if w in named
             for step in (-1, 1) if 0 <= at + step < len(said)}
    acts = (stems - nouns) or stems
    weak = WEAK.difference(said)  # "fear nothing" is stated by "nothing"
    if (fact.facts.negated or "fail" in fact.text.lower()) and _negated(
            fact.text, acts, fact.kind in ("row", "signal"),
            stems if anywhere and fact.kind == "prose" else None, weak):
        return True
    for field in fact.fields:  # its own name: ``cache.enabled=false`` says nothing of limits
        if key_stems(field.key.rsplit(".", 1)[-1]) & slots.stems:
            value = field.value.lower()
            numbers = [number_of(a) for a in field.anchors]
            if value in ("false", "no") or (not strict and (
                    value in EMPTY or (numbers and all(n == 0 for n in numbers)))):
                return True
    return False


_CLAUSE: Final = re.compile(r"[,;:()]|\b(?:so|but|while|whereas|although|though|because|since|"
                            r"after|before|when|whereupon|which|who|then)\b", re.IGNORECASE)
"""Where a clause ends: "could not reach the host, so pod web-1 was restarted" negates the
reaching, not the restart."""
_CAMEL_FAILED: Final = re.compile(r"^failed(?=[a-z]{4})")
"""A reason of a Kubernetes event read as two words: ``FailedScheduling`` is "failed
scheduling"."""
_FAILURE: Final = frozenset({"failed", "fails", "fail", "failing", "failure"})
"""Words that negate the act right after them ("failed to schedule", ``FailedMount``), though
not a whole line ("payment failed; retry scheduled" states the retry)."""
CLAUSE_SHARE: Final = 0.5
"""Share of the claim's acts the clause of a negation must hold for it to be the claim's: "one
side of my nose I can't smell out of" does not deny "has lost vision in one eye, hearing in
one ear, and smell in one nostril"."""
_ADVERBS: Final = frozenset({"yet", "still", "ever", "already", "again", "once", "even", "also"})
"""Words of a claim no clause need hold ("has not yet been merged" is "was not merged")."""


def _tokens(clause: str) -> list[tuple[str, bool]]:
    """The words of ``clause``, a Kubernetes reason split in two (``FailedMount``: "failed",
    "mount"), each with whether it is such a reason's act."""
    found: list[tuple[str, bool]] = []
    for token in words(clause):
        if _CAMEL_FAILED.match(token):
            found += [("failed", False), (token[6:], True)]
        else:
            found.append((token, False))
    return found


def _failed_act(following: list[tuple[str, bool]], stems: frozenset[str]) -> bool:
    """Whether the words after a word of failure name one of the claim's acts as the one that
    failed: "failed to (be) scheduled", ``FailedScheduling``; never "request failed
    status=500" or "probe failed - restarting pod web-1"."""
    if following[:1] == [("to", False)]:
        following = [w for w in following[1:] if w[0] not in ("be", "get")][:1]
    elif not following or not following[0][1]:
        return False
    return bool(following) and root(following[0][0]) in stems


def _negated(text: str, acts: frozenset[str], whole: bool, anywhere: frozenset[str] | None,
             weak: frozenset[str] = WEAK) -> bool:
    """A negation that is no word of absence ("without issues", "went missing") and, unless the
    ``whole`` text is one record, stands in a clause holding at least :data:`CLAUSE_SHARE` of
    the claim's ``acts``, at most :data:`REACH` words before one of them; with ``anywhere``
    (the claim's words), anywhere in a clause holding one of them (a negation a summary
    paraphrases: what grounds a negated claim, never what contradicts a plain one)."""
    for clause in _CLAUSE.split(text):
        tokens = _tokens(clause)
        plain_tokens = [t for t, _ in tokens]
        roots = [root(t) for t in plain_tokens]
        if not whole and (not anywhere.intersection(roots) if anywhere is not None
                          else len(acts.intersection(roots)) < CLAUSE_SHARE * len(acts)):
            continue
        last = -REACH - 1  # where the last negation stood
        for at, (token, _) in enumerate(tokens):
            failed = token in _FAILURE and _failed_act(tokens[at + 1:at + 4], acts)
            if failed or (negation_at(plain_tokens, at) and token not in weak):
                if whole or anywhere is not None:
                    return True
                last = at
            elif at - last <= REACH and roots[at] in acts:
                return True
    return False


def check_polarity(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """A negated claim against a fact that states it plainly, or the reverse; and a negated
    claim no fact of its support negates.

    "Ticket 5 was never closed" is contradicted by "Ticket 5 was closed by team-5" and ungrounded
    beside "Ticket 5 was opened": a negation is a value of the claim, so it must be stated
    (a negated sentence, or a field of the claim's key holding zero, false or none). A negated
    category ("did not fail") is its opposite pole, which the category check compares wherever a
    fact states that axis."""
    # a claim of names alone ("web-0 was never OOMKilled") is read against the facts about them
    support = alignment.support or (alignment.focus if slots.negated else ())
    if slots.absent or not support or not (slots.stems or slots.negated) or any(
            pole.startswith("not_") for _, pole in slots.categories):
        return None  # "was not ready": the negation is the category's pole, checked as one
    axes = {axis for axis, _ in slots.categories}
    if slots.negated and any(c[0] in axes or c in slots.denied or (
            c[0] in {a for a, _ in slots.denied} and index.facts[p].kind != "prose")
            for p in alignment.focus for c in index.facts[p].categories):
        return None  # the category check decides
    lead = index.facts[support[0]]
    # in a long sentence a negation may be another clause's: only one before the claim's words
    # says the opposite, and only a plain fact's silence does
    text = lead.text.lower()
    covered = alignment.coverage if slots.stems else float(
        all(n.lower() in text for n in (*slots.names, *slots.subjects)))
    if covered >= POLARITY_COVERAGE and (
            (plain(lead) and not slots.denied and not negates(lead, slots, anywhere=True))
            if slots.negated
            else negates(lead, slots, strict=True)):
        said = "not" if slots.negated else "it did"
        return Check("polarity", "CONFLICT", f"says {said}; {lead.ref} states "
                     f"{lead.text[:80]!r}", lead.ref, lead.position)
    if slots.negated and not any(
            negates(index.facts[p], slots, anywhere=True) for p in support):
        return Check("polarity", "ABSENT", f"says not; no evidence item states that ({lead.ref} "
                     f"states {lead.text[:80]!r})")
    return None
