"""Units as data: what a number is written in, on either side.

A claim writes ``$402k``, ``19.9 MB/s``, ``380m`` of CPU or ``502s`` for HTTP statuses; a record
keeps ``amount_cents``, ``duration_ms`` or ``CPU(cores) 380m``. Each table here is a row per
unit, read by one mechanism: :func:`reread` gives a claim's values the unit their words say,
:func:`record_anchor` does the same for a record's value by its key, :func:`key_factors` reads a
unit-less number in the unit its key names.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from typing import Final

from gsar_otel.core.anchors import Anchor, AnchorKind

SHORT: Final = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}
"""Multipliers of a number written short (``14.8k``, ``3.2M``, ``$402k``)."""
SCALE_WORDS: Final = {"thousand": "k", "million": "M", "billion": "B"}
"""Words of a number's scale, as the letter a number written short ends in."""
_SCALE_WORD: Final = re.compile(rf"\s+({'|'.join(SCALE_WORDS)})\b", re.IGNORECASE)
SIZE_FACTORS: Final = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 2.0**10,
                       "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40, "ki": 2.0**10,
                       "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40}
"""Bytes per size unit a claim may write."""
BINARY_SIZES: Final = {"kb": "kib", "mb": "mib", "gb": "gib", "tb": "tib"}
"""The binary unit a decimal size is often written for ("8 GB" of a tool's 8191 MiB): a claimed
size holds in either."""
MONEY_UNITS: Final = frozenset({"$", "€", "£", "usd", "eur", "gbp"})
CORES: Final = "cores"
"""CPU is read in cores on both sides (``380m`` is 0.38 cores)."""
UNITS: Final = tomllib.loads(
    resources.files(__package__).joinpath("units.toml").read_text(encoding="utf-8"))
"""The units and measures record keys name (``units.toml``: what each table is for)."""
KEY_UNITS: Final = tuple((frozenset(row["words"]), row["measure"], row["factor"])
                         for row in UNITS["key_units"])
DURATION_KEYS: Final = frozenset(UNITS["duration_keys"])
UNNAMED_DURATION_FACTORS: Final = (1.0, 1e-3, 1e-9)
"""The units a duration under a key naming none may be in: seconds, ms, ns."""
COLUMN_UNITS: Final = tuple((re.compile(row["command"]), frozenset(row["columns"]), row["unit"])
                           for row in UNITS["column_units"])
"""Columns a tool writes in a unit its output does not name (``units.toml``)."""


def column_unit(source: str | None, key: str) -> str | None:
    """The size unit ``source``'s tool writes the column ``key`` in, or None."""
    if not source:
        return None
    return next((unit for command, columns, unit in COLUMN_UNITS
                 if key in columns and command.search(source)), None)
_CPU_WORDS: Final = re.compile(r"\s*(?:of\s+)?(?:cpu|cores?|millicores|vcpu)\b", re.IGNORECASE)
_CPU_COUNT: Final = re.compile(r"\s*(?:v?cpus?|cores?)\b", re.IGNORECASE)
"""What follows a number of cores written bare ("1.5 CPUs", "8 cores")."""
_SPEAKS_OF_CPU: Final = re.compile(r"\b(?:cpu|cores?|millicores|vcpus?)\b", re.IGNORECASE)
"""A claim speaking of CPU writes ``95m`` for millicores, not minutes ("about 95m each")."""
_SPEAKS_OF_SIZE: Final = re.compile(
    r"\b(?:memory|mem|ram|rss|heap|disk|storage|swap)\b|\d\s?(?:[KMGT]i?B|G)\b", re.IGNORECASE)
"""A claim speaking of memory or sizes writes ``702.4M`` for MiB, not millions."""
_RATE: Final = re.compile(r"\s?([KMGT]i?B)/s\b")
_NOT_DURATION: Final = re.compile(
    r"\s+(?:ago|later|earlier|timeout|elapsed|long|left|old|before|after|since|uptime)\b")


def measure_of(anchor: Anchor) -> str:
    """The measure a claim's value is written in: duration, bytes, money, cpu, or ``""``."""
    unit = (anchor.unit or "").lower().split("/")[0]
    if anchor.kind is AnchorKind.DURATION:
        return "duration"
    if unit in SIZE_FACTORS:
        return "bytes"
    if unit in MONEY_UNITS:
        return "money"
    return "cpu" if unit == CORES else ""


KEY_MEASURES: Final = tuple(
    (frozenset(row["words"]) | (DURATION_KEYS if row.get("duration_keys") else frozenset()),
     row["measure"]) for row in UNITS["key_measures"])
RATE_UNITS: Final = frozenset({"req/s", "qps", "rpm", "tps", "iops", "rps"})
_KEY_WORD: Final = re.compile(r"[a-z]+|\d+")


def claim_measure(anchor: Anchor) -> str:
    """The measure a claim's value names by its unit: percent, rate, duration, bytes, cpu, or
    ``""`` (a bare number names none)."""
    unit = (anchor.unit or "").lower()
    if anchor.kind is AnchorKind.PERCENT:
        return "percent"
    if anchor.kind is AnchorKind.DURATION:
        return "duration"
    if unit in RATE_UNITS:
        return "rate"
    if unit == CORES:
        return "cpu"
    return "bytes" if unit.split("/")[0] in SIZE_FACTORS else ""


@lru_cache(maxsize=4096)
def key_measure(key: str | None) -> str:
    """The measure a record's key names for its bare numbers, or ``""`` (cached: a table's
    keys repeat on every row)."""
    if not key:
        return ""
    if "%" in key:  # iostat's "%util", docker's "CPU %"
        return "percent"
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", key).lower()
    words = frozenset(_KEY_WORD.findall(spaced))
    return next((measure for keys, measure in KEY_MEASURES if words & keys), "")


def measures_differ(claim: Anchor, held: Anchor, key: str | None = None) -> bool:
    """True when ``claim`` is written in one measure and ``held`` is a bare number its key (or
    the ``key`` of the record's value holding it) names another of: "97.2 RPS" is no
    ``cpu_pct=97.2``, "41%" no ``latency_ms=41``, "96.5 MB" no ``%util`` 99.60."""
    if held.unit or held.kind is not AnchorKind.NUMBER:
        return False
    asked = claim_measure(claim)
    offered = key_measure(held.key or key) if asked else ""
    return bool(asked and offered and asked != offered)


def key_factors(words: frozenset[str], measure: str) -> tuple[float, ...]:
    """The factors reading a unit-less number under a key of ``words`` in ``measure`` (none
    when the key names another measure). A duration under a key naming a duration but no unit
    may be in seconds, milliseconds or nanoseconds, as tools keep them (Jenkins' ``duration``
    in ms, Docker's ``Healthcheck.Interval`` in ns): each is tried."""
    for keys, unit, factor in KEY_UNITS:
        if words & keys:
            return (factor,) if unit == measure else ()
    if measure == "duration" and words & DURATION_KEYS:
        return UNNAMED_DURATION_FACTORS
    return (1.0,) if measure in ("duration", "bytes", "cpu") else ()


def cores(anchor: Anchor, value: float) -> Anchor:
    """``anchor`` as ``value`` cores (written to the precision of millicores)."""
    return replace(anchor, kind=AnchorKind.NUMBER, text=f"{value:.3f} cores", value=value,
                   unit=CORES, qualifier=anchor.qualifier)


def reread(anchor: Anchor, text: str) -> Anchor:
    """A claim's value in the unit its words say: ``$402k`` is 402,000 dollars, ``19.9 MB/s``
    a size per second, ``380m`` of CPU 0.38 cores, ``502s`` HTTP statuses (not seconds)."""
    after = text[anchor.end:]
    if (anchor.kind is AnchorKind.DURATION and (anchor.unit or "") == "m"
            and isinstance(anchor.value, float)
            and (_CPU_WORDS.match(after)
                 or (_SPEAKS_OF_CPU.search(text) and not _NOT_DURATION.match(after)))):
        return cores(anchor, anchor.value / 60.0 / 1000.0)
    if (anchor.kind is AnchorKind.DURATION and anchor.unit == "s"
            and re.fullmatch(r"[1-5]\d\ds", anchor.text) and not _NOT_DURATION.match(after)):
        number = anchor.text[:-1]
        return Anchor(AnchorKind.HTTP_STATUS, number, number, None, anchor.start,
                      anchor.end, None, None)
    if anchor.kind is not AnchorKind.NUMBER or not isinstance(anchor.value, float):
        return anchor
    if anchor.unit is None and _CPU_COUNT.match(after):
        return replace(anchor, unit=CORES)  # "1.5 CPUs": cores, as written
    rate = _RATE.match(after) if anchor.unit is None else None
    if rate is not None:
        return replace(anchor, text=f"{anchor.text} {rate.group(1)}", unit=rate.group(1).lower(),
                       end=anchor.end + rate.end())
    if anchor.unit in CORE_UNITS:
        return replace(anchor, unit=CORES)  # as written: "6.1 cores" is 6.05 to 6.15
    if (anchor.unit or "") in _LETTER_SIZES:
        return replace(anchor, unit=_BARE_SIZES[anchor.unit or ""])  # "3.21G" of memory
    if (anchor.unit or "") in ("m", "k") and _SPEAKS_OF_SIZE.search(text):
        return replace(anchor, unit=_BARE_SIZES[anchor.unit or ""])  # "702.4M" of memory
    scale = _SCALE_WORD.match(after) if anchor.unit is None else None
    if scale is not None:  # "8.12 billion rows" as "8.12B": at its scale, as written
        written = anchor.text.rstrip() + SCALE_WORDS[scale.group(1).lower()]
        return Anchor(AnchorKind.NUMBER, written, anchor.value * SHORT[written[-1]], None,
                      anchor.start, anchor.end + scale.end(), anchor.key, anchor.qualifier)
    written = anchor.text.rstrip()
    suffix = next((s for s in SHORT if written.endswith(s) and (
        anchor.unit == s.lower() or anchor.unit in MONEY_UNITS)), None)
    if suffix is None:
        return anchor
    value = anchor.value * SHORT[suffix]
    unit = anchor.unit if anchor.unit in MONEY_UNITS else None
    # as written, at its scale: "$193.6k" is 193,550 to 193,650
    return Anchor(AnchorKind.NUMBER, written, value, unit, anchor.start, anchor.end,
                  anchor.key, anchor.qualifier)


CORE_UNITS: Final = frozenset({"core", "cores", "cpu", "cpus", "vcpu", "vcpus"})
_MILLICORES: Final = re.compile(r"(\d+(?:\.\d+)?)m")


_SIZE_KEYS: Final = frozenset({"memory", "mem", "rss", "heap", "size", "disk", "storage",
                               "bytes", "swap", "cache", "buffer", "volume", "limit", "request"})
_BARE_SIZES: Final = {"k": "kib", "m": "mib", "g": "gib", "t": "tib"}
"""A size written with a bare letter under a size key (systemd's ``Memory: 1.1G``)."""
_LETTER_SIZES: Final = frozenset({"g", "t"})
"""Letters that write a size wherever they stand (``3.21G``, as Redis, ``free -h`` and systemd
write GiB); ``k`` and ``m`` also write thousands, millions and minutes."""


def record_anchor(key_words: frozenset[str], raw: str, anchor: Anchor) -> Anchor:
    """A record's value in the unit its key says: ``380m`` under a CPU key is 0.38 cores,
    ``1.1G`` under a memory key 1.1 GiB."""
    if key_words & {"cpu", "cores", "millicores"}:
        milli = _MILLICORES.fullmatch(raw.strip())
        if milli is not None:
            return cores(anchor, float(milli.group(1)) / 1000.0)
    if anchor.kind is AnchorKind.NUMBER and (
            (key_words & _SIZE_KEYS and (anchor.unit or "") in _BARE_SIZES)
            or (anchor.unit or "") in _LETTER_SIZES):
        return replace(anchor, unit=_BARE_SIZES[anchor.unit or ""])
    return anchor
