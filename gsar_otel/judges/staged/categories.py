"""Categorical values: the words that state an outcome, a severity, a state or a direction.

A category is an ``(axis, pole)`` pair: "failed" is ``("outcome", "failed")``, "succeeded"
``("outcome", "succeeded")``. Two values on one axis with different poles contradict each other
when they are said of the same subject; a negated pole on a two-pole axis is the other pole
("did not fail" is "succeeded", "is not firing" is "resolved"). Words are matched by stem, so
every inflection of a listed word counts ("fail", "failed", "failing", "failure").

The lexicon is data, not behaviour: one table here, read by the claim and the evidence sides
alike, so that both read a word the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from gsar_otel.core.text import words
from gsar_otel.judges.staged.lexicon import CAMEL_STEP, KEY_SPLIT, key_stems
from gsar_otel.judges.staged.roots import root

Category = tuple[str, str]
"""``(axis, pole)``."""

_CONDITIONS: Final = (
    ("leak", "leaking", "leak leaks leaking leaked"),
    ("deadlock", "deadlocked", "deadlock deadlocks deadlocked"),
    ("hang", "hung", "hung hang hangs hanging unresponsive"),
    ("thrashing", "thrashing", "thrashing thrash thrashes"),
    ("throttling", "throttled", "throttled throttling throttle throttles"),
    ("saturation", "saturated", "saturated saturation saturating"),
    ("overload", "overloaded", "overloaded overload overloading"),
    ("starvation", "starved", "starved starving starvation"),
    ("rebalance", "rebalancing", "rebalancing rebalance rebalances rebalanced"),
    ("flapping", "flapping", "flapping flap flaps flapped"))
"""Conditions a claim may diagnose: one axis and one pole each (a leak is no opposite of a
deadlock), read only as a predicate ("is leaking memory", "was rebalancing"), so a claim's
condition needs a record that states it; a process row is no memory leak."""

_AXES: Final[dict[str, dict[str, str]]] = {
    "outcome": {
        "succeeded": "succeed succeeded succeeds successful successfully ok",
        "completed": "completed complete",
        "failed": "fail failed fails failing unsuccessful aborted",
        "rolled_back": "rollback rollbacks reverted revert",
    },
    "severity": {
        "info": "info informational",
        "warning": "warning warn",
        "critical": "critical crit fatal emergency",
    },
    "alert_state": {
        "firing": "firing active",
        "resolved": "resolved cleared",
        "acknowledged": "acknowledged acked",
    },
    "alert_event": {
        "fired": "fired triggered fire",
    },
    "availability": {
        "up": "up online available reachable uptime running",
        "down": "down offline unavailable unreachable exited",
    },
    "health": {
        "healthy": "healthy",
        "unhealthy": "unhealthy degraded",
    },
    "readiness": {
        "ready": "ready",
        "not_ready": "notready",
    },
    "direction": {
        "increased": "increase increased increases increasing rose rise rising risen grew grow "
                     "growing climbed climb spiked spike surged jumped",
        "decreased": "decrease decreased decreases decreasing fell fall falling dropped drop "
                     "dropping declined decline shrank",
    },
    "open_state": {
        "open": "open opened reopened",
        "closed": "closed close closes",
    },
    "permission": {
        "allowed": "allowed permitted granted authorized authorised",
        "denied": "denied forbidden refused unauthorized unauthorised",
    },
    "enablement": {
        "enabled": "enabled",
        "disabled": "disabled",
    },
    "sync": {
        "synced": "synced",
        "out_of_sync": "outofsync unsynced",
    },
    **{axis: {pole: words} for axis, pole, words in _CONDITIONS},
}

_TWO_WORD: Final[dict[tuple[str, str], Category]] = {
    ("rolled", "back"): ("outcome", "rolled_back"),
    ("roll", "back"): ("outcome", "rolled_back"),
    ("not", "ready"): ("readiness", "not_ready"),
    ("went", "up"): ("direction", "increased"),
    ("go", "up"): ("direction", "increased"),
    ("goes", "up"): ("direction", "increased"),
    ("went", "down"): ("direction", "decreased"),
    ("go", "down"): ("direction", "decreased"),
    ("goes", "down"): ("direction", "decreased"),
    ("came", "up"): ("availability", "up"),
    ("back", "up"): ("availability", "up"),
    ("in", "sync"): ("sync", "synced"),
    **{(being, "running"): ("availability", "up") for being in ("is", "are", "still", "and")},
    ("of", "sync"): ("sync", "out_of_sync"),
    ("in", "progress"): ("outcome", "pending"),  # a run still under way: no outcome yet
}
"""Word pairs that name one pole: "rolled back" is an outcome, not "back"."""


_PRIORITY: Final = re.compile(r"(?:p|sev)([0-5])")
_DIGIT: Final = re.compile(r"([0-5])")
_NAMES_LEVEL: Final = frozenset({"is", "was", "are", "were", "be", "been", "as", "a", "an",
                                "priority", "severity", "at", "status"})
_LEVELLED: Final = frozenset({"incident", "ticket", "alert", "issue", "page", "bug", "outage",
                              "priority", "severity", "incidents", "tickets", "alerts"})
"""An incident's priority or severity level: "a P1 incident", "priority: P3" (axis
``priority``, poles ``p0`` to ``p5``), "SEV-2" (axis ``sev_level``, ``s0`` to ``s5``: another
scale), never a percentile ("p1 latency")."""
_RUNS_WHAT: Final = re.compile(r"v?[0-9]|version|release|build|image|on$|in$")
"""What follows "running" when it says what runs, not that it is up: "was running v3.9.12",
"running version 2", "running on 3 nodes"."""


_FIRING_STATES: Final = frozenset({"triggered", "alarm", "alerting"})
"""A state value of an alert or incident that is firing: PagerDuty's ``status: triggered``,
CloudWatch's ``StateValue: ALARM``, Grafana's ``alerting``."""


def settle(categories: dict[Category, None]) -> None:
    """What a record's outcome implies: one that succeeded completed, and one that completed
    succeeded unless it also failed (GitHub Actions' ``status: completed`` beside
    ``conclusion: failure``: completion says the run ended, its conclusion how)."""
    if ("outcome", "succeeded") in categories:
        categories.setdefault(("outcome", "completed"), None)
    elif ("outcome", "completed") in categories and ("outcome", "failed") not in categories:
        categories.setdefault(("outcome", "succeeded"), None)


_AMOUNTS: Final = frozenset({"available", "unavailable"})
_AMOUNT: Final = re.compile(r"[0-9][0-9.,]*[a-z%]*$")
"""An amount before these says how much, not a state: "380G available", "3 replicas
unavailable" (counts and sizes; a time such as 14:02 is no amount)."""


WHOLE_WORDS: Final = frozenset({"running", "exited"})
"""Words read as written, never by their stem: "is running" is up, "a nightly run" no state;
"exited" is down, an "exit code" no state."""


def _build() -> dict[str, Category]:
    table: dict[str, Category] = {}
    for axis, poles in _AXES.items():
        for pole, text in poles.items():
            for word in text.split():
                table.setdefault(word, (axis, pole))
                if word not in WHOLE_WORDS:
                    table.setdefault(root(word), (axis, pole))
    return table


WORDS: Final = _build()
"""Word or stem -> category."""

AMBIGUOUS: Final = frozenset({"up", "down", "open", "close", "complete", "ok", "active", "drop",
                              "running",
                              "fall", "rise", "spike", "warn", "grow", "revert", "climb",
                              "decline", "increase", "decrease", "success", "allowed",
                              "permitted", "granted", "authorized", "authorised", "denied",
                              "forbidden", "refused", "unauthorized", "unauthorised"})
"""Words that name a category only as a predicate or a value, never inside a noun phrase
reading ("the up link", "a drop of 3%" still count as direction: these are read only from a
value, a key's value, or after a verb of being; see :func:`categories_of`)."""
CONDITION_AXES: Final = frozenset(axis for axis, _, _ in _CONDITIONS)
CONDITION_WORDS: Final = frozenset(w for _, _, words in _CONDITIONS for w in words.split())
"""Read from a claim only as a predicate ("is leaking"): "the rebalance of X led to" names an
event the evidence states ("root cause: ... rebalance"), not a condition of X."""

TOOL_AXES: Final = frozenset({"permission", "enablement", "sync"})
"""Axes read off tool output only: a story's "was denied parole" is no record's permission."""

OPPOSITE: Final[dict[str, dict[str, str]]] = {
    axis: (dict(zip(poles, reversed(tuple(poles)), strict=True)) if len(poles) == 2 else {})
    for axis, poles in _AXES.items()
} | {"alert_state": {"firing": "resolved", "resolved": "firing"}}
"""The other pole of a two-pole axis (``outcome`` has three poles: no opposite by negation);
an alert that is not firing is resolved, and one not resolved is firing."""
COMPATIBLE: Final = frozenset({
    frozenset({("alert_state", "firing"), ("alert_state", "acknowledged")}),
    frozenset({("outcome", "completed"), ("outcome", "failed")}),
    frozenset({("outcome", "completed"), ("outcome", "succeeded")})})
"""Poles of one axis that hold together: an acknowledged incident is still firing (neither
states the other, neither contradicts it; "resolved" contradicts both); a run that completed
may have failed (a record stating only its failure does not contradict "completed")."""
ACK: Final = frozenset({root("acknowledged"), root("acked")})
"""Read as an alert state only as a state: after a verb of being in a text about an alert or
incident ("INC-7 was acknowledged"), or as a state's value (``status: acknowledged``); "she
acknowledged the error" and "Alice acknowledged the incident" (who acted) are no alert state."""


def compatible(one: Category, other: Category) -> bool:
    """Whether two categories of one axis hold together (see :data:`COMPATIBLE`)."""
    return one == other or frozenset({one, other}) in COMPATIBLE

_BEING: Final = frozenset({"is", "was", "are", "were", "be", "been", "being", "became", "stayed",
                           "remained", "remains", "remain", "stays", "stay", "went", "still",
                           "now", "as", "status", "state", "not", "never", "t", "yet"})
"""Words after which an ambiguous word is a predicate: a verb of being, or a negation of the
verb ("did not complete", "has not yet dropped")."""


_PREPOSITIONS: Final[dict[str, frozenset[str]]] = {
    "close": frozenset({"to", "by"}), "up": frozenset({"to"}), "down": frozenset({"to"}),
    "resolved": frozenset({"to"}), "resolves": frozenset({"to"}),
    **{word: frozenset({"over"}) for word in ("fail", "failed", "fails", "failing")},
}
"""A word before these is a preposition phrase, not its category: "close to 90%" is near it,
"up to 5 retries" at most, a name "resolved to 10.1.7.147" an address, no alert state, and
"failed over to pg-main-4" a failover, no failed outcome."""
_SPANS: Final = frozenset({"for", "since", "from", "in", "during", "between", "until",
                           "till", "through", "throughout"})
"""Words after "active" that make it a time of activity ("active for 30 years", "active since
1998"), not an alert that is firing, unless the text is about an alert."""
_ALERT_ID: Final = re.compile(r"alrt|inc-?[0-9]")
ALERT_STEMS: Final = frozenset(root(w) for w in ("alert", "alerts", "alarm", "alarms",
                                                  "alertname", "page", "pager", "incident"))
"""Words of a text about an alert (with any token naming one: ``DiskSpaceAlert``,
``ALRT-20933``): there "active" is an alert that is firing even before "for" ("the alert was
active for 20 minutes"); elsewhere only when no span of time follows it ("HighCPU is active",
not "the band has been active for 30 years")."""


PENDING: Final[Category] = ("outcome", "pending")
"""What a record whose state is still under way has: no outcome yet, so "has not completed"
and "did not fail" hold of it and "succeeded" does not. Read from a state field only
(``status=pending``): in prose "waiting" and "processing" are too often something else."""
PENDING_VALUES: Final = frozenset({"pending", "queued", "in_progress", "inprogress",
                                   "in progress", "in-progress", "waiting", "scheduled",
                                   "processing", "deploying", "progressing"})
"""Not "running": a pod or service that is running has its outcome (a rollout that completed
leaves its pods ``Running``)."""


def category_of(word: str) -> Category | None:
    """The category a single lowercased word names, or None."""
    return WORDS.get(word) or WORDS.get(root(word))


def categories_of(tokens: Iterable[str], negatable: bool = False,
                  claim: bool = False) -> tuple[Category, ...]:
    """The categories named in a run of lowercased tokens, in order, each once.

    An ambiguous word ("up", "open", "drop") counts only after a verb of being or ``status``/
    ``state`` ("is up", "went down", "state: open") or as a whole value (a one-token text).
    With ``negatable``, a category negated in place ("was not closed", "wasn't ever merged")
    is its opposite pole, or nothing when its axis has no two poles (evidence text; a claim's
    negation is read over the whole claim by :mod:`.claims`). With ``claim``, a condition
    (:data:`CONDITION_WORDS`) counts only as a predicate, as an ambiguous word does.
    """
    seen: dict[Category, None] = {}
    negating = False
    sequence = list(tokens)
    alerting = any(root(token) in ALERT_STEMS or "alert" in token or _ALERT_ID.match(token)
                   for token in sequence)
    previous = ""
    before = False  # whether a negation stood before ``previous``
    for at, token in enumerate(sequence):
        pair = _TWO_WORD.get((previous, token))
        following = sequence[at + 1] if at + 1 < len(sequence) else ""
        level = _PRIORITY.fullmatch(token) or (_DIGIT.fullmatch(token) if previous == "sev"
                                                else None)
        if level is not None and (len(sequence) == 1 or previous in _NAMES_LEVEL
                                  or following in _LEVELLED or previous == "sev"):
            axis = "priority" if token.startswith("p") else "sev_level"
            seen.setdefault((axis, f"{axis[0]}{level.group(1)}"), None)
        if token == "running" and _RUNS_WHAT.match(following):
            pass  # "is running v3.9.12": what runs, not that it is up
        elif previous in ("status", "state") and token in _FIRING_STATES:
            seen.setdefault(("alert_state", "firing"), None)  # PagerDuty's, CloudWatch's
        elif pair is not None:
            pair = negate(pair) if before else pair  # "was not rolled back": no pole stated
            if pair is not None:
                seen.setdefault(pair, None)
        elif token not in ("back", "ready") or previous not in ("rolled", "roll", "not"):
            found = category_of(token)
            if found is not None and ((token not in AMBIGUOUS and not (
                    claim and token in CONDITION_WORDS)) or previous in _BEING
                                      or len(sequence) == 1) \
                    and following not in _PREPOSITIONS.get(token, ()) \
                    and (token != "active" or alerting or following not in _SPANS) \
                    and (root(token) not in ACK or (alerting and previous in _BEING)
                         or len(sequence) == 1 or previous in ("status", "state")) \
                    and not (token in _AMOUNTS and any(
                        _AMOUNT.match(t) for t in sequence[max(0, at - 2):at])):
                found = negate(found) if negating else found
                if found is not None:
                    seen.setdefault(found, None)
        before = negating
        if token in _NEGATORS or (token == "t" and previous.endswith("n")):
            negating = negatable
        elif token not in _BETWEEN:
            negating = False
        previous = token
    return tuple(seen)


_NEGATORS: Final = frozenset({"not", "never", "no", "without"})
_BETWEEN: Final = frozenset({"been", "be", "yet", "ever", "once", "fully", "successfully"})
"""Words between a negation and the category it negates ("has not yet been closed")."""


def negate(category: Category) -> Category | None:
    """The category a negated ``category`` states, when its axis has exactly two poles."""
    other = OPPOSITE.get(category[0], {}).get(category[1])
    return (category[0], other) if other else None


@lru_cache(maxsize=4096)
def key_reading(key: str) -> tuple[frozenset[str], tuple[Category, ...]]:
    """A field key's stems and the categories it names (the event it times or counts): the same
    for every row of a table or JSON array, so read once per key."""
    named = tuple(c for c in categories_of(KEY_SPLIT.split(key.lower()))
                  if c[0] != "direction")
    return key_stems(key), named


@lru_cache(maxsize=16384)
def value_states(state_key: bool, value: str) -> tuple[Category, ...]:
    """The states a field's value states in words (read after ``status`` for a state key);
    values repeat across rows ("eu-west", "running"), so each is read once."""
    lead = ["status"] if state_key else []
    return categories_of([*lead, *(part for w in words(CAMEL_STEP.sub(" ", value))
                                   for part in KEY_SPLIT.split(w))], negatable=True)
