"""States: the claim's record in the state it states (verified), in another state of the same
family (contradicted), or a negated state or level the record holds (contradicted). A state is
contradicted only where it is a fact said of a record the claim names (not hypothetical, not a
determiner's "the failed one") and the record holds a state of that family as an attribute (a
status column, a short cell, a true flag, a short sentence of prose)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.forms import State
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.rules import Check, Outcome
from gsar_otel.judges.records.subjects import Subjects


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
            if stated.state is None or stated.hypothetical or not own:
                continue
            if not subjects.stated_of(stated.position, claim.clean):
                continue  # the state is said of something the claim does not name
            if claim.universal and not stated.negated and not stated.attributive:
                yield from self._every(stated.state, own, index)
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
        held: dict[State, int] = {}
        for i in sorted(own):  # in a fixed order: the first state held is the one reported
            for record_state in sorted(index.states(i)):
                held.setdefault(record_state, i)
        if state in held:
            i = held[state]
            outcome: Outcome = "contradicted" if negated else "verified"
            if negated and (state not in index.status(i) or not may_contradict):
                return  # said of a word of a message, not of the record's state
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
