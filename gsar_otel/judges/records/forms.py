"""Equivalent forms as data: states across tools, the words of a claim's stance, name keys.

Every table here is read by one general mechanism; a new tool's status or a new way of saying a
state is one row. :data:`STATES` maps a normalised word (or a joined CamelCase value, lower-cased)
to its state and the family of states it belongs to: two different states of one family exclude
each other (``Running`` and ``CrashLoopBackOff`` are both pod states), states of different
families never conflict (``Running`` and ``healthy``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from types import MappingProxyType
from typing import Final, NamedTuple


class State(NamedTuple):
    """One state a record or a claim can state: its family and its canonical name."""

    family: str
    name: str


FAMILIES: Final = MappingProxyType(tomllib.loads(
    resources.files(__package__).joinpath("states.toml").read_text(encoding="utf-8")))
"""The state families (``states.toml``): each state of a family and every form it is written
in."""


def _rows(*families: str) -> Mapping[str, State]:
    return MappingProxyType({form: State(family, name) for family in families
                             for name, forms in FAMILIES[family].items() for form in forms})


STATES: Final = _rows("outcome", "alert", "severity", "access", "writability")
"""Run outcomes, the life of alerts and tracked issues, severities, access decisions and
whether a store takes writes, by every form they are written in."""
POD_STATES: Final = _rows("pod")
HEALTH: Final = _rows("health")
PAYMENT_STATES: Final = _rows("payment")
SUBSCRIPTION_STATES: Final = _rows("subscription")
CONSUMER_GROUPS: Final = _rows("consumer_group")
RELEASE_STATES: Final = _rows("release", "sync")

STATE_TABLES: Final = (POD_STATES, PAYMENT_STATES, SUBSCRIPTION_STATES, CONSUMER_GROUPS,
                       RELEASE_STATES, STATES, HEALTH)
"""Where a word's state is looked up, most specific first: ``completed`` is a pod state beside
a pod's row and a run's outcome beside a run."""

WORDS: Final = MappingProxyType(tomllib.loads(
    resources.files(__package__).joinpath("words.toml").read_text(encoding="utf-8")))
"""The words claims and records are read by (``words.toml``: what each table is for)."""
PHRASES: Final[Mapping[str, str]] = MappingProxyType(WORDS["phrases"])
LEVELS: Final[Mapping[str, str]] = MappingProxyType(WORDS["levels"])
NEGATIONS: Final = frozenset(WORDS["negations"])
COPULAS: Final = frozenset(WORDS["copulas"])
SELECTORS: Final = frozenset(WORDS["selectors"])
DETERMINERS: Final = frozenset(WORDS["determiners"])
SCHEDULE_WORDS: Final = frozenset(WORDS["schedule_words"])
DECREASE_WORDS: Final = frozenset(WORDS["decrease_words"])
UNIVERSALS: Final = frozenset(WORDS["universals"])
PLURAL_PRONOUNS: Final = frozenset(WORDS["plural_pronouns"])
MODALS: Final = frozenset(WORDS["modals"])
NAME_KEYS: Final = frozenset(WORDS["name_keys"])
STOP_NAMES: Final = frozenset(WORDS["stop_names"])
AFFIXES: Final = frozenset(WORDS["affixes"])
COMPOUND_PARTS: Final = frozenset(WORDS["compound_parts"])
MODIFIER_ENDS: Final = frozenset(WORDS["modifier_ends"])
ENTITY_NOUNS: Final = frozenset(WORDS["entity_nouns"])
NAME_PREPOSITIONS: Final = frozenset(WORDS["name_prepositions"])
STATUS_KEYS: Final = frozenset(WORDS["status_keys"])
TRUE_WORDS: Final = frozenset(WORDS["true_words"])
NEGATION_REACH: Final = 3
"""How many content words after a negation a negated state may stand."""
FUTURE: Final = re.compile(rf"\b(?:{'|'.join(WORDS['future'])})\b", re.IGNORECASE)
"""Words of a prediction: a claim that foretells states nothing the evidence records."""
MODAL_REACH: Final = 4
"""How many words after a modal a state is read as hypothetical."""

ADVICE: Final = re.compile(rf"\b(?:{'|'.join(WORDS['advice'])})|^(?:(?:so|then|next|first|instead|"
                            rf"also|meanwhile),?\s+)?(?:{'|'.join(WORDS['instructions'])})\b",
                            re.IGNORECASE | re.MULTILINE)
"""A recommendation, a hedged suggestion, an offer, or an instruction (a claim opening with an
imperative: "Add `resources.limits` ...", "So run ..."): complementary, not a fact about the
evidence."""

CAUSE: Final = re.compile(rf"\b(?:{'|'.join(WORDS['cause'])})\b", re.IGNORECASE)
"""The words of a stated cause: the cause itself must be stated of the claim's records."""


NOTHING: Final = re.compile(r"\(?(?:none|empty|n/a|null|nil)\)?|\[\]|\{\}|-|<none>|false",
                             re.IGNORECASE)
"""What a tool writes for nothing, or a flag that is not set."""
STATE_WORDS: Final = frozenset(form for table in STATE_TABLES for form in table)
"""Every form a state is written in: a state names no record (``pending-upgrade`` is a
release's status, not its name)."""


COMPOUND_ENDINGS: Final = ("ed", "ing", "ly", "able", "ible", "ful", "less")
"""Endings of compound parts that are verbs, adverbs or adjectives (``rate-limited``)."""
_WORDS: Final = re.compile(r"[a-z][a-z_-]*")


ACCESS_ACTIONS: Final = MappingProxyType({form: State("access", name) for name, forms in
                                          FAMILIES["access_action"].items() for form in forms})
KEYED_STATES: Final[Mapping[str, Mapping[str, State]]] = MappingProxyType({
    "sub": POD_STATES, "action": ACCESS_ACTIONS, "effect": ACCESS_ACTIONS,
    "decision": ACCESS_ACTIONS,
})
"""Key words whose values are states of one family only: a unit's sub-state (``active.sub:
running``) is a process state, never a run's outcome ("`nginx -t` fails" does not contradict a
running nginx); a rule's action (``allow``, ``deny``) is an access decision."""





def status_of(keyed: Iterable[tuple[frozenset[str], str]]) -> set[State]:
    """The states a record holds as an attribute: values under a state-naming key
    (:data:`STATUS_KEYS`), a value of one or two words under any key (a table's STATUS
    cell), a true flag whose key names a state (``any_refunded = t``, ``paused: true``); not a
    state word inside a longer message."""
    keyed = list(keyed)
    scoped = {state for words, raw in keyed for key, table in KEYED_STATES.items()
              if key in words for state in states_of([raw], (table,))}
    return scoped | states_of(
        raw for words, raw in keyed if not words & KEYED_STATES.keys()
        and (words & STATUS_KEYS or (words and len(raw.split()) <= 2))) | flags_of(keyed)


def prose_status(text: str) -> set[State]:
    """The states a sentence of prose asserts: its state words, except those a negation just
    before denies ("was closed by search-team" asserts closed, "was not closed" does not)."""
    words = _WORDS.findall(text.lower())
    found: set[State] = set()
    since = NEGATION_REACH + 1
    for word in words:
        if word in NEGATIONS or word.endswith("n't"):
            since = 0
            continue
        since += 1
        if since > NEGATION_REACH:
            found |= states_of([word])
    return found


def flags_of(keyed: Iterable[tuple[frozenset[str], str]]) -> set[State]:
    """The states true flags name by their keys."""
    return states_of(word for words, raw in keyed if raw.strip().lower() in TRUE_WORDS
                     for word in sorted(words))


def states_of(values: Iterable[str],
              tables: tuple[Mapping[str, State], ...] | None = None) -> set[State]:
    """The states some values state: a short value as written or joined (``Crash-Loop`` as
    ``crashloop``), and the words of a longer one (a log message, a sentence)."""
    found = set()
    for raw in values:
        word = raw.lower().strip().rstrip(":.!")  # "FAILED:" states failed
        candidates = [word] if len(word) <= 30 else []
        candidates += _WORDS.findall(word) if " " in word else []
        for candidate in candidates:
            joined = candidate.replace("-", "").replace("_", "").replace(" ", "")
            for table in tables or STATE_TABLES:
                state = table.get(candidate) or table.get(joined)
                if state is not None:
                    found.add(state)
    return found
