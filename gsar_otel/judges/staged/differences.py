"""A stated difference read off two rows the claim names.

"On TREC, CBOW outperforms CMOW by 2.4 points" holds when the rows naming CBOW and CMOW (a field
value holding the word), in the items the claim is aligned with, hold values under a key the
claim names (``trec``) that differ by 2.4
(:func:`gsar_otel.core.anchor.derived.stated_difference` says which numbers are differences
and how closely they must agree). Only rows naming words of the claim are compared, and only
under a key it names: among a table's hundreds of pairs of values some differ by any small
number, so the claim must say which two.

The key is the one sharing the most words with the claim ("p99 latency" is
``p99_latency_ms``, never ``p50_latency_ms``), and names on the very same rows are one name
(the ``cpu`` of ``resource=cpu`` on a host's two samples). Where the claim says which of two
rows is the larger ("X is 2 points higher than Y", "Y trails X by 2"; not "outperforms", since
a lower error is the better one), the gap must run that way; the other way round, with each
name on one row, it is contradicted.

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
from typing import Final

from gsar_otel.core.anchor.derived import magnitude, stated_difference
from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.anchoring import Spec, agree
from gsar_otel.judges.staged.claims import ClaimSlots, Value
from gsar_otel.judges.staged.facts import Fact, Field
from gsar_otel.judges.staged.keyed import UNIT_WORDS
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
    said = words(slots.text)
    keyed = value.key_stems | _claim_keys(slots)
    rows = named_rows(slots, said, facts)
    names = list(rows)
    pairs: list[tuple[Fact, Fact, int]] = []  # the first's value minus the second's: its sign
    timed = False
    if len(names) == 1:  # one subject's consecutive samples, the earlier first
        ordered, timed = _in_time(rows[names[0]])
        pairs = [(a, b, 0) for a, b in pairwise(ordered)]
    for first, second in combinations(names, 2):
        sign = _sign(said, first, second, value.spec.text)
        ones = [f for f in rows[first] if f not in rows[second]]
        others = [f for f in rows[second] if f not in rows[first]]
        pairs.extend((a, b, sign) for a in ones for b in others)
    keys = _best_keys([f for pair in pairs for f in pair[:2]], keyed)
    reversed_: Gap | None = None
    for one, other, sign in pairs:
        theirs = {f.key: f for f in other.fields}
        for field in one.fields:
            match = theirs.get(field.key) if field.key in keys else None
            a, b = _number(field, stated.seconds), _number(match, stated.seconds)
            if a is None or b is None or match is None or not stated.allows(a, b):
                continue
            if sign and a != b and (a > b) != (sign > 0):  # "X is 2 higher than Y", X lower
                reversed_ = reversed_ or Gap(
                    one, other, f"says {value.spec.text} the other way: {one.ref} {field.shown} "
                    f"is {'lower' if a < b else 'higher'} than {other.ref} {match.shown}", None,
                    matches=False)
                continue
            trend = (None if not timed or a == b
                     else "increased" if b > a else "decreased")
            return Gap(one, other, f"{value.spec.text} is the difference of {one.ref} "
                       f"{field.shown} and {other.ref} {match.shown}", trend)
    if reversed_ is not None and all(len(rows[n]) == 1 for n in names):
        return reversed_  # each name on one row: the claim compares just those, the wrong way
    if len(names) == 1:
        return _only_samples(rows[names[0]], keys, value, stated.seconds)
    return None


_HIGHER: Final = frozenset({"higher", "more", "greater", "larger", "bigger", "above", "ahead",
                            "exceeds", "exceeded", "exceed", "exceeding"})
_LOWER: Final = frozenset({"lower", "less", "fewer", "smaller", "below", "behind", "trails",
                           "trailed", "trail", "trailing"})
"""Words that say which of two values is the larger; "outperforms" and "better" do not (a
lower error is the better one)."""


def _sign(said: list[str], first: str, second: str, number: str | None) -> int:
    """+1 when the claim says ``first``'s value is the larger ("X is 2 points higher than Y"),
    -1 when the smaller, 0 when it does not say. The word saying which stands between the two
    names and beside the stated ``number``: just after it ("2 points higher than"), or before
    "by" it ("higher than Y by 2", "exceeds Y by 2"); "a smaller model than Y" says nothing of
    the gap. With no ``number``, the comparative before "than" ("higher CPU than Y")."""
    where = [next((at for at, w in enumerate(said) if w in words(name)), -1)
             for name in (first, second)]
    written = words(number)[:1] if number is not None else []
    stated = next((at for at, w in enumerate(said) if [w] == written), -1)
    if min(where) < 0 or (number is not None and stated < 0):
        return 0
    by = stated > 0 and said[stated - 1] == "by"
    for at, word in enumerate(said):
        if not min(where) < at < max(where) or not (word in _HIGHER or word in _LOWER):
            continue
        if ("than" in said[at + 1:at + 3]) if number is None else (
                stated < at <= stated + 3 or (by and stated - 6 <= at < stated)):
            larger = 1 if word in _HIGHER else -1
            return larger if where[0] < at else -larger
    return 0


def _best_keys(rows: list[Fact], wanted: frozenset[str]) -> frozenset[str]:
    """The keys of ``rows`` sharing the most words with the claim and, of those, adding the
    fewest it lacks, units aside ("p99 latency" is ``p99_latency_ms``, not ``p50_latency_ms``
    nor ``latency_budget_ms``)."""
    score = {f.key: (len(f.key_stems & wanted), -len(f.key_stems - wanted - UNIT_WORDS))
             for row in rows for f in row.fields if f.key_stems & wanted}
    best = max(score.values(), default=None)
    return frozenset(k for k, n in score.items() if n == best)


def _claim_keys(slots: ClaimSlots) -> frozenset[str]:
    """The claim's words that may name a key, its percentiles too ("p99")."""
    return slots.stems | {a.text.lower() for a in slots.facts.anchors if a.kind == "PERCENTILE"}


def named_rows(slots: ClaimSlots, said: list[str],
                facts: Sequence[Fact]) -> dict[str, list[Fact]]:
    """The rows each name of the claim is a field value of (see the module docstring)."""
    named = dict.fromkeys(n.lower() for n in (*slots.subjects, *slots.names) if len(n) > 1)
    # a word naming a key names the measure, not a row ("higher WER than" beside ``wer=``)
    measures = {stem for f in facts for fl in f.fields for stem in fl.key_stems}
    named.update(dict.fromkeys(w for w in said if len(w) > 1 and not w[:1].isdigit()
                               and w not in STOPWORDS and root(w) not in measures))
    rows: dict[str, list[Fact]] = {}
    under: dict[str, set[str]] = {}  # the keys each name is a value of
    for name in list(named)[:_MAX_NAMES]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        held = [(f, fl.key) for f in facts for fl in f.fields if pattern.search(fl.value.lower())]
        found = list({id(f): f for f, _ in held}.values())
        held_keys = {k for _, k in held}
        # a name on no row names none; on too many, it says no longer which row is meant;
        # names of one key on the very same rows are one ("api-1" and the "cpu" of
        # resource=cpu on its two samples), not names under two keys ("model=A baseline=B")
        if 0 < len(found) <= _MAX_ROWS and not any(
                found == theirs and len(held_keys) == 1 and len(under[other]) == 1
                for other, theirs in rows.items()):
            rows[name], under[name] = found, held_keys
    return rows


def comparison_of(slots: ClaimSlots, facts: Sequence[Fact]) -> Gap | None:
    """"api-1 had higher CPU than api-2", no amount stated: the two rows the names are on (one
    each), compared under the key the claim names; a Gap that ``matches`` when the order is the
    claim's, None when the claim compares no two such rows."""
    said = words(slots.text)
    rows = named_rows(slots, said, facts)
    names = [n for n, found in rows.items() if len(found) == 1]
    if len(names) != 2 or any(len(found) > 1 for found in rows.values()):
        return None
    sign = _sign(said, names[0], names[1], None)
    if not sign:
        return None
    one, other = rows[names[0]][0], rows[names[1]][0]
    keys = _best_keys([one, other], _claim_keys(slots))
    # the words between the comparative and "than" name the measure: "more CPU headroom than"
    # is no cpu_pct
    at = next(n for n, w in enumerate(said) if (w in _HIGHER or w in _LOWER)
              and "than" in said[n + 1:n + 3])
    measure = {root(w) for w in said[at + 1:said.index("than", at)] if w not in STOPWORDS}
    theirs = {f.key: f for f in other.fields}
    for field in one.fields:
        match = theirs.get(field.key) if field.key in keys else None
        a, b = _number(field, False), _number(match, False)
        if a is None or b is None or match is None or not measure <= field.key_stems:
            continue
        order = "higher than" if a > b else "lower than" if a < b else "equal to"
        shown = f"{one.ref} {field.shown} is {order} {other.ref} {match.shown}"
        holds = a != b and (a > b) == (sign > 0)
        return Gap(one, other, shown if holds else f"says the other way: {shown}", None, holds)
    return None


def _only_samples(rows: list[Fact], keys: frozenset[str], value: Value,
                  seconds: bool) -> Gap | None:
    """A subject's only two samples of the key the claim names, when they do not differ by the
    stated amount: the change they show, which the claim misstates."""
    ordered, timed = _in_time(rows)
    held = [(f, fl) for f in ordered for fl in f.fields
            if fl.key in keys and _number(fl, seconds) is not None]
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
