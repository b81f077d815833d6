"""Causes: a cause a claim states ("failed because it timed out connecting to
`pg-orders-r1.internal`") holds only where a record states it beside the effect, or the output
recording the effect states every word of it over its lines. A cause is compared in the words
tools write it in (:data:`CAUSE_WORDS`: a claim's "timed out" is a log's "timeout")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from gsar_otel.core.text import content_stems
from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.forms import LEVELS, WORDS
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.record import Record
from gsar_otel.judges.records.rules import MAX_ATTRIBUTED, Check
from gsar_otel.judges.records.subjects import Subjects

_NAMEISH_STEM: Final = re.compile(r"[\d_./@-]")
CAUSE_FIRST: Final = frozenset(WORDS["cause_first"])
CAUSE_SHARE: Final = 0.6
"""The share of a stated cause's content words one record of the claim must hold."""


def _failure_line(record: Record) -> bool:
    """True when ``record`` is a log line at an error level (a level key or a level word
    in its text: ``... error failed to connect ...``)."""
    if record.level in ("error", "fatal"):
        return True
    return any(LEVELS.get(word) in ("error", "fatal") for word in record.text[:300].split())


_CAUSE_END: Final = re.compile(r"[;\u2014]|,\s+(?:and|but|so|while|which)\b|\.\s")
"""Where a stated cause's clause ends."""


CAUSE_WORDS: Final = (
    # how a claim says it -> how a tool writes it (one row per way of saying one thing)
    (re.compile(r"\btim(?:ed|es|ing)[ -]out\b", re.IGNORECASE), "timeout"),
    (re.compile(r"\b(?:rejected|refused|blocked)\b", re.IGNORECASE), "denied"),
    (re.compile(r"\b(?:doesn't|does not|didn't|did not) exist\b|\bmissing\b", re.IGNORECASE),
     "not found"),
    (re.compile(r"\bran out of (?:disk|space)\b|\bdisk (?:was |is )?full\b", re.IGNORECASE),
     "no space"),
    (re.compile(r"\bout of memory\b|\boom[- ]killed\b", re.IGNORECASE), "oom"),
)
"""The words of a cause as tools write them: a claim's "timed out" is a log's "timeout"."""
ITEM_CAUSE_SHARE: Final = 1.0
"""The share of a cause's words an output must hold over several lines: every one (one line
needs :data:`CAUSE_SHARE`), as more lines hold more words ("timed out and rejected" beside a
webhook that only denied is no cause stated)."""
ITEM_LINES: Final = 200
"""Most records of one output whose words together may state a cause."""
_PREFIX_STEM: Final = 5
"""Letters a cause's word and a record's must share when one begins the other ("connect",
"connection")."""


_PARTED: Final = re.compile(r"[./_@:-]")


def _same_words(text: str) -> str:
    for said, written in CAUSE_WORDS:
        text = said.sub(written, text)
    return text


def _stated(cause: set[str], stems: frozenset[str]) -> int:
    """How many of the cause's words a record's ``stems`` hold: as written, joined
    (``quality-gate``: ``qualitygate``), as a part of a name (``validate.kyverno.svc-fail``),
    or one beginning the other."""
    held = 0
    parts = {part for s in stems if _PARTED.search(s) for part in _PARTED.split(s)}
    for word in cause:
        joined = word.replace("-", "")
        held += (word in stems or joined in stems or word in parts
                 or (len(word) >= _PREFIX_STEM and any(
                     s.startswith(word) or (len(s) >= _PREFIX_STEM and word.startswith(s))
                     for s in stems)))
    return held


class CauseRule:
    """A stated cause holds only when one record states it (most of its words) beside the
    effect (a word of the effect that is no name): a record naming the cause's subject alone
    ("config push cfg-8070 applied") does not say it caused anything."""

    name = "cause"

    def applies(self, claim: ClaimText) -> bool:
        return claim.cause is not None

    def check(self, claim: ClaimText, subjects: Subjects, index: RecordIndex) -> Iterable[Check]:
        assert claim.cause is not None
        rest = claim.clean[claim.cause.end():]
        # the cause is its own clause: "because it can't reach Postgres (...), and systemd
        # restarts it every 25 s" states one cause and one more fact
        cause_text = rest[:m.start()] if (m := _CAUSE_END.search(rest)) else rest
        effect_text = claim.clean[:claim.cause.start()]
        said = claim.cause.group(0).lower()
        if said.split()[0] in CAUSE_FIRST and not said.endswith(" by"):
            cause_text, effect_text = effect_text, cause_text
        cause = content_stems(_same_words(cause_text))
        effect = content_stems(effect_text)
        if not cause:
            return
        scope = subjects.all or frozenset(range(len(index.records)))
        for i in sorted(scope)[:2000]:
            record_stems = index.stems(i)
            if (_stated(cause, record_stems) >= CAUSE_SHARE * len(cause)
                    and any(not _NAMEISH_STEM.search(w) for w in effect & record_stems)):
                yield Check(self.name, "verified", (index.records[i].item,),
                            "the cause is stated of the claim's record")
                return
        # a failure a log line states ("error failed to connect to postgres: ... connection
        # refused") is the cause of the effect a line of the same log records about the
        # claim's record ("worker.service: Main process exited")
        effects = {index.records[i].item for i in sorted(scope)[:2000]
                   if any(not _NAMEISH_STEM.search(w) for w in effect & index.stems(i))}
        for item in sorted(effects)[:MAX_ATTRIBUTED]:
            if any(_stated(cause, index.stems(j)) >= CAUSE_SHARE * len(cause)
                   and _failure_line(index.records[j]) for j in index.of_item(item)):
                yield Check(self.name, "verified", (item,),
                            "the cause is a failure its own log states beside the effect")
                return
        # one output stating it over several of its lines (a tool's multi-line message)
        for item in sorted(effects)[:MAX_ATTRIBUTED]:
            stems = frozenset().union(*(index.stems(j) for j in index.of_item(item)[:ITEM_LINES]))
            if _stated(cause, stems) >= ITEM_CAUSE_SHARE * len(cause):
                yield Check(self.name, "verified", (item,),
                            "the cause is stated by the output that records the effect")
                return
        yield Check(self.name, "absent", (), "the stated cause is not stated by any record "
                    "of the claim")
