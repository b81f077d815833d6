"""What a claim speaks of: the records it names (by a value of a naming key, an identifier, a
table's first column, or a log level it names), each mention with its place in the claim, and
the records the claim before spoke of last, which a claim naming none inherits ("It has 57
events")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from gsar_otel.core.anchors import AnchorKind
from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.forms import ENTITY_NOUNS
from gsar_otel.judges.records.index import RecordIndex

AFTER_REACH: Final = 40
"""How far after a value or a state the record it is said of may be named ("14 restarts on
cart-7d9f")."""
STATE_REACH: Final = 60
"""How far before a state the record it is said of may be named."""
CLAUSE: Final = re.compile(r"[,;:\u2014(]|\.\s| and | but | while | whereas ")
"""What ends a clause: a value, a state or a word of an attribute stays within its own."""
_PRONOUN: Final = re.compile(r"\s*(?:it|its|it's|it\u2019s|this one|that one)\b", re.IGNORECASE)
"""A claim's opening word that stands for the record the claim before named last."""
_OF_NEXT: Final = re.compile(r"\S+(?: [A-Za-z]+)?\s+(?:for|of|on)\s+(?:the\s+|its\s+|their\s+)?"
                             r"(?:[a-z]+\s+)?[`'\"]?")
"""A value and the preposition that says whose it is ("412K for the old `idx`", "89% on
`/var/log`"): the name after it is the value's record."""
_LIST_GAP: Final = re.compile(r"[^\s,]+\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)[`'\"]?")
"""A name and what joins it to the next of its list ("`tempo`, ", "nginx and ")."""
_CLAUSE_AFTER: Final = re.compile(r"[,;:\u2014]|\.\s| and | but | while | whereas ")
"""What ends the clause a name opens (a parenthesis after a name speaks of it:
"partition 1 (2,176,113)")."""


@dataclass(slots=True)
class Subjects:
    """The records a claim names, each mention with its place in the claim."""

    mentions: list[tuple[int, frozenset[int]]]
    inherited: frozenset[int] = frozenset()
    naming: frozenset[int] = frozenset()
    """Where numbers stand that name records rather than state values ("partition 1")."""
    asides: frozenset[int] = frozenset()
    """Where mentions stand inside parentheses."""
    opened: frozenset[int] = frozenset()
    """What an opening "It" stood for (:meth:`opening` of the claim before)."""
    pronoun: bool = False
    """The claim opens with "It": its first mention is :attr:`opened`."""
    """The records the claim before spoke of last: a claim that names none speaks of them
    ("It has 57 events")."""

    @property
    def all(self) -> frozenset[int]:
        """Every record the claim names (else the ones it inherits)."""
        named = frozenset(i for _, records in self.mentions for i in records)
        return named or self.inherited

    def passed_on(self, plural: bool) -> frozenset[int]:
        """What the next claim inherits: the records this one named last outside parentheses
        (an aside names what qualifies its subject: "`payments-svc` (image
        `payments-svc:2.14.1`) is crash-looping. It ..."), or all it named when the next speaks
        of several ("None of them")."""
        if not self.mentions:
            return self.inherited
        main = [r for p, r in self.mentions if p not in self.asides] or [self.mentions[-1][1]]
        return self.all if plural else main[-1]

    def opening(self) -> frozenset[int]:
        """What an opening "It" of the next claim stands for: the records this claim named
        first outside parentheses (its subject), or what it was passed when it named none."""
        main = [r for p, r in self.mentions if p not in self.asides]
        return main[0] if main else self.opened

    def without(self, start: int, end: int) -> Subjects:
        """These subjects but the mentions standing between ``start`` and ``end``: what a name
        is said of is another name of its clause, not itself."""
        kept = [(p, r) for p, r in self.mentions if not start <= p < end]
        if len(kept) == len(self.mentions):
            return self
        # a claim naming only this name speaks of its records: nothing is inherited
        return Subjects(kept, self.inherited if kept else frozenset(), self.naming, self.asides,
                        self.opened, self.pronoun and 0 not in range(start, end))

    def stated_of(self, position: int, text: str) -> bool:
        """True when what stands at ``position`` of ``text`` is said of a record: one named
        within :data:`STATE_REACH` characters before it, or :data:`AFTER_REACH` after it in
        the same clause, or the inherited one when it opens the claim."""
        if any(0 <= position - p <= STATE_REACH
               or (0 < p - position <= AFTER_REACH and not CLAUSE.search(text, position, p))
               for p, _ in self.mentions):
            return True
        return not self.mentions and bool(self.inherited) and position <= STATE_REACH

    def in_clause(self, position: int, text: str) -> frozenset[int]:
        """The records named in the clause of ``position``: last before it, else just after it
        (empty when the clause names none)."""
        before = [(p, r) for p, r in self.mentions if p <= position]
        after = [(p, r) for p, r in self.mentions if 0 < p - position <= AFTER_REACH]
        if after and _OF_NEXT.fullmatch(text, position, after[0][0]):
            return after[0][1]  # "12.0M versus roughly 412K for the old `events_tenant_id_idx`"
        if before and not _CLAUSE_AFTER.search(text, before[-1][0], position):
            return before[-1][1]
        if after and not CLAUSE.search(text, position, after[0][0]):
            return after[0][1]
        return frozenset()

    def listed(self, position: int, text: str) -> list[frozenset[int]]:
        """The records of each name of a list standing right before ``position`` in its clause
        ("`kube-prometheus-stack`, `tempo` and `grafana` are deployed"): what is said after it
        is said of each; empty when no list of two or more names stands there."""
        before = sorted({p: r for p, r in self.mentions if p <= position}.items())
        if not before or _CLAUSE_AFTER.search(text, before[-1][0], position):
            return []
        names = [before[-1]]
        for earlier in reversed(before[:-1]):
            if not _LIST_GAP.fullmatch(text, earlier[0], names[0][0]):
                break
            names.insert(0, earlier)
        return [records for _, records in names] if len(names) > 1 else []

    def near(self, position: int, text: str = "") -> frozenset[int]:
        """The records a value at ``position`` of ``text`` is said of: the one named last
        before it in its own clause, else the one named just after it in its own clause
        (within :data:`AFTER_REACH` characters: "14 restarts on cart-7d9f", "broker 103 leads
        partition 1"), else the one named last before it, else just after it; else the
        inherited ones when the claim names none."""
        bound = self.in_clause(position, text) if text else frozenset()
        if bound:
            return bound
        before = [(p, r) for p, r in self.mentions if p <= position]
        if (self.pronoun and len(before) == 1 and text
                and _CLAUSE_AFTER.search(text, 0, position)):
            before = []  # an opening "It" speaks for its own clause only
        after = [(p, r) for p, r in self.mentions if 0 < p - position <= AFTER_REACH]
        if before:
            return before[-1][1]
        if after:
            return after[0][1]
        return frozenset() if self.mentions else self.inherited


def subjects_of(claim: ClaimText, index: RecordIndex, inherited: frozenset[int] = frozenset(),
                opened: frozenset[int] = frozenset()) -> Subjects:
    """The records ``claim`` names: exact names first, a name's leading parts when no name is
    exact; a log level it names selects the lines at that level. ``inherited`` are the records
    the claim before named last; ``opened`` what it named first, which an opening "It"
    names."""
    exact = [(p, index.named(t)) for p, t in claim.tokens if index.named(t)]
    words = [(p, w, index.named(w) or index.named(_singular(w))
              or (_proper(claim, p) and index.prefixed(w))) for p, w in _plain_words(claim)]
    exact += [(p, found) for p, _, found in words if found]
    exact += [(a.start, index.named(a.text)) for a in claim.values  # "order 5531877"
              if ((a.kind is AnchorKind.NUMBER and a.text.isdigit()) or a.kind is AnchorKind.IPV4)
              and index.named(a.text)]
    if not exact:
        exact = [(p, index.prefixed(t)) for p, t in claim.tokens if index.prefixed(t)]
    levels = [(s.position, index.at_level(s.level)) for s in claim.states
              if s.level and not s.negated and index.at_level(s.level)]
    keyed = _keyed(claim, index)

    # a claim opening with "It" names what the claim before named last: the pronoun is a mention
    pronoun = [(0, opened)] if opened and _PRONOUN.match(claim.clean) else []
    mentions = sorted(pronoun + exact + levels + keyed, key=lambda m: m[0])
    asides = frozenset(p for p, _ in mentions
                       if claim.clean.count("(", 0, p) > claim.clean.count(")", 0, p))
    return Subjects([(p, frozenset(r)) for p, r in mentions], inherited,
                    frozenset(p for p, _ in keyed), asides, opened, bool(pronoun))


_KEYED: Final = re.compile(r"(#)$|([A-Za-z]{2,})\s+$")
_LISTED: Final = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,|and|or|,\s*and)\s*#?$")
"""What stands between the numbers of one list of names ("partitions 2 (15,906), 4 and 0")."""
_HASH_KEYS: Final = ("number", "id", "iid")
"""The keys a number written after ``#`` names its record by (``#1468``)."""


def _keyed(claim: ClaimText, index: RecordIndex) -> list[tuple[int, frozenset[int]]]:
    """Numbers a claim writes after the word of a key to name the records holding them
    ("partition 1", "partitions 0 and 3", "worker 8831", "PID 1022")."""
    out: list[tuple[int, frozenset[int]]] = []
    word = ""
    previous_end = -1
    for anchor in claim.values:
        if anchor.kind is not AnchorKind.NUMBER or not anchor.text.isdigit():
            continue
        before = claim.clean[max(0, anchor.start - 30):anchor.start]
        key = _KEYED.search(before)
        if key is not None and (key.group(1) or key.group(2).lower() not in STOPWORDS):
            word = key.group(1) or key.group(2)
            if word.lower().endswith(("ed", "ing")):
                word = ""  # a verb's count ("restarted 14 times") names no record
        elif not (word and previous_end >= 0
                  and _LISTED.match(claim.clean[previous_end:anchor.start])):
            word = ""
        previous_end = anchor.end
        if word == "#":
            records = next((index.keyed(k, anchor.text) for k in _HASH_KEYS
                            if index.keyed(k, anchor.text)), frozenset())
        else:
            records = index.keyed(word, anchor.text) if word else frozenset()
            if not records and word.lower() in ENTITY_NOUNS:  # a log's "brokers: 3"
                records = index.phrased(word, anchor.text)
        if records:
            out.append((anchor.start, records))
    return out


def _proper(claim: ClaimText, position: int) -> bool:
    """True when the word at ``position`` is capitalised as a proper name is ("Kibana" names
    ``kibana.service`` by its leading part; "CPU" is an acronym, no name)."""
    word = claim.clean[position:].split(maxsplit=1)[0].strip(".,;:()[]\"'`")
    return len(word) > 1 and word[0].isupper() and word[1:].islower()


def _singular(word: str) -> str:
    """A plural word's singular ("referrals" names the row ``referral``, "batches" ``batch``,
    "replicas" ``replica``); other words as they are."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


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
