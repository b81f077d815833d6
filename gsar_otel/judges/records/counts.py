"""Counts of a class of records: "three 5xx responses", "5 server errors", "two 404s", "4
failed jobs". The class the count is of is a row of :data:`COUNTED`; a count of such a class is
checked against how many records of the claim's scope are in it, not against any number the
evidence happens to hold (a 3 elsewhere does not make "three 5xx responses" true).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind
from gsar_otel.judges.records.forms import LEVELS, STATE_TABLES, WORDS, State
from gsar_otel.judges.records.record import Record

NUMBER_WORDS: Final[dict[str, int]] = dict(WORDS["number_words"])
_NUMBER_WORD: Final = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
_STATUS_KEYS: Final = frozenset({"status", "code", "statuscode", "status_code", "response_code"})


def _status(record: Record) -> str | None:
    """The HTTP status a record holds under a status key, as written."""
    for value in record.values:
        last = value.key.rsplit(".", 1)[-1].replace("-", "_")
        if last in _STATUS_KEYS and re.fullmatch(r"[1-5]\d\d", value.raw):
            return value.raw
    return None


Predicate = Callable[[Record, set[State]], bool]


def _class(digit: str) -> Predicate:
    return lambda record, _: (_status(record) or " ")[0] == digit


def _code(code: str) -> Predicate:
    return lambda record, _: _status(record) == code


def _in_state(state: State) -> Predicate:
    return lambda _, states: state in states


def _at_level(level: str) -> Predicate:
    return lambda record, _: record.level == level


COUNTED: Final[tuple[tuple[re.Pattern[str], str, Callable[[re.Match[str]], Predicate]], ...]] = (
    # (pattern of the words after a count, the class's name, the class it counts)
    (re.compile(r"([1-5])xx\b"), "status class", lambda m: _class(m.group(1))),
    (re.compile(r"([1-5]\d\d)s?\b"), "status", lambda m: _code(m.group(1))),
    (re.compile(r"server[- ]errors?\b"), "status class", lambda _: _class("5")),
    (re.compile(r"client[- ]errors?\b"), "status class", lambda _: _class("4")),
)
"""Classes a count names by the words after it: HTTP statuses and their classes. States
(``failed``, ``CrashLoopBackOff``) and log levels (``ERROR lines``) are read from the state and
level tables."""
_AFTER: Final = re.compile(r"\s+(?:(?:more|other|new|of\s+the|were|are)\s+)?([\w-]+(?:\s+[\w-]+)?)")


def counted_class(text: str, end: int) -> tuple[str, Predicate] | None:
    """The class of records a count ending at ``end`` counts, from the words after it."""
    after = _AFTER.match(text, end)
    if after is None:
        return None
    words = after.group(1).lower()
    for pattern, name, read in COUNTED:
        found = pattern.match(words)
        if found is not None:
            return name, read(found)
    first = words.split()[0]
    joined = first.replace("-", "").replace("_", "")
    for table in STATE_TABLES:
        state = table.get(first) or table.get(joined)
        if state is not None:
            return state.name, _in_state(state)
    level = LEVELS.get(first)
    if level is not None:
        return level, _at_level(level)
    return None


def word_counts(text: str) -> list[Anchor]:
    """Counts written as words and followed by a class of :func:`counted_class` ("three 5xx
    responses"), as numbers."""
    found = []
    for match in _NUMBER_WORD.finditer(text):
        if counted_class(text, match.end()) is not None:
            number = float(NUMBER_WORDS[match.group(1).lower()])
            found.append(Anchor(AnchorKind.NUMBER, f"{number:.0f}", number, None,
                                match.start(), match.end(), None, None))
    return found


def class_counts(records: Iterable[tuple[Record, set[State]]], predicate: Predicate
                 ) -> list[int]:
    """How many records of each group (table, array, item) are in a class (groups with none
    left out), and the total over the groups."""
    per_group: dict[str, int] = {}
    for record, states in records:
        if predicate(record, states):
            per_group[record.group] = per_group.get(record.group, 0) + 1
    counts = list(per_group.values())
    return [*counts, sum(counts)] if len(counts) > 1 else counts
