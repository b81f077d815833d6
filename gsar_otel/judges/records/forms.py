"""Equivalent forms as data: states across tools, the words of a claim's stance, name keys.

Every table here is read by one general mechanism; a new tool's status or a new way of saying a
state is one row. :data:`STATES` maps a normalised word (or a joined CamelCase value, lower-cased)
to its state and the family of states it belongs to: two different states of one family exclude
each other (``Running`` and ``CrashLoopBackOff`` are both pod states), states of different
families never conflict (``Running`` and ``healthy``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, NamedTuple


class State(NamedTuple):
    """One state a record or a claim can state: its family and its canonical name."""

    family: str
    name: str


def _rows(family: str, table: dict[str, tuple[str, ...]]) -> dict[str, State]:
    return {form: State(family, name) for name, forms in table.items() for form in forms}


_OUTCOMES: Final = {
    # a run, job, step, check, build, deploy, payment or plan that ended
    "succeeded": ("succeeded", "success", "successful", "successfully", "succeed", "passed",
                  "pass", "passing", "completed", "complete", "ok",
                  "green", "applied", "paid", "delivered", "resolved"),
    "failed": ("failed", "failure", "failing", "fail", "fails", "errored", "err", "red", "broken",
               "backofflimitexceeded", "deadlineexceeded", "timed_out", "timedout",
               "declined", "rejected"),
    "cancelled": ("cancelled", "canceled", "aborted", "abort"),
    "rolled_back": ("rolled_back", "rolledback", "rollback", "reverted"),
    "shipped": ("shipped", "in_transit", "intransit", "dispatched"),
    "skipped": ("skipped", "skip", "neutral"),
    "in_progress": ("in_progress", "running", "queued", "pending", "waiting", "in-progress",
                    "inprogress", "ongoing"),
}
_POD_STATES: Final = {
    "running": ("running",),
    "pending": ("pending", "containercreating", "podinitializing"),
    "crashloop": ("crashloopbackoff", "crash-looping", "crashlooping", "crash-loop",
                  "crashloop", "crash_loop"),
    "oomkilled": ("oomkilled", "oom-killed", "oom_killed"),
    "imagepull": ("imagepullbackoff", "errimagepull"),
    "completed": ("completed",),
    "exited": ("exited",),
    "terminating": ("terminating",),
    "evicted": ("evicted",),
}
_CONSUMER_GROUPS: Final[dict[str, tuple[str, ...]]] = {
    # a Kafka consumer group's state
    "stable": ("stable",),
    "preparing_rebalance": ("preparingrebalance",),
    "completing_rebalance": ("completingrebalance",),
    "empty": ("empty",),
    "dead": ("dead",),
}
_HEALTH: Final = {
    "healthy": ("healthy", "up", "available", "ready", "green", "online", "active",
                "inservice", "in_service"),
    "unhealthy": ("unhealthy", "down", "unavailable", "notready", "not-ready", "degraded",
                  "offline", "draining", "outofservice", "red", "failing", "impaired",
                  "inactive"),
    "syncing": ("wait_bgsave", "send_bulk", "syncing", "resyncing", "catchingup"),
}
_RELEASES: Final = {
    # a release of a package manager (Helm's STATUS): what runs, what is stuck, what is gone
    "deployed": ("deployed",),
    "pending_release": ("pending-upgrade", "pending-install", "pending-rollback",
                        "pendingupgrade", "pendinginstall", "pendingrollback"),
    "uninstalled": ("uninstalled", "uninstalling"),
}
_SYNC: Final = {
    # a desired state's copy against its source (Argo CD's, Flux's sync status)
    "synced": ("synced", "insync", "in-sync"),
    "out_of_sync": ("outofsync", "out-of-sync", "out_of_sync", "drifted"),
}
_PAYMENTS: Final = {
    # a card payment's life: authorised, then captured (or voided), maybe refunded or disputed
    "authorized": ("authorized", "authorised", "requires_capture", "requirescapture"),
    "captured": ("captured",),
    "refunded": ("refunded", "partially_refunded", "partiallyrefunded"),
    "voided": ("voided", "void"),
    "disputed": ("disputed", "chargeback", "charged_back"),
}
_SUBSCRIPTIONS: Final = {
    # a subscription's standing (Stripe's, Chargebee's): the forms no other family writes
    "past_due": ("past_due", "pastdue", "past-due", "overdue", "delinquent"),
    "unpaid": ("unpaid",),
    "trialing": ("trialing", "in_trial", "intrial"),
    "incomplete": ("incomplete", "incomplete_expired"),
    "paused": ("paused",),
}
_LIFECYCLE: Final = {
    # an alert's or a tracked issue's life: open, resolved, or silenced without a fix
    "firing": ("firing", "fired", "triggered", "unresolved", "reopened", "regressed"),
    "resolved": ("resolved", "closed", "cleared"),
    "muted": ("ignored", "archived", "muted", "snoozed", "silenced", "suppressed"),
    "inactive": ("inactive",),
}
_SEVERITIES: Final = {
    "critical": ("critical", "crit", "sev1", "p1", "blocker"),
    "warning": ("warning",),
    "info": ("info", "informational"),
}

STATES: Final = MappingProxyType({
    **_rows("outcome", _OUTCOMES),
    **_rows("alert", _LIFECYCLE),
    **_rows("severity", _SEVERITIES),
})
"""Run outcomes, the life of alerts and tracked issues, and severities, by every form they are
written in."""

POD_STATES: Final = MappingProxyType(_rows("pod", _POD_STATES))
"""Pod, container and unit states (Kubernetes, Docker, systemd's sub-state; read only where
a record holds one)."""

HEALTH: Final = MappingProxyType(_rows("health", _HEALTH))
"""Health and availability."""

PAYMENT_STATES: Final = MappingProxyType(_rows("payment", _PAYMENTS))
"""Where a card payment stands."""

SUBSCRIPTION_STATES: Final = MappingProxyType(_rows("subscription", _SUBSCRIPTIONS))
"""Where a subscription stands."""

CONSUMER_GROUPS: Final = MappingProxyType(_rows("consumer_group", _CONSUMER_GROUPS))
"""A consumer group's state (Kafka's ``--state``)."""

RELEASE_STATES: Final = MappingProxyType({**_rows("release", _RELEASES),
                                          **_rows("sync", _SYNC)})
"""Where a release stands (Helm's status) and whether a desired state is applied (a GitOps
sync status)."""

STATE_TABLES: Final = (POD_STATES, PAYMENT_STATES, SUBSCRIPTION_STATES, CONSUMER_GROUPS,
                       RELEASE_STATES, STATES, HEALTH)
"""Where a word's state is looked up, most specific first: ``completed`` is a pod state beside
a pod's row and a run's outcome beside a run."""

PHRASES: Final = MappingProxyType({
    # several words a claim writes for one state form
    "running out of memory": "oomkilled", "ran out of memory": "oomkilled",
    "out of memory": "oomkilled", "oom killed": "oomkilled",
    "out-of-memory": "oomkilled", "oom": "oomkilled",
    "crash looping": "crash-looping", "crash loop": "crash-looping",
    "in progress": "in_progress", "still running": "in_progress",
    "not ready": "notready", "timed out": "timed_out", "time out": "timed_out",
    "back-off": "crashloopbackoff", "backing off": "crashloopbackoff",
    "in service": "inservice", "out of service": "outofservice",
    "fail over": "failover", "failed over": "failover",
})
"""A claim's multi-word forms, rewritten to one form before states are read."""

LEVELS: Final = MappingProxyType({
    "error": "error", "errors": "error", "err": "error", "fatal": "fatal", "warn": "warn",
    "warning": "warn", "warnings": "warn", "info": "info", "debug": "debug", "panic": "fatal",
})
"""Log levels by the words that name them."""

NEGATIONS: Final = frozenset({"not", "no", "never", "none", "neither", "nor", "without",
                              "didn't", "didnt", "wasn't", "isn't", "aren't", "weren't",
                              "hasn't", "haven't", "hadn't", "doesn't", "don't", "cannot",
                              "can't", "won't", "zero"})
"""Words that negate the state or level that follows them closely."""
NEGATION_REACH: Final = 3
"""How many content words after a negation a negated state may stand."""
COPULAS: Final = frozenset({"is", "was", "are", "were", "be", "been", "becomes", "became"})
"""Before a determiner, a state is said of the subject ("is a critical-level alert")."""
SELECTORS: Final = frozenset({"last", "first", "latest", "previous", "next", "top", "recent",
                               "earliest", "oldest", "newest", "past", "most", "only"})
"""Words that pick things out of a sequence ("the last two successful runs", "top 3"): a
number after one is how many are picked, a state after one picks them."""
DETERMINERS: Final = frozenset({"the", "a", "an", "this", "that", "these", "those", "its",
                                 "their", "one", "each", "every", "another", "other", "any"})
"""Words before a state that make it pick a thing out ("the failed job") rather than state it."""
FUTURE: Final = re.compile(r"\b(?:will(?! not)|won't|is going to|are going to|expected to|"
                           r"projected to|on track to|likely to)\b", re.IGNORECASE)
"""Words of a prediction: a claim that foretells states nothing the evidence records."""
SCHEDULE_WORDS: Final = frozenset({"next", "scheduled", "schedule", "planned", "eta", "due",
                                   "expires", "expiry", "expiration", "reset", "resets",
                                   "renews", "renewal", "retry", "deadline", "until", "end",
                                   "ends", "cancel", "trial"})
"""Key words of a time or amount a record schedules: a prediction of it is recorded."""
DECREASE_WORDS: Final = frozenset({"deletions", "deleted", "removed", "removals", "decrease",
                                   "dropped", "lost", "debit", "outflow", "withdrawn",
                                   "refunded", "shrink", "minus"})
"""Key words of a size kept unsigned that a claim writes with a minus ("-1,297")."""
UNIVERSALS: Final = frozenset({"all", "every", "each", "both"})
"""Words that say something of every one of the things a claim names."""
PLURAL_PRONOUNS: Final = frozenset({"they", "them", "those", "these", "both", "all", "each",
                                     "their", "none", "they've", "they're", "they'd",
                                     "either", "neither", "respectively"})
"""Words opening a claim that speaks of several records it does not name."""
MODALS: Final = frozenset({"can", "could", "would", "will", "should", "might", "may", "if",
                           "unless", "until", "once", "whether", "expect", "expected"})
"""Words after which a state is a possibility or a condition, not a fact."""
MODAL_REACH: Final = 4
"""How many words after a modal a state is read as hypothetical."""

ADVICE: Final = re.compile(
    r"\b(?:consider(?:ing)?|recommend(?:ed|ation)?|suggest(?:ed|ion)?|should|you (?:may|might|"
    r"could|can) (?:want|also|need)|(?:i'?d|i would|we'?d|we would) (?:recommend|suggest|"
    r"look|check|start)|next steps?|worth (?:checking|looking|investigating|a look)|"
    r"it (?:may|might|would) (?:be|help)|might want|may want|try (?:to|increasing|raising|"
    r"restarting|scaling)|to be safe|(?:please|make sure|ensure)\b|follow(?:-| )up|"
    r"i (?:can|could)|let me know|if (?:you|needed|it)|keep an eye)", re.IGNORECASE)
"""A recommendation, a hedged suggestion or an offer: complementary, not a fact about the
evidence."""

CAUSE: Final = re.compile(
    r"\b(?:because(?: of)?|due to|caused by|(?:the )?root cause|as a result of|led to|"
    r"leading to|resulting in|resulted in|which (?:caused|triggered)|triggered by|"
    r"attributable to|explains? (?:why|the)|is why|that'?s why|thanks to|owing to|"
    r"caused(?! by)|causes|causing|triggered(?! by)|brought down|took down|broke|"
    r"(?:is|was) what (?:made|caused|triggered|led to|broke))\b",
    re.IGNORECASE)
"""The words of a stated cause: the cause itself must be stated of the claim's records."""

NAME_KEYS: Final = frozenset({
    "name", "id", "pod", "node", "host", "hostname", "instance", "service", "job", "user",
    "username", "container", "deployment", "namespace", "cluster", "database", "db", "table",
    "index", "topic", "group", "queue", "bucket", "key", "function", "functionname", "repo",
    "repository", "branch", "workflow", "title", "email", "customer", "sku", "product",
    "resource", "address", "arn", "identifier", "dbinstanceidentifier", "instanceid",
    "loadbalancername", "targetgroupname", "alertname", "source", "module", "release", "tag",
    "check", "step", "stage", "pipeline", "project", "application", "app", "account",
    "principal", "role", "client", "consumer", "region", "zone", "device", "disk", "volume",
    "process", "command", "program", "eventname", "login", "actor", "author",
    "owner", "assignee", "requester", "sender", "committer", "ip", "addr", "server", "peer",
    "upstream", "unit", "city", "country", "location", "site", "datacenter", "warehouse",
})
"""Keys whose value names its record (or a kind of record): a claim that writes such a value
speaks of that record."""

STOP_NAMES: Final = frozenset({
    "true", "false", "null", "none", "yes", "no", "the", "and", "n/a", "-", "<none>", "default",
    "info", "warn", "error", "debug", "ok", "running", "pending", "active", "enabled", "disabled",
})
"""Values that name nothing (a record holding them is no subject of a claim that writes them):
booleans, placeholders, levels and states (these are read as states and levels instead)."""
NOTHING: Final = re.compile(r"\(?(?:none|empty|n/a|null|nil)\)?|\[\]|\{\}|-|<none>|false",
                             re.IGNORECASE)
"""What a tool writes for nothing, or a flag that is not set."""
STATE_WORDS: Final = frozenset(form for table in STATE_TABLES for form in table)
"""Every form a state is written in: a state names no record (``pending-upgrade`` is a
release's status, not its name)."""


AFFIXES: Final = frozenset({"non", "pre", "re", "co", "sub", "un", "anti", "mid", "out", "via",
                            "per", "ex", "one", "two", "top", "low", "end", "day", "key", "new",
                            "old", "all", "off", "log", "use", "set", "get", "run"})
"""Short parts of hyphenated English words (``non-zero``, ``re-run``, ``one-off``): a token of
such parts is a word, not a name."""
COMPOUND_PARTS: Final = frozenset({
    # first or last parts of English compounds (a token with one is a word, not a name)
    "non", "self", "cross", "multi", "single", "double", "high", "low", "long", "short", "well",
    "half", "semi", "post", "inter", "intra", "over", "under", "up", "down", "out", "in", "off",
    "on", "one", "two", "three", "first", "second", "third", "zero", "end", "real", "full",
    "part", "near", "auto", "read", "write", "hard", "soft", "hot", "cold", "warm",
    "fail", "follow", "built", "opt", "sign", "log", "check", "roll", "set", "start", "back",
    "only", "based", "time", "level", "side", "wide", "term", "free", "aware", "safe", "ready",
    "bound", "heavy", "intensive", "related", "specific", "friendly", "native", "date", "place",
    "way", "party", "region", "zone", "node", "grained", "scale", "world", "wise", "like",
    "facing", "critical", "sensitive", "priority", "latency", "memory", "disk", "rate", "run",
    "minute", "hour", "day", "week", "month", "year", "percent", "cluster", "step",
})
"""Parts of hyphenated English compounds (``read-only``, ``long-running``, ``cross-region``)."""
MODIFIER_ENDS: Final = frozenset({
    "only", "based", "wide", "free", "like", "specific", "related", "level", "side", "facing",
    "aware", "safe", "ready", "bound", "heavy", "friendly", "native", "grained", "wise",
    "critical", "sensitive", "style", "driven", "scoped", "first"})
"""Last parts that make a hyphenated compound a modifier whatever its first part
(``PR-only``, ``CPU-bound``, ``DB-level``): a word, not a name."""
ENTITY_NOUNS: Final = frozenset({
    "service", "services", "api", "pod", "pods", "host", "node", "job", "cluster", "db",
    "database", "queue", "topic", "worker", "workers", "deployment", "container", "bucket",
    "team", "app", "instance", "server", "function", "lambda", "namespace", "svc", "daemon",
    "consumer", "producer", "cronjob", "replica", "replicas", "stack", "repo", "repository"})
"""Nouns after which a hyphenated word names one ("the session-store service")."""
NAME_PREPOSITIONS: Final = frozenset({"to", "from", "on", "at", "via", "into", "onto",
                                      "against", "by"})
"""Words after which a hyphenated word ending its clause is a name ("spread to media-resizer.")."""
COMPOUND_ENDINGS: Final = ("ed", "ing", "ly", "able", "ible", "ful", "less")
"""Endings of compound parts that are verbs, adverbs or adjectives (``rate-limited``)."""
_WORDS: Final = re.compile(r"[a-z][a-z_-]*")


KEYED_STATES: Final[Mapping[str, Mapping[str, State]]] = MappingProxyType({
    "sub": POD_STATES,
})
"""Key words whose values are states of one family only: a unit's sub-state (``active.sub:
running``) is a process state, never a run's outcome ("`nginx -t` fails" does not contradict a
running nginx)."""

STATUS_KEYS: Final = frozenset({"status", "state", "phase", "health", "result", "conclusion",
                                 "sub",
                                 "outcome", "reason", "level", "severity", "condition",
                                 "ready", "verdict", "disposition"})
"""Key words of a column that holds a record's state: the state a claim can contradict."""


TRUE_WORDS: Final = frozenset({"t", "true", "yes", "y", "1"})
"""How a boolean column writes true."""


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
        word = raw.lower().strip()
        candidates = [word] if len(word) <= 30 else []
        candidates += _WORDS.findall(word) if " " in word else []
        for candidate in candidates:
            joined = candidate.replace("-", "").replace("_", "").replace(" ", "")
            for table in tables or STATE_TABLES:
                state = table.get(candidate) or table.get(joined)
                if state is not None:
                    found.add(state)
    return found
