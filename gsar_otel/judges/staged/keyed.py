"""Which field of a fact a claim's value is read against, and how the two compare.

A value is compared with the fields whose key the claim's words name ("error count" is
``errors``, not ``conn_count``). A year is a year wherever it is written: "born in 1987" is
compared with the year of ``Born: 28 November 1987 (age 31)``, never with the age beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gsar_otel.judges.staged.anchoring import Agreement, Spec, agree, comparable
from gsar_otel.judges.staged.claims import Value
from gsar_otel.judges.staged.facts import Fact, Field
from gsar_otel.judges.staged.lexicon import KEY_SYNONYMS, QUALIFIER_FAMILIES
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.years import year_of

UNIT_WORDS: Final = frozenset(root(w) for w in (
    "ms", "s", "sec", "secs", "pct", "percent", "gb", "mb", "kb", "bytes", "us", "ns", "per",
    "human"))
"""Key words that name a unit, not what is measured (``used_memory_human``: the value written
with its unit)."""


_GROUPS: Final = {root(w): root(group.split()[0]) for family in QUALIFIER_FAMILIES
                  for group in family for w in group.split()}
"""A measure-telling word (:data:`~.lexicon.QUALIFIER_FAMILIES`) -> its group's first."""
_FAMILY: Final = {root(group.split()[0]): frozenset(root(g.split()[0]) for g in family)
                  for family in QUALIFIER_FAMILIES for group in family}
"""A group -> the groups of its family."""
_WORDS: Final = {root(w): group.split()[0] for family in QUALIFIER_FAMILIES for group in family
                 for w in group.split()}


def qualifiers(stems: frozenset[str]) -> frozenset[str]:
    """The measure-telling words of ``stems``, each as its group's."""
    return frozenset(_GROUPS[s] for s in stems if s in _GROUPS)


def measure_words(stems: frozenset[str]) -> str:
    """The measure-telling words of ``stems`` as a person writes them ("write", "p95")."""
    return " ".join(sorted(_WORDS[s] for s in stems if s in _WORDS))


def clashes(claim: frozenset[str], key: frozenset[str]) -> bool:
    """Whether a key tells another measure of one family than the claim names ("p95" against
    ``p99_latency_ms``)."""
    said, held = qualifiers(claim), qualifiers(key)
    return any(bool(held & _FAMILY[q]) and not held & said & _FAMILY[q] for q in said)


def expanded(stems: frozenset[str]) -> frozenset[str]:
    """The stems and their key synonyms, less unit words."""
    more = set(stems)
    for word in stems:
        more |= KEY_SYNONYMS.get(word, frozenset())
    return frozenset(more - UNIT_WORDS)


def keyed_fields(value: Value, facts: Sequence[Fact],
                 said: frozenset[str] = frozenset()) -> list[tuple[Fact, Field, Spec]]:
    """The fields of ``facts`` whose key the claim's words name, best overlap only; on a tie,
    the key holding more of the claim's other words ``said`` ("20 packets were received" is
    ``packets received``, not ``packets transmitted``)."""
    wanted = expanded(value.key_stems)
    unit_named = value.key_stems & UNIT_WORDS  # "a 1432-byte response": the key ``bytes``
    if not wanted and not unit_named:
        return []
    # A key is named best when the claim holds most of its words, then the largest share of
    # them: "error count" names ``errors`` (all its words), not ``conn_count`` (half of them).
    # Then a key that names a unit exactly when the claim's value has one: a bare count is not
    # ``error_pct``, "40%" is not ``errors``.
    claim_unit = value.spec.kind in ("PERCENT", "DURATION") or bool(
        getattr(value.spec.raw, "unit", None))
    # The claim's own words count before their synonyms: "p99 latency" is ``p99_latency_ms``,
    # not ``p50_latency_ms``.
    scored: list[tuple[tuple[int, int, float, bool, int], Fact, Field, Spec]] = []
    for fact in facts:
        for field in fact.fields:
            own = (field.key_stems - UNIT_WORDS) or (field.key_stems & unit_named)
            overlap = len(own & (wanted | unit_named))
            if overlap and not clashes(value.key_stems, field.key_stems):
                unit_agrees = bool(field.key_stems & UNIT_WORDS) == claim_unit
                rank = (len(own & value.key_stems), overlap, overlap / len(own), unit_agrees,
                        len(own & said))
                scored.extend((rank, fact, field, spec) for spec in _candidates(value.spec, field))
    # values the claim's can be compared with at all come first: "868 requests per second" is
    # not ``http_5xx_rate=56.1%`` when a row holds both
    related = [s for s in scored if agreement(value.spec, s[3]) != "unrelated"]
    scored = related or scored
    best = max((s[0] for s in scored), default=(0, 0, 0.0, False, 0))
    return [(f, fl, sp) for n, f, fl, sp in scored if n == best]


def _year(spec: Spec) -> int | None:
    """A claim's number written as a year (its shape is ``year``)."""
    return year_of(spec) if spec.kind == "NUMBER" else None


def _candidates(claim: Spec, field: Field) -> list[Spec]:
    """The field's anchors the claim's value is compared with: for a year, the field's dates
    when it holds any (not the age beside a birth date), else every comparable anchor."""
    if _year(claim) is not None:
        dated = [s for s in field.anchors if s.kind in ("DATE", "TIMESTAMP") and year_of(s)]
        if dated:
            return dated
    return [s for s in field.anchors if comparable(claim, s)]


def agreement(claim: Spec, evidence: Spec) -> Agreement:
    """:func:`~.anchoring.agree`, but a year against a date compares the date's year."""
    year = _year(claim)
    if year is not None and evidence.kind in ("DATE", "TIMESTAMP"):
        found = year_of(evidence)
        return "unrelated" if found is None else "match" if found == year else "conflict"
    return agree(claim, evidence)


def other_measure(value: Value, facts: Sequence[Fact]) -> tuple[Fact, Field] | None:
    """A field holding the claim's value under a key of another measure than the claim names
    ("p95 latency was 1200 ms" beside ``p99_latency_ms=1200``), or None."""
    if not qualifiers(value.key_stems):
        return None
    for fact in facts:
        for field in fact.fields:
            if clashes(value.key_stems, field.key_stems) and any(
                    agreement(value.spec, spec) == "match" for spec in field.anchors):
                return fact, field
    return None
