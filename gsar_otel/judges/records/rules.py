"""The rules a claim is checked by, behind one protocol, in one registry.

A :class:`ClaimRule` says whether it applies to a read claim and returns :class:`Check` values,
each one of three outcomes: ``verified`` (found on the claim's records or derived from them),
``contradicted`` (the claim's record holds another value for the same attribute, or the opposite
state), ``absent`` (a typed value or a name found nowhere and not derivable: never grounded).
:data:`RULES` is the registry :func:`check_claim` loops over. What a claim speaks of is decided
once per claim by :class:`Subjects`: the records it names (by a value of a naming key, an
identifier, a table's first column, or a log level it names).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from gsar_otel.core.anchors import Agreement, Anchor, AnchorKind, compare_anchors
from gsar_otel.core.text import STOPWORDS, content_stems, stem
from gsar_otel.judges.records.claims import NAMED_KINDS, ClaimText
from gsar_otel.judges.records.derive import OPERATIONS, derived
from gsar_otel.judges.records.forms import AFFIXES, State, states_of
from gsar_otel.judges.records.index import RecordIndex

Outcome = Literal["verified", "contradicted", "absent"]

GENERIC_KEYS: Final = frozenset({
    "value", "values", "data", "result", "results", "metric", "metadata", "spec", "items",
    "item", "text", "message", "msg", "the", "info", "detail", "details", "attributes", "body",
    "content", "fields", "labels", "tags", "properties", "summary"})
"""Key words too general to say which attribute a claim speaks of."""
LOCAL_REACH: Final = 30
"""How many characters around a value are read for the words of an operation."""
AFTER_REACH: Final = 40
"""How far after a value or a state the record it is said of may be named ("14 restarts on
cart-7d9f")."""
CAUSE_SHARE: Final = 0.6
"""The share of a stated cause's content words one record of the claim must hold."""


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


@dataclass(slots=True)
class Subjects:
    """The records a claim names, each mention with its place in the claim."""

    mentions: list[tuple[int, frozenset[int]]]

    @property
    def all(self) -> frozenset[int]:
        """Every record the claim names."""
        return frozenset(i for _, records in self.mentions for i in records)

    def near(self, position: int) -> frozenset[int]:
        """The records named closest before ``position`` (else named just after it, within
        :data:`AFTER_REACH` characters; else none)."""
        before = [(p, r) for p, r in self.mentions if p <= position]
        if before:
            return before[-1][1]
        after = [(p, r) for p, r in self.mentions if p - position <= AFTER_REACH]
        return after[0][1] if after else frozenset()


def subjects_of(claim: ClaimText, index: RecordIndex) -> Subjects:
    """The records ``claim`` names: exact names first, a name's leading parts when no name is
    exact; a log level it names selects the lines at that level."""
    exact = [(p, index.named(t)) for p, t in claim.tokens if index.named(t)]
    words = [(p, w) for p, w in _plain_words(claim) if index.named(w)]
    exact += [(p, index.named(w)) for p, w in words]
    if not exact:
        exact = [(p, index.prefixed(t)) for p, t in claim.tokens if index.prefixed(t)]
    levels = [(s.position, index.at_level(s.level)) for s in claim.states
              if s.level and not s.negated and index.at_level(s.level)]
    mentions = sorted(exact + levels, key=lambda m: m[0])
    return Subjects([(p, frozenset(r)) for p, r in mentions])


def _plain_words(claim: ClaimText) -> list[tuple[int, str]]:
    out = []
    position = 0
    for word in claim.clean.split():
        at = claim.clean.find(word, position)
        position = at + len(word)
        token = word.strip(".,;:()[]\"'").lower()
        if token and token not in STOPWORDS and len(token) > 2:
            out.append((at, token))
    return out


class ValueRule:
    """Typed values: found on the claim's record, derived from its records, another value of
    the record's same attribute (contradicted), or found nowhere (absent)."""

    name = "value"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.values)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for anchor in claim.values:
            if anchor.kind is AnchorKind.HOST and index.named(anchor.text.lower()):
                continue  # a name of a record: read as the claim's subject
            yield self._one(claim, anchor, subjects, index)

    def _one(self, claim: ClaimText, anchor: Anchor, subjects: Subjects,
             index: RecordIndex) -> Check:
        own = subjects.near(anchor.start)
        hits = index.holding(anchor)
        written = anchor.text
        if own:
            # the attribute the claim names decides, when the record holds it
            by_attribute = _attribute(claim, anchor, own, index)
            if by_attribute is not None:
                return by_attribute
        if own and hits & own:
            return Check(self.name, "verified", index.refs(hits & own), f"{written} found")
        if subjects.all and hits & subjects.all:
            return Check(self.name, "verified", index.refs(hits & subjects.all),
                         f"{written} found")
        if anchor.kind in NAMED_KINDS and index.mentions(anchor.text.lower()):
            return Check(self.name, "verified", (), f"{written} found")
        if anchor.kind not in NAMED_KINDS:
            scope = index.scope(own or subjects.all)
            numbers = [a for a in claim.values if a.kind not in NAMED_KINDS]
            for candidate, how in derived(claim.clean, anchor, [index.records[i] for i in scope],
                                          numbers):
                if compare_anchors(anchor, candidate) is Agreement.MATCH:
                    return Check(self.name, "verified", index.refs(scope), f"{written} is the "
                                 f"{how}", derived=True)
        if hits:
            return Check(self.name, "verified", index.refs(hits), f"{written} found")
        return Check(self.name, "absent", (), f"{written} is in no evidence item and derives "
                     f"from none")


def _attribute(claim: ClaimText, anchor: Anchor, own: frozenset[int],
               index: RecordIndex) -> Check | None:
    """The value of the attribute the claim names on the claim's record: the same (verified),
    another (contradicted), or None when the record holds no such attribute. Not where the
    words around the value ask for a total, a mean or a difference (the value is derived, not
    the record's own)."""
    around = claim.clean[max(0, anchor.start - LOCAL_REACH):anchor.end + LOCAL_REACH]
    if any(OPERATIONS[name].cue.search(around) for name in ("sum", "mean", "difference")):
        return None
    words = claim.stems
    conflicts = []
    for record_index in own:
        record = index.records[record_index]
        for value in record.values:
            keys = {stem(w.rstrip("s")) for w in value.key_words
                    if w not in GENERIC_KEYS and len(w) > 2 and w not in STOPWORDS}
            by_kind = record.level is not None and anchor.kind in (
                AnchorKind.TIMESTAMP, AnchorKind.CLOCK, AnchorKind.DATE)
            if not _names_key(keys, words) and not (by_kind and _time_key(value.key)):
                continue
            for evidence in value.anchors:
                agreement = compare_anchors(anchor, evidence)
                if agreement is Agreement.MATCH:
                    return Check("value", "verified", (record.item,),
                                 f"{anchor.text} is {record.item}'s {value.key}")
                if agreement is Agreement.CONFLICT:
                    conflicts.append((record, value))
    if not conflicts:
        return None
    record, value = conflicts[0]
    name = next(iter(sorted(record.names)), record.item)
    return Check("value", "contradicted", (record.item,),
                 f"says {anchor.text}; {record.item} {name} has {value.key}={value.raw}")


def _names_key(keys: set[str], words: set[str]) -> bool:
    """True when a claim's word is a key's word, or one begins the other (``conns`` and
    ``connections``, ``mem`` and ``memory``)."""
    return bool(keys & words) or any(
        len(k) >= 3 and len(w) >= 3 and (w.startswith(k) or k.startswith(w))
        for k in keys for w in words)


def _time_key(key: str) -> bool:
    return any(w in key for w in ("time", "timestamp", "date", "_at", "at", "ts"))


class NameRule:
    """Names (an identifier, a user, a service written with ``-_.@``): found somewhere in the
    evidence, or absent."""

    name = "name"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.tokens)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        found: list[frozenset[int]] = []
        for position, token in claim.tokens:
            if any(a <= position < b for a, b in claim.measures) or not _name_like(token):
                continue
            named = index.named(token) or index.prefixed(token)
            if named or index.mentions(token):
                found.append(named)
                continue
            yield Check(self.name, "absent", (), f"{token} is named in no evidence item")
        together = frozenset.intersection(*found) if len(found) > 1 else frozenset()
        if together:
            yield Check(self.name, "verified", index.refs(together),
                        "the names stand together on one record")


def _name_like(token: str) -> bool:
    """A token only a name is written as: with a digit, ``_@/.``, or hyphenated with a short
    part that is no English word (``ci-runner``, ``api-gw``; not ``crash-looping``)."""
    if not any(c.isalpha() for c in token) or states_of([token]):
        return False
    if any(c.isdigit() for c in token) or any(c in token for c in "_@/"):
        return True
    if "." in token.strip("."):
        return True
    parts = token.split("-")
    return len(parts) > 1 and any(len(p) <= 3 and p not in STOPWORDS and p not in AFFIXES
                                  for p in parts)


class StateRule:
    """States and log levels: the claim's record in that state (verified), in another state of
    the same family (contradicted), or a negated state or level the record holds (contradicted).
    """

    name = "state"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.states)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for stated in claim.states:
            own = subjects.near(stated.position)
            if stated.level is not None and stated.state is None:
                if stated.negated:
                    scope = own or frozenset(range(len(index.records)))
                    at = [i for i in scope if index.records[i].level == stated.level]
                    if at:
                        yield Check(self.name, "contradicted", index.refs(frozenset(at[:3])),
                                    f"says no {stated.level}; {index.records[at[0]].item} "
                                    f"holds a line at {stated.level}")
                continue
            if stated.state is None or not own:
                continue
            yield from self._state(stated.state, stated.negated, own, index)

    def _state(self, state: State, negated: bool, own: frozenset[int],
               index: RecordIndex) -> Iterable[Check]:
        held: dict[State, int] = {}
        for i in sorted(own):  # in a fixed order: the first state held is the one reported
            for record_state in sorted(index.states(i)):
                held.setdefault(record_state, i)
        same_family = {s: i for s, i in held.items() if s.family == state.family}
        if not same_family:
            return
        if state in same_family:
            i = same_family[state]
            outcome: Outcome = "contradicted" if negated else "verified"
            yield Check(self.name, outcome, (index.records[i].item,),
                        f"{'says not ' if negated else ''}{state.name}; "
                        f"{index.records[i].item} is {state.name}")
            return
        other, i = next(iter(same_family.items()))
        if negated:
            yield Check(self.name, "verified", (index.records[i].item,),
                        f"not {state.name}; {index.records[i].item} is {other.name}")
        else:
            yield Check(self.name, "contradicted", (index.records[i].item,),
                        f"says {state.name}; {index.records[i].item} is {other.name}")


class CauseRule:
    """A stated cause holds only when one record of the claim states it (most of its words, or
    its state) beside the effect."""

    name = "cause"

    def applies(self, claim: ClaimText) -> bool:
        return claim.cause is not None

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        assert claim.cause is not None
        cause_text = claim.clean[claim.cause.end():]
        effect_text = claim.clean[:claim.cause.start()]
        if claim.cause.group(0).lower().startswith(("led", "leading", "result", "which")):
            cause_text, effect_text = effect_text, cause_text
        cause = content_stems(cause_text)
        effect = content_stems(effect_text)
        if not cause:
            return
        scope = subjects.all or frozenset(range(len(index.records)))
        for i in sorted(scope)[:2000]:
            record_stems = index.stems(i)
            if (len(cause & record_stems) >= CAUSE_SHARE * len(cause)
                    and (effect & record_stems or i in subjects.all)):
                yield Check(self.name, "verified", (index.records[i].item,),
                            "the cause is stated of the claim's record")
                return
        yield Check(self.name, "absent", (), "the stated cause is not stated by any record "
                    "of the claim")


RULES: Final[Sequence[ClaimRule]] = (ValueRule(), NameRule(), StateRule(), CauseRule())
"""Every rule, in the order their checks are reported."""


def check_claim(claim: ClaimText, index: RecordIndex) -> list[Check]:
    """Every check of every rule that applies to ``claim``."""
    subjects = subjects_of(claim, index)
    return [check for rule in RULES if rule.applies(claim)
            for check in rule.check(claim, subjects, index)]

