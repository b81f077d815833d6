"""Records: what an evidence item is read into (a row, an object, a line, a sentence), with
its values typed once and the names it carries."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors
from gsar_otel.judges.records.forms import LEVELS, NAME_KEYS, STATE_WORDS, STOP_NAMES
from gsar_otel.judges.records.units import record_anchor

_UNTYPED: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.CLOCK,
                             AnchorKind.TIMESTAMP, AnchorKind.DATE, AnchorKind.DURATION,
                             AnchorKind.QUOTED, AnchorKind.HTTP_STATUS, AnchorKind.PORT,
                             AnchorKind.PERCENTILE, AnchorKind.HTTP_CLASS})
"""Anchor kinds that are measures, not names."""
NAME_TOKEN: Final = re.compile(
    r"(?<![\w@.-])(?=[\w.@/:-]*[a-z])[a-z0-9][\w.@/:-]*[a-z0-9_]", re.IGNORECASE)
"""A token that can name a record: letters and digits joined by ``-_.@/:``."""
NUMBERED: Final = re.compile(
    r"\b(?:ticket|build|pull request|pr|merge request|mr|order|deploy|deployment|incident|"
    r"issue|job|run|release|alert|case|invoice|payment|change|batch|task|pipeline|commit|"
    r"request|user|customer|account|transaction|refund|shipment|session|story)\s+#?(\d{2,20})\b",
    re.IGNORECASE)
"""A numbered thing prose names by its kind and number: the number names the record."""
AGENT: Final = re.compile(
    r"\b(?!(?:caused|followed|driven|triggered|affected|impacted|used|consumed|held|blocked|"
    r"limited|bounded|backed|replaced|signed|owned|hit)\b)([a-z]+ed) by @?([a-z][\w.@-]*[a-z0-9])",
    re.IGNORECASE)
"""A verb's agent: "closed by netops" (not a cause: "caused by", "blocked by")."""
_NUMBER_ID: Final = re.compile(r"\d{4,20}|\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?")
"""A value that names its record under a naming key though it holds no letter: a long number
(``user 51277``) or an address (``ip=10.20.1.15``)."""
REQUEST_KEYS: Final = frozenset({"request", "request_line", "req"})
"""Keys of an HTTP request line: the record is named by the request's path."""
_REQUEST: Final = re.compile(r"^[A-Z]{3,7} (/[^\s?]*)")
_ARROW: Final = re.compile(r"([^\s=:>]+)\s*(?:->|=>|\u2192)\s*([^\s,;]+)")
"""A value written as a change: ``max_size = 20 -> 12``."""
_NODE: Final = re.compile(r"[A-Za-z][\w-]*@([A-Za-z][\w-]*\d[\w-]*)")
"""A node name, ``name@host`` with no dots (an e-mail address has them)."""
_NAMEISH: Final = re.compile(r"[-_.@/:]|\d")
_KEY_SPLIT: Final = re.compile(r"[._\-\s\[\]/()]+|(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Value:
    """One value of a record: its key path (``""`` for prose), its text and its typed anchors."""

    key: str
    raw: str
    anchors: tuple[Anchor, ...]

    @property
    def key_words(self) -> frozenset[str]:
        """The words of the key path, lower-cased (``restartCount`` -> restart, count)."""
        return key_words(self.key)


@dataclass(slots=True)
class Record:
    """One row, object, line or sentence of an evidence item."""

    item: str
    group: str
    """The table, array or item the record is a row of (records of one group share columns)."""
    values: list[Value] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    text: str = ""
    """The record's own text, lower-cased, for words and states."""
    changes: list[tuple[Anchor, Anchor]] = field(default_factory=list)
    """Values that changed, old and new (``max_size = 20 -> 12``)."""
    currency: bool = False
    """Its item names a currency kept in cents (``"currency": "usd"``): its amounts are minor
    units."""

    def add(self, key: str, raw: object) -> None:
        """Add a value under ``key`` (its anchors read with the key as context)."""
        text = raw if isinstance(raw, str) else json_text(raw)
        text = text.strip()
        if not text:
            return
        key_l = key.lower()
        fraction = _OF_WHOLE.fullmatch(text) if "/" in text else None
        if fraction is not None:  # "26 GiB/30 GiB", "10400/15600 MHz": a part and its whole
            unit = fraction.group(4)
            self.add(f"{key_l}.used", f"{fraction.group(1)} {fraction.group(2) or unit}")
            self.add(f"{key_l}.total", f"{fraction.group(3)} {unit}")
            return
        anchors, names, changes, plain = _reading(key_l, text)
        self.values.append(Value(key_l, text, anchors))
        self.text += (" " if self.text else "") + text.lower()
        self.names.update(names)
        if plain:
            return  # a plain number names nothing else and changes nothing
        self.changes.extend(changes)
        if key_l:
            return  # its tokens' names are among ``names``
        # prose names numbered things: "Ticket 6513", "Pull request 9130"
        self.names.update(m.group(1) for m in NUMBERED.finditer(text))
        for actor in AGENT.finditer(text):  # and says who did it: "closed by team-60"
            self.values.append(Value("by", actor.group(2).lower().rstrip("."), ()))
        self.names.update(_token_names(text, frozenset(v.key for v in self.values)))

    @property
    def level(self) -> str | None:
        """The log level the record was written at, if it is a log line."""
        for value in self.values:
            if value.key in ("level", "severity", "lvl", "loglevel", "log.level"):
                return LEVELS.get(value.raw.lower().strip("[]"))
        return None


_OF_WHOLE: Final = re.compile(r"(\d[\d.,]*)\s?([A-Za-z]{1,4})?\s?/\s?(\d[\d.,]*)\s?([A-Za-z]{1,4})")
"""A value written as a part of a whole in a unit (Nomad's ``26 GiB/30 GiB``, ``docker
stats``' ``1.41GiB / 2GiB``): the part and the whole are values of their own."""


def json_text(raw: object) -> str:
    """A JSON value as ``json.dumps`` writes it (an int or a finite float as ``repr`` writes
    it, without the encoder's cost)."""
    if type(raw) is int or (type(raw) is float and math.isfinite(raw)):
        return repr(raw)
    return json.dumps(raw)


def _anchors(key_l: str, text: str) -> tuple[Anchor, ...]:
    """The typed anchors of a value, read with its key's last part as context."""
    last, words, _ = _key_info(key_l)
    is_short = short(text)
    anchors = extract_anchors(f"{last}={text}" if key_l and is_short else text)
    if key_l and is_short:
        anchors = tuple(a for a in anchors if a.start >= len(last) + 1)
    anchors = tuple(record_anchor(words, text, a) for a in anchors)
    anchors += tuple(  # ":214" of "CartFragment.kt:214" is also the number 214
        Anchor(AnchorKind.NUMBER, a.text.lstrip(":"), float(a.text.lstrip(":")), None,
               a.start, a.end, a.key, None)
        for a in anchors if a.kind is AnchorKind.PORT and a.text.lstrip(":").isdigit())
    return anchors


def _changes(text: str) -> list[tuple[Anchor, Anchor]]:
    """The values ``text`` writes as changed, old and new (``max_size = 20 -> 12``)."""
    changes = []
    for change in _ARROW.finditer(text):
        old, new = extract_anchors(change.group(1)), extract_anchors(change.group(2))
        if len(old) == 1 and len(new) == 1 and old[0].kind is new[0].kind:
            changes.append((old[0], new[0]))
    return changes


def _token_names(text: str, keys: frozenset[str]) -> list[str]:
    """The names the tokens of ``text`` give its record, in order (not the keys of its own
    pairs: "cpu_pct=97.2" names no record)."""
    names: list[str] = []
    for token in NAME_TOKEN.findall(text):
        token = token.rstrip(".:/")
        if token.lower() in keys:
            continue
        node = _NODE.fullmatch(token)
        if node is not None:  # an Erlang node "rabbit@mq-03" is named by its host too
            names.extend((token.lower(), node.group(1).lower()))
            continue
        if _NAMEISH.search(token) and nameable(token.lower()) and not _measure(token):
            names.append(token.lower())
            if "/" in token.strip("/"):  # "system.slice/kibana.service": kibana.service
                names.append(token.lower().rsplit("/", 1)[-1])
    return names


def _read_value(key_l: str, text: str) -> tuple[tuple[Anchor, ...], tuple[str, ...],
                                                tuple[tuple[Anchor, Anchor], ...], bool]:
    """What a value under a key holds, a function of the key and the text alone: its
    anchors, the names the key, the request line and (keyed values only) its tokens give its
    record, in the order they are added, its changes, and whether it is a plain number (which
    names nothing else and changes nothing)."""
    last, _, naming = _key_info(key_l)
    anchors = _anchors(key_l, text)
    if _PLAIN_NUMBER.fullmatch(text):
        # a number under a naming key is an id: "user 51277"
        return anchors, (text,) if naming and _NUMBER_ID.fullmatch(text) else (), (), True
    names: list[str] = []
    request = _REQUEST.match(text) if last in REQUEST_KEYS else None
    if request is not None and len(request.group(1)) > 1:  # "GET /v1/orders HTTP/1.1"
        path = request.group(1).lower()
        names.extend({path, path.strip("/"), path.rstrip("/").rsplit("/", 1)[-1]})
    name = text.lower()
    if naming and (nameable(name) or _NUMBER_ID.fullmatch(name)):
        names.append(name)  # a number under a naming key is an id: "user 51277"
        last_part = name.rstrip("/").rsplit("/", 1)[-1].strip()
        if "/" in name.strip("/") and nameable(last_part):  # a path: also by its last part
            names.append(last_part)
    if key_l:  # a keyed value's tokens may name its record too (prose's depend on its keys)
        names += _token_names(text, frozenset())
    return anchors, tuple(names), tuple(_changes(text)), False


READ_CACHE_CHARS: Final = 256
"""Values up to this long have their reading remembered (a table's cells, which repeat: a
status, a region, a time); longer ones (messages, documents) are read afresh."""
_remembered: Final = lru_cache(maxsize=16384)(_read_value)


def _reading(key_l: str, text: str) -> tuple[tuple[Anchor, ...], tuple[str, ...],
                                             tuple[tuple[Anchor, Anchor], ...], bool]:
    """:func:`_read_value`, remembered for values up to :data:`READ_CACHE_CHARS` long."""
    return (_remembered(key_l, text) if len(text) <= READ_CACHE_CHARS
            else _read_value(key_l, text))


_PLAIN_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?")


@lru_cache(maxsize=8192)
def _key_info(key: str) -> tuple[str, frozenset[str], bool]:
    """A lower-cased key's last part, its words, and whether it names its record."""
    last = last_key(key)
    words = key_words(key)
    return last, words, last.replace("_", "") in NAME_KEYS or any(w in NAME_KEYS for w in words)


@lru_cache(maxsize=8192)
def key_words(key: str) -> frozenset[str]:
    """The words of a key path, lower-cased, digits and one-letter parts dropped (cached: a
    table's keys repeat on every row)."""
    return frozenset(w.lower() for w in _KEY_SPLIT.split(key)
                     if len(w) > 1 and not w.isdigit())


def last_key(key: str) -> str:
    return key.rsplit(".", 1)[-1] if key else ""


def short(text: str) -> bool:
    return len(text) <= 80 and "\n" not in text


def nameable(name: str) -> bool:
    return (2 <= len(name) <= 120 and name not in STOP_NAMES and name not in STATE_WORDS
            and any(c.isalpha() for c in name))


def _measure(token: str) -> bool:
    anchors = extract_anchors(token)
    return bool(anchors) and all(a.kind in _UNTYPED for a in anchors)


TIME_WORDS: Final = frozenset({"time", "ts", "timestamp", "date", "stamp", "seen", "created",
                                "updated", "started", "finished", "when", "epoch", "attempt",
                                "expires", "deadline", "due", "start", "end", "until", "since",
                                "renewal", "trial", "period", "reset", "resets", "expiry",
                                "expiration", "scheduled", "eta", "renews"})
"""Key words of times: a number under such a key may be an epoch time."""


@lru_cache(maxsize=8192)
def timeish(path: str) -> bool:
    """A key whose number may be an epoch time: one of its words names a time (``ts``,
    ``timestamp``, ``created``, ``lastSeen``), it ends in ``_at``/``At``, or it is an event's
    participle alone (Flower's ``received``, ``failed``, ``succeeded``)."""
    last = last_key(path)
    return (bool(key_words(last) & TIME_WORDS) or last.endswith(("_at", "At"))
            or bool(_EVENT_KEY.fullmatch(last)))


_EVENT_KEY: Final = re.compile(r"[A-Za-z]{3,}ed")


def epoch(value: object) -> str | None:
    """An epoch time (seconds or milliseconds, 1998-2049) as an ISO timestamp, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if 1e12 <= number < 2.5e12:
        number /= 1000.0
    if not 9e8 <= number < 2.5e9:
        return None
    moment = datetime.fromtimestamp(number, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (
        f".{moment.microsecond // 1000:03d}" if moment.microsecond else "") + "Z"
