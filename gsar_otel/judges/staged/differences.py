"""A stated difference read off two rows the claim names.

"On TREC, CBOW outperforms CMOW by 2.4 points" holds when the rows naming CBOW and CMOW (a field
value holding the word), in the items the claim is aligned with, hold values under a key the
claim names (``trec``) that differ by 2.4
(:func:`gsar_otel.core.anchor_differences.stated_difference` says which numbers are differences
and how closely they must agree). Only rows naming words of the claim are compared, and only
under a key it names: among a table's hundreds of pairs of values some differ by any small
number, so the claim must say which two.

A row naming two of the claim's names is neither side of a pair; with one name (a subject's
samples, "p99 on api-1 rose by 300") two consecutive rows naming it are, the earlier first (by
their timestamps, else as listed; with only some stamped, no direction is read), and their gap
says which way the value went ("rose by 300 ms" from ``p99_ms=1200`` to ``p99_ms=1500``: a
trend of two samples). A difference found nowhere is ungrounded, not contradicted: which row is
compared with which is read from names alone. The exception is a subject's only two samples of
the key: those are the change the claim states, so another amount (or, by the category check,
the other direction) contradicts it. A number stated as a difference that a fact holds only as
a level ("by 16.4" where a row scores 16.4, or unlike any level) is decided by neither: a
change must be written as one (signed, "improved by", a key of change) or be the gap of two
rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from gsar_otel.core.anchor_differences import magnitude, stated_difference
from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.anchoring import Spec, agree
from gsar_otel.judges.staged.claims import ClaimSlots, Value
from gsar_otel.judges.staged.facts import Fact, Field
from gsar_otel.judges.staged.roots import root

_MAX_NAMES = 16
"""Words of a claim tried as row names ("CBOW", "api-1"): a sentence's worth."""
_MAX_ROWS = 12
"""Rows one name may be on to name a row: past it, the name is too common to say which."""


@dataclass(frozen=True, slots=True)
class Gap:
    """Two facts whose values differ by a stated difference."""

    first: Fact
    second: Fact
    reason: str
    trend: str | None
    """``increased`` or ``decreased`` from the earlier sample to the later one, when both are
    one subject's (two rows naming one name); None between two named rows."""
    matches: bool = True
    """False for a subject's only two samples that do not differ by the stated amount."""


def difference_of(value: Value, slots: ClaimSlots, facts: Sequence[Fact]) -> Gap | None:
    """Two facts whose values under a key the claim names differ by the stated ``value``, or
    None (see the module docstring)."""
    stated = stated_difference(slots.text, value.spec.raw)
    if stated is None:
        return None
    names = sorted({n.lower() for n in (*slots.names, *slots.subjects) if len(n) > 1}
                   | {w for w in words(slots.text) if len(w) > 1 and not w[:1].isdigit()
                      and w not in STOPWORDS})[:_MAX_NAMES]
    wanted = slots.stems | value.key_stems | {root(w) for n in names for w in words(n)}
    values = [(f, " ".join(fl.value for fl in f.fields).lower()) for f in facts if f.fields]
    rows: dict[str, list[Fact]] = {}
    for name in names:
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        rows[name] = [f for f, text in values if pattern.search(text)]
    # a name on no row names none; on too many, it says no longer which row is meant
    names = [n for n in names if 0 < len(rows[n]) <= _MAX_ROWS]
    pairs: list[tuple[Fact, Fact]] = []
    timed = False
    if len(names) == 1:  # one subject's consecutive samples, the earlier first
        ordered, timed = _in_time(rows[names[0]])
        pairs = list(pairwise(ordered))
    for first, second in combinations(names, 2):
        ones = [f for f in rows[first] if f not in rows[second]]
        others = [f for f in rows[second] if f not in rows[first]]
        pairs.extend((a, b) for a in ones for b in others)
    for one, other in pairs:
        theirs = {f.key: f for f in other.fields}
        for field in one.fields:
            match = theirs.get(field.key) if field.key_stems & wanted else None
            a, b = _number(field, stated.seconds), _number(match, stated.seconds)
            if a is not None and b is not None and match is not None and stated.allows(a, b):
                trend = (None if not timed or a == b
                         else "increased" if b > a else "decreased")
                return Gap(one, other, f"{value.spec.text} is the difference of {one.ref} "
                           f"{field.shown} and {other.ref} {match.shown}", trend)
    if len(names) == 1:
        return _only_samples(rows[names[0]], wanted, value, stated.seconds)
    return None


def _only_samples(rows: list[Fact], wanted: frozenset[str], value: Value,
                  seconds: bool) -> Gap | None:
    """A subject's only two samples of a key the claim names, when they do not differ by the
    stated amount: the change they show, which the claim misstates."""
    ordered, timed = _in_time(rows)
    held = [(f, fl) for f in ordered for fl in f.fields
            if fl.key_stems & wanted and _number(fl, seconds) is not None]
    if not timed or len(held) != 2 or held[0][1].key != held[1][1].key or held[0][0] is held[1][0]:
        return None
    (one, first), (other, second) = held
    a, b = _number(first, seconds), _number(second, seconds)
    assert a is not None and b is not None
    trend = None if a == b else "increased" if b > a else "decreased"
    return Gap(one, other, f"says {value.spec.text}; {one.ref} {first.shown} and {other.ref} "
               f"{second.shown} differ by {abs(b - a):g}", trend, matches=False)


_CHANGE_KEYS = frozenset(root(w) for w in (
    "delta", "diff", "difference", "change", "gain", "improvement", "increase", "decrease", "cmp",
    "drop", "rise", "growth", "reduction", "decline", "loss"))
"""Words of keys and row labels whose values are changes (``latency_delta_ms``,
``german_reduction``, a row labelled ``difference`` or ``cmp. CBOW``)."""


def written_as_change(fact: Fact, spec: Spec) -> bool:
    """Whether ``fact`` holds the number ``spec`` as a change: signed ("trec=+2.3%"), stated
    as one in its text ("improved by 2.4"), under a key of change (``delta_ms=300``) or in a row
    labelled as one (``empty=difference``)."""
    label = any(root(w) in _CHANGE_KEYS for field in fact.fields if not field.anchors
                for w in words(field.value))
    if any((label or field.key_stems & _CHANGE_KEYS)
           and any(agree(spec, a) == "match" for a in field.anchors) for field in fact.fields):
        return True
    return any(agree(spec, a) == "match" and stated_difference(fact.text, a.raw) is not None
               for a in fact.facts.anchors)


def _in_time(rows: list[Fact]) -> tuple[list[Fact], bool]:
    """Rows in the order of time, and whether that order is known: by the timestamps they
    state when each has one and all are comparable (all in UTC, or none with a zone), as the
    evidence lists them when none has one, and unknown when only some are stamped or zones are
    mixed (then no change has a direction)."""
    listed = sorted(rows, key=lambda f: f.position)
    stamps = [next((str(a.value) for a in f.facts.anchors if a.kind == "TIMESTAMP"), "")
              for f in listed]
    if not any(stamps):
        return listed, True
    zoned = {s.endswith("Z") for s in stamps}
    if all(stamps) and len(zoned) == 1:
        return [f for _, f in sorted(zip(stamps, listed, strict=True), key=lambda p: p[0])], True
    return listed, False


def _number(field: Field | None, seconds: bool) -> float | None:
    if field is None:
        return None
    numbers = [n for n in (magnitude(a.raw, seconds) for a in field.anchors) if n is not None]
    return numbers[0] if len(numbers) == 1 else None
