"""Stage 2b: a claim as slots: what it is about, the values it states, and how it states them.

- subjects: hosts, services, pods, nodes, alert and deploy ids, people (``maria.lopez``),
  addresses, CamelCase names (``DiskSpaceWarning``) and capitalised names of prose;
- typed values: every anchor that is not a subject (quantities with units, percents, times,
  dates, durations, versions, status codes, ports, percentiles), each with the words that name
  what it measures (its *key words*: "conn count was 79" -> conn, count);
- categorical values (:mod:`.categories`), a negated one read as its opposite pole;
- polarity: negated, and what the claim says is absent ("no errors", "error-free", "zero
  errors", "without errors");
- modality: a prediction, a stated cause, speculation, or a plain observation.

Predicate words (reached, climbed, logged ...) may be paraphrased; values may not.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Final, Literal

from gsar_otel.core.text import STOPWORDS, words
from gsar_otel.judges.staged.anchoring import STATUS_CODE, Spec
from gsar_otel.judges.staged.categories import (
    ACK,
    CONDITION_AXES,
    TOOL_AXES,
    Category,
    categories_of,
    category_of,
    negate,
)
from gsar_otel.judges.staged.lexicon import (
    CAUSAL_WORDS,
    IDENTITY_KEYS,
    INDICATIVE,
    METRIC_ENDS,
    NEGATIONS,
    NUMBER_WORDS,
    PREDICATE_WORDS,
    QUALIFIER_FAMILIES,
    ROOT_FS,
    ROOT_FS_NAME,
    SPECULATIVE,
    WINDOW,
)
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.textual import TextFacts, facts_of, is_path

Modality = Literal["observation", "prediction", "cause", "speculation"]

def _words(text: str) -> list[str]:
    return text.split()


SUBJECT_KINDS: Final = frozenset({"HOST", "IDENTIFIER"})
VALUE_KINDS: Final = frozenset({"NUMBER", "PERCENT", "CLOCK", "TIMESTAMP", "DATE", "DURATION",
                                "VERSION", "PORT", "HTTP_STATUS", "HTTP_CLASS", "IPV4", "IPV6"})
"""An address is a value of its host ("edge-lb-34 has IP 10.1.7.147"), checked like a number."""

CAMEL: Final = re.compile(r"\b[A-Z][a-z]{1,40}(?:[A-Z][A-Za-z0-9]{1,40}){1,8}\b")
_TECH_PARTS: Final = frozenset(
    _words(
    "api svc service worker db prod staging stage dev web cache server node pod queue "
    "job lb app gateway proxy edge backend frontend cluster redis kafka mysql "
    "postgres broker ingress scheduler controller router store auth"))
"""A hyphenated word without digits names a service when one of its parts is one of these
(``checkout-api``, ``payment-worker``); other hyphenated words are ordinary words."""
PREDICTION: Final = re.compile(
    r"\b(?:will|won't|going to|expected to|expect(?:s|ed)? (?:it|to)|projected to|forecast|"
    r"about to|on track to|is set to|predict(?:s|ed)?|would (?:run|exhaust|fill|fail|reach|"
    r"hit|exceed|crash|need))\b", re.IGNORECASE)
_ABSENCE: Final = re.compile(
    r"\b(?:no|zero|without|never any|not any|none of the)\s+"
    r"([a-z][a-z0-9_\-]*(?:\s+[a-z][a-z0-9_\-]*)?)"
    r"|\b([a-z][a-z0-9]*)-free\b", re.IGNORECASE)
_EXISTS: Final = re.compile(
    r"\b(?:there\s(?:was|were|are|is|have\sbeen|has\sbeen)|(?:was|were|been|is|are)\s"
    r"(?:logged|found|recorded|seen|reported|fired|raised|detected|observed|returned|triggered|"
    r"emitted|thrown|shown|listed|open|opened|present|pending|running)|occurred|happened|"
    r"appeared|fired|showed\sup)\b", re.IGNORECASE)
"""How a claim says that something exists: "no X was logged" is an absence claim, "no node had
enough CPU" is not; "zero X", "without X" and "X-free" always are."""
PREDICATES: Final = frozenset(root(w) for w in PREDICATE_WORDS)
"""Predicate and hedge words a claim may paraphrase freely: never required of the evidence."""
NEGATION_STEMS: Final = frozenset(root(w) for w in NEGATIONS) | frozenset(str.split(
    "isn wasn weren aren didn doesn don hasn haven hadn won wouldn couldn shouldn ain"))
"""Negations, also as the tokenizer leaves a contraction ("wasn't" -> "wasn")."""
HEDGE_STEMS: Final = frozenset(root(w) for w in SPECULATIVE)
INDICATIVE_STEMS: Final = frozenset(root(w) for w in INDICATIVE)
CAUSAL_STEMS: Final = frozenset(root(w) for w in CAUSAL_WORDS)
MONTHS: Final = frozenset(
    _words(
    "january february march april may june july august september october november "
    "december monday tuesday wednesday thursday friday saturday sunday spring summer autumn "
    "winter"))
"""Capitalised words that are dates or seasons, checked as dates, not as names."""
_MARKUP: Final = re.compile(r"\[[A-Z_]{2,30}\]")
AGENT: Final = re.compile(
    r"\b(?:was|were|been|being|is|are|got)\s(?:[a-z]{1,30}ly\s)?[a-z]{2,30}(?:ed|en|wn)\sby\s"
    r"([A-Za-z][\w.\-]{0,80})")
"""The agent of a passive ("was approved by maria.lopez"): a name the evidence must hold."""
_TOKEN: Final = re.compile(r"[^\W_][\w.\-/%]{0,200}")
_CLAUSE_END: Final = re.compile(r"[,;:()!?\"]|\.\s")
"""Punctuation between two tokens that ends a clause."""
UNIT_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "req/s": ("rps", "qps"), "rps": ("rps",), "qps": ("qps",), "%": ("pct", "percent"),
    "gb": ("gb",), "mb": ("mb",), "kb": ("kb",), "byte": (root("bytes"),), "b": (root("bytes"),)}
"""Key words a value's unit names: "4500 RPS" is the value of ``rps``, "1432 bytes" of ``bytes``."""
_RETURNING: Final = frozenset({"returned", "returns", "returning", "responded", "responds",
                               "answered", "served"})
_KEY_WINDOW: Final = 3
"""Content words before a value (and one after it) that may name what it measures."""
_ADDRESS: Final = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?")


@dataclass(frozen=True, slots=True)
class Value:
    """One typed value of a claim and the stems of the words naming what it measures."""

    spec: Spec
    key_stems: frozenset[str]


@dataclass(frozen=True, slots=True)
class ClaimSlots:
    """Everything the alignment and the invariants read from one claim."""

    text: str
    facts: TextFacts
    subjects: tuple[str, ...]
    """Lowercased tokens naming what the claim is about; each must occur in the evidence."""
    names: tuple[str, ...]
    """Lowercased capitalised names of prose ("Georgetown"); each must occur as a whole token."""
    values: tuple[Value, ...]
    categories: tuple[Category, ...]
    """Categorical values as stated (a negated one already turned to its opposite)."""
    negated: bool
    denied: tuple[Category, ...]
    """Categories a negated claim denies that have no one opposite ("did not fail": neither
    succeeded nor rolled back is said; a fact of that axis with another pole holds it)."""
    absent: tuple[str, ...]
    """Stems of what the claim says there was none of ("no errors" -> error)."""
    modality: Modality
    stems: frozenset[str]
    """Content stems to be covered by the evidence: no subject, value or predicate word."""

    @property
    def conclusion(self) -> bool:
        """States a cause, a prediction, a guess or a conclusion (``Claim.conclusion``)."""
        return self.modality != "observation" or self.facts.conclusion


def _names_a_thing(token: str) -> bool:
    """``maria.lopez``, ``pay_svc``, ``x86host``, ``checkout-api``: a name, not a word (nor a
    metric's key, ``cpu_pct``)."""
    if "_" in token and token.rsplit("_", 1)[1] in METRIC_ENDS:
        return False
    dotted = token.replace("_", ".").split(".")
    if len(dotted) > 1:
        return all(len(p) > 1 and p.isalnum() for p in dotted) and not token.replace(
            ".", "").isdigit()
    if token.isalnum() and not token.isdigit() and not token.isalpha():
        return token[0].isdigit() or any(c.isdigit() for c in token)
    parts = token.split("-")
    return len(parts) > 1 and all(parts) and any(p in _TECH_PARTS for p in parts)


_PARTICLES: Final = frozenset(_words(
    "up down in out on off over under by to of at for back away around through with and or "
    "the a an non re pre co self ex anti multi post sub semi mid pro well ill half all"))
"""Parts that make a hyphenated word an English compound (``follow-up``, ``co-founder``,
``well-known``, ``mother-in-law``), not a name."""
_LINKING: Final = frozenset(_words(
    "is are was were be been being become became becomes seem seems seemed remain remains "
    "remained stay stays stayed look looks looked very more most less least fully highly so "
    "too quite rather"))
"""Words after which a hyphenated word is a predicate adjective ("the plan is long-term")."""
_AUXILIARY: Final = frozenset(_words(
    "was were is are has had have got gets reported logged returned failed crashed restarted "
    "went saw showed started stopped"))
"""Verbs that follow a service named as the subject of its clause."""
_KEBAB: Final = re.compile(r"[a-z]{2,30}(?:-[a-z]{2,30}){1,3}")


def _kebab_name(token: str, previous: str, following: str) -> bool:
    """A lowercase hyphenated word used as a noun is a name (``media-resizer``, ``fraud-check``):
    English hyphenated compounds stand before the noun they qualify ("a long-term plan") or
    after a linking verb ("is long-term"); a name stands where a noun does, before the end of
    a clause, a verb or a function word ("spread to media-resizer.", "geo-lookup was
    restarted"), or before the word for what it names ("the tax-engine service").

    ``following`` is the next word (lowercased), or "" at a clause end."""
    if not _KEBAB.fullmatch(token) or _PARTICLES & set(token.split("-")):
        return False
    if previous in _LINKING:
        return False
    return (not following or following in STOPWORDS or root(following) in IDENTITY_KEYS
            or following in _AUXILIARY)


_DEMONYM_ENDS: Final = ("ian", "ians", "ean", "eans", "ican", "icans", "ese", "ish", "ic")
MIN_DEMONYM: Final = 6


COMPASS: Final = frozenset(_words(
    "north south east west northern southern eastern western northeast northwest southeast "
    "southwest northeastern northwestern southeastern southwestern"))


def _demonym(name: str) -> bool:
    """"American", "Hungarian", "European", "Spanish", "Catholic": a capitalised adjective of a
    people or a faith says what something is, which a table or a text may state in other words
    ("U.S.", "Budapest"); so does a compass word ("the West Coast", "Northern"). Each is checked
    as a content word, not as a name to be found."""
    return name in COMPASS or (len(name) >= MIN_DEMONYM and name.isalpha()
                               and name.endswith(_DEMONYM_ENDS))


def _inside(text: str, spans: list[tuple[int, int]]) -> bytearray:
    """A mark per character of ``text`` that some span covers (one pass, no scan per token)."""
    marks = bytearray(len(text) + 1)
    for start, end in spans:
        marks[start:end] = b"\x01" * (end - start)
    return marks


_JOINERS: Final = ".-_/"


def _joined(text: str, start: int, end: int) -> bool:
    """The word at ``start:end`` goes on past a joiner and a letter or digit, either side."""
    return (end + 1 < len(text) and text[end] in _JOINERS and text[end + 1].isalnum()) or (
        start >= 2 and text[start - 1] in _JOINERS and text[start - 2].isalnum())


_NEXT_WORD: Final = re.compile(r"[ \t]+([a-z][a-z\-]{1,40})\b")


def _modifies_next(text: str, end: int, agent: str) -> bool:
    """"known by multiple ring names", "caused by memory pressure": a plain word after "by"
    that a lowercase content word follows in the same clause qualifies that noun phrase; it
    is no name ("approved by maria.lopez", "closed by netops after 6 hours" name one)."""
    following = _NEXT_WORD.match(text, end)
    return (agent.isalpha() and following is not None
            and following.group(1) not in STOPWORDS
            and root(following.group(1)) not in IDENTITY_KEYS)


def _subjects(text: str, facts: TextFacts, covered: bytearray) -> list[str]:
    found: dict[str, None] = {}
    for spec in facts.anchors:
        if spec.kind in SUBJECT_KINDS:
            found.setdefault(spec.text.lower().strip(".,;:"), None)
    previous = ""
    matches = list(_TOKEN.finditer(text))  # tokens as the evidence's words are read
    for at, match in enumerate(matches):
        token = match.group().rstrip(".-/").lower()
        # a name, or a joined word after the word for what it names ("service ledger-writer")
        path = is_path(text, match.start())  # "/v2/orders": a path, whatever values it holds
        named = path or _names_a_thing(token) or (
            root(previous) in IDENTITY_KEYS and any(ch in token for ch in "-_."))
        if not named and "-" in token and match.group().islower():
            following = ""
            if at + 1 < len(matches) and not _CLAUSE_END.search(
                    text, match.end(), matches[at + 1].start()):
                following = matches[at + 1].group().rstrip(".").lower()
            named = _kebab_name(token, previous, following)
        if token and (path or not covered[match.start()]) and named:
            found.setdefault(token, None)
        previous = token
    if ROOT_FS_NAME.search(text):  # "the root filesystem": the row mounted at "/"
        found.setdefault(ROOT_FS, None)
    for match in CAMEL.finditer(text):
        # a part of a longer name ("DailyMail" of ``DailyMail.com``) is that name's, read above
        if not _joined(text, match.start(), match.end()):
            found.setdefault(match.group().lower(), None)
    for match in AGENT.finditer(text):  # "closed by netops": who did it is named, checked
        agent = match.group(1).lower().rstrip(".")
        if agent not in STOPWORDS and not agent[:1].isdigit() and agent not in NUMBER_WORDS \
                and not _modifies_next(text, match.end(1), agent):
            found.setdefault(agent, None)
    return list(found)


_QUALIFIER_ROOTS: Final = frozenset(root(w) for family in QUALIFIER_FAMILIES for group in family
                                   for w in group.split())
"""Words telling one measure from another ("read latency"), key words even where verbs."""


def _key_stems(tokens: list[tuple[int, int, str]], ends: list[int], starts: list[int],
               spec: Spec, names: frozenset[str]) -> frozenset[str]:
    """Up to three content words just before the value (names and the word naming what a name
    is, "host", are passed over; another value or a verb of reporting ends the run), the content
    words right after it ("133 errors", "500 open connections"), and the key words its unit
    names (``req/s`` is ``rps``)."""
    at = bisect_right(ends, spec.start)
    stems: list[str] = list(UNIT_KEYS.get(str(getattr(spec.raw, "unit", "") or "").lower(), ()))
    taken = 0
    for _, _, word in reversed(tokens[max(0, at - 12):at]):
        if WINDOW.fullmatch(word) and taken:  # "the 6h burn rate": ``burn_rate_6h``
            stems.append(word)
        if _ADDRESS.fullmatch(word) and taken == 0:
            continue  # "packet loss to 10.0.3.17 was 20%": the loss's words, past the address
        if taken >= _KEY_WINDOW or word[:1].isdigit():
            break
        if word in names or root(word) in IDENTITY_KEYS:
            continue
        if root(word) in _QUALIFIER_ROOTS or (word not in STOPWORDS and word not in NUMBER_WORDS
                                             and root(word) not in PREDICATES):
            # a metric's key written as such ("cpu_pct was 19") names its parts
            stems.extend(root(part) for part in word.split("_") if part)
            taken += 1
    after = [w for _, _, w in tokens[bisect_left(starts, spec.end):][:4]]
    while after[:1] and after[0] in ("of", "the", "a", "an") and len(after) > 2:
        after = after[1:]  # "12.5% of the error budget": the budget's
    for word in after[:2]:
        if word[:1].isdigit() or root(word) in PREDICATES:
            break
        if word not in STOPWORDS:
            stems.append(root(word))
    verb = [w for _, _, w in tokens[max(0, at - 3):at] if w not in ("with", "a", "an")][-1:]
    if verb and verb[0] in _RETURNING and STATUS_CODE.fullmatch(spec.text) and all(
            w in STOPWORDS for w in after[:1]):  # "returned 502": a response's status, not a
        stems.append(root("status"))  # count ("returned 200 rows")
    return frozenset(stems)


def slots_of(text: str) -> ClaimSlots:
    """The slots of one claim; linear in its length."""
    facts = facts_of(text)
    values: list[Spec] = [s for s in facts.anchors if s.kind in VALUE_KINDS]
    covered = _inside(text, [(s.start, s.end) for s in facts.anchors
                             if s.kind not in SUBJECT_KINDS])
    subjects = _subjects(text, facts, covered)
    tokens = [(m.start(), m.end(), m.group().lower().rstrip("."))
              for m in _TOKEN.finditer(text)]
    starts = [t[0] for t in tokens]
    ends = [t[1] for t in tokens]
    lowered = [t[2] for t in tokens]
    stated = categories_of((part for token in lowered for part in token.split("-")), claim=True)
    negated = facts.negated
    quoted = [(a.start, a.end) for a in facts.anchors if a.kind == "QUOTED"]
    if negated and quoted:  # "logged "No space left on device"": the quote's, not the claim's
        blank = "".join(" " if any(s <= at < e for s, e in quoted) else ch
                        for at, ch in enumerate(text))
        negated = facts_of(blank).negated
    absent: list[str] = []
    existential = _EXISTS.search(text) is not None
    for match in _ABSENCE.finditer(text):
        if match.group(1) and not existential and match.group(0).split()[0].lower() in (
                "no", "never", "not", "none"):
            continue  # "no node had enough CPU" says what the nodes lacked, not that none were
        phrase = match.group(1) or match.group(2)
        head = [w for w in words(phrase) if w not in STOPWORDS]
        if head:
            absent.append(root(head[0]))
    categories: list[Category] = []
    for category in stated:
        # "not ready" names its pole with its negation: no second turn
        flipped = (negate(category) if negated and not absent
                   and not category[1].startswith("not_") else None)
        categories.append(flipped or category)
    denied: list[Category] = []
    if negated and not absent:  # negated in place ("did not fail"), not the negation ("failed to")
        kept = categories_of((p for t in lowered for p in t.split("-")), True, claim=True)
        denied = [c for c in categories if negate(c) is None and c in stated and c not in kept]
        categories = [c for c in categories if c not in denied]
    modality: Modality = "observation"
    if PREDICTION.search(text):
        modality = "prediction"
    elif facts.causal:
        modality = "cause"
    elif facts.speculative:
        modality = "speculation"
    names = tuple(n for n in sorted(facts.names)
                  if n not in subjects and n not in MONTHS and not _demonym(n))
    named = {s for s in subjects} | set(names)
    skip = ({root(w) for s in named for w in words(s)} | PREDICATES | NEGATION_STEMS
            | HEDGE_STEMS | INDICATIVE_STEMS | CAUSAL_STEMS
            | {root(w) for w in lowered if (c := category_of(w)) and c[0] not in TOOL_AXES
               and ((root(w) not in ACK and c[0] not in CONDITION_AXES) or c in stated)})
    # "ticket was not acknowledged", "quietly rebalanced": words, where they state no category
    # anchors are checked as values; "[CONTINUE]"-style markup is no word of the claim
    inside = _inside(text, [(s.start, s.end) for s in facts.anchors]
                     + [m.span() for m in _MARKUP.finditer(text)])
    stems = frozenset(
        NUMBER_WORDS.get(w, root(w)) for start, _, w in tokens
        if w not in STOPWORDS and len(w) > 1 and not inside[start]
        and root(w) not in skip and not w[:1].isdigit() and not w.endswith("-free"))
    return ClaimSlots(
        text=text, facts=facts, subjects=tuple(subjects),
        names=names,
        values=tuple(Value(spec, _key_stems(tokens, ends, starts, spec, frozenset(subjects)))
                     for spec in values),
        categories=tuple(categories), negated=negated, denied=tuple(denied), absent=tuple(absent),
        modality=modality, stems=stems)
