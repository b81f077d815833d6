"""LexicalJudge: an offline, deterministic GSAR judge for tool-output evidence.

No key, no network, no model: the judge reads the answer and the evidence with plain rules and
gives every claim a bucket, an evidence type and the ids of the evidence it rests on.

1. **Claims.** The answer is split into sentences, and a sentence into clauses where it joins two
   statements that each have their own verb (``CPU reached 97% and request rate dropped to 12
   RPS`` is two claims).
2. **Anchors.** Each claim's checkable specifics are found: numbers with units and percentages,
   clock times, identifiers and host names, quoted strings and capitalised names.
3. **Linking.** The evidence is indexed once per call (sentences of every item, their content
   words, numbers, ``key=value`` pairs). Each claim is linked to the few evidence sentences that
   cover most of its content words; their item ids become the claim's ``evidence_refs``.
4. **Buckets and types.**
   - *contradicted* when the evidence gives the same subject another value (``held steady at 4500
     RPS`` against ``rps=12.4``; ``CPU was 40%`` against ``cpu_pct=97.2``; in prose, a sentence
     that matches the claim but gives another year or amount of the same kind), when a tool row
     or alert shows what an absence claim denies, or when a matching tool row negates the claim;
   - *grounded* when all its anchors and enough of its content words are found in the linked
     items (half once an anchor matched a tool row; most of them, and mostly in one sentence,
     when an answer of several sentences follows its evidence's wording closely, as a summary
     does); typed by the items (``tool_match`` for tool rows, ``signal_match`` for alerts and
     signals, as :attr:`Evidence.type` says), or ``neg_evidence`` for an absence claim (``no
     errors in the last 5 minutes``) that an empty result supports;
   - *ungrounded* (``inference``) otherwise, and always for causal or speculative conclusions
     (``caused by``, ``because``, ``root cause``, ``due to``, ``led to``, ``likely``,
     ``probably``, ``indicates``) unless an evidence sentence itself states them;
   - *complementary* (``synthesis``) for a conclusion that only restates the answer's own
     grounded observations (``These two observations indicate the spike is real``).

   A framing sentence with no content of its own (``Here is a summary:``) is joined to the claim
   after it, so it neither supports nor burdens the answer.

Grounded claims always cite the items holding their numbers and times, so the integrity guard
(:mod:`gsar_otel.core.integrity`) keeps them as they are.
"""

from __future__ import annotations

import itertools
import math
import re
import string
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import Bucket, Claim, EvidenceType, JudgeOutput
from gsar_otel.core.scoring import gsar_score
from gsar_otel.core.text import (
    STOPWORDS,
    Anchors,
    ClockTime,
    Number,
    anchors,
    number_matches,
    split_sentences,
    stem,
    time_matches,
    words,
)

# -- tunable settings ----------------------------------------------------------------------------

COVERAGE_GROUNDED: Final = 0.85
"""Share of a claim's content words the linked evidence must contain, when no anchor matched."""
COVERAGE_ANCHORED: Final = 0.5
"""The same share when a number, time or identifier of the claim matched in a tool row."""
COVERAGE_PROSE_ANCHORED: Final = 0.5
"""The same share when a number, date, identifier or quote matched in prose evidence."""
COVERAGE_STATED: Final = 0.6
"""Share of a causal or speculative claim one evidence sentence must cover to state it."""
COVERAGE_CONTRADICTS: Final = 0.6
"""Share of a claim a sentence must cover before its different value or polarity contradicts it."""
LEAD_COVERAGE: Final = 0.5
"""Share of a claim its best single evidence sentence must cover (answers that follow their
evidence closely)."""
LEAD_WORDS: Final = 5
"""...or at least this many of its content words."""
ECHO_CLOSE: Final = 0.15
"""Share of an answer's adjacent word pairs found adjacent in the evidence above which the answer
counts as following its evidence closely (a summary); below it, as a free paraphrase."""
ECHO_MIN_SENTENCES: Final = 2
"""Fewest sentences an answer needs before it can count as following its evidence closely; a
one-sentence answer (a single claim) is always held as a free paraphrase."""
COVERAGE_LOOSE: Final = 0.5
"""COVERAGE_GROUNDED for a free paraphrase, where some missing words are expected."""
MAX_LINKED_UNITS: Final = 3
"""Most evidence sentences one claim is linked to."""
GROUNDED_SCORE: Final = 0.8
"""The judge's own ``is_grounded`` cut-off on its ``grounding_score`` (audit only)."""

# -- vocabulary ----------------------------------------------------------------------------------

def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _stem_set(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in text.split())


_CAUSAL = re.compile(
    r"\b(?:caus(?:e|ed|es|ing)|because|due to|root[ _-]?cause|(?:led|leads?|leading) to|"
    r"result(?:ed|s|ing)? in|(?:as a |the )?result of|responsible for|owing to|"
    r"triggered by|attribut(?:ed|able) to|blame[ds]?|thanks to)\b",
    re.IGNORECASE,
)
_CAUSE_STATED = re.compile(
    r"\b(?:so|thus|therefore|consequently|hence|prompt(?:ed|ing|s)?|forc(?:ed|ing)|"
    r"which (?:made|meant)|reason|why)\b|"
    r"\b(?:fail(?:ed|ure)?|error|denied|refused|aborted|rejected)\s*:\s*\w",
    re.IGNORECASE,
)
"""Connectives by which an evidence sentence states a cause, besides the causal words."""
_SPECULATIVE = re.compile(
    r"\b(?:likely|unlikely|probabl[ey]|possibl[ey]|perhaps|maybe|presumabl[ey]|apparently|"
    r"might|could(?! not)(?!n't)|seem(?:s|ed)?|appears? to|suspect(?:ed|s)?|guess(?:ed)?)\b",
    re.IGNORECASE,
)
_MAY = re.compile(r"\bmay\b")  # lowercase only: "May 2004" is a month
_CONCLUSION = re.compile(
    r"\b(?:indicat(?:e|es|ed|ing)|suggest(?:s|ed|ing)?|impl(?:y|ies|ied)|points? to|"
    r"consistent with)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:no|not|never|none|nothing|nobody|neither|nor|without|cannot|zero)\b|n't\b",
    re.IGNORECASE,
)
_ANAPHORA = re.compile(
    r"^\W*(?:this|these|that|those|both|together|taken together|combined|overall|all of this)\b",
    re.IGNORECASE,
)
_ZERO_RESULT = re.compile(
    r"\b(?:0|zero|no|none)\s+(?:results?|matches|match|hits?|rows?|events?|entries|records?|"
    r"errors?|alerts?|lines?|items?|findings?|failures?|incidents?|exceptions?)\b|"
    r"\b\w*(?:count|total|matches|hits|results|errors?|failures?|found|rows)\s*[=:]\s*0\b(?!\.\d*[1-9])|"
    r"\bnot found\b|\bnothing (?:found|matched)\b|\bno (?:matching|data|output)\b|"
    r"(?:[=:]\s*|^|\s)\[\](?:\s|$)|\bempty\b",
    re.IGNORECASE,
)
_COMPOUND_NUMBER = re.compile(r"^\d[\d,.]*-[a-z]")
_NEGATION_SCOPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/%']*|[,;:.!?()]")
_STRUCTURED = re.compile(r"^\s*\[[\w\s=:./\-]+\]|\b[A-Za-z_][\w.\-]*=\S|^\s*[\[{]\s*\"")
_LINE_MARKER = re.compile(r"^\s*\[\d+\]\s+")
_PAIR = re.compile(
    r"(?<![\w.\-])([A-Za-z_][\w.\-]*)\s*=\s*([^\s,;\]\)\}]+)"
    r"|\"([A-Za-z_][\w.\-]*)\"\s*:\s*\"?([^\s,;\]\)\}\"]+)"
)
_QUOTED = re.compile(r"[\"“”]([^\"“”]*)[\"“”]|(?:^|(?<=\s))'([^']{2,80})'(?=[\s.,;:!?]|$)")
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9'’\-]*[A-Za-z0-9]\b")
_HOST = re.compile(r"\b(?=[a-z0-9\-]*[a-z])[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+){2,}\b")
_LETTERS = string.ascii_letters
_IDENTIFIER_PART = re.compile(r"^(?=.*[a-z])(?=.*\d)[a-z0-9.\-]+$")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/%']*[A-Za-z0-9%]|[A-Za-z0-9]")

_PHRASE_LIST: Final = (
    (r"\brequests?[ _-]?(?:per[ _-]?second|rate)\b|\breq/s\b|\bqps\b|\bthroughput\b", "rps"),
    (r"\bcpu[ _-]?(?:utili[sz]ation|usage|load|util|utili[sz]ed)\b|\bprocessor\b", "cpu"),
    (r"\b(?:memory|mem)[ _-]?(?:utili[sz]ation|usage|util|used)\b|\bram\b", "memory"),
    (r"\berror[ _-]?rate\b|\bfailure[ _-]?rate\b", "errors"),
    (r"\bresponse[ _-]?times?\b|\blatenc(?:y|ies)\b", "latency"),
    (r"\bdisk[ _-]?(?:utili[sz]ation|usage|used)\b", "disk"),
    (r"\bper ?cent\b|\bpercentage\b", "pct"),
    (r"\btv\b", "television"),
    (r"\bmovies?\b", "film"),
    (r"\bu\.s\.a?\.?|\busa\b|\bunited states\b|\b(?-i:US)\b", "unitedstates"),
    (r"\bu\.k\.|\bunited kingdom\b|\buk\b", "unitedkingdom"),
)
"""Phrases a tool row writes as one key, and common variants of one name, with the one word both
sides are normalised to before stemming."""
_PHRASES = re.compile("|".join(f"(?P<p{i}>{pattern})" for i, (pattern, _) in
                               enumerate(_PHRASE_LIST)), re.IGNORECASE)
_PHRASE_WORDS: Final = {f"p{i}": word for i, (_, word) in enumerate(_PHRASE_LIST)}

_META: Final = _stem_set("""
    passage summary summarize summarise text article source document paragraph excerpt content
    state states stated mention mentioned describe described note noted according provide provided
    information detail details overview brief concise key main point points core piece pieces
    following below above here there report reported highlight highlighted discuss discussed
    discusses titled named called different respective respectively separate distinct various
    individual individuals entity entities provided focus focuses concludes conclude also
    utc gmt observation observations data evidence answer question given finding findings
    """)
"""Words that frame a statement rather than carry it ("the passage states that ...")."""

_VALUE_WORDS: Final = _stem_set("""
    reach reached hit hits rise rose risen fall fell fallen drop dropped climb climbed jump jumped
    spike spiked spikes surge surged peak peaked increase increased decrease decreased grow grew
    decline declined held hold stay stayed remain remained steady stable record recorded measure
    measured observe observed total value level approximately nearly almost roughly
    around about over under least time same moment during throughout went go high low elevated
    real genuine actual true clear
    """)
"""Words that describe a value rather than name what it measures; ignored once a number matches."""

_LIGHT: Final = _stem_set("""
    include includes included including previous previously potential potentially despite
    additional additionally consider considered known current currently recent recently
    significant significantly however notably notable typical typically specific specifically
    eventual eventually similar similarly renowned various also further furthermore moreover
    particular particularly especially generally initially initial subsequently ultimately
    finally meanwhile instead still already reportedly officially major important primary
    express expressed emphasise emphasised emphasize emphasized explain explained add added
    reveal revealed acknowledge acknowledged him himself herself themselves itself whom
    although though while whereas thus therefore hence indeed actually really quite rather
    ve ll re make makes made take takes took taken give gives gave given get gets got go goes
    went come came say says said become becomes became keep kept use uses used along upon
    unlike afterwards afterward within toward towards amid amongst among beside besides
    """)
"""Discourse words (adverbs, reporting verbs, pronouns) a paraphrase adds without new facts."""

_TITLES: Final = _stem_set("""
    mr mrs ms dr sr jr st prof sir dame lord lady president manager ceo chairman captain coach
    director minister king queen prince princess general fc am pm
    """)
"""Titles and honorifics: words of a name that need not appear in the evidence."""

_COUNT_WORDS: Final = _stem_set("""
    one two three four five six seven eight nine ten several many multiple few all each
    """)

_MONTHS: Final = _stem_set("""
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday
    """)

_TIME_WORDS: Final = _stem_set("""
    last past recent previous next minute minutes hour hours second seconds day days week weeks
    window period since ago
    """)

_UNIT_WORDS: Final = frozenset({"pct", "percent", "ms", "sec", "s", "min", "gb", "mb", "kb"})

_AUXILIARIES: Final = _word_set("""
    is are was were be been has have had will would can could did does do shall should may might
    must became become becomes remains remained seems seemed
    """)
_IRREGULAR_VERBS: Final = _word_set("""
    rose fell hit held won began grew led made took went came ran saw left gave got found wrote
    built sold kept said told paid met lost spent stood brought bought sent set put drew flew broke
    chose drove shows reports returns fails fires reaches drops rises exceeds stays holds runs uses
    contains includes lists says states describes mentions notes appears shows
    """)
_RELATIVE: Final = frozenset({"who", "which", "that", "whose", "whom", "where", "when"})
_CLAUSE_JOIN = re.compile(r";\s+|,\s+(?:and|but|while|whereas|yet)\s+|\s+(?:and|but|whereas)\s+")


# -- small text helpers --------------------------------------------------------------------------

def _normalise(text: str) -> str:
    return _PHRASES.sub(lambda match: _PHRASE_WORDS[match.lastgroup or ""], text)


def _is_number_token(token: str) -> bool:
    return any(ch.isdigit() for ch in token) and not any(ch.isalpha() for ch in token.rstrip("%"))


_CACHED_TEXT_CHARS: Final = 2000
"""Texts up to this long have their stems cached (rows and claims recur)."""


def _stems(text: str, *, split_keys: bool = False) -> set[str]:
    """Content stems of ``text`` without bare numbers; ``split_keys`` also adds key parts."""
    if len(text) <= _CACHED_TEXT_CHARS:
        return set(_cached_stems(text, split_keys))
    return _compute_stems(text, split_keys)


@lru_cache(maxsize=8192)
def _cached_stems(text: str, split_keys: bool) -> frozenset[str]:
    return frozenset(_compute_stems(text, split_keys))


def _compute_stems(text: str, split_keys: bool) -> set[str]:
    found: set[str] = set()
    for word in words(_normalise(text)):
        if word in STOPWORDS or _is_number_token(word):
            continue
        if _COMPOUND_NUMBER.match(word):
            # "21-year-old": the number is an anchor; only the words count as content.
            found.update(stem(part) for part in word.split("-")[1:]
                         if len(part) > 1 and part not in STOPWORDS)
            continue
        if "-" in word and not any(ch.isdigit() for ch in word):
            # "live-action", "Russia-Turkey": the parts carry the meaning.
            found.update(stem(part) for part in word.split("-")
                         if len(part) > 1 and part not in STOPWORDS)
            continue
        if len(word) > 1:
            found.add(stem(word))
        if split_keys and re.search(r"[_.\-/]", word):
            for part in re.split(r"[_.\-/]+", word):
                if len(part) > 1 and part.isalpha() and part not in STOPWORDS:
                    found.add(stem(part))
    return found


def _predicate_at(tokens: Sequence[str]) -> int | None:
    """Index of the first verb-like token, or None."""
    for position, token in enumerate(tokens):
        lower = token.lower()
        if lower in _AUXILIARIES or lower in _IRREGULAR_VERBS:
            return position
        if len(lower) > 4 and lower.endswith("ed") and lower.isalpha():
            return position
    return None


def _has_own_clause(text: str, *, right: bool) -> bool:
    tokens = _TOKEN.findall(text)
    content = [t for t in tokens if t.lower() not in STOPWORDS]
    if len(content) < 2:
        return False
    verb = _predicate_at(tokens)
    if verb is None:
        return False
    if right:
        # The right side must start a statement of its own ("request rate dropped ..."), not
        # continue a list ("television actress who appeared ...").
        relative = next((i for i, t in enumerate(tokens) if t.lower() in _RELATIVE), None)
        if verb > 4 or (relative is not None and relative < verb):
            return False
    return True


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
    parts: list[str] = []
    rest_start = 0
    for cut_start, cut_end in cuts:
        left = sentence[rest_start:cut_start]
        right = sentence[cut_end:]
        if _has_own_clause(left, right=False) and _has_own_clause(right, right=True):
            parts.append(left.strip().rstrip(",;"))
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


def _adjacent_pairs(text: str) -> set[tuple[str, str]]:
    sequence = [stem(w) for w in words(_normalise(text))
                if w not in STOPWORDS and not _is_number_token(w)]
    return set(itertools.pairwise(sequence))


def negated_stems(text: str) -> frozenset[str]:
    """Content stems within a negation's reach: up to four content words after ``not``/``no``/
    ``never``... and before the next punctuation ("did not win the cup" -> {win, cup})."""
    found: set[str] = set()
    reach = 0
    for token in _NEGATION_SCOPE.findall(text):
        lower = token.lower()
        if not token[0].isalnum():
            reach = 0
        elif _NEGATION.fullmatch(lower) or lower.endswith("n't"):
            reach = 4
        elif reach and lower not in STOPWORDS:
            found |= _stems(lower)
            reach -= 1
    return frozenset(found)


def _quotes(text: str) -> list[str]:
    found = []
    for match in _QUOTED.finditer(text):
        quote = match.group(1) or match.group(2) or ""
        joined = " ".join(words(quote))
        if len(joined) >= 2 and len(quote) <= 120:
            found.append(joined)
    return found


def _pairs(text: str) -> list[tuple[str, str]]:
    """``key=value`` and JSON ``"key": value`` pairs of a tool row (not prose "Founded: 1997")."""
    return [(m.group(1) or m.group(3), m.group(2) or m.group(4)) for m in _PAIR.finditer(text)]


def _number_kind(number: Number) -> str:
    if number.percent:
        return "pct"
    unit = number.raw[len(number.raw.rstrip(_LETTERS + "/")):]
    if unit:
        return unit.lower()
    if number.decimals == 0 and 1000 <= number.value <= 2100:
        return "year"
    return "plain"


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
                structured=bool(_STRUCTURED.search(text)),
            ))
            sentences = split_sentences(text) if len(text) > 200 else [text]
            for sentence in sentences or [text]:
                self._add_unit(position, sentence)
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
        for claim_stem in claim_stems:
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

    @classmethod
    def of(cls, text: str) -> _ClaimFacts:
        claim_anchors = anchors(text)
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
        before = _TOKEN.findall(self.text[:at])
        # The words that name this value: back to the previous value, at most five.
        numbers_before = [i for i, t in enumerate(before) if _is_number_token(t)]
        if numbers_before:
            before = before[numbers_before[-1] + 1:]
        before = before[-5:]
        slot = _stems(" ".join(before))
        unit = raw[len(raw.rstrip(_LETTERS + "%")):]
        if unit == "%":
            slot.add("pct")
        elif unit:
            slot |= _stems(unit)
        after = _TOKEN.findall(self.text[at + len(raw):])[:1]
        if after and not _is_number_token(after[0]):
            slot |= _stems(after[0])
        return slot - _TIME_WORDS - _META


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One claim as the LexicalJudge placed it, and why."""

    text: str
    bucket: Bucket
    type: EvidenceType
    evidence_refs: tuple[str, ...]
    reason: str


@dataclass(slots=True)
class _Verdict:
    bucket: Bucket
    type: EvidenceType
    refs: list[str]
    reason: str
    gap: str | None = None
    contradiction: str | None = None


@dataclass(slots=True)
class _Support:
    """What the evidence offers one claim: linked sentences and anchor matches."""

    units: list[int] = field(default_factory=list)
    coverage: float = 0.0
    missing: set[str] = field(default_factory=set)
    anchored: bool = False
    prose_anchored: bool = False
    lead_coverage: float = 0.0
    refs: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


# -- the judge -----------------------------------------------------------------------------------

class LexicalJudge:
    """An offline, deterministic judge for tool-output evidence (metric rows, logs, alerts).

    Implements the :class:`~gsar_otel.core.protocol.Judge` protocol. It needs no key and no network
    and returns the same verdict for the same input every time.
    """

    name = "lexical"
    model: str | None = None

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence``."""
        return self.judge_now(synthesis=synthesis, evidence=evidence)

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The same judgement, synchronously."""
        return _output(self._verdicts(synthesis, evidence), evidence)

    def explain(self, *, synthesis: str, evidence: EvidenceSet) -> list[ClaimVerdict]:
        """Every claim with its bucket, type, evidence ids and the reason for them."""
        return [ClaimVerdict(text, v.bucket, v.type, tuple(v.refs), v.reason)
                for text, v in self._verdicts(synthesis, evidence)]

    def _verdicts(self, synthesis: str, evidence: EvidenceSet) -> list[tuple[str, _Verdict]]:
        index = _index_of(evidence)
        claims = _merge_framing([(_ClaimFacts.of(text), text) for text in split_claims(synthesis)])
        # An answer that follows its evidence's wording closely (a summary) is held to its
        # words; one that paraphrases freely is held mainly to its anchors. A single sentence is
        # a claim, not a summary: its few word pairs cannot tell close following from chance
        # overlap, and it may rightly join facts from several evidence sentences.
        close = (len(split_sentences(synthesis)) >= ECHO_MIN_SENTENCES
                 and index.echo(synthesis) >= ECHO_CLOSE)
        verdicts: list[tuple[str, _Verdict]] = []
        for facts, text in claims:
            if not facts.stems and not facts.has_specifics:
                continue
            verdicts.append((text, self._judge_claim(facts, index, close=close)))
        return self._resolve_synthesis(claims, verdicts, index)

    # -- one claim ------------------------------------------------------------------------------

    def _judge_claim(self, facts: _ClaimFacts, index: _EvidenceIndex, *,
                     close: bool = True) -> _Verdict:
        if _is_framing(facts):
            return _Verdict("complementary", EvidenceType.SYNTHESIS, [],
                            "frames the answer; no content of its own")
        if not index.items:
            return _Verdict("ungrounded", EvidenceType.INFERENCE, [], "there is no evidence",
                            gap=f"evidence for: {facts.text}")
        contradiction = _value_contradiction(facts, index)
        if contradiction is not None:
            return contradiction
        support = _support(facts, index)
        if facts.negated and not facts.causal:
            absence = _absence(facts, index, support)
            if absence is not None:
                return absence
        polarity = _polarity_contradiction(facts, index, support)
        if polarity is not None:
            return polarity
        if support.unmatched:
            return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs,
                            f"{', '.join(support.unmatched)} found in no evidence item",
                            gap=f"evidence for {', '.join(support.unmatched)}")
        if facts.causal or facts.speculative or facts.conclusion:
            return _conclusion(facts, index, support)
        needed = (COVERAGE_ANCHORED if support.anchored
                  else COVERAGE_PROSE_ANCHORED if support.prose_anchored
                  else COVERAGE_GROUNDED if close else COVERAGE_LOOSE)
        lead_needed = LEAD_COVERAGE if close else 0.0
        if (support.coverage >= needed and support.refs
                and support.lead_coverage >= lead_needed):
            return _Verdict("grounded", _item_type(index, support), support.refs,
                            f"{support.coverage:.0%} of its content found in "
                            f"{', '.join(support.refs)}")
        missing = ", ".join(sorted(support.missing)[:6])
        if support.coverage >= needed and support.refs:
            reason = (f"no single evidence item holds {lead_needed:.0%} of its content; it is "
                      f"pieced together from {', '.join(support.refs)}")
        else:
            reason = (f"only {support.coverage:.0%} of its content found in the evidence"
                      + (f" (missing: {missing})" if missing else ""))
        return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs, reason,
                        gap=f"evidence for: {facts.text}")

    def _resolve_synthesis(
        self,
        claims: list[tuple[_ClaimFacts, str]],
        verdicts: list[tuple[str, _Verdict]],
        index: _EvidenceIndex,
    ) -> list[tuple[str, _Verdict]]:
        """Let an anaphoric conclusion that adds nothing new stand as a synthesis (K)."""
        grounded = [v for _, v in verdicts if v.bucket == "grounded"]
        if not grounded:
            return verdicts
        grounded_refs = list(dict.fromkeys(ref for v in grounded for ref in v.refs))
        facts_by_text = {text: facts for facts, text in claims}
        resolved = []
        for text, verdict in verdicts:
            facts = facts_by_text[text]
            if (verdict.bucket == "ungrounded" and facts.conclusion and facts.anaphoric
                    and not facts.causal and not facts.speculative and not facts.has_specifics
                    and _adds_nothing(facts, index)):
                verdict = _Verdict("complementary", EvidenceType.SYNTHESIS, grounded_refs,
                                   "a conclusion drawn only from the answer's grounded "
                                   "observations")
            resolved.append((text, verdict))
        return resolved


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


# -- rules ---------------------------------------------------------------------------------------

def _is_framing(facts: _ClaimFacts) -> bool:
    return (not facts.has_specifics and not facts.names and bool(facts.stems)
            and facts.stems <= _META)


def _content(facts: _ClaimFacts, index: _EvidenceIndex, *, anchored: bool) -> set[str]:
    content = set(facts.stems) - _META - _LIGHT - _COUNT_WORDS - facts.markers
    if anchored:
        content -= _VALUE_WORDS
    return index.resolve_all(content)


def _holders(facts: _ClaimFacts, index: _EvidenceIndex) -> tuple[list[list[int]], list[str]]:
    """For each anchor of the claim, the items holding it; and the anchors no item holds."""
    holders: list[list[int]] = []
    unmatched: list[str] = []

    def record(raw: str, found: list[int]) -> None:
        if found:
            holders.append(found)
        else:
            unmatched.append(raw)

    items = index.items
    for number in facts.anchors.numbers:
        record(number.raw, [i for i, item in enumerate(items)
                            if any(number_matches(number, c) for c in item.anchors.numbers)])
    for clock in facts.anchors.times:
        record(clock.raw, [i for i, item in enumerate(items)
                           if any(time_matches(clock, c) for c in item.anchors.times)])
    for identifier in sorted(facts.identifiers):
        spaced = " " + " ".join(words(identifier.replace("-", " "))) + " "
        record(identifier, [i for i, item in enumerate(items)
                            if identifier in item.identifiers
                            or f" {identifier} " in item.joined_words
                            or spaced in item.joined_words])
    for quote in facts.quotes:
        record(f'"{quote}"', [i for i, item in enumerate(items)
                              if f" {quote} " in item.joined_words])
    unmatched += [name for name in sorted(facts.names) if index.resolve(name) is None]
    return holders, unmatched


def _support(facts: _ClaimFacts, index: _EvidenceIndex) -> _Support:
    support = _Support()
    holders, support.unmatched = _holders(facts, index)
    # Anchors vouch for a claim against tool rows, whose words are keys ("cpu_pct") rather
    # than the answer's words ("CPU utilisation reached"); prose must match on its words.
    support.anchored = any(index.items[i].structured for found in holders for i in found)
    support.prose_anchored = bool(holders) and not support.anchored
    content = _content(facts, index, anchored=support.anchored)
    scores = index.candidates(content)
    held: dict[int, int] = {}
    for found in holders:
        for item in found:
            held[item] = held.get(item, 0) + 1
    if held:
        for unit_index, unit in enumerate(index.units):
            if unit.item in held:
                scores[unit_index] = scores.get(unit_index, 0.0) + 2.0 * held[unit.item]
    covered: set[str] = set()
    ranked = sorted(scores, key=lambda u: (-scores[u], u))[: 4 * MAX_LINKED_UNITS + 8]
    chosen: list[int] = []
    while len(chosen) < MAX_LINKED_UNITS:
        best, best_gain = None, 0.0
        for unit_index in ranked:
            if unit_index in chosen:
                continue
            new = (index.units[unit_index].stems & content) - covered
            gain = sum(index.weight(s) for s in new)
            if not chosen:
                gain = scores[unit_index]
            if gain > best_gain:
                best, best_gain = unit_index, gain
        if best is None:
            break
        chosen.append(best)
        covered |= index.units[best].stems & content
    support.units = chosen
    if chosen and content:
        lead = len(index.units[chosen[0]].stems & content)
        support.lead_coverage = max(lead / len(content), 1.0 if lead >= LEAD_WORDS else 0.0)
    elif not content:
        support.lead_coverage = 1.0
    support.coverage = len(covered) / len(content) if content else (1.0 if holders else 0.0)
    support.missing = content - covered

    cited = [index.units[u].item for u in chosen]
    for found in holders:
        if not set(found) & set(cited):
            # Cite the holder that shares most with the claim.
            cited.append(max(found, key=lambda i: (len(index.items[i].stems & content), -i)))
    support.refs = [index.items[i].evidence.id for i in dict.fromkeys(cited)]
    return support


def _item_type(index: _EvidenceIndex, support: _Support) -> EvidenceType:
    lead = support.refs[0]
    for item in index.items:
        if item.evidence.id == lead:
            return item.evidence.type
    return EvidenceType.TOOL_MATCH


def _same_subject(facts: _ClaimFacts, item: _Item) -> bool:
    """A claim naming hosts or ids is about an item only when the item names one of them too."""
    if not facts.identifiers or not item.identifiers:
        return True
    return bool(facts.identifiers & item.identifiers)


def _value_contradiction(facts: _ClaimFacts, index: _EvidenceIndex) -> _Verdict | None:
    """The evidence gives the subject of one of the claim's values a different value."""
    written: list[tuple[Number | ClockTime, str]] = [
        *((n, n.raw) for n in facts.anchors.numbers),
        *((t, t.raw) for t in facts.anchors.times),
    ]
    for value, raw in written:
        slot = facts.slot_stems(raw)
        if not slot:
            continue
        related: list[tuple[_Item, _Pair]] = []
        for item in index.items:
            if not _same_subject(facts, item):
                continue
            for pair in item.pairs:
                named = pair.key_stems - _UNIT_WORDS
                if (named & slot) or (not named and pair.key_stems & slot):
                    related.append((item, pair))
        if isinstance(value, Number):
            related = [(i, p) for i, p in related if p.anchors.numbers and not p.anchors.times]
            agrees = any(number_matches(value, n) for _, p in related for n in p.anchors.numbers)
        else:
            related = [(i, p) for i, p in related if p.anchors.times]
            agrees = any(time_matches(value, t) for _, p in related for t in p.anchors.times)
        if related and not agrees:
            item, pair = related[0]
            ref = item.evidence.id
            return _Verdict(
                "contradicted", item.evidence.type, [ref],
                f"says {raw}; {ref} has {pair.raw} for the same subject",
                contradiction=f"{facts.text!r} vs {ref}: {pair.raw}")
    return _prose_number_contradiction(facts, index)


def _prose_number_contradiction(facts: _ClaimFacts, index: _EvidenceIndex) -> _Verdict | None:
    """A sentence that matches the claim gives a different number of the same kind."""
    missing = [n for n in facts.anchors.numbers
               if not any(number_matches(n, c) for item in index.items
                          for c in item.anchors.numbers)]
    if not missing:
        return None
    content = _content(facts, index, anchored=True)
    if len(content) < 2:
        return None
    scores = index.candidates(content)
    for unit_index in sorted(scores, key=lambda u: (-scores[u], u))[:3]:
        unit = index.units[unit_index]
        if len(unit.stems & content) < COVERAGE_CONTRADICTS * len(content):
            continue
        for number in missing:
            kind = _number_kind(number)
            rival = next((c for c in unit.anchors.numbers if _number_kind(c) == kind), None)
            if rival is not None:
                ref = index.items[unit.item].evidence.id
                return _Verdict(
                    "contradicted", index.items[unit.item].evidence.type, [ref],
                    f"says {number.raw}; {ref} says {rival.raw}",
                    contradiction=f"{facts.text!r} vs {ref}: {rival.raw}")
    return None


def _absence(facts: _ClaimFacts, index: _EvidenceIndex, support: _Support) -> _Verdict | None:
    """An absence claim ("no errors in the last 5 minutes"): an empty result supports it."""
    subject = _content(facts, index, anchored=True) - _TIME_WORDS
    if not subject:
        return None
    for item in index.items:
        if not item.zero_result or not (item.stems & subject) or not _same_subject(facts, item):
            continue
        refs = [item.evidence.id]
        missing = [n.raw for n in facts.anchors.numbers
                   if not any(number_matches(n, c) for c in item.anchors.numbers)]
        missing += [t.raw for t in facts.anchors.times
                    if not any(time_matches(t, c) for c in item.anchors.times)]
        if missing:
            continue
        return _Verdict("grounded", EvidenceType.NEG_EVIDENCE, refs,
                        f"{refs[0]} reports an empty result for {', '.join(sorted(subject))}")
    # The claim denies what a tool row or signal shows.
    for unit in index.units:
        item = index.items[unit.item]
        if (item.zero_result or unit.negated or not _same_subject(facts, item)
                or item.evidence.type not in (EvidenceType.TOOL_MATCH, EvidenceType.SIGNAL_MATCH)):
            continue
        if len(unit.stems & subject) >= max(1, math.ceil(COVERAGE_CONTRADICTS * len(subject))):
            ref = item.evidence.id
            if item.evidence.type is EvidenceType.SIGNAL_MATCH or item.pairs:
                return _Verdict("contradicted", item.evidence.type, [ref],
                                f"denies what {ref} shows",
                                contradiction=f"{facts.text!r} vs {ref}")
    return None


def _polarity_contradiction(
    facts: _ClaimFacts, index: _EvidenceIndex, support: _Support
) -> _Verdict | None:
    """The best-matching evidence sentence negates what the claim asserts, or the reverse."""
    if support.unmatched or not support.units:
        return None
    content = _content(facts, index, anchored=support.anchored)
    if len(content) < 3:
        return None
    unit = index.units[support.units[0]]
    if len(unit.stems & content) < COVERAGE_CONTRADICTS * len(content) or unit.zero_result:
        return None
    if not index.items[unit.item].structured:
        # In prose the negation is too often about another clause of the same sentence.
        return None
    claim_negated = index.resolve_all(negated_stems(facts.text)) if facts.negated else set()
    conflict = ((content & unit.negated_stems) - claim_negated) | (
        (claim_negated & unit.stems) - unit.negated_stems)
    if not conflict:
        return None
    ref = index.items[unit.item].evidence.id
    return _Verdict("contradicted", index.items[unit.item].evidence.type, [ref],
                    f"{ref} has the opposite polarity about {', '.join(sorted(conflict))}",
                    contradiction=f"{facts.text!r} vs {ref}")


def _conclusion(facts: _ClaimFacts, index: _EvidenceIndex, support: _Support) -> _Verdict:
    """Causal and speculative conclusions stand only where an evidence sentence states them."""
    content = _content(facts, index, anchored=support.anchored)
    for unit_index in support.units:
        unit = index.units[unit_index]
        states = (unit.states_cause if facts.causal
                  else unit.hedged or unit.states_conclusion if facts.speculative
                  else unit.states_conclusion or unit.states_cause)
        if not states:
            continue
        if not content or len(unit.stems & content) >= COVERAGE_STATED * len(content):
            return _Verdict("grounded", _item_type(index, support), support.refs,
                            f"{index.items[unit.item].evidence.id} states it")
    kind = "causal" if facts.causal else "speculative" if facts.speculative else "concluding"
    return _Verdict("ungrounded", EvidenceType.INFERENCE, support.refs,
                    f"{kind} claim that no evidence item states",
                    gap=f"evidence that establishes: {facts.text}")


def _adds_nothing(facts: _ClaimFacts, index: _EvidenceIndex) -> bool:
    content = _content(facts, index, anchored=True) - _COUNT_WORDS
    return all(word in index.postings for word in content)


def _output(verdicts: list[tuple[str, _Verdict]], evidence: EvidenceSet) -> JudgeOutput:
    buckets: dict[Bucket, list[Claim]] = {
        "grounded": [], "ungrounded": [], "contradicted": [], "complementary": []}
    seen: set[str] = set()
    for text, verdict in verdicts:
        key = " ".join(text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        buckets[verdict.bucket].append(
            Claim(text=text, type=verdict.type, evidence_refs=tuple(verdict.refs)))
    partition_output = JudgeOutput(
        grounding_score=0.5, is_grounded=False,
        grounded_claims=tuple(buckets["grounded"]),
        ungrounded_claims=tuple(buckets["ungrounded"]),
        contradicted_claims=tuple(buckets["contradicted"]),
        complementary_claims=tuple(buckets["complementary"]),
    )
    score = gsar_score(partition_output.to_partition())
    gaps = tuple(dict.fromkeys(v.gap for _, v in verdicts if v.gap))
    contradictions = tuple(dict.fromkeys(v.contradiction for _, v in verdicts if v.contradiction))
    counts = {name: len(claims) for name, claims in buckets.items()}
    total = sum(counts.values())
    if total == 0:
        explanation = "The answer holds no checkable claim."
    else:
        parts = [f"{counts[name]} {name}" for name in buckets if counts[name]]
        worst = next((f"{text!r}: {v.reason}" for text, v in verdicts
                      if v.bucket in ("contradicted", "ungrounded")), None)
        explanation = (f"{total} claim(s) against {len(evidence)} evidence item(s): "
                       f"{', '.join(parts)}." + (f" First problem: {worst}." if worst else ""))
    needs_more = bool(counts["ungrounded"] or counts["contradicted"])
    return partition_output.model_copy(update={
        "grounding_score": score,
        "is_grounded": score >= GROUNDED_SCORE,
        "gaps": gaps,
        "contradictions": contradictions,
        "verification_needed": needs_more,
        "verification_reason": (gaps[0] if gaps else contradictions[0] if contradictions
                                else None) if needs_more else None,
        "explanation": explanation,
    })
