"""The rules a claim is checked by, behind one protocol, in one registry.

A :class:`ClaimRule` says whether it applies to a read claim and returns :class:`Check` values,
each one of three outcomes: ``verified`` (found on the claim's records or derived from them),
``contradicted`` (the claim's record holds another value for the same attribute, or the opposite
state), ``absent`` (a typed value or a name found nowhere and not derivable: never grounded),
``elsewhere`` (a typed value found only on records the claim does not speak of: not grounded,
and not a contradiction either, since the claim names no attribute of its own record that
differs).
:mod:`.registry` holds every rule and the loop that checks a claim. What a claim speaks of is
decided once per claim (:mod:`.subjects`). A value is bound to the attribute a word beside it
names (not past a neighbouring value), and conflicts only with a value of the same measure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache
from typing import Final, Literal, Protocol

from gsar_otel.core.anchor.compare import queries, views
from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors
from gsar_otel.core.text import STOPWORDS, stem
from gsar_otel.judges.records.claims import NAMED_KINDS, ClaimText
from gsar_otel.judges.records.counts import NUMBER_WORDS, Predicate, class_counts
from gsar_otel.judges.records.derive import NUMERIC, OPERATIONS, own_share, plain_number, restates
from gsar_otel.judges.records.forms import (
    AFFIXES,
    COMPOUND_ENDINGS,
    COMPOUND_PARTS,
    DECREASE_WORDS,
    ENTITY_NOUNS,
    MODIFIER_ENDS,
    NAME_PREPOSITIONS,
    SCHEDULE_WORDS,
    states_of,
)
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import NAME_TOKEN, Record, Value, last_key
from gsar_otel.judges.records.subjects import CLAUSE, Subjects
from gsar_otel.judges.records.units import BINARY_SIZES, claim_measure
from gsar_otel.judges.records.written import leading_form, numbered_form

Outcome = Literal["verified", "contradicted", "absent", "elsewhere"]

GENERIC_KEYS: Final = frozenset({
    "value", "values", "data", "result", "results", "metric", "metadata", "spec", "items",
    "item", "text", "message", "msg", "the", "info", "detail", "details", "attributes", "body",
    "content", "fields", "labels", "tags", "properties", "summary"})
"""Key words too general to say which attribute a claim speaks of."""
IDENTITY_KEYS: Final = frozenset({"id", "ids", "uuid", "guid", "sha", "hash", "pid", "uid",
                                   "digest", "fingerprint"})
"""Key words of values that identify rather than measure."""
LOCAL_REACH: Final = 30
"""How many characters around a value are read for the words of an operation."""
_WHOLE: Final = re.compile(r"\d[\d,.]*\s*(?:[A-Za-z%]{1,5}\s+)?(?:of|out of)(?: the| all)?\s*$",
                    re.IGNORECASE)
"""A part before a whole ("2,210 of the 11,049", "6.1 GB of 8 GB"): the whole is no value of
the part's attribute."""
_WORDS: Final = re.compile(r"\b[A-Za-z][A-Za-z-]*\b")
_CAMEL_PARTS: Final = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]|\b)|[A-Z][a-z]+")


@dataclass(frozen=True, slots=True)
class Check:
    """One thing a rule checked of a claim."""

    rule: str
    outcome: Outcome
    refs: tuple[str, ...]
    reason: str
    derived: bool = False


class ClaimRule(Protocol):
    """A rule: which claims it reads, and what it finds."""

    name: str

    def applies(self, claim: ClaimText) -> bool:
        """True when the claim states something this rule checks."""

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        """The checks of this rule on ``claim``."""


_GLOSS: Final = re.compile(r"\s*\((?:`[\w.-]+`|[A-Za-z_]+)\s*[=:]?\s*")
"""Between a value and the record's value the claim glosses it with: "31 minutes (`lastchg`
1260 s)"."""
_RESTATING: Final = re.compile(
    r"(?:\s+[A-Za-z%]{1,12})?\s*(?:\(|\u2014|,?\s*(?:i\.e\.|that is|or|which is),?)\s*"
    r"(?:about|~|roughly|around|some)?\s*", re.IGNORECASE)
"""Between a value and its restatement in another unit: "5368709120 (5 GiB)", ", i.e.",
"290% CPU — roughly 2.9 cores"."""
FORETOLD_KINDS: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION,
                                   AnchorKind.CLOCK, AnchorKind.TIMESTAMP, AnchorKind.DATE})
"""Values a prediction foretells (a quantity, a time); a name or an address in a predicting
claim names what is already there ("won't help until 10.9.0.5:5432 accepts connections")."""


class ValueRule:
    """Typed values: found on the claim's record, derived from its records, another value of
    the record's same attribute (contradicted), or found nowhere (absent)."""

    name = "value"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.values)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        checked = list(self._checked(claim, subjects, index))
        for at, (anchor, found) in enumerate(checked):
            after = checked[at + 1] if at + 1 < len(checked) else None
            if ((found.outcome in ("elsewhere", "absent") or found.derived) and after is not None
                    and after[1].outcome == "verified" and not after[1].derived
                    and _GLOSS.fullmatch(claim.clean[anchor.end:after[0].start])
                    and claim_measure(anchor) and claim_measure(anchor) == claim_measure(
                        after[0]) and not restates(claim.clean, anchor, after[0])):
                # "about 31 minutes (`lastchg` 1260 s)": the claim glosses its value with the
                # record's, and the two differ (whatever else the value might be derived from)
                found = Check(self.name, "contradicted", after[1].refs,
                              f"says {anchor.text}, glossed as {after[0].text} "
                              f"({after[1].reason})")
            yield found

    def _checked(self, claim: ClaimText, subjects: Subjects,
                 index: RecordIndex) -> Iterable[tuple[Anchor, Check]]:
        before: tuple[Anchor, Check] | None = None
        numbers = [a for a in claim.values if a.kind in NUMERIC]
        for anchor in claim.values:
            if anchor.start in claim.selections:
                continue  # how many a selector picks ("the last two runs"): no record's value
            if (anchor.kind in (AnchorKind.HOST, AnchorKind.NUMBER) and index.named(
                    anchor.text.lower())) or anchor.start in subjects.naming:
                continue  # a name of a record ("order 769877"): read as the claim's subject
            found = self._one(claim, anchor, subjects, index)
            size, rate = (anchor.unit or "").partition("/")[::2]
            binary = BINARY_SIZES.get(size)
            if found.outcome != "verified" and binary is not None:
                # "8 GB" of a tool's 8191 MiB: sizes are written in GB that tools keep in GiB
                unit = f"{binary}/{rate}" if rate else binary
                read = self._one(claim, replace(anchor, unit=unit), subjects, index)
                if read.outcome == "verified":
                    found = read
            if found.outcome == "absent":  # "the v7 allocations" beside ``Version 7``
                found = _numbered(anchor, index) or found
            share = own_share(claim.clean, numbers, anchor) if found.outcome != "verified" else None
            if share is not None and share[3]:  # "1.41 GiB (70.6% of its 2 GiB limit)"
                found = Check(self.name, "verified", (), f"{anchor.text} is the share of "
                              f"{share[0].text} in {share[1].text}", derived=True)
            if (found.outcome != "verified" and before is not None
                    and before[1].outcome == "verified"
                    and _RESTATING.fullmatch(claim.clean[before[0].end:anchor.start])
                    and restates(claim.clean, anchor, before[0])):
                found = Check(self.name, "verified", before[1].refs,
                              f"{anchor.text} restates {before[0].text}", derived=True)
            before = anchor, found
            yield anchor, found

    def _one(self, claim: ClaimText, anchor: Anchor, subjects: Subjects,
             index: RecordIndex) -> Check:
        if anchor.kind in NAMED_KINDS:
            # a name is bound to the record another name of its clause names ("kibana.internal
            # gets Connection refused from 127.0.0.1:3000"), not to the records it names itself
            subjects = subjects.without(anchor.start, anchor.end)
        own = subjects.near(anchor.start, claim.clean)
        in_clause = subjects.in_clause(anchor.start, claim.clean)
        written = anchor.text
        counted = claim.counted.get(anchor.start)
        if counted is not None:
            found = _count(anchor, counted, own or subjects.all, index)
            if found is not None:
                return found
        coded = _coded(claim, anchor, index)
        if coded is not None:
            return coded
        hits = index.holding(anchor) | index.holding_among(own, anchor)
        if 0 <= claim.future < anchor.start and anchor.kind in FORETOLD_KINDS:
            # a foretold quantity or time is recorded only where a record schedules it
            # ("will retry on Dec 10" beside ``"next_payment_attempt": 1733846400``)
            scheduled = frozenset(i for i in sorted(hits)[:MAX_ATTRIBUTED]
                                  if _held_under(index.records[i], anchor, SCHEDULE_WORDS,
                                                 whole=False))
            if scheduled:
                return Check(self.name, "verified", index.refs(scheduled),
                             f"{written} is scheduled by a record")
            return Check(self.name, "absent", (), f"{written} is predicted: no record states "
                         f"what has not happened")
        if own:
            # the attribute the claim names decides, when the record holds it
            # a record's time or status stands for a claimed one only where the claim names
            # that record in the value's own clause ("The ERROR was logged at 10:02:04") and no
            # record of the claim holds the value itself; else only where it is found nowhere
            named_here = bool(in_clause) and not hits & own
            by_attribute = _attribute(claim, anchor, own, index,
                                      frozenset() if named_here else hits)
            if by_attribute is not None:
                return by_attribute
        if own and hits & own:
            return Check(self.name, "verified", index.refs(hits & own), f"{written} found")
        if own and hits and (in_clause or anchor.kind in NAMED_KINDS or (
                (anchor.kind not in _MOMENT_KINDS  # a table row's time is its own
                 or any("#t" in index.records[i].group for i in own))
                and not claim.plural
                and not OPERATIONS["extreme"].cue.search(claim.clean)  # "the busiest node"
                and (anchor.unit or anchor.kind is not AnchorKind.NUMBER)
                and not _COUNTED_BEFORE.search(claim.clean, 0, anchor.start)
                and _one_row(own, subjects.all, index))):
            # a value is another row's where the record named last before it holds another;
            # a measure outside its clause too when the claim speaks of one row of each table
            # only (never a bare number: "3 of the nodes", "the current 23" count or name)
            sibling = _sibling(anchor, own, hits, index, claim.clean.lower())
            if sibling is not None:
                return sibling
        if subjects.all and hits & subjects.all:
            return Check(self.name, "verified", index.refs(hits & subjects.all),
                         f"{written} found")
        # a name is found in an item's text or names its records (``nodetool -h 10.0.1.11``)
        mentioned = (index.mentions(anchor.text.lower()) or index.refs(index.named(
            anchor.text.lower()))) if anchor.kind in NAMED_KINDS else ()
        if mentioned:
            return Check(self.name, "verified", mentioned, f"{written} found")
        if anchor.kind not in NAMED_KINDS:
            scope = index.scope(own or subjects.all)
            numbers = [a for a in claim.values if a.kind not in NAMED_KINDS
                       and a.start not in subjects.naming]
            # a derived value is met at the precision written: "roughly 12%" is no 11.2%
            exact = at_precision(anchor)
            how = index.derivations.match(claim.clean, anchor, exact, scope, index.records,
                                          numbers, named=bool(own),
                                          across=len(own or subjects.all) > 1)
            if how is None:  # over the rows that hold a key the claim names ("`rt`"), or
                # the rows a name of the claim begins ("the 4 frontend pods": frontend-84c9-*)
                for keyed in [*index.keyed_groups(claim.key_names),
                              *index.prefixed_groups(t for _, t in claim.tokens)]:
                    how = index.derivations.match(claim.clean, anchor, exact, keyed,
                                                  index.records, numbers)
                    if how is not None:
                        scope = keyed
                        break
            if how is None and _sum_of_parts(anchor, exact, numbers):
                # "About 270 GB is reclaimable: 131.6 GB of images, 87.4 GB of build cache,
                # 48.1 GB of volumes and 3.1 GB of containers" (each part checked on its own)
                return Check(self.name, "verified", (), f"{written} is the sum of the parts "
                             f"the claim gives", derived=True)
            if how is None and anchor.kind is AnchorKind.NUMBER and not anchor.unit:
                # "Of the 9 open PRs" naming four of them: the rows of the tables they are in
                tables = _tables_counted(anchor, own or subjects.all, index)
                if tables:
                    scope, how = tables, "count of the rows of their table"
            if how is not None:
                return Check(self.name, "verified", index.refs(scope), f"{written} is the {how}",
                             derived=True)
        if hits and not subjects.all:
            return Check(self.name, "verified", index.refs(hits), f"{written} found")
        if hits:
            before, after = _stems_around(claim, anchor)
            held = frozenset(i for i in sorted(hits)[:MAX_ATTRIBUTED]
                             if _held_under(index.records[i], anchor, before | set(after)))
            if held:  # "2,291 active connections" beside "Active connections: 2291"
                return Check(self.name, "verified", index.refs(held),
                             f"{written} found under the attribute the claim names")
            alone = frozenset(i for i in hits if index.whole_output(i))
            if alone:  # "today's 25,107 requests" beside `grep -c .` printing 25107
                return Check(self.name, "verified", index.refs(alone),
                             f"{written} is a tool's whole output")
            return Check(self.name, "elsewhere", index.refs(hits), f"{written} is found only on "
                         f"records the claim does not speak of")
        leading = leading_form(anchor, index) if not anchor.unit else None
        if leading is not None:
            return Check(self.name, "verified", leading[0], f"{written} is {leading[1]}")
        commanded = index.in_command(anchor) if anchor.kind in _MOMENT_KINDS else ()
        if commanded:  # "On May 13 ..." beside a query ``WHERE created_at >= '2024-05-13'``
            return Check(self.name, "verified", commanded, f"{written} is in the command line")
        if (anchor.kind is AnchorKind.NUMBER and isinstance(anchor.value, float)
                and anchor.value < 0 and anchor.text.startswith("-")):
            size = replace(anchor, text=anchor.text[1:], value=-anchor.value)
            lost = frozenset(i for i in sorted(index.holding(size))[:MAX_ATTRIBUTED]
                             if _held_under(index.records[i], size, DECREASE_WORDS, whole=False))
            if lost:  # "+1,842/-1,297" beside ``"deletions": 1297``
                return Check(self.name, "verified", index.refs(lost),
                             f"{written} is a decrease the record keeps as its size")
        return Check(self.name, "absent", (), f"{written} is in no evidence item and derives "
                     f"from none")


MIN_PARTS: Final = 3
"""Fewest values a claim must give for their sum to be a total it states (two are the sum
and product rules' pairs)."""


def _sum_of_parts(anchor: Anchor, exact: Anchor, numbers: list[Anchor]) -> bool:
    """True when ``anchor`` is the sum of the other values the claim writes in its kind and
    unit, at least :data:`MIN_PARTS` of them ("3 of 426 tests failed (412 passed, 11
    skipped)")."""
    parts = [a for a in numbers if a is not anchor and a.kind is anchor.kind
             and a.unit == anchor.unit and isinstance(a.value, float)]
    if len(parts) < MIN_PARTS or not isinstance(anchor.value, float):
        return False
    total = math.fsum(float(a.value) for a in parts)  # type: ignore[arg-type]
    if total > anchor.value * 1.5:
        return False  # the parts of something larger: no total of them
    summed = replace(anchor, text=f"{total:g}", value=total, qualifier=None)
    return compare_anchors(exact, summed) is Agreement.MATCH


_CODE_AFTER: Final = re.compile(
    r"\s*\)?\s*(?:in|of|for|as|under)\s+`([A-Za-z_][\w.-]{0,40})`")
_CODE_BEFORE: Final = re.compile(
    r"`([A-Za-z_][\w.-]{0,40})`\s*(?:is|was|=|:|of|at)?\s*(?:about\s+|~)?$")
"""A key written as code right after a value ("~47 MiB in `Writeback`") or before it
("`maxclients` of 10,000", "`MemoryHigh=`")."""


def _coded(claim: ClaimText, anchor: Anchor, index: RecordIndex) -> Check | None:
    """The value of the key the claim writes as code right beside ``anchor`` ("~47 MiB in
    `Writeback`", "`maxclients` of 10,000"), where one record or two hold that key: the same
    (verified) or another of the same measure (contradicted), whatever else holds the value."""
    if anchor.kind in NAMED_KINDS:
        return None
    beside = (_CODE_AFTER.match(claim.text, _written_at(claim, anchor.end))
              or _CODE_BEFORE.search(claim.text, 0, _written_at(claim, anchor.start)))
    if beside is None:
        return None
    key = beside.group(1).lower()
    conflict = None
    for i in sorted(index.holders(key)):
        record = index.records[i]
        for value in record.values:
            if last_key(value.key) != key or not _sole(value, anchor):
                continue
            for held in value.anchors:
                agreement = compare_anchors(anchor, held)
                if agreement is Agreement.MATCH:
                    return Check("value", "verified", (record.item,),
                                 f"{anchor.text} is {record.item}'s {value.key}")
                if agreement is Agreement.CONFLICT and same_measure(anchor, held):
                    conflict = Check("value", "contradicted", (record.item,),
                                     f"says {anchor.text} for {key}; {record.item} has "
                                     f"{value.key}={value.raw}")
    return conflict


def _written_at(claim: ClaimText, position: int) -> int:
    """Where the ``position``-th character of ``clean`` stands in ``text`` (markup removed from
    ``clean`` is skipped over)."""
    read = 0
    for at, char in enumerate(claim.text):
        if read == position:
            return at
        if read < len(claim.clean) and char == claim.clean[read]:
            read += 1
    return len(claim.text)


def _tables_counted(anchor: Anchor, records: frozenset[int], index: RecordIndex) -> list[int]:
    """The rows of the one table (group) of ``records`` that has as many rows as ``anchor``
    says, or none: a count of the table a claim names some rows of."""
    tables: dict[str, int] = {}
    for i in sorted(records)[:MAX_ATTRIBUTED]:
        tables.setdefault(index.records[i].group, i)
    for first in tables.values():
        rows = index.scope([first])
        if len(rows) > 1 and compare_anchors(
                anchor, plain_number(float(len(rows)))) is Agreement.MATCH:
            return rows
    return []


def _count(anchor: Anchor, counted: tuple[str, Predicate], own: frozenset[int],
           index: RecordIndex) -> Check | None:
    """A count of a class of records ("three 5xx responses") against how many of the claim's
    records (each group, and all of them) are in it; None when none is (the class is not
    what these records hold)."""
    name, predicate = counted
    scope = index.scope(own)
    counts = class_counts(((index.records[i], index.status(i)) for i in scope), predicate)
    if not counts:
        return None
    if any(compare_anchors(anchor, plain_number(float(n))) is Agreement.MATCH for n in counts):
        return Check("value", "verified", index.refs(frozenset(scope)),
                     f"{anchor.text} is the count of {name} records", derived=True)
    return Check("value", "absent", (), f"{anchor.text} {name}: the claim's records hold "
                 f"{' or '.join(str(n) for n in dict.fromkeys(counts))}")


def _attribute(claim: ClaimText, anchor: Anchor, own: frozenset[int], index: RecordIndex,
               hits: frozenset[int]) -> Check | None:
    """The value of the attribute the claim names beside ``anchor`` on the claim's record: the
    same (verified), another of the same measure (contradicted), or None when the record holds
    no such attribute. Never contradicted when the record holds the claimed value under another
    key, nor where the words around the value ask for a total, a mean or a difference (the
    value is derived, not the record's own), nor by a value that is one number among others
    (``request=POST /api/v2/checkout HTTP/1.1``)."""
    around = claim.clean[max(0, anchor.start - LOCAL_REACH):anchor.end + LOCAL_REACH]
    if anchor.kind in _NAMES or any(OPERATIONS[name].cue.search(around)
                                    for name in ("sum", "mean", "difference")):
        return None
    if _WHOLE.search(claim.clean[max(0, anchor.start - 24):anchor.start]):
        return None  # "2,210 of the 11,049": a whole the record is part of
    before, after = _stems_around(claim, anchor)
    named, words = [], set()
    for word in after:  # the first word after the value that names a key decides
        named = _named_values(own, index, {word})
        if named:
            words = {word}
            break
    if not named:
        named, words = _named_values(own, index, before), before
    if not named:
        words = set()  # a key of the value's kind: named by the kind, not by a word
    if not named and anchor.kind in _MOMENT_KINDS and not hits:  # a line's time is its time
        named = [(index.records[i], v) for i in sorted(own) if index.records[i].level
                 for v in index.records[i].values if _time_key(v.key)]
    if not named and anchor.kind in KIND_KEYS:  # an HTTP status is a record's status code
        named = [(index.records[i], v) for i in sorted(own) for v in index.records[i].values
                 if v.key_words & KIND_KEYS[anchor.kind] and not v.key_words & _NOT_STATUS
                 and _of_kind(anchor.kind, v)]
    conflicts = []
    for record, value in named:
        for evidence in value.anchors:
            agreement = compare_anchors(anchor, evidence)
            if agreement is Agreement.MATCH:
                return Check("value", "verified", (record.item,),
                             f"{anchor.text} is {record.item}'s {value.key}")
            if (agreement is Agreement.CONFLICT and same_measure(anchor, evidence)
                    and _covers(value, words) and _sole(value, anchor)):
                conflicts.append((record, value))
    if not conflicts:
        return None
    record, value = conflicts[0]
    name = next(iter(sorted(record.names)), record.item)
    return Check("value", "contradicted", (record.item,),
                 f"says {anchor.text}; {record.item} {name} has {value.key}={value.raw}")


def _peer(raw: str, said: str) -> bool:
    """True when the claim names ``raw`` itself or by its leading part ("ip-10-42-11-87" of
    ``ip-10-42-11-87.eu-west-1.compute.internal``): two names of one attribute in a claim are
    peers in a list ("66.249.66.12 and 40.77.167.3"), not a record and its attribute."""
    return raw in said or any(raw.startswith(token) for token in _name_tokens(said))


@lru_cache(maxsize=256)
def _name_tokens(said: str) -> tuple[str, ...]:
    """The name-like tokens of a claim's text of four characters or more (read once)."""
    return tuple(t for t in NAME_TOKEN.findall(said) if len(t) >= 4)


_COUNTED_BEFORE: Final = re.compile(
    r"\b(?:\d+|" + "|".join(NUMBER_WORDS) + r")\s*[x\u00d7]?\s*$", re.IGNORECASE)
"""A count before a value ("four 3.5T drives"): the value is of other things than one row."""


def _one_row(own: frozenset[int], spoken: frozenset[int], index: RecordIndex) -> bool:
    """True when the claim speaks of no other row of the group of each of ``own`` ("`/data` is
    at 92% — 1.6T used with about 70G left": every value is said of that row)."""
    groups = [index.records[i].group for i in own]
    return all(sum(index.records[i].group == g for i in spoken | own) <= 1 for g in groups)


def _sibling(anchor: Anchor, own: frozenset[int], hits: frozenset[int],
             index: RecordIndex, said: str = "") -> Check | None:
    """Contradicted when the value is another row's: a record of the group (table, array) of
    the claim's record holds it under a key under which the claim's own record holds another
    value of the same measure ("partition 1 (2,176,113)" where 2,176,113 is partition 3's
    lag and partition 1's is 569,779)."""
    groups = {index.records[i].group: i for i in sorted(own)}
    for hit in sorted(hits):
        other = index.records[hit]
        mine = groups.get(other.group)
        if mine is None or (other.group.endswith("#l") and anchor.kind in _MOMENT_KINDS):
            continue  # a log's lines are rows, but each line's time is its own event's
        keys = {v.key for v in other.values if v.key
                and (not _time_key(v.key) or "#t" in other.group)
                and _sole(v, anchor) and any(
            compare_anchors(anchor, a) is Agreement.MATCH for a in v.anchors)}
        record = index.records[mine]
        for value in record.values:
            if value.key not in keys or value.key_words & IDENTITY_KEYS or not _sole(
                    value, anchor):
                continue  # a cell of one value: not a number inside a message
            if anchor.kind in NAMED_KINDS and _peer(value.raw.lower(), said):
                continue  # the claim names this row's own name too: a list of peers
            if anchor.kind in NAMED_KINDS and anchor.text.lower() not in value.raw.lower():
                # a name or an address: the row's own one under that key, of whatever kind
                # ("upstream: http://kibana/app/home" is no 127.0.0.1:3000)
                name = next(iter(sorted(record.names)), record.item)
                return Check("value", "contradicted", (record.item, other.item),
                             f"says {anchor.text}; {name} has {value.key}={value.raw} "
                             f"({anchor.text} is another row's)")
            for held in value.anchors:
                if (compare_anchors(anchor, held) is Agreement.CONFLICT
                        and same_measure(anchor, held)):
                    name = next(iter(sorted(record.names)), record.item)
                    return Check("value", "contradicted", (record.item, other.item),
                                 f"says {anchor.text}; {name} has {value.key}={value.raw} "
                                 f"({anchor.text} is another row's)")
    return None


_ANY_UNIT: Final = frozenset({"", "*"})
_NOT_STATUS: Final = frozenset({"exit", "signal", "return", "error", "errno"})
"""Key words of codes that are no HTTP status."""
_SHORT_KEYS: Final = frozenset({"ip", "os", "az", "vm"})
"""Two-letter key words a claim names exactly ("IP address")."""
KIND_KEYS: Final = {
    AnchorKind.HTTP_STATUS: frozenset({"status", "code", "statuscode", "status_code"}),
    AnchorKind.IPV4: frozenset({"ip", "address", "addr", "ipv4"}),
}
"""The keys a value of a kind belongs to when the claim names none beside it."""
_NAMES: Final = frozenset({AnchorKind.IDENTIFIER, AnchorKind.HOST})
"""Kinds that name rather than measure: found or not, never another value of an attribute."""
_MOMENT_KINDS: Final = frozenset({AnchorKind.TIMESTAMP, AnchorKind.CLOCK, AnchorKind.DATE})


def _named_values(own: frozenset[int], index: RecordIndex,
                  words: set[str]) -> list[tuple[Record, Value]]:
    """The values of the claim's records whose key ``words`` name (ids left out: an id is no
    quantity a claimed number could differ from)."""
    out = []
    for record_index in sorted(own):
        record = index.records[record_index]
        for value in record.values:
            if value.key_words & IDENTITY_KEYS:
                continue
            keys = key_stems(value.key_words)
            if names_key(keys, words) or value.key_words & words & _SHORT_KEYS:
                out.append((record, value))
    return out


MAX_ATTRIBUTED: Final = 16
"""Most records holding a value that are read for the attribute the claim names beside it."""


_ROUND: Final = re.compile(r"[$€£]?([1-9][\d,]*?)(0+)")


def at_precision(anchor: Anchor) -> Anchor:
    """``anchor`` as a derived value must meet it: at the precision written, not widened by
    "about" ("roughly 12%" is no 11.2%); a round number's zeros are that precision ("about
    3,100" is 3,050 to 3,150, written as 3.1 thousand)."""
    if anchor.qualifier != "about":
        return anchor
    plain = replace(anchor, qualifier=None)
    whole = _ROUND.fullmatch(anchor.text)
    if anchor.kind is not AnchorKind.NUMBER or whole is None or not isinstance(
            anchor.value, float):
        return plain
    thousands = format(Decimal(anchor.text.lstrip("$€£").replace(",", "")) / 1000, "f")
    return replace(plain, text=f"{thousands.rstrip('0').rstrip('.')}k")


def _numbered(anchor: Anchor, index: RecordIndex) -> Check | None:
    """``anchor`` written with a letter (``written.NUMBERED_FORMS``: "v7"), found as the number
    it stands for under its key."""
    form = numbered_form(anchor)
    if form is None:
        return None
    number, words, what = form
    held = frozenset(i for i in sorted(index.holding(number))[:MAX_ATTRIBUTED]
                     if _held_under(index.records[i], number, words, whole=False))
    return Check("value", "verified", index.refs(held), f"{anchor.text} is {what}") if held \
        else None


def _held_under(record: Record, anchor: Anchor, words: Iterable[str], *,
                whole: bool = True) -> bool:
    """True when ``record`` holds ``anchor``'s value under a key ``words`` name whole (every
    content word of the key), or, with ``whole=False``, under a key holding one of ``words``."""
    wanted = set(words)
    for value in record.values:
        keys = key_stems(value.key_words)
        named = names_whole(keys, wanted) if whole else bool(value.key_words & wanted)
        if keys and named and any(
                compare_anchors(anchor, held) is Agreement.MATCH for held in value.anchors):
            return True
    return False


_SOLE_LETTERS: Final = 12
"""Letters a value may hold beside its one number and still be that number ("peak: 6.0G")."""


def _sole(value: Value, anchor: Anchor) -> bool:
    """True when ``value`` holds at most one value comparable to ``anchor``, and a number or
    a duration only as the whole value: the address of ``upstream: http://10.0.4.21:8080/x``
    is its value, the ``1.1`` of ``request: POST /api/v2/checkout HTTP/1.1`` is not."""
    comparable = [a for a in value.anchors
                  if compare_anchors(anchor, a) is not Agreement.UNRELATED]
    if anchor.kind not in (AnchorKind.NUMBER, AnchorKind.DURATION):
        return len(comparable) <= 1
    if len(value.anchors) > 1:
        return False
    # the number is the value, not a part of a text ("GET /p/merino-crew-sock HTTP/1.1")
    rest = value.raw.replace(value.anchors[0].text, " ", 1) if value.anchors else value.raw
    return sum(c.isalpha() for c in rest) <= _SOLE_LETTERS


def _covers(value: Value, words: set[str]) -> bool:
    """True when the claim's words name at least half of a key's content words: only then can
    the key's value contradict the claim ("has evicted 184,433 keys" is no
    ``mem_not_counted_for_evict``); a key of a kind (an HTTP status, a log line's time) is
    named by its kind."""
    keys = key_stems(value.key_words)
    if not keys or not words:
        return True
    named = sum(1 for k in keys if names_key({k}, words))
    return 2 * named >= len(keys)


def _of_kind(kind: AnchorKind, value: Value) -> bool:
    """True when ``value`` holds a value of ``kind`` (an HTTP status is a number of 100-599;
    an exit code of 137 is none)."""
    return any(a.kind is kind or (
        kind is AnchorKind.HTTP_STATUS and a.kind is AnchorKind.NUMBER
        and isinstance(a.value, float) and a.value.is_integer() and 100 <= a.value <= 599)
        for a in value.anchors)


_AFTER_STOP: Final = re.compile(
    r"\b(?:with|for|on|in|at|from|to|by|than|across|over|under|per|which|that|after|before|"
    r"since|because|so)\b", re.IGNORECASE)
"""Words past which the words after a value name no attribute of it ("12 partitions with
replication factor 3": partitions, not replication)."""


def _stems_around(claim: ClaimText, anchor: Anchor) -> tuple[set[str], list[str]]:
    """The stems of the words that can name the attribute ``anchor`` is a value of, before it
    and after it: within :data:`LOCAL_REACH` characters, in its own clause, and not past a
    neighbouring value ("256Mi of memory and is capped at 1 CPU": memory names the first; a
    name between them is no such value: "CPU on web-4 reached 97.2%")."""
    measures = [a for a in claim.values if a.kind not in _NAMES]  # a name is no other value
    start = max([a.end for a in measures if a.end <= anchor.start]
                + [anchor.start - LOCAL_REACH, 0])
    end = min([a.start for a in measures if a.start >= anchor.end]
              + [anchor.end + LOCAL_REACH])
    before = CLAUSE.split(claim.plain[start:anchor.start])[-1]
    after = _AFTER_STOP.split(CLAUSE.split(claim.plain[anchor.end:end])[0])[0]
    return ({stem(w.lower()) for w in _WORDS.findall(before)},
            list(dict.fromkeys(stem(w.lower()) for w in _WORDS.findall(after))))


def same_measure(claim: Anchor, evidence: Anchor) -> bool:
    """True when ``evidence`` offers a value of the measure ``claim`` is written in: a claimed
    size, duration, amount of money or percentage never conflicts with a bare count."""
    asked = list(queries(claim))
    spaces = {q.space for q in asked if q.strict and q.space != "num"}
    offered = list(views(evidence))
    if spaces:
        return any(v.strict and v.space in spaces for v in offered)
    units = {d for q in asked for d in q.dims} - _ANY_UNIT
    return not units or any(v.strict and (v.dims - _ANY_UNIT) & units for v in offered)


@lru_cache(maxsize=8192)
def key_stems(key_words: frozenset[str],
              ignored: frozenset[str] = GENERIC_KEYS | STOPWORDS) -> frozenset[str]:
    """The stems of a key's content words: the words a claim must use to name it (``ignored``
    words, one- and two-letter parts dropped)."""
    return frozenset(stem(w.rstrip("s")) for w in key_words if w not in ignored and len(w) > 2)


def names_whole(keys: frozenset[str], words: set[str]) -> bool:
    """True when the claim's ``words`` name every one of a key's stems."""
    return all(names_key({k}, words) for k in keys)


def names_key(keys: set[str] | frozenset[str], words: set[str]) -> bool:
    """True when a claim's word is a key's word, or one begins the other: a key may abbreviate
    a word (``mem`` for memory, ``conns`` for connections), a word may stand for a key only
    with four letters or more (``run`` is no ``runtime``)."""
    return bool(keys & words) or any(
        (len(k) >= 3 and w.startswith(k)) or (len(w) >= 4 and k.startswith(w))
        for k in keys for w in words)


def _time_key(key: str) -> bool:
    return any(w in key for w in ("time", "timestamp", "date", "_at", "at", "ts"))


class MomentRule:
    """A time of day written with its date ("17:48 UTC on May 15") is one moment: it holds only
    when one timestamp of the evidence has both; a time found only on other days is absent."""

    name = "moment"

    def applies(self, claim: ClaimText) -> bool:
        return bool(_moments(claim))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for clock, date in _moments(claim):
            stamps = [a for a in index.matching(clock) if a.kind is AnchorKind.TIMESTAMP]
            if not stamps:
                continue  # found as a bare time (or not at all): the value rule says which
            written = claim.clean[min(clock.start, date.start):max(clock.end, date.end)]
            if any(compare_anchors(date, stamp) is Agreement.MATCH for stamp in stamps):
                yield Check(self.name, "verified", index.refs(index.holding(clock)),
                            f"{written} is one moment")
            else:
                yield Check(self.name, "absent", (), f"{written} is no moment of the evidence: "
                            f"that time is on another day")


_JOINED: Final = re.compile(r"^\s*(?:on|at|,)?\s*(?:,\s*)?$")


def _moments(claim: ClaimText) -> list[tuple[Anchor, Anchor]]:
    """The (time, date) pairs written together ("May 15 at 17:48", "17:48 UTC on May 15")."""
    out = []
    for first, second in zip(claim.values, claim.values[1:], strict=False):
        kinds = {first.kind, second.kind}
        if kinds == {AnchorKind.CLOCK, AnchorKind.DATE} and _JOINED.match(
                claim.clean[first.end:second.start]):
            clock, date = (first, second) if first.kind is AnchorKind.CLOCK else (second, first)
            out.append((clock, date))
    return out


class NameRule:
    """Names (an identifier, a user, a service written with ``-_.@``): found somewhere in the
    evidence, or absent."""

    name = "name"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.tokens)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        found: list[frozenset[int]] = []
        for position, token in claim.tokens:
            written = claim.clean[position:position + len(token)]
            before = _WORDS.findall(claim.clean[max(0, position - 20):position])[-1:]
            after = _WORDS.findall(claim.clean[position + len(token):
                                               position + len(token) + 20])[:1]
            if any(a <= position < b for a, b in claim.measures) or not _name_like(
                    token, written, before[0].lower() if before else "",
                    after[0].lower() if after else ""):
                continue
            named = index.named(token) or index.prefixed(token) or index.mentioning(token)
            if named or index.mentions(token):  # a key's name is mentioned, on no record
                found.append(named)
                continue
            yield Check(self.name, "absent", (), f"{token} is named in no evidence item")
        together = frozenset.intersection(*found) if len(found) > 1 else frozenset()
        if together:
            yield Check(self.name, "verified", index.refs(together),
                        "the names stand together on one record")


_ABBREVIATION: Final = re.compile(r"(?:[a-z]\.){1,3}[a-z]?", re.IGNORECASE)
"""Letters with full stops: an abbreviation ("e.g", "i.e", "a.m"), never a name."""


_ALTERNATION: Final = re.compile(r"[a-z][a-z-]{0,15}/[a-z][a-z-]{0,15}", re.IGNORECASE)
"""Two words or a unit joined by one slash ("write/flush", "keep-alive/pooling", "kb/s",
"i/o"): an alternation or a rate, not a name (a path has a digit or more parts)."""


def _name_like(token: str, written: str = "", before: str = "", after: str = "") -> bool:
    """A token only a name is written as: with a digit, ``_@/.``, in CamelCase of three parts
    or more (``ErrorRateCritical``; ``MySQL`` is a product), or hyphenated where a name stands
    (``media-resizer service``, ``spread to media-resizer.``; ``right-hand side`` is a word),
    ``before`` and ``after`` being the words around it."""
    if not any(c.isalpha() for c in token) or states_of([token]) or _ABBREVIATION.fullmatch(
            token):
        return False  # "e.g", "i.e": an abbreviation's letters, no name
    if _ALTERNATION.fullmatch(token):
        return False  # "write/flush", "MB/s", "I/O": words or a unit, no name
    if any(c.isdigit() for c in token) or any(c in token for c in "_@/"):
        return True
    if "." in token.strip(".") or len(_CAMEL_PARTS.findall(written)) >= 3:
        return True
    parts = token.split("-")
    if len(parts) < 2 or not all(parts) or parts[-1] in MODIFIER_ENDS:
        return False
    if any(len(p) <= 3 and p not in STOPWORDS and p not in AFFIXES for p in parts):
        return True
    if parts[0] in COMPOUND_PARTS or parts[-1] in COMPOUND_PARTS or any(
            p.endswith(COMPOUND_ENDINGS) for p in parts):
        return False
    return after in ENTITY_NOUNS or (before in NAME_PREPOSITIONS and not after)
