"""Who did it: "closed by netops", "merged by lena.berg", "deployed by ci-runner".

A record names its actor under a key of :data:`ACTOR_KEYS` (``actor``, ``user``, ``author`` ...)
or in prose as the agent of a verb ("was closed by team-60", read into the key ``by`` when the
record is read: :data:`gsar_otel.judges.records.record.AGENT`). A claim's agent ("<verb>ed by
<name>") is checked against the actors of the records it speaks of: one of them (verified), none
while the record names one (contradicted), or left to the name rule when they name no actor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import AGENT
from gsar_otel.judges.records.rules import Check
from gsar_otel.judges.records.subjects import Subjects

ACTOR_KEYS: Final = frozenset({
    "by", "actor", "user", "username", "author", "owner", "assignee", "creator", "requester",
    "approver", "initiator", "principal", "committer", "merger", "operator", "triggered"})
"""Key words of the value that says who did what a record records."""


class ActorRule:
    """The agent a claim gives a verb is the actor of the record it speaks of."""

    name = "actor"

    def applies(self, claim: ClaimText) -> bool:
        return bool(AGENT.search(claim.clean))

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        for match in AGENT.finditer(claim.clean):
            agent = match.group(2).lower().rstrip(".")
            own = subjects.near(match.start())
            actors = {i: [v.raw.lower() for v in index.records[i].values
                          if v.key_words & ACTOR_KEYS] for i in sorted(own)}
            held = [i for i, names in actors.items() if agent in names]
            if held:
                yield Check(self.name, "verified", index.refs(frozenset(held)),
                            f"{match.group(0)}: the record's actor")
                continue
            named = [(i, names[0]) for i, names in actors.items() if names]
            if named:
                i, other = named[0]
                yield Check(self.name, "contradicted", (index.records[i].item,),
                            f"says {match.group(0)}; {index.records[i].item} names {other}")
