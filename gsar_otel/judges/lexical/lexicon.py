"""The LexicalJudge's vocabulary: tunable settings, word lists, shared regexes and the stemming
helpers every stage uses (content stems of a text, the stems a negation reaches).
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import Final

from gsar_otel.core.text import STOPWORDS, stem, words

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
    r"\b\w*(?:count|total|matches|hits|results|errors?|failures?|found|rows)\s*[=:]\s*0\b(?!\.0*+[1-9])|"
    r"\bnot found\b|\bnothing (?:found|matched)\b|\bno (?:matching|data|output)\b|"
    r"(?:[=:]\s*|^|\s)\[\](?:\s|$)|\bempty\b",
    re.IGNORECASE,
)
_COMPOUND_NUMBER = re.compile(r"^\d[\d,.]*-[a-z]")
_NEGATION_SCOPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/%']*|[,;:.!?()]")
# A tool row: a leading "[tag]" or JSON, or a "key=value" whose key holds a word that starts
# with a letter. Each run of key characters is read once (a lookbehind keeps the search from
# restarting inside a run): ``\b[A-Za-z_][\w.\-]*=\S`` re-read a long run from every boundary
# in it, so 112 KB of "a1-b_2." took 17.9 s.
_STRUCTURED_HEAD = re.compile(r"^\s*\[[\w\s=:./\-]+\]|^\s*[\[{]\s*\"")
_KEY_RUN = re.compile(r"(?<![\w.\-])([\w.\-]++)(?==\S)")
_KEY_WORD = re.compile(r"(?:^|[.\-])[A-Za-z_]")
_LINE_MARKER = re.compile(r"^\s*\[\d+\]\s+")
_PAIR = re.compile(
    r"(?<![\w.\-])([A-Za-z_][\w.\-]*)\s*=\s*([^\s,;\]\)\}]+)"
    r"|\"([A-Za-z_][\w.\-]*)\"\s*:\s*\"?([^\s,;\]\)\}\"]+)"
)
_QUOTED = re.compile(r"[\"“”]([^\"“”]*)[\"“”]|(?:^|(?<=\s))'([^']{2,80})'(?=[\s.,;:!?]|$)")
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9'’\-]*[A-Za-z0-9]\b")
# A DNS name: labels of at most 63 characters, at most 127 of them (RFC 1035's limits). The
# bounds keep each start position's work constant, so a long run of "a-a-a-..." or "a.a.a..."
# costs linear time instead of quadratic.
_HOST = re.compile(
    r"\b(?=[a-z0-9\-]{0,62}[a-z])[a-z0-9][a-z0-9\-]{0,62}(?:\.[a-z0-9\-]{1,63}){2,126}\b")
_LETTERS = string.ascii_letters
_IDENTIFIER_PART = re.compile(r"^(?=[^a-z]*+[a-z])(?=\D*+\d)[a-z0-9.\-]++$")
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
# The last branch starts only where a whitespace run starts: tried from inside a run, it re-read
# the rest of the run from every position (quadratic on a long run of spaces).
_CLAUSE_JOIN = re.compile(
    r";\s+|,\s+(?:and|but|while|whereas|yet)\s+|(?<!\s)\s++(?:and|but|whereas)\s+")


# -- small text helpers --------------------------------------------------------------------------

def is_structured(text: str) -> bool:
    """A tool row, log line or alert rather than prose: a leading ``[tag]`` or JSON object, or a
    ``key=value`` pair whose key has a word starting with a letter (``cpu_pct=97``)."""
    if _STRUCTURED_HEAD.search(text):
        return True
    return any(_KEY_WORD.search(match.group(1)) for match in _KEY_RUN.finditer(text))


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
