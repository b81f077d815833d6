"""A claim of scope: "only", "always", "all his life", "the busiest", "the most popular".

Each states something of everything else (no other member, no other time, no one above), which
one record of one thing never shows. Such a word is grounded where a fact the claim is aligned
to states it ("the sole president", "Largest city: Karachi"), or where the evidence holds the
records that decide it: rows of one kind sharing a key (pods with ``restarts``, models with an
F1 column), which "only api-0 restarted" and "the highest CPU" are read against
(:mod:`.aggregates`, :mod:`.quantifiers`). Elsewhere it is ungrounded: nothing in the evidence
says there is no other.

Not a scope: "only" before a measured value ("only 0.5%", the value is checked as any value),
"not only", "if only", "only to"; a word denied ("not always", "not the only"); the first and
the last (an order in time, read off the lines by :func:`.aggregates.check_ordinal`).
"""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS, KEY_SYNONYMS, NOT_SUPERLATIVE
from gsar_otel.judges.staged.roots import root

_TIME_SPANS: Final = ("life|lives|lifetime|career|history|existence|tenure|time|reign|run|"
                      "childhood|adulthood")
_SCOPE: Final = re.compile(
    r"\b(?:(?P<only>only|solely|exclusively|sole)|"
    r"(?P<always>always|forever|ever(?!\s{1,3}(?:more|less|\w{1,20}er)\b))|"
    rf"(?P<entire>entire|whole)\s+(?:\w+\s+)?(?:{_TIME_SPANS})|"
    rf"all\s+(?:of\s+)?(?:his|her|their|its|my|our|your)\s+(?:{_TIME_SPANS}))\b",
    re.IGNORECASE)
"""Exclusive and all-time words; "entire" and "whole" only of a span of time ("his entire
career"), not of a thing ("the whole cluster"); "ever" not before a comparative ("ever
closer")."""
_NOT_SCOPE_BEFORE: Final = re.compile(r"\b(?:not|n't|never|if|than|however)\s+(?:\w+\s+)?$",
                                      re.IGNORECASE)
_NOT_SCOPE_AFTER: Final = re.compile(r"^\s+(?:to|because|just|about|around|recently)\b",
                                     re.IGNORECASE)
_SUPERLATIVE: Final = re.compile(
    r"\b(?:the|its|his|her|their|our|your|whose|[a-z][\w.-]{0,40}'s)\s+"
    r"(?:(?:second|third|fourth|fifth|\d{1,2}(?:st|nd|rd|th))[\s-]{1,3})?"
    r"(?P<word>(?:most|least)\s+[a-z][\w-]{2,30}|best|worst|[a-z]{2,20}est)\b", re.IGNORECASE)
_SAME: Final = {"biggest": "largest", "greatest": "largest"}


def _words_of(facts: list[Fact]) -> list[set[str]]:
    """Each fact's words, a superlative's synonyms as one ("biggest" is "largest")."""
    return [{_SAME.get(w, w) for w in re.findall(r"[a-z]+", fact.text.lower())}
            for fact in facts]


def _stated(words: list[str], held: list[set[str]]) -> bool:
    """Whether one fact holds every word."""
    wanted = [_SAME.get(w, w) for w in words]
    return any(all(w in fact for w in wanted) for fact in held)


_ONE_OF: Final = {"only": ("only", "sole", "solely", "exclusively", "alone"),
                  "always": ("always", "forever", "entire", "whole", "throughout", "lifelong")}


def _comparable(alignment: Alignment, index: FactIndex) -> bool:
    """Whether the records the claim speaks of are rows of a kind, sharing a measure or a
    property with another row (``restarts``, a BLEU column): the set "only" and "the highest"
    are read against. A shared name key alone (``name=``) makes no kind: an unrelated record
    never switches the scope check off."""
    keys = index.memo.get("shared keys")
    if not isinstance(keys, frozenset):
        seen: dict[str, int] = {}
        for fact in index.facts:
            if fact.kind != "prose":
                for key in {field.key.lower() for field in fact.fields
                            if not field.key_stems & IDENTITY_KEYS}:
                    seen[key] = seen.get(key, 0) + 1
        keys = index.memo["shared keys"] = frozenset(k for k, n in seen.items() if n > 1)
    return any(field.key.lower() in keys
               for p in (*alignment.about, *alignment.support)
               for field in index.facts[p].fields)


_APPROX: Final = re.compile(r"\s*(?:(?:about|around|roughly|some)\s+)?")


def _value_follows(slots: ClaimSlots, end: int) -> bool:
    """"only 0.5%", "only about 3 pods": a measured value right after the word."""
    return any(0 <= v.spec.raw.start - end <= 12 and _APPROX.fullmatch(
        slots.text[end:v.spec.raw.start]) for v in slots.values)


def _peak_of_value(slots: ClaimSlots, alignment: Alignment, index: FactIndex, end: int) -> bool:
    """"The longest GC pause on X was 3963 ms": the superlative of a measure (the words after
    it name the key of a field) whose value the claim states and that fact holds: a record's
    peak over its window, not a rank of X."""
    measure = {root(w) for w in re.findall(r"[a-z][a-z-]*", slots.text[end:end + 40].lower())[:3]}
    measure |= {s for m in measure for s in KEY_SYNONYMS.get(m, ())}  # "round-trip": ``rtt``
    return any(field.key_stems & measure
               for positions in alignment.value_facts.values() for p in positions
               for field in index.facts[p].fields)


def check_scope(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """A scope word against the facts the claim is aligned to (see the module docstring)."""
    text = slots.text
    aligned = _words_of([index.facts[p] for p in dict.fromkeys(
        (*alignment.support, *alignment.about, *alignment.related))])
    for found in _SCOPE.finditer(text):
        if _NOT_SCOPE_BEFORE.search(text[max(0, found.start() - 24):found.start()]) or \
                _NOT_SCOPE_AFTER.match(text[found.end():found.end() + 16]):
            continue
        if found.group("only") and _value_follows(slots, found.end()):
            continue
        # "only api-0 restarted" is read off the records of its kind; "always" never is
        if found.group("only") and _comparable(alignment, index):
            return None
        group = "only" if found.group("only") else "always"
        if not any(_stated([w], aligned) for w in _ONE_OF[group]):
            said = found.group(0).lower()
            return Check("scope", "ABSENT", f"says {said}; no evidence item states it")
    for found in _SUPERLATIVE.finditer(text):
        word = found.group("word").lower()
        last = word.split()[-1]
        if last in NOT_SUPERLATIVE or _NOT_SCOPE_BEFORE.search(
                text[max(0, found.start() - 24):found.start()]):
            continue
        if _comparable(alignment, index) or _peak_of_value(slots, alignment, index, found.end()):
            return None
        if not _stated(word.split(), aligned):
            return Check("scope", "ABSENT", f"says {word}; no evidence item states it")
    return None
