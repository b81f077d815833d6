"""What a claim says of several records or lines at once: a total, a count of lines, "only",
the first or the last.

- **Totals.** "8 restarts in total" (or "a total of", "in all", "altogether", "combined") is
  the sum of the key over the records it speaks of (the claim's subjects', or every record
  holding the key), never one record's ``restarts=3``.
- **Counts of lines.** "api-1 logged 3 connection resets" counts the tool lines about api-1
  stating a connection reset. Where two or more such lines exist, their number is the count;
  one line holding the number ("3 connection resets in the last minute") is left to the
  value check.
- **Only.** "Only api-0 restarted" is contradicted by another record of api-0's kind that
  restarted (a count above zero under the act's key, or the act's category).
- **Highest and lowest.** "node-254 had the highest CPU at 32%" holds only where no other
  record of the key holds more (``cpu_pct=88`` on node-431 contradicts it); "the lowest", "the
  least", "the smallest" where none holds less.
- **First and last.** "The first connection reset on api-0 was at 10:02" is the time of the
  earliest tool line stating a connection reset about api-0; "the last" the latest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.alignment import Alignment, FactIndex
from gsar_otel.judges.staged.anchoring import Spec, agree, number_of
from gsar_otel.judges.staged.check_model import Check, Status
from gsar_otel.judges.staged.claims import ClaimSlots, Value
from gsar_otel.judges.staged.differences import named_rows
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.keyed import keyed_fields
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS, NUMBER_WORDS
from gsar_otel.judges.staged.quantifiers import records_that_did
from gsar_otel.judges.staged.roots import root

_TOTAL: Final = re.compile(r"\b(?:in\s+total|a\s+total\s+of|in\s+all|altogether|combined|"
                           r"totall?ing|total\s+of|the\s+total|the\s+sum\s+of|summed)\b",
                           re.IGNORECASE)
_LINES: Final = re.compile(r"(?<![\w:.,/\-])(\d{1,6}|one|two|three|four|five|six|seven|eight|"
                           r"nine|ten)\s{1,3}((?:[a-z][\w-]{0,40}\s{1,3}){0,2}?[a-z][\w-]{0,40}?)"
                           r"s?\b(?=\s{1,3}(?:on|in|from|at|for|during|were|was|between|before|"
                           r"after|by)\b|\s{0,3}[.,;]|\s{0,3}$)", re.IGNORECASE)
"""A count and the words of what was counted ("3 connection resets", "one OOM kill"); a
number inside a time, an id or a decimal is none."""
_UNIT_TEXT: Final = (
    "utc gmt z am pm ms s sec secs second seconds minute minutes min mins hour hours hr hrs day "
    "days week weeks month months year years percent pct gb mb kb gib mib bytes times x "
    "replicas points point")
_UNITS: Final = frozenset(root(w) for w in _UNIT_TEXT.split())
"""Words after a number that make it a measure, not a count of lines."""
_ONLY: Final = re.compile(r"^\s*only\s+(?:the\s+)?(?:pod|host|node|service|deploy|job)?\s*"
                          r"([a-z0-9][\w.-]*)", re.IGNORECASE)
_ORDINAL: Final = re.compile(r"\b(first|earliest|last|latest|final)\s+((?:[a-z][\w-]*\s+){0,2}"
                             r"[a-z][\w-]*)", re.IGNORECASE)
TIME_KINDS: Final = frozenset({"CLOCK", "TIMESTAMP"})
TOOL_KINDS: Final = frozenset({"row", "signal", "log"})
_STOPS: Final = frozenset({"on", "in", "from", "at", "was", "were", "is", "for", "of", "by",
                           "to", "with", "during", "after", "before"})


def _pool(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> list[Fact]:
    """The tool facts a claim speaks of: about its subjects, or, with none, its support's."""
    positions = alignment.about if slots.subjects else alignment.support
    return [index.facts[p] for p in positions if index.facts[p].kind in TOOL_KINDS]


def check_total(slots: ClaimSlots, alignment: Alignment,
                index: FactIndex) -> tuple[Check, int] | None:
    """A total against the sum of its key over the records; the check and the value's place."""
    if _TOTAL.search(slots.text) is None:
        return None
    pool = (_pool(slots, alignment, index) if slots.subjects else
            [f for f in index.facts if f.kind in TOOL_KINDS])
    for place, value in enumerate(slots.values):
        said = number_of(value.spec)
        if said is None or value.spec.kind != "NUMBER":
            continue
        found = _per_record(value, pool)
        if len(found) < 2:
            continue
        total = sum(found.values())
        status: Status = "MATCH" if abs(total - said) < 1e-9 else "CONFLICT"
        parts = ", ".join(f"{f.ref} {n:g}" for f, n in list(found.items())[:4])
        return Check("value", status, f"says {value.spec.text} in total; the records sum to "
                     f"{total:g} ({parts})", next(iter(found)).ref,
                     next(iter(found)).position), place
    return None


def _per_record(value: Value, facts: Sequence[Fact]) -> dict[Fact, float]:
    """The value of the claim's key in each record holding it (one per record)."""
    found: dict[Fact, float] = {}
    for fact, field, spec in keyed_fields(value, facts):
        number = number_of(spec)
        if number is not None and fact not in found and not field.key_stems & IDENTITY_KEYS:
            found[fact] = number
    return found


def _noun_stems(words: str) -> frozenset[str]:
    return frozenset(root(w) for w in words.lower().split() if w not in STOPWORDS)


def line_count(slots: ClaimSlots, alignment: Alignment,
               index: FactIndex) -> tuple[Check, int] | None:
    """A count of lines against the tool lines stating what was counted; the check and where
    the number stands."""
    said = _LINES.search(slots.text)
    if said is None or _TOTAL.search(slots.text) is not None:
        return None
    number = NUMBER_WORDS.get(said.group(1).lower(), said.group(1))
    stems = _noun_stems(said.group(2))
    first = said.group(2).split()[0].lower()
    if not stems or not number.isdigit() or first in STOPWORDS or root(first) in _UNITS:
        return None
    lines = [f for f in _pool(slots, alignment, index)
             if f.kind in ("log", "signal") and stems <= f.stems]
    if len(lines) < 2 and not (lines and number == "1"):
        return None
    # a line stating the number itself counts for itself ("3 connection resets in 1m")
    if any(a.value == number or number_of(a) == float(number)
           for f in lines for a in f.facts.anchors if a.kind == "NUMBER"):
        return None
    status: Status = "MATCH" if int(number) == len(lines) else "CONFLICT"
    return Check("value", status, f"says {said.group(1)} {said.group(2)}; {len(lines)} lines "
                 f"about it state one ({', '.join(f.ref for f in lines[:4])})", lines[0].ref,
                 lines[0].position), said.start(1)


def check_only(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """"Only X did V" against the other records of X's kind."""
    said = _ONLY.match(slots.text)
    if said is None or said.group(1).lower() not in slots.subjects:
        return None
    subject = said.group(1).lower()
    own = [index.facts[p] for p in alignment.about]
    kinds = {field.key for fact in own for field in fact.fields
             if field.key_stems & IDENTITY_KEYS and field.value.lower() == subject}
    others = [f for f in index.facts if subject not in f.subjects and any(
        field.key in kinds for field in f.fields)]
    for fact, field in records_that_did(slots, others):
        return Check("quantifier", "CONFLICT", f"says only {subject}; {fact.ref} has "
                     f"{field.shown}", fact.ref, fact.position)
    return None


def _time_of(fact: Fact) -> Spec | None:
    return next((s for s in fact.facts.anchors if s.kind in TIME_KINDS), None) or next(
        (s for field in fact.fields for s in field.anchors if s.kind in TIME_KINDS), None)


def _order_key(spec: Spec) -> tuple[int, str]:
    """Times of one kind in their order: a timestamp by its text (ISO), a clock by seconds."""
    return (0, spec.value) if spec.kind == "TIMESTAMP" else (1, f"{float(spec.value):012.3f}")


def check_ordinal(slots: ClaimSlots, alignment: Alignment, index: FactIndex) -> Check | None:
    """The first or last of what the claim names, against the earliest or latest tool line
    stating it."""
    said = _ORDINAL.search(slots.text)
    value = next((v for v in slots.values if v.spec.kind in TIME_KINDS), None)
    if said is None or value is None:
        return None
    words = said.group(2).lower().split()
    cut = next((i for i, w in enumerate(words) if w in _STOPS), len(words))
    stems = _noun_stems(" ".join(words[:cut]))
    timed = [(t, f) for f in _pool(slots, alignment, index)
             if stems and stems <= f.stems and (t := _time_of(f)) is not None]
    kinds = {t.kind for t, _ in timed}
    if len(timed) < 2 or len(kinds) > 1:
        return None
    timed.sort(key=lambda tf: _order_key(tf[0]))
    early = said.group(1).lower() in ("first", "earliest")
    time, fact = timed[0] if early else timed[-1]
    status: Status = "MATCH" if agree(value.spec, time) == "match" else "CONFLICT"
    return Check("value", status, f"says the {said.group(1).lower()} at {value.spec.text}; "
                 f"the {'earliest' if early else 'latest'} is {fact.ref} at {time.text}",
                 fact.ref, fact.position)


_SUPERLATIVE: Final = re.compile(r"\b(?:(second|third|fourth|fifth|2nd|3rd|4th|5th)[\s-]{1,3})?"
                                 r"(highest|largest|biggest|most|greatest|maximum|lowest|"
                                 r"smallest|least|fewest|minimum)\b", re.IGNORECASE)
_RANKS: Final = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
                 "fifth": 5, "5th": 5}
_LOW: Final = frozenset({"lowest", "smallest", "least", "fewest", "minimum"})


def check_superlative(slots: ClaimSlots, alignment: Alignment,
                      index: FactIndex) -> Check | None:
    """"S had the highest K at V" (or "S had the highest K") against K of every record holding
    it: another record above S's (below, for "lowest") contradicts it."""
    said = _SUPERLATIVE.search(slots.text)
    if said is None:
        return None
    tool = [f for f in index.facts if f.kind in TOOL_KINDS]
    # the records of the claim's subjects, or of the one word naming a row ("LSTM has the
    # highest BLEU" of ``model=LSTM``)
    own = set(alignment.about) if slots.subjects else {
        f.position for found in named_rows(slots, words(slots.text), tool).values()
        if len(found) == 1 for f in found}
    if not own:
        return None
    tool = _same_kind(slots, [index.facts[p] for p in own], tool)
    measures = [_per_record(value, tool) for value in slots.values] or [
        _per_measure(slots.text[said.end():said.end() + 40], tool)]
    for found in measures:
        mine = [n for f, n in found.items() if f.position in own]
        if len(found) < 2 or not mine:
            continue
        low = said.group(2).lower() in _LOW
        rank = _RANKS.get((said.group(1) or "").lower(), 1)  # "the second highest"
        ordered = sorted(found.items(), key=lambda fn: fn[1], reverse=not low)
        if rank > len(ordered):
            return None
        fact, wanted = ordered[rank - 1]
        if wanted != mine[0]:
            return Check("quantifier", "CONFLICT", f"says {said.group(0).lower()}; {fact.ref} "
                         f"has {wanted:g}", fact.ref, fact.position)
        return Check("quantifier", "MATCH", f"{said.group(0).lower()}: {fact.ref} has "
                     f"{wanted:g}", fact.ref, fact.position) if not slots.values else None
    return None


def _same_kind(slots: ClaimSlots, own: Sequence[Fact], facts: Sequence[Fact]) -> list[Fact]:
    """The records of the subject's kind: those keyed as its own record names it (``node=``
    for node-0, not a ``host=`` row); all of them where no identity key names it."""
    named = {*slots.subjects, *slots.names}
    kinds = {field.key for fact in own for field in fact.fields
             if field.key_stems & IDENTITY_KEYS and field.value.lower() in named}
    if not kinds:
        return list(facts)
    return [f for f in facts if any(field.key in kinds for field in f.fields)]


def _per_measure(words: str, facts: Sequence[Fact]) -> dict[Fact, float]:
    """"the highest CPU": per record, the number under the key the words after the
    superlative name (``cpu_pct``); of several such keys, the one most records hold (then the
    first by name), so the order of the evidence never picks it."""
    measure = {root(w) for w in re.findall(r"[a-z][a-z0-9]*", words.lower())[:2]} - _STOPS
    by_key: dict[str, dict[Fact, float]] = {}
    for fact in facts:
        for field in fact.fields:
            if field.key_stems & measure and not field.key_stems & IDENTITY_KEYS:
                number = next((n for a in field.anchors if (n := number_of(a)) is not None),
                              None)
                if number is not None:
                    by_key.setdefault(field.key, {}).setdefault(fact, number)
    if not by_key:
        return {}
    return by_key[min(by_key, key=lambda k: (-len(by_key[k]), k))]
