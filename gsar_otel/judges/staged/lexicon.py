"""Word lists the stages share: markers of negation, cause, speculation, quantity and framing,
number words and abbreviations. Plain frozensets, no behaviour."""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.judges.staged.roots import root


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


NEGATIONS: Final = _set(
    "not no never none nothing nobody neither nor without cannot can't didn't doesn't don't "
    "isn't wasn't weren't aren't hasn't haven't hadn't won't wouldn't couldn't shouldn't n't "
    "unable absent lacks lacked zero insufficient inadequate lacking missing")
"""Words that negate the statement they stand in ("did not", "no errors", "failed to")."""

NEGATION_NEEDS_TO: Final = _set("fail failed fails failing")
"""Words that negate only with a following "to" ("failed to start")."""

CAUSAL_WORDS: Final = _set("because cause caused causes causing due led leads leading result "
                           "resulted resulting triggered owing attributed attributable "
                           "blamed responsible culprit induced precipitated provoked")
"""Single words that state a cause ("due" and "led" count only with their "to")."""
CAUSAL_NEEDS_TO: Final = _set("due led leads leading owing attributed attributable")
CAUSAL_NEEDS_IN: Final = _set("result resulted resulting")
"""Causal only before "in" or "from" ("resulted in"); "results" is read as the noun ("the
results in Table 3" state no cause)."""
"""Causal words that need a following "to" ("due to", "led to")."""
CAUSAL_PAIRS: Final = frozenset(
    (first, second)
    for firsts, seconds in (
        ("take takes took taken taking bring brings brought bringing", "down"),
        ("stem stems stemmed stemming originate originates originated originating", "from"),
        ("driven triggered induced precipitated", "by"),
        ("to", "blame"),
        ("consequence", "of"),
        ("trace traces traced tracing", "back"),
    )
    for first in firsts.split() for second in seconds.split())
"""Word pairs that state a cause ("took down db-1", "stemmed from the push", "driven by");
not "knocked out" or "taken out", which sports and boats use for no cause."""
CONCLUSION_PHRASES: Final = ("which means", "this means", "that means", "therefore", "thus",
                             "hence", "so the", "root cause", "consequently", "as a result",
                             "indicates that", "suggests that", "which indicates", "which suggests")
"""Phrases that draw a conclusion from what came before."""
SPECULATIVE: Final = _set("likely probably possibly perhaps presumably apparently may might "
                          "could seemingly suspect suspected appears seems")
"""Hedges that make a claim speculative ("likely was caused by")."""
ANAPHORIC: Final = _set("this these that those it they both together")
"""Openers of a conclusion that refers back to the answer's own claims."""
INDICATIVE: Final = _set("indicate indicates indicated suggest suggests suggested show shows "
                         "confirm confirms confirmed mean means imply implies point points "
                         "concern concerns involve involve relate relates describe describes")
"""Verbs of a conclusion drawn from observations ("these observations indicate ...")."""

QUANT_BOTH: Final = _set("both all every each entire whole")
QUANT_ONLY: Final = _set("only solely just sole exclusively first last")
COMPARATIVE: Final = _set("more less fewer higher lower larger smaller greater most least "
                          "highest lowest best worst largest smallest biggest maximum minimum "
                          "increase increased decrease decreased rose fell dropped grew exceeded "
                          "outperform outperforms outperformed better worse")

NUMBER_WORDS: Final = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
    "once": "1", "twice": "2", "single": "1", "double": "2", "triple": "3", "dozen": "12",
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
    "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}
"""Number words and the digits they stand for: "three" counts as the number 3."""

MONTH_ABBREVIATIONS: Final = _set("jan feb mar apr jun jul aug sep sept oct nov dec")
"""Short month names: after a day they still end nothing when a year follows ("14 Mar. 2026")."""
NUMBER_JOINERS: Final = _set("vs v")
"""Abbreviations that stand between two values ("5 vs. 6"), never a number's unit."""
ABBREVIATIONS: Final = MONTH_ABBREVIATIONS | NUMBER_JOINERS | _set(
    "mr mrs ms dr prof sr jr st no nos etc e.g i.e eg ie inc ltd co corp approx fig vol pp "
    "p b c ca u.s u.k ph.d mt ft al gen gov rev sgt col lt capt dept est univ")
"""Abbreviations whose full stop does not end a sentence ("Dr. Smith", "e.g. CPU"). After a
number the same word is the number's unit and may end one ("250 ms.", "at 09:13 EST.")."""

FRAMING_OPENERS: Final = ("here is", "here are", "here's", "below is", "below are",
                          "the following", "in summary", "to summarize", "to summarise",
                          "summary", "findings", "my findings", "i found", "i checked",
                          "based on", "let me", "overall", "key findings", "what i found",
                          "according to the evidence", "in short")
"""How a framing sentence ("Here is what I found:") opens."""

CLAUSE_JOINERS: Final = ("and", "but", "while", "whereas", "so", "which")
"""Words that may join two independent facts in one sentence."""

VERBS: Final = _set(
    "is are was were be been has have had do does did will would can could may might shall "
    "should must reached rose fell dropped spiked peaked hit climbed increased decreased stayed "
    "remained held returned fired started stopped began ended failed succeeded restarted "
    "crashed recovered showed shows logged reported recorded timed went came saw grew won lost "
    "made took gave became ran led left met paid sent spent stood knew broke spoke said got "
    "kept built felt caught taught died born released founded joined played served wrote "
    "received includes include included contains contained holds")
"""Common verbs and auxiliaries: a clause needs one to stand as its own claim."""

IDENTITY_KEYS: Final = frozenset(root(k) for k in _set(
    "host hostname node pod instance service server cluster region zone name id db database "
    "table container job app application endpoint device user account team component unit "
    "model process program"))
"""Row keys that name a row's subject (``host=edge-lb-3``): a value of another subject is not
a conflict."""

KEY_UNITS: Final[dict[str, str]] = {
    "rps": "req/s", "qps": "req/s", "gb": "gb", "mb": "mb", "kb": "kb", "ms": "ms",
    "pct": "%", "percent": "%"}
"""The unit a tool key's last part names (``rps``, ``mem_used_gb``): a value with that unit
in a claim is that key's value when no key shares the claim's words."""

QUALIFIER_FAMILIES: Final = (
    ("p50 median", "p75", "p90", "p95", "p99", "p999"),
    ("avg mean average", "max maximum peak", "min minimum"),
    ("read reads", "write writes"), ("rx received receive", "tx sent send"),
    ("inbound ingress", "outbound egress"), ("upload uploads", "download downloads"),
)
"""Words that tell one measure from another of the same thing, in families of alternatives
(each group's words one measure): a "p95 latency" is no ``p99_latency_ms``, a "read latency"
no ``write_latency_ms``, "average CPU" no ``cpu_max``."""

METRIC_ENDS: Final = _set(
    "pct percent ms s sec secs seconds us ns bytes kb mb gb mib gib count total rate ratio avg "
    "max min sum size latency usage util used free errors requests rps qps p50 p90 p95 p99")
"""Last parts of a metric's key: ``cpu_pct`` and ``p99_latency_ms`` name a measure, not a
thing."""

NOT_SUPERLATIVE: Final = _set(
    "interest request test guest suggest contest protest honest modest arrest west rest nest "
    "chest quest harvest digest manifest invest earnest priest conquest behest inquest "
    "midwest southwest northwest unrest tempest pest vest crest zest everest bequest attest "
    "detest infest ingest forest latest earliest dearest recent")
"""Words ending "-est" that are no superlative, and the order in time ("the latest", "the most
recent")."""

KEY_MEANINGS: Final[dict[str, frozenset[str]]] = {
    key: frozenset(root(w) for w in meaning.split()) for key, meaning in {
        "notafter": "expiry expires", "validuntil": "expiry expires", "validto": "expiry expires",
        "notbefore": "issued", "validfrom": "issued", "ttl": "expiry expires", "rss": "memory",
    }.items()}
"""What a key, or one part of it, means when none of its parts says it: a certificate's
``not_after`` is its expiry ("the certificate expires on May 2"), not a time "after" anything;
lowercased, written without separators."""


_DIRECTION_LETTERS: Final = {"r": root("read"), "w": root("write")}
"""A one-letter part of a longer key that says which way (iostat's ``r_await``, ``w/s``)."""


def key_meanings(parts: list[str]) -> frozenset[str]:
    """What a key's parts, or the whole key, mean by :data:`KEY_MEANINGS`; a key's ``r``/``w``
    part beside another is read/write (a lone ``r`` is vmstat's run queue)."""
    letters = {_DIRECTION_LETTERS[p] for p in parts if p in _DIRECTION_LETTERS and len(parts) > 1}
    return frozenset().union(letters, *(KEY_MEANINGS.get(p, ()) for p in (*parts, "".join(parts))))


KEY_SPLIT: Final = re.compile(r"[_.\-/\s]+")
_KEY_BRACKETS: Final = re.compile(r"[()\[\]]")
CAMEL_STEP: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def key_stems(key: str) -> frozenset[str]:
    """Stems of a key's parts: ``http_5xx_rate`` -> http, 5xx, rat; ``Spouse(s)`` -> spous;
    ``StateValue`` -> stat, valu."""
    key = CAMEL_STEP.sub("_", key)  # ``unavailableReplicas``: unavailable, replicas
    parts = [p for p in KEY_SPLIT.split(_KEY_BRACKETS.sub(" ", key.lower().replace("(s)", "")))
             if p]  # and what they mean: ``not_after`` is an expiry
    return frozenset(root(p) for p in parts) | key_meanings(parts)


PREDICATE_WORDS: Final = _set(
    "reach reached reaches hit hits climb climbed peak peaked stay stayed remain "
    "remained show showed shows report reported reports log logged record recorded "
    "observe observed see saw seen return returned run ran measure measured register "
    "registered sit sat hover hovered hold held read reads note noted indicate "
    "indicated list listed mention mentioned state stated say said get got top topped "
    "touch touched went go goes come came become became around approximately roughly "
    "about nearly almost exactly just over under below above least most value level "
    "total currently times stand stood sits achieve achieved achieves obtain obtained "
    "obtains attain attained yield yields yielded perform performs performed performance "
    "outperform outperforms outperformed throw throws threw thrown")
"""Verbs of reporting and measuring, and hedges: "reached", "showed", "stood at", "achieved",
"outperformed", "threw" (an exception: its name is what the claim states), "roughly". A claim
may paraphrase them freely (their roots are ``claims.PREDICATES``)."""

WINDOW: Final = re.compile(r"[0-9]{1,3}[smhdw]")
"""A window a key names: "the 1h burn rate" is ``burn_rate_1h``, "the 5m load" ``load_5m``."""

KEY_SYNONYMS: Final[dict[str, frozenset[str]]] = {
    root(k): frozenset(root(w) for w in v.split()) for k, v in {
        "http": "status code", "status": "http code", "code": "status http",
        "error": "err errors", "errors": "error err",
        "latency": "lat duration p50 p90 p95 p99 p999",
        "connection": "conn connections", "conn": "connection connections",
        "count": "cnt num total", "memory": "mem", "mem": "memory", "cpu": "processor",
        "rate": "pct percent ratio rps qps", "percent": "pct rate ratio",
        "request": "req requests rps qps",
        "restart": "restarts", "disk": "storage", "requests": "req rps qps",
        "throughput": "rps qps", "age": "duration", "ip": "address addr",
        "address": "ip addr", "version": "ver image tag", "severity": "level",
        "usage": "used use util utilization", "use": "used usage util",
        "used": "use usage util", "full": "use used usage util",
        "utilized": "util usage used", "utilised": "util usage used",
        "utilization": "util usage used", "utilisation": "util usage used",
        "replica": "ready available", "replicas": "ready available",
        "expiry": "expires expire expiration expiring", "date": "at on day ts",
        "married": "spouse", "marry": "spouse", "wed": "spouse", "spouse": "married marry wed",
        "served": "service", "serving": "service",
        "free": "avail available", "available": "avail free", "avail": "available free",
        "average": "avg mean", "mean": "avg average", "minimum": "min", "maximum": "max",
        "median": "p50 med", "highest": "max peak", "lowest": "min", "peak": "max",
        "deviation": "mdev stddev dev std", "round-trip": "rtt", "roundtrip": "rtt",
    }.items()}
"""Key words a claim may use for a key: "HTTP 200" names ``status=200``; "the average
round-trip time" names ping's ``rtt avg``."""

PROBLEM_LEVELS: Final = _set("error err fatal critical crit warn warning")
"""Log levels that state a problem: "no errors" against such a line is contradicted."""

MOUNT_KEYS: Final = frozenset(root(k) for k in _set("mounted mount mountpoint target"))
"""Keys whose value is where a filesystem is mounted (df's ``Mounted on``, findmnt's
``TARGET``)."""
ROOT_FS: Final = "root"
"""The name of the filesystem mounted at ``/``: "the root filesystem", "the root volume" name
the row whose mount is ``/``."""
ROOT_FS_NAME: Final = re.compile(
    r"\broot (?:file ?system|fs|partition|volume|disk|mount|device)s?\b", re.IGNORECASE)

WRAPPER_KEYS: Final = frozenset({"text", "result", "results", "content", "output", "outputs",
                                  "message", "body", "data", "value", "response", "stdout"})
"""Keys whose string value is the tool's own text, not a field of a record."""
FALSE_VALUES: Final = frozenset({"false", "no", "0", "none", "null"})
"""A field value saying its key does not hold."""
TRUE_VALUES: Final = frozenset({"true", "yes", "1"})
