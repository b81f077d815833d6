"""Stage 2: every evidence item as facts, each with a subject and typed fields.

An item's text is read as what it is:

- JSON (an object, an array, JSON lines) is flattened into rows of ``key.path=value`` fields; a
  string leaf that is itself tool text (the ``[{"text": "host=..."}]`` and ``{"result": ...}``
  wrappers agent frameworks send, or any leaf holding ``key=value`` pairs, several lines or
  sentences) is read again as text, so a wrapped result is judged like the bare one;
- a line of two or more ``key=value`` pairs is a row, ``Key: value`` a one-field row;
- a line with a log level or a clock time (log lines, alerts, kubectl events) is a log fact, its
  ``key=value`` pairs its fields;
- anything else is prose, one fact per sentence.

A fact's subjects are the values that say what it is about: the values of identity keys
(``host``, ``service``, ``pod`` ...), and the hosts, addresses and ids it names. Its categories
(:mod:`.categories`) come from its field values and its words. Reading is linear in the text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import EvidenceType
from gsar_otel.core.text import words
from gsar_otel.judges.staged import lexicon, log_fields
from gsar_otel.judges.staged.anchoring import Spec, extract
from gsar_otel.judges.staged.categories import (
    PENDING,
    PENDING_VALUES,
    TOOL_AXES,
    Category,
    categories_of,
    key_reading,
    negate,
    settle,
    value_states,
)
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.segment import sentence_spans
from gsar_otel.judges.staged.tables import find_tables
from gsar_otel.judges.staged.textual import TextFacts, facts_of, line_level

FactKind = Literal["row", "signal", "log", "prose"]

_PAIR: Final = re.compile(r"([A-Za-z_][\w.\-/]{0,80})=(\"[^\"\n]{0,400}\"|[^\s,;]{1,400})")
_KEY_LINE: Final = re.compile(r"([^:\n]{1,60}):\s")
_COLON_PAIR: Final = re.compile(
    r"([A-Za-z_][\w.\-/]{0,40}(?: [\w.\-/]{1,40}){0,2}):\s+(\S[^,]{0,400})")
"""One ``key: value`` of a line of several (``service: checkout-api, namespace: prod``)."""
_LINE_REF: Final = re.compile(r"\[\d{1,6}\]\s")
_LOG_HINT: Final = re.compile(
    r"\b(?:ERROR|ERR|WARN(?:ING)?|INFO|DEBUG|FATAL|CRITICAL|TRACE|Warning|Normal)\b|"
    r"\d{2}:\d{2}:\d{2}")
_KEY_SPLIT: Final = lexicon.KEY_SPLIT
_PART: Final = re.compile(r"(\d{1,6})/(\d{1,6})")
_CAMEL_NAME: Final = re.compile(r"\b[A-Z][a-z]{1,40}(?:[A-Z][a-z]{1,40}){1,8}\b")
_CAMEL_PART: Final = re.compile(r"[A-Z][a-z]{2,40}")
MAX_JSON_CHARS: Final = 5_000_000
"""Larger JSON is read as text lines (``json.loads`` of it would hold the whole tree)."""
MAX_LINE_SCAN: Final = 2000
"""Rows up to this long are scanned once for all their fields' anchors (the scan is cached)."""
MAX_SIGNAL_CHARS: Final = 400
"""Longest line read as one alert, signal or log line without a log head; a longer line with
no fields is a document's prose."""
LOG_HEAD: Final = 40
"""Characters at the start of a line where a log line states its time or level."""
MAX_DEPTH: Final = 12
"""Deeper JSON is cut: its leaves are read as text."""
MAX_CONTEXT: Final = 4
"""Identity fields a nested list's records keep of the records holding them."""
STATE_KEYS: Final = frozenset(root(w) for w in ("status", "state", "phase", "outcome", "result"))
"""Keys whose value is what a record is in (``status=running``)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One ``key=value`` of a fact: the key's stems, the value and its anchors."""

    key: str
    key_stems: frozenset[str]
    value: str
    anchors: tuple[Spec, ...]
    categories: tuple[Category, ...]
    """What the value says ("status=failed")."""
    key_categories: tuple[Category, ...] = ()
    """What the key names ("fired_at", "ready"): read only where no value says its axis."""

    @property
    def shown(self) -> str:
        """``key=value``, as a reason quotes it."""
        return f"{self.key}={self.value}"


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of the evidence (a row, a log line or alert, a prose sentence)."""

    position: int
    ref: str
    kind: FactKind
    text: str
    fields: tuple[Field, ...]
    facts: TextFacts
    stems: frozenset[str]
    """Content stems of the text and of every key."""
    tokens: frozenset[str]
    """Lowercased whole tokens: names match these, never a prefix of one."""
    subjects: frozenset[str]
    """Lowercased values naming what the fact is about (``host=edge-lb-3``, a host it names)."""
    categories: tuple[Category, ...]
    problem_level: bool
    """A log line at level ERROR, WARN, FATAL or CRITICAL."""
    source: EvidenceType


def _colon_pairs(line: str) -> list[tuple[str, str]]:
    """The pairs of a line of two or more comma-separated ``key: value`` pairs, each of them
    one (a value holding a comma, "Genre: rock, pop", makes the line no such record)."""
    if line.count(": ") < 2 or len(line) >= MAX_SIGNAL_CHARS or _LOG_HINT.search(line[:20]):
        return []
    found = [_COLON_PAIR.fullmatch(part.strip()) for part in line.split(", ")]
    return [(m.group(1), m.group(2)) for m in found if m] if all(found) and len(found) > 1 else []


def source_type(item_type: EvidenceType, kind: FactKind, structured: bool) -> EvidenceType:
    """The evidence type of a claim drawn from a fact of ``kind`` of an item of ``item_type``.

    The item's own type when it is not the default ``tool_match``; else a JSON record is
    ``specific_data``, a metric row, log line or alert ``tool_match``, prose ``specific_data``.
    """
    if item_type is not EvidenceType.TOOL_MATCH:
        return item_type
    if kind == "prose" or structured:
        return EvidenceType.SPECIFIC_DATA
    return EvidenceType.TOOL_MATCH


def _field(key: str, value: str, line: tuple[Spec, ...] = ()) -> Field:
    """One field; its anchors are the line's anchors of this key when the line was read
    already (one scan of a row, not one per field), else the value read as ``key=value``."""
    value = value.strip().strip('"')
    lowered = key.lower()
    anchors = tuple(s for s in line if s.key == lowered)
    if not anchors:
        # read as ``key=value`` so a value takes its key's unit (``p99_ms=1374`` is 1.374 s)
        anchors = tuple(s for s in extract(f"{key}={value}") if s.start > len(key))
    # the value's own words ("status=failed"), and a key that names the event it times or
    # counts ("fired_at=14:02", "ready=6/6")
    stems, named = key_reading(key)
    part = _PART.fullmatch(value)  # "ready=0/1": a part of a whole is not the whole's state
    if value.lower() in lexicon.FALSE_VALUES or (part and part.group(1) != part.group(2)):
        named = tuple(o for o in map(negate, named) if o is not None)  # "closed": false is open
    # "not complete" states no completion; a state key's value is read as after "status"
    # (docker's ``STATUS  Up 3 hours``)
    stated = value_states(bool(stems & STATE_KEYS), value)
    if value.lower() in PENDING_VALUES and stems & STATE_KEYS:
        stated = (*stated, PENDING)
    # a key names what holds under a truth, a time or a count (``merged: true``, ``fired_at``);
    # a value in words states its own state, whatever its key names ("Active: failed")
    truth = value.lower() in lexicon.FALSE_VALUES | lexicon.TRUE_VALUES
    keyed = not stated and (truth or not value[:1].isalpha())
    return Field(key, stems, value, anchors, stated, named if keyed else ())


def _render(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _is_text(key: str, value: str) -> bool:
    """A string leaf to read again as text, not as one field's value."""
    leaf = key.rsplit(".", 1)[-1].lower()
    return (leaf in lexicon.WRAPPER_KEYS and len(value.split()) > 2) or "\n" in value or (
        "=" in value and _PAIR.search(value) is not None) or len(sentence_spans(value)) > 1


class _Reader:
    """Reads one evidence item into facts."""

    def __init__(self, ref: str, item_type: EvidenceType, start: int) -> None:
        self.ref, self.item_type, self.start = ref, item_type, start
        self.facts: list[Fact] = []

    def add(self, kind: FactKind, text: str, fields: tuple[Field, ...],
            structured: bool = False) -> None:
        facts = facts_of(text)
        stems = set(facts.stems)
        subjects: set[str] = set()
        categories: dict[Category, None] = {}
        for item in fields:
            stems |= item.key_stems
            if item.key_stems & IDENTITY_KEYS and item.value:
                subjects.add(item.value.lower())
            elif item.value == "/" and item.key_stems & lexicon.MOUNT_KEYS:  # df's "/": the root fs
                subjects.add(lexicon.ROOT_FS)
            categories.update(dict.fromkeys(item.categories))
        settle(categories)  # what succeeded completed; what completed, unless it failed, succeeded
        stated_axes = {axis for axis, _ in categories}
        for item in fields:
            categories.update(dict.fromkeys(c for c in item.key_categories
                                            if c[0] not in stated_axes))
        for spec in facts.anchors:
            if spec.kind in ("HOST", "IPV4", "IPV6", "IDENTIFIER"):
                subjects.add(spec.text.lower())
        lowered = [w.lower() for w in words(text)]
        # "the cache" is said of ``cache-1``, "payments" of ``payments-api``: a name's word parts
        stems.update(root(part) for token in lowered if "-" in token or "_" in token
                     for part in _KEY_SPLIT.split(token) if len(part) > 2 and part.isalpha())
        # and of a CamelCase name: "FailedScheduling" says it failed scheduling
        stems.update(root(part.lower()) for name in _CAMEL_NAME.findall(text)
                     for part in _CAMEL_PART.findall(name))
        if kind != "row":  # a log line or alert says its outcome in words too
            categories.update(dict.fromkeys(c for c in categories_of(lowered, negatable=True)
                                            if kind != "prose" or c[0] not in TOOL_AXES))
            # and in its CamelCase reasons: ``NodeNotReady`` says the node is not ready
            for name in _CAMEL_NAME.findall(text):
                categories.update(dict.fromkeys(categories_of(
                    part.lower() for part in _CAMEL_PART.findall(name))))
        level = line_level(text) if kind in ("log", "signal") else None
        if level in ("warning", "info"):  # a WARN line is a warning: "logged a warning"
            categories.setdefault(("severity", level), None)
        if any(axis == "alert_state" for axis, _ in categories) or (
                kind != "prose" and "alert" in lowered[:3]):
            categories.setdefault(("alert_event", "fired"), None)  # an alert on record fired
        problem = kind in ("log", "signal") and any(
            w in lexicon.PROBLEM_LEVELS for w in (t.lower() for t in text.split()[:6]))
        self.facts.append(Fact(
            self.start + len(self.facts), self.ref, kind, text, fields, facts,
            frozenset(stems), frozenset(t.strip("'\"") for t in lowered)
            | (subjects & {lexicon.ROOT_FS}), frozenset(subjects), tuple(categories), problem,
            source_type(self.item_type, kind, structured)))

    def flush(self, block: list[Field], lines: list[str]) -> None:
        """Consecutive ``Key: value`` lines are one record (``host: db-11`` names them all)."""
        if block:  # "-  ttl: 3" beside "+  ttl: 5": the change of ttl
            keys = log_fields.diff_keys([f.key for f in block])
            self.add("row", "\n".join(lines), tuple(
                f if k == f.key else _field(k, f.value) for f, k in zip(block, keys, strict=True)))
            block.clear()
            lines.clear()

    def read_text(self, content: str, depth: int = 0) -> None:
        signal = self.item_type is EvidenceType.SIGNAL_MATCH
        block: list[Field] = []
        lines: list[str] = []
        texts = log_fields.well_known_lines(content.split("\n"))
        tables = {t.start: t for t in find_tables([t.strip() for t in texts])} \
            if len(texts) > 1 else {}
        skip = 0
        for number, raw in enumerate(texts):
            table = tables.get(number)
            if number < skip:
                continue
            if table is not None:  # a table: a record per row (:mod:`.tables`)
                self.flush(block, lines)
                for row in table.rows:
                    fields = tuple(_field(k, v) for k, v in row)
                    self.add("row", " ".join(f'{k}="{v}"' if " " in v else f"{k}={v}"
                                             for k, v in row), fields)
                skip = table.end
                continue
            line = log_fields.hunk_context(raw.strip())
            ref_mark = _LINE_REF.match(line)
            if ref_mark:
                line = line[ref_mark.end():]
            if not line:
                self.flush(block, lines)
                continue
            if line[0] in "[{" and depth < MAX_DEPTH and self.read_json(line, depth):
                self.flush(block, lines)  # a JSON line ends a Key: value record
                continue
            pairs = _colon_pairs(line)
            if pairs:  # "service: checkout-api, namespace: prod": one record of its pairs
                self.flush(block, lines)
                self.add("row", line, tuple(_field(k, v) for k, v in pairs))
                continue
            if (len(line) < 400 and (match := _KEY_LINE.match(line)) is not None
                    and not match.group(1)[:1].isdigit() and len(match.group(1).split()) <= 5
                    and _PAIR.search(line) is None and not _LOG_HINT.search(line[:20])):
                field = _field(match.group(1), line[match.end():])
                if any(f.key == field.key for f in block):  # "host:" again: the next record
                    self.flush(block, lines)
                block.append(field)
                lines.append(line)
                continue
            self.flush(block, lines)
            pairs = [*log_fields.access_fields(line), *_PAIR.findall(line)]  # a request is a record
            read = log_fields.statement_fields(line)  # a statement is logged at a level: a line
            known = extract(line) if pairs and len(line) <= MAX_LINE_SCAN else ()
            fields = tuple(_field(k, v, known) for k, v in [*read, *pairs])
            # an item may hold a document ("... Officer X is fired at 10:02:11 ..."): a long
            # line with no fields and no log head (a time or level in its first characters) is
            # prose, read one sentence at a time, whatever the item's type
            story = not fields and len(line) > MAX_SIGNAL_CHARS \
                and not _LOG_HINT.search(line[:LOG_HEAD])
            if len(pairs) >= 2 and not signal:
                self.add("row", line, fields)
            elif not story and (signal or read or _LOG_HINT.search(line)):
                self.add("signal" if signal else "log", line, fields)
            elif fields:
                self.add("row", line, fields)
            else:
                for begin, end in sentence_spans(line):
                    self.add("prose", line[begin:end], ())
        self.flush(block, lines)

    def read_json(self, text: str, depth: int) -> bool:
        """Read ``text`` as JSON when it is JSON; False when it is not."""
        if len(text) > MAX_JSON_CHARS:
            return False
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return False
        if not isinstance(value, dict | list):
            return False
        self.walk(value, "", depth)
        return True

    def walk(self, value: object, path: str, depth: int,
             context: tuple[Field, ...] = ()) -> None:
        """One row per record: an object's scalar leaves and those of the objects nested in it,
        with key paths (``metadata.name``, ``status.phase``: one pod); a list's elements are
        records of their own that keep the identity fields of the records holding them (a
        container's ``restartCount`` is its pod's too). Text leaves are read again as text."""
        if (pair := log_fields.sample_pair(value)) is not None:  # [time, "value"]: one sample
            row = (_field(f"{path}.time", pair[0]),
                   _field(log_fields.metric_key(path, context), pair[1]), *context)
            self.add("row", " ".join(f"{f.key}={f.value}" for f in row), row, structured=True)
            return
        if isinstance(value, list):
            for element in value:
                self.walk(element, path, depth + 1, context)
            return
        if not isinstance(value, dict):
            leaf = _render(value)
            if isinstance(value, str) and (not path or _is_text(path, leaf)):
                self.read_text(leaf, depth + 1)
            elif path:
                self.add("row", " ".join(f"{f.key}={f.value}" for f in (
                    _field(path, leaf), *context)), (_field(path, leaf), *context),
                    structured=True)
            return
        fields: list[Field] = []
        nested: list[tuple[str, list[object], int]] = []
        self.gather(value, path, depth, fields, nested)
        held = {f.key for f in fields}
        inherited = tuple(f for f in context if f.key not in held)
        if fields:
            row = (*fields, *inherited)
            shown = " ".join(f'{f.key}="{f.value}"' if " " in f.value else f"{f.key}={f.value}"
                             for f in row)
            self.add("row", shown, row, structured=True)
        identity = (*(f for f in fields if f.key_stems & IDENTITY_KEYS), *inherited)
        for name, inner, level in nested:
            self.walk(inner, name, level, identity[:MAX_CONTEXT])

    def gather(self, value: dict[object, object], path: str, depth: int, fields: list[Field],
               nested: list[tuple[str, list[object], int]]) -> None:
        """The scalar leaves of an object and of the objects nested in it, into ``fields``; its
        lists into ``nested``."""
        for key, inner in value.items():
            name = f"{path}.{key}" if path else str(key)
            if isinstance(inner, dict) and depth < MAX_DEPTH:
                self.gather(inner, name, depth + 1, fields, nested)
            elif (pair := log_fields.sample_pair(inner)) is not None:  # Prometheus's sample
                fields.extend((_field(f"{name}.time", pair[0]),
                               _field(log_fields.metric_key(name, fields), pair[1])))
            elif isinstance(inner, list) and depth < MAX_DEPTH:
                nested.append((name, inner, depth + 1))
            elif isinstance(inner, str) and _is_text(name, inner):
                self.read_text(inner, depth + 1)
            else:  # a tag string ("service:shipping,env:prod") is a field per tag
                tags = log_fields.tag_pairs(inner) if isinstance(inner, str) else []
                fields.extend([_field(k, v) for k, v in tags] or [_field(name, _render(inner))])


def read_item(ref: str, content: str, item_type: EvidenceType, start: int) -> list[Fact]:
    """The facts of one evidence item, numbered from ``start``."""
    reader = _Reader(ref, item_type, start)
    stripped = content.strip()
    if not (stripped[:1] in "[{" and reader.read_json(stripped, 0)):
        reader.read_text(content)
    return reader.facts


def read_evidence(evidence: EvidenceSet) -> tuple[Fact, ...]:
    """The facts of every evidence item, in order; linear in the evidence."""
    facts: list[Fact] = []
    for item in evidence:
        facts.extend(read_item(item.id, item.content, item.type, len(facts)))
    return tuple(facts)
