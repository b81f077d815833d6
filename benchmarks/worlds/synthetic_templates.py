"""Phrasing for the synthetic incident cases (:mod:`benchmarks.worlds.synthetic`).

A :class:`Fact` is one value the evidence states about a subject (a host, a service, a queue); an
:class:`Event` is one logged occurrence; a :class:`Cause` is a candidate explanation some evidence
item shows. The functions here turn them into answer sentences that restate the value (exactly,
rounded, in another unit), contradict it (another value of the same kind for the same subject) or
invent a new fact. Every sentence is one claim.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

NUMERIC_KINDS: Final = ("percent", "rate", "ms", "gb", "rps", "count")
"""Fact kinds whose value is a number a sentence may round or convert."""
CONTRADICTABLE_KINDS: Final = (*NUMERIC_KINDS, "time", "date", "duration", "version", "status",
                               "address", "ident")
"""Kinds with one value per subject, so another value of the kind contradicts the evidence."""
_UNIT: Final = {"percent": "%", "rate": "%", "ms": " ms", "gb": " GB", "rps": " req/s",
                "count": ""}
_ABOUT: Final = ("about", "around", "roughly")
_MONTHS: Final = ("January", "February", "March", "April", "May", "June", "July", "August",
                  "September", "October", "November", "December")


@dataclass(frozen=True, slots=True)
class Fact:
    """One value the evidence states about a subject."""

    subject: str
    """The host, service or queue the value belongs to, as the evidence writes it."""
    what: str
    """What the value is, as a bare noun phrase (``5xx rate``, ``HighErrorRate alert``)."""
    kind: str
    """percent | rate | ms | gb | rps | count | time | date | duration | version | status |
    address | ident | quoted (``rate`` is a fraction the evidence writes as ``0.412``)."""
    text: str
    """The value as the evidence writes it."""
    source: str
    """The GSAR evidence type of the item: tool_match, signal_match or specific_data."""
    number: float | None = None
    at: str | None = None
    """The clock time (``HH:MM:SS``, UTC) of the metric row the value comes from, if any."""
    family: str = ""
    """The metric key; facts of one family on different subjects can be swapped."""


@dataclass(frozen=True, slots=True)
class Event:
    """One logged occurrence, with the phrases an answer uses for it."""

    active: str
    """``deploy-bot pushed cfg-7781 to edge-lb-3``."""
    passive: str
    """``cfg-7781 was pushed to edge-lb-3``."""
    negated: str
    """``cfg-7781 was never pushed to edge-lb-3``."""
    at: str
    source: str = "tool_match"


@dataclass(frozen=True, slots=True)
class Cause:
    """A candidate cause some evidence item shows (it happened; nothing says it caused anything)."""

    specific: tuple[str, ...]
    """Noun phrases naming it by an anchor of the evidence (``the push of cfg-7781``)."""
    generic: tuple[str, ...] = ()
    """Noun phrases without an anchor (``a config push``)."""
    statement: str = ""
    """How a root-cause line of the evidence words it."""


def cap(text: str) -> str:
    """Capitalise a sentence unless it starts with a name (a word with a digit or a hyphen)."""
    first = text.split(" ", 1)[0]
    if re.search(r"[\d\-\[\"]", first) or not first[:1].islower():
        return text
    return text[0].upper() + text[1:]


def article(phrase: str) -> str:
    """``a``/``an`` and the phrase."""
    return ("an " if phrase[:1].lower() in "aeio" else "a ") + phrase


def fmt(value: float) -> str:
    """A number with at most three decimals and no trailing zeros."""
    return f"{value:.3f}".rstrip("0").rstrip(".")


def round_half_up(value: float, places: int = 0) -> str:
    """Round as people do (47.5 -> 48), not as :func:`round` does (47.5 -> 48, 46.5 -> 46)."""
    return str(Decimal(fmt(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def shown_value(fact: Fact) -> float:
    """The number a sentence talks about (a rate in percent)."""
    assert fact.number is not None
    return fact.number * 100 if fact.kind == "rate" else fact.number


def with_unit(kind: str, value: float) -> str:
    """A number with the unit of its kind (``41.2%``, ``850 ms``, ``3.1 GB``)."""
    return fmt(value) + _UNIT[kind]


def clock_display(clock: str, rng: random.Random) -> str:
    """A clock time ``HH:MM:SS`` as an answer writes it: with or without zone or seconds."""
    return rng.choice((f"{clock} UTC", clock, f"{clock[:5]} UTC",
                       f"{rng.choice(_ABOUT)} {clock[:5]}"))


def _date_display(text: str, rng: random.Random) -> str:
    day = date.fromisoformat(text)
    return rng.choice((text, f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"))


def _duration_text(seconds: int, style: str) -> str:
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if style == "words":
        parts = [(hours, "hour"), (minutes, "minute"), (secs, "second")]
        return " ".join(f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def duration_seconds(text: str) -> int:
    """Seconds of a ``1h05m`` / ``3m20s`` / ``14s`` duration."""
    units = {"h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([hms])", text))


def true_display(fact: Fact, rng: random.Random) -> tuple[str, str]:
    """The fact's value as a faithful answer writes it, and how (exact | rounded | unit)."""
    if fact.kind in NUMERIC_KINDS:
        value = shown_value(fact)
        options = [(with_unit(fact.kind, value), "unit" if fact.kind == "rate" else "exact")]
        if fact.kind == "ms":
            options.append((f"{fmt(value)}ms", "exact"))
            if value >= 1000 and value % 10 == 0:
                options.append((f"{fmt(value / 1000)} s", "unit"))
        if fact.kind == "rps":
            options.append((f"{fmt(value)} requests per second", "exact"))
        rounded = round_half_up(value)
        if fact.kind in ("percent", "rate", "gb") and value >= 10 and rounded != fmt(value):
            options.append((f"{rng.choice(_ABOUT)} {rounded}{_UNIT[fact.kind]}", "rounded"))
        return rng.choice(options)
    if fact.kind == "time":
        shown = clock_display(fact.text, rng)
        return shown, "exact" if shown[:8] == fact.text else "rounded"
    if fact.kind == "date":
        shown = _date_display(fact.text, rng)
        return shown, "exact" if shown == fact.text else "unit"
    if fact.kind == "duration":
        style = rng.choice(("compact", "words"))
        return _duration_text(duration_seconds(fact.text), style), "exact"
    if fact.kind == "version" and rng.random() < 0.3:
        return fact.text.removeprefix("v"), "exact"
    return fact.text, "exact"


def _wrong_number(fact: Fact, rng: random.Random) -> str:
    value = shown_value(fact)
    places = (2 if value < 1 else 1) if fact.kind in ("percent", "rate", "gb") else 0
    for _ in range(50):
        if value == 0:
            candidate = float(rng.randint(35, 95))
        elif fact.kind == "count" and value < 40:
            candidate = value + rng.choice((-3, -2, 2, 3, 5, 8, 12))
        else:
            candidate = float(round_half_up(
                value * rng.choice((0.35, 0.5, 0.65, 1.5, 1.8, 2.4)), places))
        if candidate <= 0 or (fact.kind in ("percent", "rate") and candidate >= 100):
            continue
        if abs(candidate - value) >= max(0.2 * value, min(1.0, 0.5 * value)):
            return with_unit(fact.kind, candidate)
    raise AssertionError(f"no wrong value for {fact}")  # unreachable with the factors above


def wrong_display(fact: Fact, rng: random.Random) -> str | None:
    """Another value of the fact's kind, clearly not the evidence's; None if the kind has none."""
    if fact.kind in NUMERIC_KINDS:
        return _wrong_number(fact, rng)
    if fact.kind == "time":
        hours, minutes, seconds = (int(p) for p in fact.text.split(":"))
        shifted = (hours * 60 + minutes + rng.choice((-25, -14, -9, 6, 11, 19, 32))) % (24 * 60)
        return clock_display(f"{shifted // 60:02d}:{shifted % 60:02d}:{seconds:02d}", rng)
    if fact.kind == "date":
        day = date.fromisoformat(fact.text) + timedelta(days=rng.choice((-20, -9, -3, 4, 11, 30)))
        return _date_display(day.isoformat(), rng)
    if fact.kind == "duration":
        seconds = duration_seconds(fact.text)
        return _duration_text(max(1, int(seconds * rng.choice((0.3, 0.5, 2.0, 3.0)))), "compact")
    if fact.kind == "version":
        major, minor, patch = (int(p) for p in fact.text.removeprefix("v").split("."))
        bumped = rng.choice(((major, minor, patch + 1), (major, minor + 1, 0),
                             (major, max(0, minor - 1), patch + 2), (major + 1, 0, 0)))
        return "v" + ".".join(str(p) for p in bumped)
    if fact.kind == "status":
        return rng.choice([c for c in ("500", "502", "503", "504", "429", "404") if c != fact.text])
    if fact.kind in ("address", "ident"):
        return re.sub(r"(\d)(\D*)$", lambda m: f"{(int(m[1]) + rng.randint(1, 8)) % 10}{m[2]}",
                      fact.text)
    return None


_NUMERIC_FORMS: Final = (
    ("The {W} on {S} reached {V}.", False),
    ("{V} was the {W} on {S}.", False),
    ("{S} saw {A} of {V} at {T}.", True),
    ("The {W} on {S} was measured at {V}.", False),
    ("{S} reported {A} of {V}.", False),
    ("At {T}, the {W} on {S} stood at {V}.", True),
    ("{A} of {V} was recorded on {S}.", False),
)
_FORMS: Final = {
    "field": ("The {W} of {S} was {V}.", "{V} was the {W} of {S}.", "For {S}, the {W} was {V}."),
    "amount": ("The {W} of {S} was {V}.", "{V} was the {W} of {S}.", "{S} had {A} of {V}.",
               "For {S}, the {W} was {V}."),
    "time": ("The {W} for {S} fired at {V}.", "The {W} started firing for {S} at {V}.",
             "At {V}, the {W} fired for {S}.", "The {W} for {S} has been firing since {V}."),
    "version": ("{S} was running {V}.", "The deployed version of {S} was {V}.",
                "{V} was the version running on {S}."),
    "status": ("{S} returned HTTP {V}.", "Requests to {S} failed with status {V}.",
               "The status code from {S} was {V}."),
    "address": ("{S} was reachable at {V}.", "The address of {S} was {V}.",
                "{S} listened on {V}."),
    "quoted": ('{S} logged the error "{V}".', 'The error logged on {S} was "{V}".',
               'An error reading "{V}" appeared on {S}.'),
}


def fact_sentence(fact: Fact, value: str, rng: random.Random, *, subject: str | None = None,
                  timed: bool = True) -> str:
    """One sentence stating that ``subject`` (default the fact's) has ``value`` for the fact."""
    fill = {"S": subject or fact.subject, "W": fact.what, "A": article(fact.what), "V": value,
            "T": rng.choice((f"{fact.at} UTC", fact.at, f"{fact.at[:5]} UTC")) if fact.at else ""}
    if fact.kind in NUMERIC_KINDS and fact.at:
        forms = [form for form, needs_time in _NUMERIC_FORMS if timed or not needs_time]
    elif fact.kind in NUMERIC_KINDS:
        forms = list(_FORMS["amount"])
    else:
        forms = list(_FORMS.get(fact.kind, _FORMS["field"]))
    return cap(rng.choice(forms).format(**fill))


def event_sentence(event: Event, rng: random.Random, *, when: str | None = None) -> str:
    """The event restated, at ``when`` (default the logged time, in some rendering)."""
    at = when or clock_display(event.at, rng)
    forms = [f"{event.active} at {at}.", f"{event.passive} at {at}.", f"At {at}, {event.active}."]
    return cap(rng.choice(forms if when else [*forms, f"{event.active}."]))


_CAUSAL_FORMS: Final = (
    "The {E} was caused by {C}.",
    "{C} caused the {E}.",
    "So the root cause of the {E} was {C}.",
    "{C} was the root cause of the {E}.",
    "{C} led to the {E}.",
    "The {E} was triggered by {C}.",
    "The root cause was {C}.",
)
SEED_SENTENCE: Final = "The outage was caused by a config push."
"""The seed case: a push thirty seconds before an outage alert does not show the push caused it."""


def causal_sentence(cause: str, effect: str, rng: random.Random, *,
                    root_only: bool = False) -> str:
    """A sentence saying ``cause`` caused ``effect`` (a conclusion claim); with ``root_only``
    one that names it *the root cause*, so it conflicts with any other stated root cause."""
    forms = [f for f in _CAUSAL_FORMS if "root cause" in f] if root_only else _CAUSAL_FORMS
    return cap(rng.choice(forms).format(C=cause, E=effect))


def overreach_sentence(effect: str, rng: random.Random) -> str:
    """A non-causal conclusion no incident evidence here supports."""
    return rng.choice((
        "The incident is now resolved.",
        f"No customers were affected by the {effect}.",
        f"The {effect} will not happen again.",
        f"The {effect} is fully mitigated.",
    ))


UNSEEN_METRICS: Final = (
    ("packet loss", "percent"), ("GC pause time", "ms"), ("swap usage", "gb"),
    ("open file descriptor count", "count"), ("TCP retransmit rate", "percent"),
)
"""Metrics no scenario's evidence has: any value of one is a new, unsupported fact."""
