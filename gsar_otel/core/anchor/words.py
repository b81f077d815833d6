"""The words typed anchors are read with: months, units, zones, qualifiers, the words that
make a number an HTTP status, a port or a host, Kubernetes object kinds (``pod/web-1``) and
event counts (``x4 over 10m``). Data only, and the lookups over it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Final

MONTHS: Final[Mapping[str, int]] = {
    name: number
    for number, names in enumerate((
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
        ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
        ("october", "oct"), ("november", "nov"), ("december", "dec")), start=1)
    for name in names
}

TIME_UNIT_WORDS: Final[Mapping[str, str]] = {
    "ns": "0.000000001", "nanosecond": "0.000000001", "nanoseconds": "0.000000001",
    "us": "0.000001", "µs": "0.000001", "μs": "0.000001", "microsecond": "0.000001",
    "microseconds": "0.000001", "ms": "0.001", "msec": "0.001", "msecs": "0.001",
    "millisecond": "0.001", "milliseconds": "0.001", "s": "1", "sec": "1", "secs": "1",
    "second": "1", "seconds": "1", "min": "60", "mins": "60", "minute": "60", "minutes": "60",
    "h": "3600", "hr": "3600", "hrs": "3600", "hour": "3600", "hours": "3600", "day": "86400",
    "days": "86400", "week": "604800", "weeks": "604800", "wk": "604800", "wks": "604800",
}
SECONDS_PER_UNIT: Final[Mapping[str, Decimal]] = {
    **{word: Decimal(factor) for word, factor in TIME_UNIT_WORDS.items()},
    "m": Decimal(60), "d": Decimal(86400), "w": Decimal(604800),
}
"""Seconds in one time unit. ``m`` and ``d`` count only in lower case and glued to the number
(``5m``, ``7d``); ``5M`` is five million and ``3D`` is not three days."""

_CANONICAL_UNITS: Final[Mapping[str, str]] = {
    "bytes": "b", "byte": "b", "kilobytes": "kb", "megabytes": "mb", "gigabytes": "gb",
    "terabytes": "tb", "rps": "req/s", "reqs/s": "req/s", "requests/s": "req/s",
    "req/sec": "req/s", "requests/sec": "req/s", "op/s": "ops/s", "/sec": "/s",
}
_SPACED_UNITS: Final = frozenset({
    "bytes", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "tib", "pb", "kbps", "mbps",
    "gbps", "rps", "qps", "tps", "iops", "req/s", "reqs/s", "requests/s", "req/sec", "ops/s",
    "op/s", "rpm", "cores", "vcpu", "vcpus",
})
"""Units recognised after a space (``3.5 GB``, ``12 RPS``); glued units may be any short word."""
_RATE_UNITS: Final = frozenset({"req/s", "qps", "tps", "ops/s", "/s", "iops"})
PERCENT_WORDS: Final = frozenset({"%", "percent", "pct"})

ZONES: Final[Mapping[str, int]] = {
    "utc": 0, "gmt": 0, "z": 0, "cet": 60, "cest": 120, "bst": 60, "eet": 120, "eest": 180,
    "ist": 330, "jst": 540, "aest": 600, "est": -300, "edt": -240, "cst": -360, "cdt": -300,
    "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
}
"""Minutes east of UTC for the zone names a time may carry."""

QUALIFIERS: Final[Mapping[str, str]] = {
    "about": "about", "around": "about", "approximately": "about", "approx": "about",
    "roughly": "about", "circa": "about", "ca": "about", "some": "about", "~": "about",
    "≈": "about", "nearly": "nearly", "almost": "nearly", "over": "over", "above": "over",
    "exceeding": "over", ">": "over", "under": "under", "below": "under", "<": "under",
    ">=": "at_least", "≥": "at_least", "<=": "at_most", "≤": "at_most",
}
QUALIFIER_PAIRS: Final[Mapping[tuple[str, str], str]] = {
    ("more", "than"): "over", ("greater", "than"): "over", ("higher", "than"): "over",
    ("less", "than"): "under", ("fewer", "than"): "under", ("lower", "than"): "under",
    ("at", "least"): "at_least", ("at", "most"): "at_most", ("up", "to"): "at_most",
}
HTTP_BEFORE: Final = frozenset({"http", "https", "status", "code", "error"})
HTTP_AFTER: Final = frozenset({"error", "errors", "status", "response", "responses", "code",
                               "codes"})
HOST_WORDS: Final = frozenset({
    "db", "web", "api", "app", "cache", "edge", "lb", "node", "worker", "srv", "server", "host",
    "redis", "kafka", "pg", "mysql", "proxy", "gw", "gateway", "ingress", "nginx", "broker",
    "vm", "pod", "k8s", "etcd", "replica", "primary", "shard", "front", "backend", "mongo",
})
HOST_SUFFIXES: Final = frozenset({
    "internal", "local", "lan", "com", "net", "org", "io", "svc", "cluster", "corp", "cloud",
    "dev", "prod", "example", "intra", "localdomain", "test",
})
HOST_KEYS: Final = frozenset({"host", "hostname", "node", "instance", "server", "pod", "upstream",
                              "backend"})
PRERELEASE: Final = re.compile(r"(?:alpha|beta|rc|dev|pre|snapshot|final|lts)\d{0,6}",
                               re.IGNORECASE)
"""A version suffix that makes ``2.3-rc1`` a version (``3.45-mile`` stays a number)."""

FUNCTION_WORDS: Final = frozenset({
    "on", "in", "at", "the", "a", "an", "for", "by", "from", "to", "of", "and", "but", "with",
    "after", "before", "during", "since", "until", "as", "if", "when", "while", "this", "that",
    "these", "those", "it", "its", "his", "her", "their", "our", "we", "he", "she", "they",
})
"""Capitalised words that start a sentence or a line, not a name ("On May 11")."""
ZONE_WORDS: Final = frozenset({"UTC", "GMT", "Z", "CET", "CEST", "BST", "EET", "EEST", "IST",
                               "JST", "AEST", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST",
                               "PDT", "utc", "gmt"})
"""Zone names read after a clock time; only UTC and GMT also in lower case."""
AM_PM: Final = frozenset({"am", "pm", "a.m", "p.m"})
PER_UNITS: Final[Mapping[str, str]] = {"second": "/s", "sec": "/s", "s": "/s", "minute": "/min",
                                       "min": "/min", "hour": "/h"}
"""Units written as ``per second`` after a number."""

_ZONE_OFFSET: Final = re.compile(r"([+-])(\d{2}):?(\d{2})?")

OBJECT_KINDS: Final = frozenset({
    "pod", "pods", "po", "node", "nodes", "deployment", "deployments", "deploy", "replicaset",
    "replicasets", "rs", "statefulset", "statefulsets", "sts", "daemonset", "daemonsets", "ds",
    "job", "jobs", "cronjob", "cronjobs", "cj", "service", "services", "svc", "ingress",
    "ingresses", "ing", "namespace", "namespaces", "ns", "configmap", "configmaps", "cm",
    "secret", "secrets", "persistentvolumeclaim", "pvc", "persistentvolume", "pv",
    "horizontalpodautoscaler", "hpa", "endpoints", "endpointslice", "serviceaccount", "sa",
    "poddisruptionbudget", "pdb", "networkpolicy", "netpol", "lease",
})
"""Kubernetes object kinds as written before a name (``pod/web-1``, ``svc/api``,
``deployment.apps/checkout``): full, plural and short forms."""
COUNT_WORDS: Final = frozenset({"time", "times", "occurrences", "events", "restarts"})
"""Words that count occurrences: ``over`` after them spans a window ("4 times over 10
minutes"), it does not mean "more than"."""
_EVENT_COUNT: Final = re.compile(r"[xX×](\d{1,9})")
_DOTTED_HOST: Final = re.compile(r"[a-z0-9][a-z0-9\-]{0,62}(?:\.[a-z0-9\-]{1,63}){1,8}")


def canonical_unit(unit: str) -> str:
    """A unit in one spelling: ``GB`` -> ``gb``, ``RPS`` -> ``req/s``."""
    unit = unit.lower()
    return _CANONICAL_UNITS.get(unit, unit)


def unit_dimension(unit: str) -> str:
    """What a unit measures, for compatibility: request, query and operation rates are one."""
    return "/s" if unit in _RATE_UNITS else unit


def is_spaced_unit(word: str) -> bool:
    """True when ``word`` is a unit written apart from its number (``GB``, ``ms``, ``%``)."""
    return word in _SPACED_UNITS or word in TIME_UNIT_WORDS or word in PERCENT_WORDS


def zone_offset(zone: str) -> int | None:
    """Minutes east of UTC of a zone name (``UTC``, ``CEST``) or offset (``+02:00``)."""
    named = ZONES.get(zone.lower())
    if named is not None:
        return named
    match = _ZONE_OFFSET.fullmatch(zone)
    if not match:
        return None
    minutes = int(match.group(2)) * 60 + int(match.group(3) or 0)
    return -minutes if match.group(1) == "-" else minutes


def object_name_at(token: str) -> int:
    """Where the name starts in a ``kind/name`` object reference (``pod/web-1`` -> 4), or 0
    when ``token`` is none: the kind, before any API group (``deployment.apps``), must be a
    Kubernetes kind and the name one non-empty path part."""
    slash = token.find("/")
    if slash <= 0 or slash == len(token) - 1 or token.find("/", slash + 1) >= 0:
        return 0
    return slash + 1 if token[:slash].split(".", 1)[0].lower() in OBJECT_KINDS else 0


def event_count(token: str) -> int | None:
    """The count of an event seen several times, as ``kubectl`` writes it (``x4`` in ``(x4
    over 10m)``), or None."""
    match = _EVENT_COUNT.fullmatch(token)
    return int(match.group(1)) if match else None


def counts(word: str) -> bool:
    """True when ``word`` counts occurrences (``times``, ``x4``): a following ``over`` starts
    the window they were counted in."""
    return word in COUNT_WORDS or event_count(word) is not None


def looks_like_host(token: str) -> bool:
    """True when ``token`` names a host: a dotted name (``db-1.example.com``, ``api.internal``)
    or a lower-case hyphenated name with a number (``edge-lb-3``, ``db-1``)."""
    if "." in token:
        lowered = token.lower()
        if not _DOTTED_HOST.fullmatch(lowered):
            return False
        labels = lowered.split(".")
        last = labels[-1]
        if not (last.isalpha() and len(last) >= 2 and len(labels[0]) >= 2):
            return False
        return (len(labels) > 2 or last in HOST_SUFFIXES
                or "-" in lowered or any(map(str.isdigit, lowered)))
    if token != token.lower() or "-" not in token or "_" in token:
        return False
    parts = token.split("-")
    if not any(map(str.isdigit, token)) or not all(parts):
        return False
    if len(parts) > 2:
        return True
    return parts[0] in HOST_WORDS and parts[1].isdigit()
