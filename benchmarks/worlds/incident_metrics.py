"""Metric rows of a synthetic incident and the sentences that restate their fields.

A :class:`MetricRow` is one host's sample (``host=cache-2 conn_count=133 error_pct=9.9% ...``)
written in one of the row styles of :mod:`benchmarks.worlds.incident_world`. Each field has a
:class:`Metric`: how its value is drawn, and sentence templates where ``{q}`` is the quantity as
the answer writes it (``97.2%``, ``about 97%``, ``1.37 s``). :func:`rounded` and
:func:`converted` give the other true ways to write a value.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import partial
from typing import Final

from benchmarks.worlds.incident_world import (
    METRIC_STYLES,
    Item,
    World,
    metric_fragment,
    metric_row,
)

GROUNDED: Final = "grounded"
UNGROUNDED: Final = "ungrounded"
CONTRADICTED: Final = "contradicted"


@dataclass(frozen=True)
class Said:
    """One sentence of an answer under construction, with its true label."""

    text: str
    label: str
    kind: str
    about: tuple[Item, ...]
    """The items the sentence is about, the one it states a value of first."""
    support: tuple[str, ...]
    """Evidence text, verbatim in ``about``, that the sentence restates or misstates."""
    stated: str
    """The value or phrase of the sentence that carries the claim, verbatim in ``text``."""


@dataclass(frozen=True)
class Metric:
    """One field of a metric row: its values, its unit in an answer and its sentences."""

    draw: Callable[[random.Random], str]
    unit: str
    exact: tuple[str, ...]
    paraphrase: tuple[str, ...]
    round: bool = True


def _pct(rng: random.Random) -> str:
    return f"{rng.uniform(2.0, 99.0):.1f}"


# Paraphrases restate one sample: no trend words ("climbed to", "dropped to"), which need two
# values or a stated change to be grounded.
METRICS: Final[dict[str, Metric]] = {
    "cpu_pct": Metric(_pct, "%", ("CPU on {host} was {q}.", "CPU usage on {host} was {q}."),
                      ("CPU usage on {host} stood at {q}.", "CPU on {host} reached {q}.",
                       "CPU on {host} hit {q}.")),
    "mem_pct": Metric(_pct, "%", ("Memory use on {host} was {q}.",),
                      ("Memory use on {host} came to {q}.", "Memory use on {host} reached {q}.")),
    "disk_used_pct": Metric(_pct, "%", ("Disk usage on {host} was {q}.",),
                            ("Disk usage on {host} reached {q}.",
                             "Disk usage on {host} stood at {q}.")),
    "error_pct": Metric(lambda r: f"{r.uniform(0.2, 30.0):.1f}%", "%",
                        ("The error rate on {host} was {q}.",),
                        ("The error rate on {host} stood at {q}.",
                         "The error rate on {host} hit {q}.")),
    "conn_count": Metric(lambda r: str(r.randint(5, 900)), "",
                         ("The connection count on {host} was {q}.",
                          "Host {host} had {q} open connections."),
                         ("Open connections on {host} stood at {q}.",
                          "Host {host} was holding {q} open connections.")),
    "errors": Metric(lambda r: str(r.randint(2, 900)), "",
                     ("Host {host} logged {q} errors.", "The error count on {host} was {q}."),
                     ("Errors on {host} added up to {q}.", "Host {host} recorded {q} errors.")),
    "p99_latency_ms": Metric(lambda r: str(r.randint(120, 9000)), " ms",
                             ("The p99 latency on {host} was {q}.",),
                             ("The p99 latency on {host} stood at {q}.",
                              "The p99 latency on {host} reached {q}.")),
    "status": Metric(lambda r: r.choice(("200", "200", "500", "502", "503", "429")), "",
                     ("The health check on {host} returned HTTP {q}.",),
                     ("Host {host} answered with status {q}.",), round=False),
    "rps": Metric(lambda r: str(r.randint(20, 5000)), " req/s", ("Throughput on {host} was {q}.",),
                  ("Throughput on {host} reached {q}.",)),
    "gc_pause_ms": Metric(lambda r: str(r.randint(60, 4000)), " ms",
                          ("The longest GC pause on {host} was {q}.",),
                          ("The longest GC pause on {host} lasted {q}.",)),
    "uptime_s": Metric(lambda r: str(60 * r.randint(10, 1440)), " s",
                       ("Host {host} had been up for {q}.",),
                       ("Host {host} had been running for {q}.",), round=False),
    "error_ratio": Metric(lambda r: f"{r.uniform(0.01, 0.6):.3f}", "",
                          ("The error ratio on {host} was {q}.",),
                          ("The error ratio on {host} stood at {q}.",), round=False),
    "disk_free_gb": Metric(lambda r: str(r.randint(2, 500)), " GB",
                           ("Free disk on {host} was {q}.",),
                           ("Free disk on {host} came to {q}.",)),
    "ip": Metric(lambda r: "", "", ("Host {host} has IP address {q}.",),
                 ("Host {host} answers on address {q}.",), round=False),
}
"""Every field a metric row can have."""
NUMERIC: Final = tuple(key for key in METRICS if key != "ip")
CONVERTIBLE: Final = ("p99_latency_ms", "gc_pause_ms", "uptime_s", "error_ratio")


def number(value: str) -> Decimal:
    """The number of a field value (``9.9%`` -> 9.9)."""
    return Decimal(value.rstrip("%"))


def quantity(key: str, value: str) -> str:
    """A field's value as an answer writes it exactly: ``97.2%``, ``4781 ms``, ``133``."""
    return f"{number(value)}{METRICS[key].unit}" if key != "ip" else value


def _nearest(amount: Decimal) -> Decimal:
    if amount < 10 and amount != amount.to_integral_value():
        step = Decimal(1)
    elif amount < 100:
        step = Decimal(1) if amount != amount.to_integral_value() else Decimal(10)
    elif amount < 1000:
        step = Decimal(10)
    else:
        step = Decimal(100)
    return (amount / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step


def is_round(value: str) -> bool:
    """True when rounding leaves the value as it is (``130``, ``97.0``)."""
    return _nearest(number(value)) == number(value)


def rounded(key: str, value: str) -> str:
    """A field's value rounded as people round it: ``about 97%``, ``about 130``."""
    return f"about {_nearest(number(value)):f}{METRICS[key].unit}"


def converted(key: str, value: str, rng: random.Random) -> str:
    """A field's value in another unit: ``1.37 s`` for 1374 ms, ``41.2%`` for 0.412."""
    amount = number(value)
    if key in ("p99_latency_ms", "gc_pause_ms"):
        if rng.random() < 0.3:
            return f"{amount} ms"
        seconds = (amount / 1000).quantize(Decimal("0.01") if amount >= 1000 else Decimal("0.001"),
                                           rounding=ROUND_HALF_UP)
        return f"{seconds} " + rng.choice(("s", "seconds"))
    if key == "uptime_s":
        if amount % 1800 == 0:
            hours = (amount / 3600).normalize()
            return f"{hours:f} " + ("hour" if hours == 1 else "hours")
        return f"{amount / 60:.0f} minutes"
    if key == "error_ratio":
        return f"{(amount * 100).normalize():f}%"
    raise ValueError(f"no other unit for {key!r}; convertible: {', '.join(CONVERTIBLE)}")


@dataclass
class MetricRow:
    """One host's metric sample, as one evidence item."""

    host: str
    fields: dict[str, str]
    style: str
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(metric_row(self.host, self.fields, self.style),
                         "specific_data" if self.style.startswith("wrapped") else None,
                         "metric_" + self.style)

    def fragment(self, key: str) -> str:
        """The field as the row writes it: ``cpu_pct=97.2`` or ``cpu_pct: 97.2``."""
        return metric_fragment(self.style, key, self.fields[key])

    def say(self, key: str, rng: random.Random, *, kind: str, move: str = "exact",
            q: str | None = None, label: str = GROUNDED, template: str | None = None) -> Said:
        """A sentence about field ``key`` of this row.

        ``move`` picks the templates (``exact`` or ``paraphrase``); ``q`` is the quantity
        written (default: the value exactly); ``template`` overrides the templates.
        """
        metric = METRICS[key]
        written = quantity(key, self.fields[key]) if q is None else q
        chosen = template or rng.choice(metric.paraphrase if move == "paraphrase"
                                        else metric.exact)
        text = chosen.format(host=self.host, q=written)
        return Said(text, label, kind, (self.item,),
                    (self.fragment(key), metric_fragment(self.style, "host", self.host)), written)


def make_row(world: World, keys: Sequence[str], *, host: str | None = None,
             style: str | None = None, fixed: dict[str, str] | None = None,
             own: bool = True) -> MetricRow:
    """A row of ``host`` (default: a fresh host of the case) with the fields ``keys``.

    Values come from ``fixed`` or are drawn; no two numeric fields share a value, so a value
    stated for the wrong field is never also right. ``own=False`` makes a distractor row.
    """
    rng = world.rng
    if host is None:
        host = world.own(world.draw_host) if own else world.other(world.draw_host)
    values: dict[str, str] = {}

    def distinct(draw: Callable[[], str]) -> str:
        for _ in range(100):
            value = draw()
            taken = {**(fixed or {}), **values}
            if all(number(value) != number(v) for k, v in taken.items() if k != "ip"):
                break
        return value

    for key in keys:
        if fixed and key in fixed:
            values[key] = fixed[key]
        elif key == "ip":
            values[key] = world.ip() if own else world.other(world.draw_ip)
        elif key != "p50_latency_ms":
            values[key] = distinct(partial(METRICS[key].draw, rng))
    if "p99_latency_ms" in values and "p50_latency_ms" in keys:
        p99 = int(number(values["p99_latency_ms"]))
        values["p50_latency_ms"] = distinct(
            lambda: str(rng.randint(max(20, p99 // 5), max(21, p99 * 3 // 5))))
    return MetricRow(host, values, style or rng.choice(METRIC_STYLES))


def row_fields(rng: random.Random, must: Sequence[str], extra: int) -> list[str]:
    """``must`` plus ``extra`` other numeric fields, in a random order."""
    others = [k for k in NUMERIC if k not in must]
    keys = [*must, *rng.sample(others, extra)]
    rng.shuffle(keys)
    return keys
