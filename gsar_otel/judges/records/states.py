"""States: the claim's record in the state it states (verified), in another state of the same
family (contradicted), or a negated state or level the record holds (contradicted). A state is
contradicted only where it is a fact said of a record the claim names (not hypothetical, not a
determiner's "the failed one") and the record holds a state of that family as an attribute (a
status column, a short cell, a true flag, a short sentence of prose)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from gsar_otel.core.anchors import AnchorKind
from gsar_otel.core.text import STOPWORDS, stem
from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.forms import MODALS, NEGATIONS, NOTHING, State
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import key_words, last_key
from gsar_otel.judges.records.rules import Check, Outcome, key_stems, names_key, names_whole
from gsar_otel.judges.records.subjects import Subjects

OWN_FAMILIES: Final = frozenset({"consumer_group", "pod", "payment", "subscription"})
"""State families one kind of object holds (a consumer group, a pod, a payment): the one record
holding such a state is what a claim naming nothing speaks of. Outcomes, health and severities
are not among them: any log line or check carries one (a line's ``INFO`` level), and an
unrelated item would become the claim's subject."""


def _only_holder(state: State, index: RecordIndex) -> frozenset[int]:
    """The one record holding a state of ``state``'s family as an attribute, when exactly one
    does and the family is one of :data:`OWN_FAMILIES`: a claim naming nothing ("Its state is
    CompletingRebalance") speaks of it."""
    if state.family not in OWN_FAMILIES:
        return frozenset()
    holders = index.holding_family(state.family)
    return holders if len(holders) == 1 else frozenset()


class StateRule:
    """States and log levels: the claim's record in that state (verified), in another state of
    the same family (contradicted), or a negated state or level the record holds (contradicted).
    """

    name = "state"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.states)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for stated in claim.states:
            # a level word selects the lines at that level: it is no subject of its own state
            # (an unrelated INFO line never makes "an info note" verified)
            said_of = (subjects.without(stated.position, stated.position + 1)
                       if stated.level is not None else subjects)
            own = said_of.near(stated.position)
            if stated.level is not None and stated.state is None:
                if stated.negated:
                    scope = own or frozenset(range(len(index.records)))
                    at = [i for i in scope if index.records[i].level == stated.level]
                    if at:
                        yield Check(self.name, "contradicted", index.refs(frozenset(at[:3])),
                                    f"says no {stated.level}; {index.records[at[0]].item} "
                                    f"holds a line at {stated.level}")
                continue
            if stated.state is None or stated.hypothetical:
                continue
            if not subjects.all:
                own = _only_holder(stated.state, index)
            elif not subjects.stated_of(stated.position, claim.clean):
                continue  # the state is said of something the claim does not name
            if not own:
                continue
            if claim.universal and not stated.negated and not stated.attributive:
                yield from self._every(stated.state, own, index)
                continue
            listed = said_of.listed(stated.position, claim.clean) if subjects.all else []
            if listed and not stated.attributive:
                # said of each name of the list before it: each must hold it
                for records in listed:
                    yield from self._state(stated.state, stated.negated, records, index)
                continue
            yield from self._state(stated.state, stated.negated, own, index,
                                   may_contradict=not stated.attributive)

    def _every(self, state: State, own: frozenset[int],
               index: RecordIndex) -> Iterable[Check]:
        """A state said of all the records named ("All orders in batch B-9234 were
        cancelled"): every one of them that holds a state of that family must hold it."""
        others = [(i, s) for i in sorted(own) for s in sorted(index.status(i))
                  if s.family == state.family and s != state
                  and state not in index.status(i)]
        if others:
            i, other = others[0]
            yield Check(self.name, "contradicted", (index.records[i].item,),
                        f"says every one is {state.name}; {index.records[i].item} is "
                        f"{other.name}")
        elif any(state in index.status(i) for i in own):
            yield Check(self.name, "verified", index.refs(own),
                        f"every one named is {state.name}")

    def _state(self, state: State, negated: bool, own: frozenset[int],
               index: RecordIndex, may_contradict: bool = True) -> Iterable[Check]:
        holders = [i for i in sorted(own) if state in index.states(i) | index.status(i)]
        if holders:
            # negated, it contradicts a record holding the state as its status, whichever of
            # the claim's records that is (the evidence's order decides nothing)
            as_status = [i for i in holders if state in index.status(i)]
            if negated and (not as_status or not may_contradict):
                return  # said of a word of a message, not of the record's state
            i = as_status[0] if negated else holders[0]
            outcome: Outcome = "contradicted" if negated else "verified"
            yield Check(self.name, outcome, (index.records[i].item,),
                        f"{'says not ' if negated else ''}{state.name}; "
                        f"{index.records[i].item} is {state.name}")
            return
        status = {s: i for i in sorted(own) for s in sorted(index.status(i))
                  if s.family == state.family}
        if not status or (not negated and not may_contradict):
            return
        other, i = next(iter(status.items()))
        if negated:
            yield Check(self.name, "verified", (index.records[i].item,),
                        f"not {state.name}; {index.records[i].item} is {other.name}")
        else:
            yield Check(self.name, "contradicted", (index.records[i].item,),
                        f"says {state.name}; {index.records[i].item} is {other.name}")


_NEGATED_VERB: Final = re.compile(
    r"\b(?:never|not|wasn't|weren't|hasn't|haven't|hadn't|didn't)\s+(?:been\s+|yet\s+|be\s+)?"
    r"([a-z]+ed)\b", re.IGNORECASE)


class PredicateRule:
    """A negated verb ("was never merged") against a record of the claim whose prose asserts it
    ("Pull request 9130 was merged by lena.berg"): contradicted."""

    name = "predicate"

    def applies(self, claim: ClaimText) -> bool:
        return bool(_NEGATED_VERB.search(claim.clean))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for match in _NEGATED_VERB.finditer(claim.clean):
            verb = match.group(1).lower()
            own = subjects.near(match.start())
            for i in sorted(own):
                text = index.records[i].text
                if index.is_prose(i) and re.search(rf"\b{verb}\b", text) and not re.search(
                        rf"\b(?:never|not|n't)\s+(?:been\s+|yet\s+|be\s+)?{verb}\b", text):
                    yield Check(self.name, "contradicted", (index.records[i].item,),
                                f"says {match.group(0)}; {index.records[i].item} says {verb}")
                    break


_NONE_OF: Final = (
    # "no keys have been evicted", "zero errors"
    re.compile(r"\b(?:no|zero)\s+(?P<noun>[a-z]+)(?:\s+(?:have|has|had|were|was|are|is)\s+"
               r"(?:been\s+)?(?P<verb>[a-z]+ed))?\b", re.IGNORECASE),
    # "hasn't rejected any connections", "never dropped any packets"
    re.compile(r"\b(?:hasn't|haven't|hadn't|didn't|never|not|has not|have not)\s+"
               r"(?:been\s+|yet\s+)?(?P<verb>[a-z]+)\s+any\s+(?P<noun>[a-z]+)\b",
               re.IGNORECASE),
    # "none were dropped", "none of the requests failed"
    re.compile(r"\bnone\s+(?:of\s+(?:the|them|its|their)\s+)?(?P<noun>[a-z]+)?\s*"
               r"(?:were|was|have been|has been|got)?\s*(?P<verb>[a-z]+ed)\b", re.IGNORECASE),
)
"""How a claim says that none of something happened: a noun, and the verb it happened by."""
_COUNT_WORDS: Final = frozenset({"total", "count", "num", "number", "sum", "of", "cnt"})
"""Key words that say a key counts (``total_error_replies``), not what it counts."""


class NoneRule:
    """"None happened" against a count the record keeps of it: "Redis hasn't rejected any
    connections" beside ``rejected_connections:3411`` is contradicted, "No keys have been
    evicted" beside ``evicted_keys:0`` verified. The count's key must be named by the claim's
    noun and verb (every word of the key but the words of counting)."""

    name = "none"

    def applies(self, claim: ClaimText) -> bool:
        return any(p.search(claim.clean) for p in _NONE_OF)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        scope = sorted(subjects.all) or range(min(len(index.records), 2000))
        for pattern in _NONE_OF:
            for match in pattern.finditer(claim.clean):
                words = {stem(w.lower()) for w in (match.group("noun"), match.group("verb"))
                         if w and w.lower() not in STOPWORDS}
                if not words:
                    continue
                found = _counted(words, scope, index)
                if found is not None:
                    key, count, item = found
                    outcome: Outcome = "verified" if count == 0 else "contradicted"
                    yield Check(self.name, outcome, (item,),
                                f"says {match.group(0).strip()}; {item} has {key}={count:g}")
                    return


def _counted(words: set[str], scope: Iterable[int],
             index: RecordIndex) -> tuple[str, float, str] | None:
    """The first count among ``scope``'s values whose key the claim's ``words`` name whole."""
    for i in scope:
        record = index.records[i]
        for value in record.values:
            keys = key_stems(value.key_words, _COUNT_WORDS)
            if not keys or not names_whole(keys, words):
                continue
            numbers = [a.value for a in value.anchors
                       if a.kind is AnchorKind.NUMBER and isinstance(a.value, float)]
            if len(numbers) == 1:
                return value.key, numbers[0], record.item
    return None


_CLAIM_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FLAG_REACH: Final = 4
"""How many words before a flag's words a negation or a modal still governs them."""


class FlagRule:
    """Something said to be there against a record holding nothing under the key the claim
    names whole, by two words or more or as code ("`OOMKilled` is set" beside false, "a network
    partition" beside a section reading ``(none)``): contradicted; said not to be: verified. The
    key is held by the claim's record, or, naming none, by no record with anything in it."""

    name = "flag"

    def applies(self, claim: ClaimText) -> bool:
        return bool(claim.stems)

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        words = [(m.start(), m.group(0).lower()) for m in _CLAIM_WORD.finditer(claim.clean)]
        if any(NOTHING.fullmatch(w) for _, w in words):
            return  # it says what the record holds ("`ack_required` false")
        for i, key, raw, only in index.unset:
            keys = key_stems(key_words(key))
            # named whole by two words or more, or written as code: one word ("paid",
            # "building") is said of too many things
            if (not keys or not names_whole(keys, claim.stems)
                    or (len(keys) < 2 and last_key(key) not in claim.key_names)):
                continue
            at = next((n for n, (_, w) in enumerate(words)
                       if names_key(keys, {stem(p) for p in w.split("-")} | {stem(w)})), None)
            if at is None:
                continue
            own = subjects.near(words[at][0], claim.clean)
            if (i not in own) if own else not only:
                continue
            governing = [w for _, w in words[max(0, at - _FLAG_REACH):at]]
            if any(w in MODALS or w == "if" for w in governing):
                continue
            item = index.records[i].item
            if any(w in NEGATIONS or w.endswith("n't") for w in governing):
                yield Check(self.name, "verified", (item,), f"says none; {item} has {key}={raw}")
            else:
                yield Check(self.name, "contradicted", (item,),
                            f"says there is {key}; {item} has {key}={raw}")
            return
