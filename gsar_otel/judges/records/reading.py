"""Evidence read once into records.

Each evidence item is read by the first reader of :data:`READERS` that accepts it, and every
reader returns records (:mod:`.record`): JSON flattened with key paths (:mod:`.json_reader`),
text tables, ``key: value`` blocks, ``key=value`` and log lines, and prose
(:mod:`.text_reader`). Nothing is rendered to text to be read again. A new shape is one reader
in the registry.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from gsar_otel.core.anchors import AnchorKind
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.records.derive import CURRENCIES
from gsar_otel.judges.records.forms import WORDS
from gsar_otel.judges.records.json_reader import read_json
from gsar_otel.judges.records.record import Record, Value, nameable
from gsar_otel.judges.records.text_reader import read_text
from gsar_otel.judges.records.units import column_unit

MAX_RECORDS: Final = 20_000
"""Most records read from one evidence set."""

Reader = Callable[[str, str], "list[Record] | None"]
"""Reads one item's text (with its id) into records, or returns None when it is not its shape."""

READERS: Final[tuple[Reader, ...]] = (read_json, read_text)
"""Readers in the order they are tried; the first that returns records wins."""


SUBJECT_FLAGS: Final = frozenset(WORDS["subject_flags"])
"""Options whose value names what the whole output is about (``redis-cli -h H``)."""
SUBJECT_VERBS: Final = frozenset(WORDS["subject_verbs"])
"""Verbs after which the first operand names it (``kubectl logs P``, ``ssh H``)."""
KIND_WORDS: Final = frozenset(WORDS["kind_words"])
_SOURCE_NAME: Final = re.compile(r"[A-Za-z0-9][\w.@:/-]*[A-Za-z0-9]|\d+")


_URL: Final = re.compile(r"https?://[^/\s]+(/[^?#\s]*)")
_FILE: Final = re.compile(r"(?:^|/)([^/\s]+)\.(?:log|txt|out|err|json)$")
_NODE_HOST: Final = re.compile(r"[A-Za-z][\w-]*@([A-Za-z][\w-]*\d[\w-]*)")


def _path_names(word: str) -> list[str]:
    """What a command's operand names by its path: a log file's name (``rabbit@mq-02.log``:
    ``rabbit@mq-02`` and its host ``mq-02``), a URL's named and numbered segments
    (``/job/infra-terraform/77/consoleText``: ``infra-terraform``, ``77``); a plain word
    (``error.log``) names nothing."""
    url = _URL.match(word)
    if url is not None:
        return [part for part in url.group(1).split("/")
                if (part.isdigit() and len(part) >= 2) or _JOINED.search(part)]
    found = _FILE.search(word)
    if found is None or not _JOINED.search(found.group(1)):
        return []
    node = _NODE_HOST.fullmatch(found.group(1))
    return [found.group(1), *([node.group(1)] if node else [])]


_JOINED: Final = re.compile(r"\w[-_@.]\w")
"""Words joined into a name (``infra-terraform``); an API's ``v1`` is none."""


def source_names(source: str | None) -> set[str]:
    """The names a command line gives its output's subject (:data:`SUBJECT_FLAGS`,
    :data:`SUBJECT_VERBS`), lower-cased; none for a source that is no command line."""
    if not source:
        return set()
    try:
        words = shlex.split(source.split("|", 1)[0])
    except ValueError:
        return set()
    names: set[str] = set()
    for position, word in enumerate(words[:-1]):
        operand = words[position + 1]
        if word in SUBJECT_FLAGS and not operand.startswith("-"):
            names.add(operand)
        elif word in SUBJECT_VERBS:
            rest = [w for w in words[position + 1:] if not w.startswith("-")]
            if rest and rest[0].lower() in KIND_WORDS:
                rest = rest[1:]
            if rest and rest[0].lower() not in KIND_WORDS:
                names.add(rest[0])
    for word in words:  # a file it reads or a URL's path names what it is about
        names.update(_path_names(word))
    if "=" in source:  # --name=value
        names.update(value for flag, _, value in (w.partition("=") for w in words)
                     if flag in SUBJECT_FLAGS and value)
    return {n.lower().rstrip(":") for n in names if _SOURCE_NAME.fullmatch(n)
            and (nameable(n.lower()) or (n.isdigit() and len(n) >= 2))}


def _in_tool_units(record: Record, source: str | None) -> None:
    """Give the bare numbers of the columns ``source``'s tool writes in a unit it does not
    name that unit (:data:`~gsar_otel.judges.records.units.COLUMN_UNITS`)."""
    if not source:
        return
    for position, value in enumerate(record.values):
        unit = column_unit(source, value.key)
        if unit is not None:
            record.values[position] = Value(value.key, value.raw, tuple(
                replace(a, unit=unit) if a.kind is AnchorKind.NUMBER and not a.unit else a
                for a in value.anchors))


def read_evidence(evidence: EvidenceSet) -> list[Record]:
    """Every record of every item, in order, at most :data:`MAX_RECORDS`; the names the
    item's command line gives its subject are names of each of its records."""
    records: list[Record] = []
    for evidence_item in evidence:
        named = source_names(evidence_item.source)
        for reader in READERS:
            found = reader(evidence_item.id, evidence_item.content)
            if found:
                for record in found:
                    record.names |= named
                    _in_tool_units(record, evidence_item.source)
                records.extend(found)
                break
        if len(records) >= MAX_RECORDS:
            records = records[:MAX_RECORDS]
            break
    # one payment API's items name their currency on some objects only (a subscription's
    # price does, its invoice does not): where the evidence names a currency kept in cents
    # and none other, every record's amounts are in its minor unit
    named_currencies = {v.raw.lower() for record in records for v in record.values
                        if v.key_words & {"currency"} and v.raw.isalpha()}
    if named_currencies and named_currencies <= CURRENCIES:
        for record in records:
            record.currency = True
    return records
