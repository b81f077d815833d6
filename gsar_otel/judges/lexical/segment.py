"""The answer side: an answer split into claims (sentences, conjoined clauses), the facts of one
claim (anchors, names, quotes, causal / speculative / negation markers) and framing sentences.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from gsar_otel.core.text import STOPWORDS, Anchors, anchors, split_sentences, stem, words
from gsar_otel.judges.lexical.lexicon import (
    _ANAPHORA,
    _AUXILIARIES,
    _CAUSAL,
    _CLAUSE_JOIN,
    _CONCLUSION,
    _HOST,
    _IRREGULAR_VERBS,
    _LETTERS,
    _MAY,
    _META,
    _MONTHS,
    _NAME,
    _NEGATION,
    _QUOTED,
    _RELATIVE,
    _SPECULATIVE,
    _TIME_WORDS,
    _TITLES,
    _TOKEN,
    _is_number_token,
    _stems,
)


def _is_predicate(lower: str) -> bool:
    """A verb-like token: an auxiliary, an irregular verb, or a regular past form."""
    return (lower in _AUXILIARIES or lower in _IRREGULAR_VERBS
            or (len(lower) > 4 and lower.endswith("ed") and lower.isalpha()))


class _Clauses:
    """Where a sentence's tokens are and what they are, read once, so each clause join is
    judged in constant time: re-reading the left side of every join ("cpu high and " x 8,000:
    45 s) or the rest of the sentence after it ("and was the " x 8,000: 38 s) was quadratic.
    No token spans a join (a join starts with ``;``, ``,`` or a space), so counting the tokens
    between two offsets equals tokenising the text between them."""

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []
        self.lowers: list[str] = []
        self.content = [0]
        self.verbs = [0]
        for match in _TOKEN.finditer(text):
            lower = match.group(0).lower()
            self.starts.append(match.start())
            self.lowers.append(lower)
            self.content.append(self.content[-1] + (lower not in STOPWORDS))
            self.verbs.append(self.verbs[-1] + _is_predicate(lower))

    def left(self, start: int, end: int) -> bool:
        """``text[start:end]`` has two content words and a verb."""
        first = bisect.bisect_left(self.starts, start)
        last = bisect.bisect_left(self.starts, end)
        return (self.content[last] - self.content[first] >= 2
                and self.verbs[last] > self.verbs[first])

    def right(self, start: int) -> bool:
        """``text[start:]`` starts a statement of its own ("request rate dropped ..."), not a
        continuation of a list ("television actress who appeared ..."): a verb within its first
        five tokens, no relative pronoun before it, and two content words."""
        first = bisect.bisect_left(self.starts, start)
        if self.content[-1] - self.content[first] < 2:
            return False
        for lower in self.lowers[first:first + 5]:
            if _is_predicate(lower):
                return True
            if lower in _RELATIVE:
                return False
        return False


def _top_level_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` outside brackets and quotes, where clause joins may be cut."""
    spans: list[tuple[int, int]] = []
    depth, quoted, start = 0, False, 0
    for position, char in enumerate(text):
        if char in "([{":
            if depth == 0 and not quoted:
                spans.append((start, position))
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
            if depth == 0 and not quoted:
                start = position + 1
        elif char in "\"“”" and depth == 0:
            if not quoted:
                spans.append((start, position))
            else:
                start = position + 1
            quoted = not quoted
    if depth == 0 and not quoted:
        spans.append((start, len(text)))
    return spans


def split_claims(synthesis: str) -> list[str]:
    """The atomic claims of an answer: its sentences, with conjoined clauses split.

    A clause join (``;``, ``, and``, ``and``, ``but`` ...) outside brackets and quotes splits a
    sentence only when both sides have their own verb and content words.
    """
    claims: list[str] = []
    for sentence in split_sentences(synthesis):
        claims.extend(_split_clauses(sentence))
    return claims


def _split_clauses(sentence: str) -> list[str]:
    cuts: list[tuple[int, int]] = []
    for start, end in _top_level_spans(sentence):
        for match in _CLAUSE_JOIN.finditer(sentence, start, end):
            cuts.append((match.start(), match.end()))
    if not cuts:
        return [sentence.strip()] if sentence.strip() else []
    clauses = _Clauses(sentence)
    parts: list[str] = []
    rest_start = 0
    for cut_start, cut_end in cuts:
        if clauses.left(rest_start, cut_start) and clauses.right(cut_end):
            parts.append(sentence[rest_start:cut_start].strip().rstrip(",;"))
            rest_start = cut_end
    parts.append(sentence[rest_start:].strip())
    return [part for part in parts if part]


def _names(text: str) -> set[str]:
    """Lowercased capitalised names; a claim's first word counts only as part of a longer name."""
    found: set[str] = set()
    matches = list(_NAME.finditer(text))
    for index, match in enumerate(matches):
        word = re.sub(r"['’]s?$", "", match.group(0))
        lower = word.lower()
        if (len(lower) < 2 or lower in STOPWORDS or stem(lower) in _META or stem(lower) in _MONTHS
                or _is_number_token(word)):
            continue
        first = not text[: match.start()].strip(" \"'“(")
        if first and not word.isupper():
            following = matches[index + 1] if index + 1 < len(matches) else None
            joined = following is not None and text[match.end():following.start()] == " "
            if not joined:
                continue
        for part in _stems(word):
            if part not in _TITLES:
                found.add(part)
    return found


def _quotes(text: str) -> list[str]:
    found = []
    for match in _QUOTED.finditer(text):
        quote = match.group(1) or match.group(2) or ""
        joined = " ".join(words(quote))
        if len(joined) >= 2 and len(quote) <= 120:
            found.append(joined)
    return found


def _token_table(text: str) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
    matches = list(_TOKEN.finditer(text))
    return (tuple(m.group(0) for m in matches), tuple(m.start() for m in matches),
            tuple(m.end() for m in matches))


# -- the claim -----------------------------------------------------------------------------------

@dataclass(slots=True)
class _ClaimFacts:
    text: str
    stems: frozenset[str]
    anchors: Anchors
    identifiers: frozenset[str]
    names: frozenset[str]
    quotes: tuple[str, ...]
    negated: bool
    causal: bool
    speculative: bool
    conclusion: bool
    anaphoric: bool
    markers: frozenset[str]
    """Stems of the causal / speculative / conclusion / negation words themselves."""
    tokens: tuple[str, ...] = ()
    """Every token, read once; ``slot_stems`` finds them by offset through the two below."""
    token_starts: tuple[int, ...] = ()
    token_ends: tuple[int, ...] = ()

    @classmethod
    def of(cls, text: str) -> _ClaimFacts:
        claim_anchors = anchors(text)
        tokens, token_starts, token_ends = _token_table(text)
        return cls(
            text=text,
            stems=frozenset(_stems(text)),
            anchors=claim_anchors,
            identifiers=claim_anchors.identifiers | frozenset(_HOST.findall(text.lower())),
            names=frozenset(_names(text)),
            quotes=tuple(_quotes(text)),
            negated=bool(_NEGATION.search(text)),
            causal=bool(_CAUSAL.search(text)),
            speculative=bool(_SPECULATIVE.search(text) or _MAY.search(text)),
            conclusion=bool(_CONCLUSION.search(text)),
            anaphoric=bool(_ANAPHORA.search(text)),
            tokens=tokens, token_starts=token_starts, token_ends=token_ends,
            markers=frozenset(
                word for pattern in (_CAUSAL, _SPECULATIVE, _CONCLUSION, _NEGATION, _MAY)
                for match in pattern.finditer(text) for word in _stems(match.group(0))),
        )

    @property
    def has_specifics(self) -> bool:
        return bool(self.anchors.numbers or self.anchors.times or self.identifiers or self.quotes)

    def slot_stems(self, raw: str) -> set[str]:
        """Content stems just before (and the word right after) a number or time ``raw``."""
        at = self.text.find(raw)
        if at < 0:
            return set()
        # One tokenisation per claim, looked up by offset: rescanning the text before every
        # number made a claim with many numbers quadratic.
        # The words that name this value: back to the previous value, at most five (so only
        # the last five tokens are read).
        end = bisect.bisect_right(self.token_ends, at)
        start = end
        while start > max(0, end - 5) and not _is_number_token(self.tokens[start - 1]):
            start -= 1
        before = list(self.tokens[start:end])
        slot = _stems(" ".join(before))
        unit = raw[len(raw.rstrip(_LETTERS + "%")):]
        if unit == "%":
            slot.add("pct")
        elif unit:
            slot |= _stems(unit)
        following = bisect.bisect_left(self.token_starts, at + len(raw))
        after = list(self.tokens[following:following + 1])
        if after and not _is_number_token(after[0]):
            slot |= _stems(after[0])
        return slot - _TIME_WORDS - _META


# -- framing -------------------------------------------------------------------------------------

def _merge_framing(claims: list[tuple[_ClaimFacts, str]]) -> list[tuple[_ClaimFacts, str]]:
    """Join a framing sentence ("Here is a summary:") to the claim after it.

    Framing states nothing, so it should neither add support nor count against the answer.
    """
    merged: list[tuple[_ClaimFacts, str]] = []
    pending: list[str] = []
    for facts, text in claims:
        if _is_framing(facts):
            pending.append(text)
            continue
        if pending:
            text = " ".join([*pending, text])
            facts = _ClaimFacts.of(text)
            pending = []
        merged.append((facts, text))
    merged.extend((_ClaimFacts.of(text), text) for text in pending)
    return merged


def _is_framing(facts: _ClaimFacts) -> bool:
    return (not facts.has_specifics and not facts.names and bool(facts.stems)
            and facts.stems <= _META)
