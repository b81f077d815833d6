"""Stage 3a: the evidence as units, indexed once per judge call.

A unit is a row of a tool result (``key=value`` pairs, or JSON), a ``Key: value`` line, a log
line or alert, or one sentence of prose. The index maps content stems and name tokens to units
and keeps every unit's anchors by kind, so a claim is aligned by looking words up, never by
scanning all the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from gsar_otel.core.anchors import AnchorIndex
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import EvidenceType
from gsar_otel.core.text import stem, words
from gsar_otel.judges.staged.anchoring import Spec, extract
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS
from gsar_otel.judges.staged.segment import sentence_spans
from gsar_otel.judges.staged.textual import TextFacts, facts_of

UnitKind = Literal["row", "signal", "log", "prose"]

_PAIR: Final = re.compile(r"([A-Za-z_][\w.\-]{0,60})=(\"[^\"\n]{0,200}\"|[^\s,;]{1,200})")
_JSON_PAIR: Final = re.compile(
    r"\"([A-Za-z_][\w.\-]{0,60})\"\s?:\s?(\"[^\"\n]{0,200}\"|[^\s,}\]]{1,60})")
_KEY_LINE: Final = re.compile(r"([^:\n]{1,60}):\s")
_LINE_REF: Final = re.compile(r"\[\d{1,6}\]\s")
_LOG_HINT: Final = re.compile(r"\b(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|CRITICAL)\b|"
                              r"\d{2}:\d{2}:\d{2}")
_KEY_SPLIT: Final = re.compile(r"[_.\-]")


@dataclass(frozen=True, slots=True)
class Pair:
    """One ``key=value`` of a row: the key's stems and the value's anchors."""

    key: str
    key_stems: frozenset[str]
    value: str
    anchors: tuple[Spec, ...]


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of evidence."""

    position: int
    ref: str
    kind: UnitKind
    facts: TextFacts
    stems: frozenset[str]
    pairs: tuple[Pair, ...]
    tokens: frozenset[str]
    """Lowercased whole tokens: names match these, never a prefix of one."""
    subjects: frozenset[str]
    """Values naming what the unit is about (``host=edge-lb-3``), lowercased."""
    source: EvidenceType = EvidenceType.TOOL_MATCH
    """The evidence type of a claim drawn from this unit (see :func:`source_type`)."""


def source_type(item_type: EvidenceType, kind: UnitKind, structured: bool) -> EvidenceType:
    """The evidence type of a claim drawn from a unit of ``kind`` of an item of ``item_type``.

    The item's own type when it is not the default ``tool_match`` (one the caller recorded,
    such as ``specific_data`` for a step's typed field, or ``signal_match``, which coercion
    infers for alerts); else by the unit: a JSON object or array is a structured step output
    (``specific_data``), a metric row or log line is tool output (``tool_match``), prose is
    ``specific_data``.
    """
    if item_type is not EvidenceType.TOOL_MATCH:
        return item_type
    if kind == "prose" or structured:
        return EvidenceType.SPECIFIC_DATA
    return EvidenceType.TOOL_MATCH


@dataclass(frozen=True, slots=True)
class EvidenceIndex:
    """Units, and where each stem, name and anchor kind occurs."""

    units: tuple[Unit, ...]
    by_stem: Mapping[str, tuple[int, ...]]
    by_kind: Mapping[str, tuple[tuple[int, Spec], ...]]
    subjects: frozenset[str] = field(default_factory=frozenset)
    pairs: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    """Every adjacent stem pair of every unit."""
    anchors: tuple[tuple[int, Spec], ...] = ()
    """Every unit's anchors, as (unit position, anchor), in order."""
    anchor_index: AnchorIndex = field(default_factory=lambda: AnchorIndex(()))
    """``anchors`` filed by value: a claim anchor finds its matches without a scan."""

    def frequency(self, stem_: str) -> int:
        """Number of units holding ``stem_``."""
        return len(self.by_stem.get(stem_, ()))


def key_stems(key: str) -> frozenset[str]:
    """Stems of a row key's parts: ``http_5xx_rate`` -> http, 5xx, rat."""
    return frozenset(stem(part) for part in _KEY_SPLIT.split(key.lower()) if part)


def _pairs(text: str) -> tuple[Pair, ...]:
    found = [(m.group(1), m.group(2)) for m in _PAIR.finditer(text)]
    if len(found) < 2 and text.lstrip().startswith(("{", "[")):
        found = [(m.group(1), m.group(2)) for m in _JSON_PAIR.finditer(text)]
    return tuple(Pair(key, key_stems(key), value.strip('"'), extract(value.strip('"')))
                 for key, value in found)


def _key_line(text: str) -> tuple[Pair, ...]:
    match = _KEY_LINE.match(text)
    if match is None or any(ch.isdigit() for ch in match.group(1)[:1]):
        return ()
    value = text[match.end():].strip()
    return (Pair(match.group(1), frozenset(stem(w) for w in words(match.group(1))), value,
                 extract(value)),)


def _unit(position: int, ref: str, kind: UnitKind, text: str,
          pairs: tuple[Pair, ...], source: EvidenceType) -> Unit:
    facts = facts_of(text)
    stems = set(facts.stems)
    subjects: set[str] = set()
    for pair in pairs:
        stems |= pair.key_stems
        if pair.key_stems & IDENTITY_KEYS:
            subjects.add(pair.value.lower())
    for spec in facts.anchors:
        if spec.kind in ("HOST", "IPV4", "IPV6"):
            subjects.add(spec.text.lower())
    tokens = frozenset(token.strip("'\"") for token in words(text))
    return Unit(position, ref, kind, facts, frozenset(stems), pairs, tokens,
                frozenset(subjects), source)


def _units_of(ref: str, content: str, item_type: EvidenceType, start: int) -> list[Unit]:
    units: list[Unit] = []
    signal = item_type is EvidenceType.SIGNAL_MATCH

    def add(kind: UnitKind, text: str, pairs: tuple[Pair, ...],
            structured: bool = False) -> None:
        units.append(_unit(start + len(units), ref, kind, text, pairs,
                           source_type(item_type, kind, structured)))

    for line in content.split("\n"):
        line = line.strip()
        ref_mark = _LINE_REF.match(line)
        if ref_mark:
            line = line[ref_mark.end():]
        if not line:
            continue
        pairs = _pairs(line)
        # JSON: an object or array holding "key": value pairs (not "[web-1] status=500")
        structured = line.startswith(("{", "[")) and _JSON_PAIR.search(line) is not None
        if len(pairs) >= 2 or (structured and pairs):
            add("signal" if signal else "row", line, pairs, structured)
            continue
        if signal or _LOG_HINT.search(line):
            add("signal" if signal else "log", line, pairs)
            continue
        key_line = _key_line(line) if len(line) < 400 else ()
        if key_line:
            add("row", line, key_line)
            continue
        for begin, end in sentence_spans(line):
            add("prose", line[begin:end], ())
    return units


def build_index(evidence: EvidenceSet) -> EvidenceIndex:
    """Units of every evidence item, and the lookups over them; linear in the evidence."""
    units: list[Unit] = []
    for item in evidence:
        units.extend(_units_of(item.id, item.content, item.type, len(units)))
    by_stem: dict[str, list[int]] = {}
    by_kind: dict[str, list[tuple[int, Spec]]] = {}
    subjects: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    anchors: list[tuple[int, Spec]] = []
    for unit in units:
        pairs |= unit.facts.pairs
        for word in unit.stems | unit.tokens:
            by_stem.setdefault(word, []).append(unit.position)
        for spec in unit.facts.anchors:
            by_kind.setdefault(spec.kind, []).append((unit.position, spec))
            anchors.append((unit.position, spec))
        subjects |= unit.subjects
    return EvidenceIndex(
        units=tuple(units),
        by_stem={k: tuple(v) for k, v in by_stem.items()},
        by_kind={k: tuple(v) for k, v in by_kind.items()},
        subjects=frozenset(subjects),
        pairs=frozenset(pairs),
        anchors=tuple(anchors),
        anchor_index=AnchorIndex(spec.raw for _, spec in anchors),
    )
