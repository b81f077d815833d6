"""Stage 3: each claim aligned with the facts that support it, chosen from its own slots.

The evidence's facts are indexed once per judgement (tokens, stems, anchors by value). A claim
looks up only what it states: facts naming its subjects, facts holding its values, facts holding
its content words. Every fact is scored from the claim and that fact alone, and ties are broken
by the fact's text, never by its position or by other facts: so adding an evidence item that
shares nothing with a claim, or reordering the items, never changes what the claim aligns with.

- the *focus* facts are those about the claim's subjects (all of them where any fact names them
  all); without subjects, the best-scoring facts;
- the *support* is the best focus fact and up to two more that add content words it lacks;
  the claim's *coverage* is the share of its content stems the support holds.

The cost is the sum of the posting lists the claim's words and values hit: linear in the
evidence for one claim, with no cap that would switch a check off on large evidence.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel.core.anchors import AnchorIndex
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.anchoring import Spec
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import Fact, read_evidence
from gsar_otel.judges.staged.lexicon import KEY_SYNONYMS, key_stems
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.textual import LEVELS, line_level

MAX_SUPPORT: Final = 3
"""Most facts whose words one claim's coverage is read from."""
SUBJECT_SCORE: Final = 4.0
VALUE_SCORE: Final = 2.0
NAME_SCORE: Final = 1.5
_NONE: Final[frozenset[str]] = frozenset()
RECORD_NOUNS: Final = {kind: frozenset(root(w) for w in words.split()) for kind, words in {
    "log": "line lines entry entries log logs message messages record request requests "
           "response responses",
    "signal": "line lines entry entries message messages record",
    "row": "row rows record records entry entries request requests response responses"}.items()}
"""Nouns for the kind of record a fact is: "the INFO line" is said of a log line, "that row" of
a row, "a 1432-byte response" of an access log's line; no word of the record's own, and no
content the record must hold."""
RELATED: Final = 8
"""Best-scoring facts beyond the support a stated cause or prediction is looked for in."""


@dataclass(frozen=True, slots=True)
class FactIndex:
    """The facts of an evidence set and where each token, stem and anchor value occurs."""

    facts: tuple[Fact, ...]
    by_token: Mapping[str, tuple[int, ...]]
    """Lowercased whole tokens and subject values -> fact positions."""
    by_stem: Mapping[str, tuple[int, ...]]
    anchors: tuple[tuple[int, Spec], ...]
    """Every fact's anchors (text and fields), as (fact position, anchor)."""
    anchor_index: AnchorIndex
    memo: dict[object, object] = dataclasses.field(default_factory=dict, compare=False,
                                                   repr=False)
    """What the checks read off the whole evidence once (its keys, a fact's word fields): kept
    with the index, so it lives and dies with one judgement."""


_QUALIFIED: Final = re.compile(r"\b(?:[a-z_][a-z0-9_]{0,40}\.){1,12}([A-Z][A-Za-z0-9_$]{0,80})")
_POD: Final = re.compile(r"([a-z0-9][a-z0-9-]{0,200}?[a-z0-9])(?:-[bcdfghjklmnpqrstvwxz2-9]{6,10})?"
                        r"-[bcdfghjklmnpqrstvwxz2-9]{5}")
"""A pod Kubernetes named for its workload: ``payments-worker-5c6d7f8b9-lq4wn`` (a Deployment's
name, its ReplicaSet's hash, the pod's own suffix, both in Kubernetes' own alphabet of no
vowels and no 0, 1, 3) or ``node-exporter-x7k2p`` (a DaemonSet's, a Job's)."""
_FILE: Final = re.compile(r"(?:.{0,400}/)?([a-z][a-z0-9_-]{1,80}[a-z0-9])\.[a-z]{1,5}")
"""A path's file, its name before the extension: ``/opt/orders/orders-service.jar``."""


def derived_names(token: str) -> tuple[str, ...]:
    """The names a token carries: the workload of a pod Kubernetes named (``payments-worker``),
    the program a path's file is (``orders-service``); names with a hyphen or underscore only,
    so a plain word is never made a name."""
    found = [m.group(1) for m in (_POD.fullmatch(token), _FILE.fullmatch(token) if "/" in token
                                  else None) if m is not None]
    return tuple(n for n in found if "-" in n or "_" in n)


def build_index(evidence: EvidenceSet) -> FactIndex:
    """Facts of every item, and the lookups over them; linear in the evidence."""
    facts = read_evidence(evidence)
    by_token: dict[str, list[int]] = {}
    by_stem: dict[str, list[int]] = {}
    anchors: list[tuple[int, Spec]] = []
    for fact in facts:
        # a qualified class name names its class: ``java.lang.OutOfMemoryError`` an
        # OutOfMemoryError, ``com.shop.orders.BatchLoader`` a BatchLoader
        named = {m.group(1).lower() for m in _QUALIFIED.finditer(fact.text)} | {
            name for token in fact.tokens for name in derived_names(token)} - fact.tokens
        for token in fact.tokens | fact.subjects | named:
            by_token.setdefault(token, []).append(fact.position)
        for stem_ in fact.stems:
            by_stem.setdefault(stem_, []).append(fact.position)
        seen = {(s.start, s.text) for s in fact.facts.anchors}
        anchors.extend((fact.position, spec) for spec in fact.facts.anchors)
        for field in fact.fields:
            anchors.extend((fact.position, spec) for spec in field.anchors
                           if (spec.start, spec.text) not in seen)
    return FactIndex(facts, {k: tuple(v) for k, v in by_token.items()},
                     {k: tuple(v) for k, v in by_stem.items()}, tuple(anchors),
                     AnchorIndex(spec.raw for _, spec in anchors))


@dataclass(frozen=True, slots=True)
class Alignment:
    """Where a claim stands in the evidence."""

    focus: tuple[int, ...]
    """Facts about the claim's subjects (or, without subjects, its best facts), by position."""
    support: tuple[int, ...]
    """The facts its coverage is read from, best first."""
    coverage: float
    """Share of the claim's content stems the support holds (1.0 with none)."""
    missing: tuple[str, ...]
    """Content stems of the claim the support lacks."""
    value_facts: Mapping[int, tuple[int, ...]]
    """Per claim value (by its place in ``ClaimSlots.values``), every fact holding a match."""
    found_subjects: frozenset[str]
    """The claim's subjects and names that some fact holds."""
    about: tuple[int, ...] = ()
    """Every fact naming any of the claim's subjects, by position."""
    related: tuple[int, ...] = ()
    """The best-scoring facts beyond the support (where a stated cause or prediction may be)."""


def _key(index: FactIndex, position: int) -> tuple[str, str]:
    fact = index.facts[position]
    return (fact.text, fact.ref)


def value_matches(slots: ClaimSlots, index: FactIndex) -> dict[int, tuple[int, ...]]:
    """Per claim value, the facts holding an anchor that matches it (found by value)."""
    found: dict[int, tuple[int, ...]] = {}
    for place, value in enumerate(slots.values):
        hits = index.anchor_index.matches(value.spec.raw, len(index.anchors))
        found[place] = tuple(sorted({index.anchors[h][0] for h in hits}))
    return found


def _parts(stem: str) -> tuple[str, ...]:
    """The roots of a hyphenated word's parts, stopwords aside ("crash-looping": crash, loop;
    "out-of-memory": memory), or none."""
    return tuple(root(p) for p in stem.split("-") if p and p not in STOPWORDS) \
        if "-" in stem else ()


def _covers(claim_stems: frozenset[str], fact_stems: frozenset[str]) -> set[str]:
    """The claim's stems a fact holds, itself, as a key synonym ("http" by ``status``), or, a
    hyphenated word, by all its parts ("crash-looping" by ``CrashLoopBackOff``, "round-trip"
    by "round trip")."""
    return {s for s in claim_stems
            if s in fact_stems or not KEY_SYNONYMS.get(s, _NONE).isdisjoint(fact_stems)
            or ((parts := _parts(s)) and all(p in fact_stems for p in parts))}


def _postings(index: FactIndex, words: Iterable[str], table: str) -> dict[int, int]:
    """Per fact, how many of ``words`` it holds (a stem also by its key synonyms: "request
    rate" finds ``rps``)."""
    lookup = index.by_token if table == "token" else index.by_stem
    counts: dict[int, int] = {}
    for word in words:
        positions = set(lookup.get(word, ()))
        if table == "stem":
            for synonym in KEY_SYNONYMS.get(word, ()):
                positions.update(lookup.get(synonym, ()))
            if parts := _parts(word):  # the facts holding every part of a hyphenated word
                held = [set(lookup.get(p, ())) for p in parts]
                positions.update(set.intersection(*held))
        for position in positions:
            counts[position] = counts.get(position, 0) + 1
    return counts


def align(slots: ClaimSlots, index: FactIndex) -> Alignment:
    """The claim's focus, support and coverage; see the module docstring."""
    subject_hits = _postings(index, slots.subjects, "token")
    name_hits = _postings(index, slots.names, "token")
    stem_hits = _postings(index, slots.stems, "stem")
    values = value_matches(slots, index)
    value_hits: dict[int, int] = {}
    for positions in values.values():
        for position in positions:
            value_hits[position] = value_hits.get(position, 0) + 1
    found = frozenset(s for s in slots.subjects if s in index.by_token
                      or _short_hash(s, index)) | frozenset(
        n for n in slots.names if _name_found(n, index))

    def score(position: int) -> float:
        return (SUBJECT_SCORE * subject_hits.get(position, 0)
                + VALUE_SCORE * value_hits.get(position, 0)
                + NAME_SCORE * name_hits.get(position, 0) + stem_hits.get(position, 0))

    if slots.subjects:
        # Only facts about the claim's own subjects: a row of another host never decides it.
        most = max(subject_hits.values(), default=0)
        focus = [p for p, n in subject_hits.items() if n == most]
    else:
        candidates = set(stem_hits) | set(value_hits) | set(name_hits)
        best = max((score(p) for p in candidates), default=0.0)
        focus = [p for p in candidates if best > 0 and score(p) == best]
        # a tie between a record the claim's words name ("the nginx worker") and one holding
        # only its value (another process's 85.3% CPU): the named record is the claim's
        words_named = max((stem_hits.get(p, 0) for p in focus), default=0)
        focus = [p for p in focus if stem_hits.get(p, 0) == words_named]
    # "partition 1", "incident 20772": the record a key's number names, where one holds it
    numbered = numbered_records(slots.text, index)
    own = numbered_records(slots.text, index, own=True)  # "PID 2210": its row, wherever
    named = [p for p in sorted({*focus, *value_hits}) if p in own] or (
        [p for p in focus or sorted(value_hits) if p in numbered] if numbered else []) or (
        sorted(typed_records(slots.text, index)) if not slots.subjects else [])
    focus = named or focus
    focus.sort(key=lambda p: (-stem_hits.get(p, 0), _key(index, p)))
    pool = focus if slots.subjects else sorted(
        set(stem_hits) | set(focus), key=lambda p: (-score(p), _key(index, p)))
    support: list[int] = []
    covered: set[str] = set()
    claim_stems = slots.stems
    for _ in range(MAX_SUPPORT):
        # the most new words, then the most of the claim's values (the CPU row, not the alert
        # that shares its words); ties keep the pool's order (score, then text)
        best_gain, best_at = (0, 0), None
        for position in pool:
            if position in support:
                continue
            gain = (len(_covers(claim_stems, index.facts[position].stems) - covered),
                    value_hits.get(position, 0))
            if gain > best_gain or (best_at is None and not support):
                best_gain, best_at = gain, position
        if best_at is None or (support and best_gain[0] == 0):
            break
        support.append(best_at)
        covered |= _covers(claim_stems, index.facts[best_at].stems)
    if support:  # "the INFO line", "that row": the noun for the kind of record it is
        covered |= claim_stems & RECORD_NOUNS.get(index.facts[support[0]].kind, _NONE)
    coverage = len(covered) / len(claim_stems) if claim_stems else 1.0
    related = sorted(set(stem_hits) - set(support),
                     key=lambda p: (-score(p), _key(index, p)))[:RELATED]
    return Alignment(tuple(focus), tuple(support), coverage,
                     tuple(sorted(claim_stems - covered)), values, found,
                     tuple(sorted(subject_hits)), tuple(related))


def memo_table(index: FactIndex, name: str) -> dict[Any, Any]:
    """The index's memo table ``name`` (what is read once per evidence or per claim)."""
    table = index.memo.get(name)
    if not isinstance(table, dict):
        table = index.memo[name] = {}
    return table


_HASH: Final = re.compile(r"[0-9a-f]{8,64}")
SHORT_HASH: Final = 7
"""A commit written short (``90c192c``) is the long hash it begins (git's own abbreviation)."""


def _short_hash(subject: str, index: FactIndex) -> bool:
    """Whether ``subject`` abbreviates a hash of the evidence (its first 7 characters on); the
    hashes by their first 7 characters are read once per evidence."""
    if len(subject) < SHORT_HASH or not _HASH.fullmatch(subject.ljust(8, "0")):
        return False
    built = "short hashes" in index.memo
    held = memo_table(index, "short hashes")
    if not built:  # once per evidence, even when it holds no hash
        for token in index.by_token:
            if _HASH.fullmatch(token) and any(ch.isdigit() for ch in token):
                held.setdefault(token[:SHORT_HASH], []).append(token)
    return any(token.startswith(subject) for token in held.get(subject[:SHORT_HASH], ()))


_NUMBERED: Final = re.compile(r"\b([A-Za-z][A-Za-z_-]{1,30})\s{1,3}#?(\d{1,9})\b(?![.:/]\d)")
"""A word and a number of a claim ("partition 1", "incident #20772")."""
_NUMBERING: Final = frozenset({"id", "pid", "number", "num", "no"})
"""Key words of a record's own number (``pid``, ``incident_number``)."""


def numbered_records(text: str, index: FactIndex, own: bool = False) -> set[int]:
    """The records a word and a number of the claim name ("partition 1" of ``PARTITION=1``,
    "backend 43445" of ``pid=43445``): a field holding that number under the word's key or
    under a key of a record's own number; with ``own``, only under the word's own key, a key of
    a record's number ("PID 2210" names its process; "status 503" names no record). Read once
    per claim and evidence (alignment and the value checks both ask)."""
    memo = memo_table(index, "numbered records")
    if (text, own) in memo:
        return set(memo[text, own])
    found: set[int] = set()
    for word, number in _NUMBERED.findall(text):
        stem = root(word.lower())
        found.update(p for p in index.by_token.get(number, ()) if any(
            field.value == number and (
                stem in (leaf := key_stems(field.key.rsplit(".", 1)[-1])) and leaf & _NUMBERING
                if own else stem in field.key_stems or field.key_stems & _NUMBERING)
            for field in index.facts[p].fields))
    memo[text, own] = frozenset(found)
    return found


_TYPED: Final = re.compile(r"\b([A-Za-z][\w-]{0,20})\s{1,3}(?:log\s{1,3})?(?:records?|events?|"
                          r"lines?|entries|entry|rows?|alerts?|messages?)\b")
"""A word before a noun of records: "the A records", "the Warning events", "the ERROR (log)
lines"."""
_TYPE_KEYS: Final = frozenset(root(k) for k in ("type", "kind", "level", "severity", "reason"))


def typed_records(text: str, index: FactIndex) -> set[int]:
    """The records a claim names by the value of their type ("the A records" of dig's
    ``type=A``, "the Warning events" of ``TYPE=Warning``), or log lines by their level written
    in capitals ("the ERROR lines"). Read once per claim and evidence."""
    memo = memo_table(index, "typed records")
    if text in memo:
        return set(memo[text])
    found: set[int] = set()
    for word in _TYPED.findall(text):
        lowered = word.lower()
        level = LEVELS.get(lowered) if word.isupper() else None  # "the ERROR lines"
        found.update(p for p in index.by_token.get(lowered, ()) if any(
            field.value.strip().lower() == lowered and field.key_stems & _TYPE_KEYS
            for field in index.facts[p].fields) or (
            level is not None and index.facts[p].kind == "log"
            and line_level(index.facts[p].text) == level))
    memo[text] = frozenset(found)
    return found


_DEMONYM: Final = ("ians", "ian", "ans", "an", "ese", "ish", "n", "s", "i")
MIN_FUZZY_NAME: Final = 5
"""A prose name this long is found when the evidence holds it with one letter added, dropped,
changed or swapped; shorter names must be found as written."""
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"


def _one_edit(name: str) -> Iterable[str]:
    """Every spelling one edit away from ``name`` (linear in its length, 54 per letter)."""
    for at in range(len(name) + 1):
        head, tail = name[:at], name[at:]
        if tail:
            yield head + tail[1:]
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]
            for letter in _LETTERS:
                yield head + letter + tail[1:]
        for letter in _LETTERS:
            yield head + letter + tail


def _name_found(name: str, index: FactIndex) -> bool:
    """A name as a whole token, or as the place a demonym or plural names ("Australian" by
    "Australia", "Belgians" by "Belgium" is not found: "belgi" is too short a stem to trust)."""
    if name in index.by_token or root(name) in index.by_stem:
        return True
    if len(name) >= MIN_FUZZY_NAME and any(v in index.by_token for v in _one_edit(name)):
        return True  # "Gilan" for "Gillan", "Phiippines": a misspelling, not another name
    return any(name.endswith(end) and len(name) - len(end) >= 4
               and (name[:-len(end)] in index.by_token or name[:-len(end)] + "a" in index.by_token)
               for end in _DEMONYM)
