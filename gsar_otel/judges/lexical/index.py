"""The evidence side: every evidence item analysed once per call (its sentences or rows, their
content stems, anchors, ``key=value`` pairs, negation and causal markers) into an index that
links claim words to evidence sentences.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.text import STOPWORDS, Anchors, anchors, split_sentences, stem, words
from gsar_otel.judges.lexical.lexicon import (
    _CACHED_TEXT_CHARS,
    _CAUSAL,
    _CAUSE_STATED,
    _CONCLUSION,
    _HOST,
    _IDENTIFIER_PART,
    _LINE_MARKER,
    _MAY,
    _NEGATION,
    _PAIR,
    _SPECULATIVE,
    _UNIT_WORDS,
    _ZERO_RESULT,
    _is_number_token,
    _normalise,
    _stems,
    is_structured,
    negated_stems,
)
from gsar_otel.judges.lexical.values import ValueIndex


def _adjacent_pairs(text: str) -> set[tuple[str, str]]:
    sequence = [stem(w) for w in words(_normalise(text))
                if w not in STOPWORDS and not _is_number_token(w)]
    return set(itertools.pairwise(sequence))


def _pairs(text: str) -> list[tuple[str, str]]:
    """``key=value`` and JSON ``"key": value`` pairs of a tool row (not prose "Founded: 1997")."""
    return [(m.group(1) or m.group(3), m.group(2) or m.group(4)) for m in _PAIR.finditer(text)]


# -- the evidence index --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Pair:
    """A ``key=value`` of a tool row: the key's content words and the value's anchors."""

    key_stems: frozenset[str]
    raw: str
    anchors: Anchors


@dataclass(slots=True)
class _Unit:
    """One sentence (or row) of one evidence item."""

    item: int
    text: str
    stems: frozenset[str]
    anchors: Anchors
    negated: bool
    zero_result: bool
    states_cause: bool
    states_conclusion: bool
    hedged: bool
    negated_stems: frozenset[str]


@dataclass(slots=True)
class _Item:
    evidence: Evidence
    stems: frozenset[str]
    anchors: Anchors
    identifiers: frozenset[str]
    pairs: tuple[_Pair, ...]
    joined_words: str
    zero_result: bool
    structured: bool
    """A tool row, log line or alert rather than prose: ``key=value`` pairs or a ``[tag]``."""


class _EvidenceIndex:
    """Everything the judge needs from the evidence, computed once per judgement."""

    def __init__(self, evidence: EvidenceSet) -> None:
        self.items: list[_Item] = []
        self.units: list[_Unit] = []
        self.postings: dict[str, list[int]] = {}
        for position, item in enumerate(evidence):
            text = _LINE_MARKER.sub("", item.content)
            item_anchors = anchors(text)
            key_parts = frozenset(part for token in item_anchors.identifiers if "_" in token
                                  for part in token.split("_") if _IDENTIFIER_PART.match(part))
            pairs = tuple(
                _Pair(frozenset(_stems(key.replace("_", " ").replace(".", " "), split_keys=True)),
                      value, anchors(value))
                for key, value in _pairs(text)
            )
            self.items.append(_Item(
                evidence=item,
                stems=frozenset(_stems(text, split_keys=True)),
                anchors=item_anchors,
                identifiers=(item_anchors.identifiers | key_parts
                             | frozenset(_HOST.findall(text.lower()))),
                pairs=pairs,
                joined_words=" " + " ".join(words(text)) + " ",
                zero_result=bool(_ZERO_RESULT.search(text)),
                structured=is_structured(text),
            ))
            sentences = split_sentences(text) if len(text) > 200 else [text]
            for sentence in sentences or [text]:
                self._add_unit(position, sentence)
        self.values = ValueIndex([item.anchors for item in self.items])
        self.word_items: dict[str, list[int]] = {}
        self.identifier_items: dict[str, list[int]] = {}
        for position, built in enumerate(self.items):
            for word in dict.fromkeys(built.joined_words.split()):
                self.word_items.setdefault(word, []).append(position)
            for identifier in built.identifiers:
                self.identifier_items.setdefault(identifier, []).append(position)
        self.units_of_item: list[list[int]] = [[] for _ in self.items]
        for unit_index, unit in enumerate(self.units):
            self.units_of_item[unit.item].append(unit_index)
        self.zero_result_items = [i for i, item in enumerate(self.items) if item.zero_result]
        self.pairs_by_stem: dict[str, list[tuple[int, int]]] = {}
        for position, built in enumerate(self.items):
            for pair_index, pair in enumerate(built.pairs):
                named = pair.key_stems - _UNIT_WORDS
                for key_stem in named or pair.key_stems:
                    self.pairs_by_stem.setdefault(key_stem, []).append((position, pair_index))
        count = len(self.units)
        self.idf = {s: math.log((count + 1) / (len(p) + 0.5)) for s, p in self.postings.items()}
        self.unseen_idf = math.log(count + 2) + 1.0
        self._by_prefix: dict[str, list[str]] = {}
        for known in sorted(self.postings):
            if len(known) >= 4 and known.isalpha():
                self._by_prefix.setdefault(known[:4], []).append(known)
        self._resolved: dict[str, str | None] = {}
        self._pairs: set[tuple[str, str]] | None = None

    def _add_unit(self, item: int, text: str) -> None:
        unit = _unit_of(text, item) if len(text) <= _CACHED_TEXT_CHARS else _make_unit(text, item)
        index = len(self.units)
        self.units.append(unit)
        for unit_stem in unit.stems:
            self.postings.setdefault(unit_stem, []).append(index)

    def phrase_items(self, phrase: str) -> list[int]:
        """Positions of the items whose words hold ``phrase`` (words joined by single spaces):
        only the items holding its first word are read."""
        first = phrase.split(" ")[0]
        if not first:
            return [i for i, item in enumerate(self.items)
                    if f" {phrase} " in item.joined_words] if phrase == "" else []
        return [i for i in self.word_items.get(first, ())
                if f" {phrase} " in self.items[i].joined_words]

    def echo(self, text: str) -> float:
        """Share of the word pairs of ``text`` (adjacent content words) that some evidence
        sentence also has adjacent: how closely an answer follows the wording of its evidence."""
        pairs = _adjacent_pairs(text)
        if not pairs:
            return 1.0
        if self._pairs is None:
            self._pairs = set().union(*(_adjacent_pairs(u.text) for u in self.units))
        return len(pairs & self._pairs) / len(pairs)

    def resolve(self, word_stem: str) -> str | None:
        """The evidence stem ``word_stem`` stands for: itself, a close variant, or None.

        Variants share a long prefix (``belgian``/``belgium``, ``western``/``west``), so
        demonyms and derived forms the light stemmer leaves apart still meet.
        """
        if word_stem in self.postings:
            return word_stem
        if len(word_stem) < 4 or not word_stem.isalpha():
            return None
        cached = self._resolved.get(word_stem, "")
        if cached != "":
            return cached
        best: str | None = None
        best_length = 0
        for candidate in self._by_prefix.get(word_stem[:4], ()):
            common = 0
            for left, right in zip(word_stem, candidate, strict=False):
                if left != right:
                    break
                common += 1
            shorter = min(len(word_stem), len(candidate))
            close = common == shorter or common >= shorter - 2
            if close and (common > best_length or (common == best_length and best is not None
                                                   and candidate < best)):
                best, best_length = candidate, common
        self._resolved[word_stem] = best
        return best

    def resolve_all(self, stems: Iterable[str]) -> set[str]:
        """``stems`` with each one replaced by its evidence variant where it has one."""
        return {self.resolve(s) or s for s in stems}

    def weight(self, word_stem: str) -> float:
        return self.idf.get(word_stem, self.unseen_idf)

    def candidates(self, claim_stems: Iterable[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        # In a fixed order: float sums (and near-ties) must not depend on the hash seed.
        for claim_stem in sorted(claim_stems):
            postings = self.postings.get(claim_stem)
            if not postings:
                continue
            # Very common words say little about which sentence is meant.
            weight = self.idf[claim_stem]
            for unit in postings:
                scores[unit] = scores.get(unit, 0.0) + weight
        return scores


def _make_unit(text: str, item: int) -> _Unit:
    negated = bool(_NEGATION.search(text))
    causal = bool(_CAUSAL.search(text))
    return _Unit(
        item=item, text=text, stems=frozenset(_stems(text, split_keys=True)),
        anchors=anchors(text), negated=negated, zero_result=bool(_ZERO_RESULT.search(text)),
        states_cause=causal or bool(_CAUSE_STATED.search(text)),
        states_conclusion=causal or bool(_CONCLUSION.search(text)),
        hedged=bool(_SPECULATIVE.search(text) or _MAY.search(text)),
        negated_stems=negated_stems(text) if negated else frozenset(),
    )


@lru_cache(maxsize=8192)
def _unit_of(text: str, item: int) -> _Unit:
    # Units are never changed after they are built, so one may serve many indexes.
    return _make_unit(text, item)


_INDEXES: OrderedDict[tuple[tuple[str, str, str], ...], _EvidenceIndex] = OrderedDict()
_INDEX_CACHE_SIZE: Final = 16
_INDEX_LOCK = threading.Lock()


def _index_of(evidence: EvidenceSet) -> _EvidenceIndex:
    """The index of ``evidence``, reused while the same evidence is judged again (a recovery
    loop re-judges a regenerated answer against unchanged evidence)."""
    key = tuple((item.id, item.content, item.type.value) for item in evidence)
    with _INDEX_LOCK:
        index = _INDEXES.get(key)
        if index is not None:
            _INDEXES.move_to_end(key)
            return index
    index = _EvidenceIndex(evidence)
    with _INDEX_LOCK:
        _INDEXES[key] = index
        while len(_INDEXES) > _INDEX_CACHE_SIZE:
            _INDEXES.popitem(last=False)
    return index
