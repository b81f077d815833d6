"""The records of one evidence set, indexed once: by name, by a name's leading parts, by log
level, by typed value (:class:`gsar_otel.core.anchors.AnchorIndex`) and by word, so a claim is
checked in time linear in what it states, not in the evidence."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cached_property, lru_cache
from typing import Final

from gsar_otel.core.anchors import Agreement, Anchor, AnchorIndex, compare_anchors, extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.text import content_stem_set, stem
from gsar_otel.judges.records.derive import Derivations
from gsar_otel.judges.records.forms import (
    NOTHING,
    State,
    flags_of,
    prose_status,
    states_of,
    status_of,
)
from gsar_otel.judges.records.reading import read_evidence
from gsar_otel.judges.records.record import Record, last_key
from gsar_otel.judges.records.units import claim_measure, measures_differ

MAX_HITS: Final = 256
"""Most records a typed value is looked up on."""
SCOPE_LIMIT: Final = 2000
"""Most records a derivation reads."""
MAX_KEY_GROUPS: Final = 4
MAX_HOLDERS: Final = 2
"""Most records a key written as code may name (``Writeback`` of one ``/proc/meminfo``)."""
"""Most groups a key a claim names scopes a derivation to."""
_PART: Final = re.compile(r"[-_.]")
_NUMBER_CELL: Final = re.compile(r"#?\d{1,12}")
_CELL_START: Final = frozenset("#0123456789")
_PHRASE: Final = re.compile(r"\b([a-z][a-z_-]{2,})(?:\s*[:=#]\s*|\s+)(\d{1,9})\b")
PROSE_WORDS: Final = 30
"""A sentence of prose up to this many words states the states its words assert."""


def _prose(record: Record) -> bool:
    """True for one short sentence of prose (no keyed value): what it says, it says of the
    things it names ("Ticket 6513 was closed by search-team")."""
    said = [v for v in record.values if not v.key]
    return (len(said) == 1 and all(v.key in ("", "by") for v in record.values)
            and len(record.text.split()) <= PROSE_WORDS)


@lru_cache(maxsize=16384)
def _prefixes_of(name: str) -> tuple[str, ...]:
    """The leading parts of a name a claim may name it by (``checkout-api`` of
    ``checkout-api-7d9f8-q8lmn``), in order: at least three characters, one a letter."""
    parts = _PART.split(name)
    prefixes = []
    for cut in range(1, len(parts)):
        prefix = name[:len("-".join(parts[:cut]))]
        if len(prefix) >= 3 and any(c.isalpha() for c in prefix):
            prefixes.append(prefix)
    return tuple(prefixes)


class RecordIndex:
    """Records of an evidence set and the look-ups a claim needs."""

    def __init__(self, evidence: EvidenceSet) -> None:
        self.evidence = evidence
        self.records: list[Record] = read_evidence(evidence)
        self._names: dict[str, set[int]] = {}
        self._prefixes: dict[str, set[int]] = {}
        self._levels: dict[str, set[int]] = {}
        self._groups: dict[str, list[int]] = {}
        self._by_item: dict[str, list[int]] = {}
        self._keyed: dict[tuple[str, str], set[int]] = {}
        self._key_groups: dict[str, dict[str, None]] = {}
        places: list[int] = []
        anchors: list[Anchor] = []
        keys: list[str] = []
        numbered: dict[tuple[str, str], list[tuple[int, str, frozenset[str]]]] = {}
        lasts: dict[str, str] = {}  # each key's last part, read once
        for position, record in enumerate(self.records):
            self._groups.setdefault(record.group, []).append(position)
            self._by_item.setdefault(record.item, []).append(position)
            for name in record.names:
                self._names.setdefault(name, set()).add(position)
                for prefix in _prefixes_of(name):
                    self._prefixes.setdefault(prefix, set()).add(position)
            level = record.level
            if level:
                self._levels.setdefault(level, set()).add(position)
            for value in record.values:
                last = lasts.get(value.key)
                if last is None:
                    last = lasts[value.key] = last_key(value.key)
                if last:
                    self._key_groups.setdefault(last, {})[record.group] = None
                    if value.raw[:1] in _CELL_START and _NUMBER_CELL.fullmatch(value.raw):
                        numbered.setdefault((record.group, value.key), []).append(
                            (position, value.raw.lstrip("#"), value.key_words))
                for anchor in value.anchors:
                    places.append(position)
                    anchors.append(anchor)
                    keys.append(last)
        for cells in numbered.values():
            if len({number for _, number, _ in cells}) < len(cells):
                continue  # a column that names its rows holds a different number in each
            for position, number, words in cells:
                for word in words:
                    self._keyed.setdefault((stem(word), number), set()).add(position)
        self._places = places
        self._held = anchors
        self._keys = keys
        self._anchors = AnchorIndex(anchors)
        self._text = "\n".join(item.content.lower() for item in evidence)
        self._items = [item.id for item in evidence]
        self._starts = []
        offset = 0
        for item in evidence:
            self._starts.append(offset)
            offset += len(item.content) + 1

    def named(self, token: str) -> frozenset[int]:
        """Records one of whose names is ``token``."""
        return frozenset(self._names.get(token, ()))

    def prefixed(self, token: str) -> frozenset[int]:
        """Records with a name whose leading parts are ``token`` (``checkout-api`` of
        ``checkout-api-7d9f8-q8lmn``)."""
        return frozenset(self._prefixes.get(token, ()))

    def keyed(self, word: str, number: str) -> frozenset[int]:
        """Records holding ``number`` under a key a word of which is ``word``, where that key
        holds a different number on each record of its group: the number names the record
        ("partition 1", "worker 8831", ``#1468``)."""
        return frozenset(self._keyed.get((stem(word.lower()), number), ()))

    def phrased(self, word: str, number: str) -> frozenset[int]:
        """Records whose text writes ``word`` right before ``number`` (a log's "brokers: 3")."""
        return frozenset(self._phrases.get((stem(word.lower()), number), ()))

    @cached_property
    def _phrases(self) -> dict[tuple[str, str], set[int]]:
        found: dict[tuple[str, str], set[int]] = {}
        for position, record in enumerate(self.records[:SCOPE_LIMIT]):
            for match in _PHRASE.finditer(record.text):
                found.setdefault((stem(match.group(1)), match.group(2)), set()).add(position)
        return found

    def holders(self, key: str) -> frozenset[int]:
        """The records holding ``key`` (a key's last part), when at most
        :data:`MAX_HOLDERS` do: a key that few records hold names them."""
        groups = self._key_groups.get(key, {})
        if len(groups) > MAX_HOLDERS:
            return frozenset()
        held = [i for g in groups for i in self._groups[g][:MAX_HOLDERS + 1]
                if any(last_key(v.key) == key for v in self.records[i].values)]
        return frozenset(held) if len(held) <= MAX_HOLDERS else frozenset()

    def keyed_groups(self, keys: Iterable[str]) -> list[list[int]]:
        """The records of each group holding one of ``keys`` (a key's last part, as a claim
        names it: "`rt`", "`worker_connections`"), at most :data:`MAX_KEY_GROUPS` groups."""
        groups = dict.fromkeys(g for key in keys for g in self._key_groups.get(key, {}))
        return [self._groups[g][:SCOPE_LIMIT] for g in list(groups)[:MAX_KEY_GROUPS]]

    def prefixed_groups(self, tokens: Iterable[str]) -> list[list[int]]:
        """For each token, the rows of one group whose names it begins (at least two rows:
        "frontend" of ``frontend-84c9d6b7f-5gq2n`` ...), at most :data:`MAX_KEY_GROUPS`."""
        out: list[list[int]] = []
        for token in dict.fromkeys(tokens):
            rows = sorted(self._prefixes.get(token, ()))
            groups = {self.records[i].group for i in rows}
            if len(rows) >= 2 and len(groups) == 1:
                out.append(rows[:SCOPE_LIMIT])
            if len(out) >= MAX_KEY_GROUPS:
                break
        return out

    def at_level(self, level: str) -> frozenset[int]:
        """Log records written at ``level``."""
        return frozenset(self._levels.get(level, ()))

    def mentions(self, token: str) -> tuple[str, ...]:
        """The evidence ids of the items in whose text ``token`` stands as a word of its own,
        else in whose command line it does (``nodetool -h 10.0.1.11``); empty when none."""
        return self.leading(token, None) or tuple(
            item.id for item in self.evidence if item.source and re.search(
                rf"(?<![\w.-]){re.escape(token)}(?![\w-]|\.\w)", item.source.lower()))

    def leading(self, token: str, rest: re.Pattern[str] | None) -> tuple[str, ...]:
        """The evidence ids of the items in whose text ``token`` begins a word whose rest
        ``rest`` matches ("c3d4e5f" of a full commit id, "3.6" of "3.6.1"); with no ``rest``,
        where it is a word of its own."""
        found: list[str] = []
        text = self._text
        at = text.find(token)
        while at >= 0:
            end = at + len(token)
            if not (at and text[at - 1].isalnum()) and (
                    rest.match(text, end) if rest is not None
                    else not (end < len(text) and text[end].isalnum())):
                item = self._items[bisect_right(self._starts, at) - 1]
                if item not in found:
                    found.append(item)
            at = text.find(token, at + 1)
        return tuple(found)

    def in_command(self, anchor: Anchor) -> tuple[str, ...]:
        """The evidence ids of the items whose command line writes ``anchor``'s value (a query's
        ``WHERE created_at >= '2024-05-13'``, ``--since '09:20'``)."""
        return tuple(item for item, held in self._commands
                     if any(compare_anchors(anchor, a) is Agreement.MATCH for a in held))

    @cached_property
    def _commands(self) -> list[tuple[str, tuple[Anchor, ...]]]:
        return [(item.id, extract_anchors(re.sub(r"[\"'`]", " ", item.source)))
                for item in self.evidence if item.source]  # its quotes read as the text inside

    def of_item(self, item: str) -> list[int]:
        """The records of evidence item ``item``, in order."""
        return self._by_item.get(item, [])

    def mentioning(self, token: str) -> frozenset[int]:
        """The records of the items that mention ``token`` whose own text holds it as a word."""
        items = set(self.mentions(token))
        if not items:
            return frozenset()
        pattern = re.compile(rf"(?<![\w]){re.escape(token)}(?![\w])")
        return frozenset(i for item in items for i in self._by_item.get(item, ())
                         if pattern.search(self.records[i].text))

    def holding(self, anchor: Anchor) -> frozenset[int]:
        """Records holding a value that matches ``anchor``."""
        found = self._anchors.matches(anchor, MAX_HITS)
        if not claim_measure(anchor):  # a value of no measure differs in measure from none
            return frozenset(self._places[p] for p in found)
        return frozenset(self._places[p] for p in found
                         if not measures_differ(anchor, self._held[p], self._keys[p]))

    def holding_among(self, records: frozenset[int], anchor: Anchor) -> frozenset[int]:
        """Which of ``records`` hold a value matching ``anchor``, read on the records themselves
        (:meth:`holding` stops at :data:`MAX_HITS` over all records: a small number can match
        more rows than that)."""
        if len(records) > MAX_HITS:
            return frozenset()
        return frozenset(i for i in records if any(
            compare_anchors(anchor, held) is Agreement.MATCH
            and not measures_differ(anchor, held, last_key(value.key))
            for value in self.records[i].values for held in value.anchors))

    @cached_property
    def derivations(self) -> Derivations:
        """The values derivable from scopes of these records, each computed once."""
        return Derivations()

    def matching(self, anchor: Anchor) -> list[Anchor]:
        """The evidence values (anchors) that match ``anchor``."""
        return [self._held[p] for p in self._anchors.matches(anchor, MAX_HITS)
                if not measures_differ(anchor, self._held[p], self._keys[p])]

    def scope(self, records: Iterable[int]) -> list[int]:
        """The records of the group (table, array, item) one given record is a row of, with the
        rows nested in its document (an invoice's line items); the given records when several
        are; all records when none is given."""
        chosen = sorted(set(records))
        if not chosen:
            return list(range(min(len(self.records), SCOPE_LIMIT)))
        if len(chosen) > 1:
            return chosen[:SCOPE_LIMIT]
        record = self.records[chosen[0]]
        out = list(self._groups[record.group])
        out += [i for i in self._by_item.get(record.item, ())  # its nested rows (line items)
                if self.records[i].group.startswith(f"{record.item}:")
                and record.group.startswith(f"{record.item}#")]
        return out[:SCOPE_LIMIT]

    def whole_output(self, position: int) -> bool:
        """True when record ``position`` is its item's one value, a bare number (``grep -c``,
        ``wc -l``, ``date +%s``): what the tool was asked, with nothing to bind it to."""
        record = self.records[position]
        return (len(self._by_item.get(record.item, ())) == 1 and len(record.values) == 1
                and not record.values[0].key and len(record.values[0].anchors) == 1)

    def refs(self, records: Iterable[int]) -> tuple[str, ...]:
        """The evidence ids of ``records``, in order, once each."""
        return tuple(dict.fromkeys(self.records[i].item for i in sorted(records)))

    def states(self, position: int) -> set[State]:
        """The states record ``position`` states."""
        return self._states[position]

    def is_prose(self, position: int) -> bool:
        """True when record ``position`` is one short sentence of prose."""
        return _prose(self.records[position])

    def status(self, position: int) -> set[State]:
        """The states record ``position`` holds as an attribute (a state column, a short
        cell): the ones a claim's state can contradict."""
        return self._status[position]

    def holding_family(self, family: str) -> frozenset[int]:
        """The records holding a state of ``family`` as an attribute (at most two: whether
        one alone does is what is asked)."""
        found: set[int] = set()
        for position, held in enumerate(self._status):
            if any(state.family == family for state in held):
                found.add(position)
                if len(found) > 1:
                    break
        return frozenset(found)

    def stems(self, position: int) -> frozenset[str]:
        """The content stems of record ``position``'s text."""
        return content_stem_set(self.records[position].text)

    @cached_property
    def unset(self) -> tuple[tuple[int, str, str, bool], ...]:
        """Values that hold nothing (``false``, ``(none)``, ``[]``): record, key, value, and
        whether no record holds anything else under that key."""
        found: list[tuple[int, str, str]] = []
        holding: set[str] = set()
        for i, record in enumerate(self.records[:SCOPE_LIMIT]):
            for value in record.values:
                if value.key and NOTHING.fullmatch(value.raw):
                    found.append((i, value.key, value.raw))
                elif value.key:
                    holding.add(value.key)
        return tuple((i, key, raw, key not in holding) for i, key, raw in found[:MAX_HITS])

    @cached_property
    def _status(self) -> list[set[State]]:
        return [status_of((v.key_words, v.raw) for v in record.values)
                | (prose_status(record.text) if _prose(record) else set())
                for record in self.records]

    @cached_property
    def _states(self) -> list[set[State]]:
        return [states_of(v.raw for v in record.values)
                | flags_of((v.key_words, v.raw) for v in record.values)
                for record in self.records]
